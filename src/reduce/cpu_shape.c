/*
 * cpu_shape.c: the auto path's shape for CPU devices (cl/reduce/cpu.cl): one
 * launch of a few work-items that each fold a contiguous chunk with wide
 * vectors and several accumulators, then one work-item folds their values
 * pairwise.
 */
#include "path.h"

/* The CPU shape's launch: work-items, each folding `chunk` elements. */
struct cpu_launch {
    unsigned vec;            /* lanes per accumulator vector */
    unsigned accs;           /* accumulators per work-item */
    size_t work_items;
    size_t chunk;
};

/*
 * Lanes of the device's preferred vector of `lane` (what the kernel adds
 * in: the accumulator's scalar, or int for 8- and 16-bit sums), as a power
 * of two from 2 to 16. A device that prefers none gets 64 bytes' worth (one
 * AVX-512 register, two AVX2 ones). cpu_lanes (CLFOLD_CPU_LANES) replaces the choice,
 * so that tests take an AVX2 host's widths on an AVX-512 one and back.
 */
static unsigned preferred_lanes(const clfold_context *ctx, const struct type_info *lane)
{
    const struct device_caps *caps = &ctx->caps;
    if (ctx->settings.cpu_lanes != CLFOLD_PARAM_AUTO)
        return (unsigned)ctx->settings.cpu_lanes;
    unsigned size_log2 = lane->size == 1 ? 0 : lane->size == 2 ? 1 : lane->size == 4 ? 2 : 3;
    cl_uint wanted = lane->float_bits == 32   ? caps->preferred_float_lanes
                   : lane->float_bits == 64   ? caps->preferred_double_lanes
                   : lane->float_bits == 0    ? caps->preferred_int_lanes[size_log2]
                                              : 0; /* half: POCL and NVIDIA prefer none */
    if (wanted < 2)
        wanted = 64 / (cl_uint)lane->size;
    unsigned lanes = 2;
    while (lanes < 16 && lanes * 2 <= wanted)
        lanes *= 2;
    return lanes;
}

/*
 * Four streams, so that four additions are in flight; eight for float sums
 * at the default accuracy, whose blocks of eight vectors add in under the
 * time of their loads, so that more lines are fetched at once (POCL 3.1,
 * 2^26 floats: 5.27-5.34 ms in eight, 5.59-5.68 in four; sixteen streams
 * spill registers; bench/results/kernel-choices-pocl3.txt). int32 and double sums
 * take the same time in either.
 */
unsigned cpu_streams(const struct build_config *config)
{
    const struct accumulator *acc = &config->acc;
    return op_fold(config->op) == FOLD_ADD && acc->run_carry && acc->scalar == CLFOLD_FLOAT && !acc->exact
               ? 8
               : 4;
}

/*
 * The device's preferred vectors, cpu_streams' accumulators. Enough
 * work-items to keep every compute unit busy four times over, none with
 * fewer than 64 Ki values, so that a chunk streams well past the cost of a
 * launch.
 */
static struct cpu_launch cpu_launch(const clfold_context *ctx, size_t count,
                                    const struct type_info *lane, unsigned streams)
{
    struct cpu_launch launch = {.vec = preferred_lanes(ctx, lane), .accs = streams};
    size_t lanes = (size_t)launch.vec * launch.accs;
    size_t most = 4 * (size_t)ctx->caps.compute_units;
    size_t wanted = divide_up(count, (size_t)64 * 1024);
    launch.work_items = wanted < 1 ? 1 : wanted > most ? most : wanted;
    /* Whole blocks of the kernel's streams (16 vectors per block at most): only the last work-item has a tail. */
    size_t block = lanes * 16;
    launch.chunk = divide_up(divide_up(count, launch.work_items), block) * block;
    launch.work_items = divide_up(count, launch.chunk);
    return launch;
}

/*
 * No work-groups to size: one work-item a group, whatever block was asked
 * for. Its exact sums add in double lanes first (cpu.cl); argmin and argmax
 * run cpu_arg.cl's kernels of the same names.
 */
clfold_status cpu_shape(clfold_context *ctx, size_t block, struct job *job)
{
    (void)block;
    job->block = 1;
    job->config.source = cpu_source(&job->config);
    if (job->config.acc.exact && !ctx->caps.has_fp64)
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                    "the CPU shape's exact sums add in doubles, and device %s has no cl_khr_fp64",
                    ctx->caps.name);
    return CLFOLD_SUCCESS;
}

/* The path's argument: the elements each work-item folds. */
clfold_status cpu_bind(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                       const struct fold *fold, const struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    (void)fold;
    CHECK(kernel_arg(ctx, kernel, job->params, "chunk", sizeof pass->extra, &pass->extra));
cleanup:
    return status;
}

void cpu_defines(const struct cpu_knobs *knobs, struct path_defines *defines)
{
    path_define(defines, DEFINE_HEAD, " -DVEC=%u -DACCS=%u", knobs->vec, knobs->accs);
    if (knobs->prefetch != 0)
        path_define(defines, DEFINE_HEAD, " -DPREFETCH=%u", knobs->prefetch);
    if (knobs->small_int_sum)
        path_define(defines, DEFINE_HEAD, " -DSMALL_INT_SUM=1");
    if (knobs->segmented)
        path_define(defines, DEFINE_HEAD, " -DSEGMENTED=1");
    if (knobs->col_vectors != 0)
        path_define(defines, DEFINE_HEAD, " -DCOL_VECTORS=%u", knobs->col_vectors);
}

const char *cpu_source(const struct build_config *config)
{
    return config->acc.arg ? "reduce/cpu_arg.cl" : "reduce/cpu.cl";
}

/*
 * What a lane holds: 32-bit sums of small integers, an exact sum's doubles,
 * an arg's keys (cpu_arg.cl: 32 bits for elements of 32 bits or less).
 */
static const struct type_info *lane_type(const struct build_config *config, bool small_int_sum)
{
    clfold_type lane = small_int_sum     ? CLFOLD_INT32
                     : config->acc.exact ? CLFOLD_DOUBLE
                     : !config->acc.arg  ? config->acc.scalar
                     : type_info(config->in)->size <= 4 ? CLFOLD_UINT32
                                                        : CLFOLD_UINT64;
    return type_info(lane);
}

unsigned cpu_lanes(const clfold_context *ctx, const struct build_config *config,
                   bool small_int_sum)
{
    return preferred_lanes(ctx, lane_type(config, small_int_sum));
}

/*
 * One launch of the work-items, each leaving its chunk's value; then, if
 * there are several, one work-item folds them pairwise (cl/reduce/values.cl).
 */
clfold_status cpu_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                      struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    const struct build_config *first = &job->config;
    size_t acc_size = accumulator_size(&first->acc);
    bool small_int_sum = sums_small_integers(first);
    struct cpu_launch shape =
        cpu_launch(ctx, fold->count, lane_type(first, small_int_sum), cpu_streams(first));
    struct build_config config = *first;
    struct cpu_knobs knobs = {.vec = shape.vec, .accs = shape.accs, .small_int_sum = small_int_sum};
    bool one = shape.work_items == 1;

    cpu_defines(&knobs, &config.defines);
    if (!one)
        CHECK(scratch_partials(ctx, fold->scratch, 0, shape.work_items * acc_size));
    struct pass pass = {&config, fold->in, fold->offset, fold->count,
                        one ? NULL : fold->scratch->partials[0], shape.work_items, shape.chunk, one,
                        0};
    CHECK(pass_launch(ctx, job, fold, &pass, shape.work_items, 1, log));
    if (!one)
        CHECK(values_launch(ctx, job, fold, fold->scratch->partials[0], 0, shape.work_items, log));
cleanup:
    return status;
}

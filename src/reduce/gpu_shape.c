/*
 * gpu_shape.c: the auto path's shape for GPUs (cl/reduce/gpu.cl): a fixed grid of
 * work-items that each keep several 16-byte loads in flight, one partial
 * value a group, and on NVIDIA one launch in which the last group folds
 * the partials.
 */
#include "path.h"

/* The one-launch kernel's parameters: the GPU shape's, then its groups' values and their ticket. */
static kernel_params ONE_LAUNCH_KERNEL = {FOLD_PARAMS, "head", "partials", "tickets", NULL};

/*
 * 16 bytes a load where the device's buffers start on a 16-byte boundary
 * (the kernel aligns the rest itself); else one element.
 */
static unsigned gpu_vector(const clfold_context *ctx, clfold_type in)
{
    size_t size = type_info(in)->size;
    if (ctx->caps.base_align_bytes < 16 || size >= 16)
        return 1;
    return (unsigned)(16 / size);
}

/* The GPU shape's geometry. */
struct gpu_tuning {
    unsigned block;            /* work-items a group, a power of two */
    unsigned groups_per_unit;  /* work-groups a compute unit */
    unsigned unroll;           /* 16-byte loads in flight a work-item */
    unsigned single_kib;       /* arrays of at most this many KiB take one group */
};

/*
 * The geometry, by what a work-item's run holds (measured on the H100,
 * bench/results/exact-h100.txt). By default 512 work-items a group and
 * four groups a compute unit (2048 threads fill a Hopper SM), four 16-byte
 * loads in flight each; arrays of at most 256 KiB in one launch of one
 * group, since a second launch costs more than one compute unit takes to
 * read them.
 */
static const struct gpu_tuning PLAIN_TUNING = {512, 4, 4, 256};
/*
 * Exact sums of halves and floats: two groups a compute unit, and one group
 * only up to 32 KiB, because each of their elements costs more than a plain
 * one's (H100, 2^16 floats: 0.0116 ms in 8 groups, 0.0176 in one; 2^22
 * floats: 0.0161 ms in two groups a unit, 0.0192 in four;
 * bench/results/exact-h100.txt).
 */
static const struct gpu_tuning EXACT_TUNING = {512, 2, 4, 32};
/*
 * Exact double sums: one group a compute unit, eight loads in flight each.
 * Their work-items hold 35-word states and end with a fold of them; fewer,
 * longer runs pay that less often (H100, 2^27 doubles: 0.389 ms, against
 * 0.460 with four groups a unit and four loads;
 * bench/results/exact-h100.txt).
 */
static const struct gpu_tuning EXACT_DOUBLE_TUNING = {512, 1, 8, 256};

/* `own`, or the parameter's value where it is set. */
static unsigned tuned(int64_t param, unsigned own)
{
    return param != CLFOLD_PARAM_AUTO ? (unsigned)param : own;
}

/*
 * The table above, each field replaced by its parameter where that is set
 * (gpu_block ..., CLFOLD_GPU_SHAPE: developers' knobs for tuning on new
 * hardware).
 */
static struct gpu_tuning tuning_of(const clfold_context *ctx, const struct accumulator *acc)
{
    const struct settings *set = &ctx->settings;
    const struct gpu_tuning *own = !acc->exact                     ? &PLAIN_TUNING
                                 : acc->result == CLFOLD_DOUBLE ? &EXACT_DOUBLE_TUNING
                                                                  : &EXACT_TUNING;
    return (struct gpu_tuning){tuned(set->gpu_block, own->block),
                               tuned(set->gpu_groups_per_unit, own->groups_per_unit),
                               tuned(set->gpu_unroll, own->unroll),
                               tuned(set->gpu_single_kib, own->single_kib)};
}

/* The elements a load of a pass of `config` takes: partial values one at a time. */
static unsigned pass_vector(const struct job *job, const struct build_config *config)
{
    return config->in_partials ? 1 : job->vec;
}

/*
 * gpu.cl's defines for a pass of `config`: its loads, and where `whole`, its
 * result in one store (ALIGNED_RESULTS).
 */
static void gpu_defines(const struct job *job, bool whole, struct build_config *config)
{
    struct path_defines *defines = &config->defines;
    unsigned vec = pass_vector(job, config);
    *defines = (struct path_defines){0};
    path_define(defines, DEFINE_HEAD, " -DVEC=%u -DUNROLL=%u", vec, job->unroll);
    /* A vector of 8 or more small integers adds up in an int before the 64-bit run. */
    if (sums_small_integers(config) && vec >= 8)
        path_define(defines, DEFINE_HEAD, " -DSMALL_INT_SUM=1");
    if (whole)
        path_define(defines, DEFINE_TAIL, " -DALIGNED_RESULTS=1");
}

clfold_status gpu_shape(clfold_context *ctx, size_t block, struct job *job)
{
    const struct gpu_tuning tuning = tuning_of(ctx, &job->config.acc), *tune = &tuning;
    block = block != 0 ? block : tune->block;
    while (block > ctx->caps.max_work_group_size)
        block /= 2;
    /* Its local values (gpu.cl's group_fold): one a warp where warps shuffle, else one a work-item. */
    bool shuffle = ctx->caps.warp_shuffle && block >= 64;
    block = block_fitting_local(ctx, job, block, shuffle ? 32 : 1);
    job->block = block;
    job->local_values = ctx->caps.warp_shuffle && block >= 64 ? block / 32 : block;
    job->max_groups = (size_t)ctx->caps.compute_units * tune->groups_per_unit;
    job->single_launch_bytes = (size_t)tune->single_kib * 1024;
    job->vec = gpu_vector(ctx, job->config.in);
    job->unroll = tune->unroll;
    job->config.inline_ptx = true;
    gpu_defines(job, false, &job->config);
    /*
     * Where the kernel can fence with PTX, one launch does it all: a second
     * launch costs several microseconds, which at 2^17..2^23 elements is
     * most of the time. gpu_one_launch 0 (CLFOLD_GPU_ONE_LAUNCH=0) keeps two, for comparison.
     */
    job->once = ctx->caps.inline_ptx && ctx->settings.gpu_one_launch;
    if (job->once) {
        job->entry = "reduce_gpu_once";
        job->params = ONE_LAUNCH_KERNEL;
    }
    return device_check_block(ctx, block);
}

/* A slice is block * unroll vectors; arrays within single_launch_bytes take one group. */
size_t gpu_groups(const struct job *job, const struct build_config *config, size_t count)
{
    if (!config->in_partials && count * type_info(config->in)->size <= job->single_launch_bytes)
        return 1;
    size_t groups = divide_up(count, job->block * job->unroll * pass_vector(job, config));
    return groups > job->max_groups ? job->max_groups : groups;
}

/*
 * The path's arguments: the elements before the first one aligned for
 * VEC-wide loads; then, for the one launch, its partial values and counter.
 */
clfold_status gpu_bind(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                       const struct fold *fold, const struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_ulong vec = pass_vector(job, pass->config);
    cl_ulong head = (vec - pass->offset % vec) % vec;
    head = head < pass->count ? head : pass->count;
    CHECK(kernel_arg(ctx, kernel, job->params, "head", sizeof head, &head));
    if (job->once) {
        const struct scratch *scratch = fold->scratch;
        CHECK(kernel_arg(ctx, kernel, job->params, "partials", sizeof scratch->partials[0],
                         &scratch->partials[0]));
        CHECK(kernel_arg(ctx, kernel, job->params, "tickets", sizeof scratch->tickets,
                         &scratch->tickets));
    }
cleanup:
    return status;
}

clfold_status gpu_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                      struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    /* A result at a multiple of its size goes in one store, which the host may watch for. */
    bool whole = fold->finish && fold->at % type_info(job->config.acc.result)->size == 0;
    struct build_config first = job->config, partials = job->config;
    partials.in_partials = true;
    gpu_defines(job, whole, &first);
    gpu_defines(job, whole, &partials);
    if (job->once && gpu_groups(job, &first, fold->count) == 1) {
        /*
         * One group writes the value itself: the one-launch kernel's ticket
         * and fences would only cost it time (H100, 1024 floats: 5.2 us of
         * device time, against 7.4; bench/results/kernel-choices-nvidia.txt).
         */
        struct job alone = *job;
        alone.once = false;
        alone.entry = job->path->entry;
        alone.params = job->path->params;
        return passes_run_programs(ctx, &alone, &first, &partials, fold, log);
    }
    if (job->once) {
        /* One pass, whose groups leave their values in partials[0]. */
        CHECK(scratch_partials(ctx, fold->scratch, 0,
                               job->max_groups * accumulator_size(&job->config.acc)));
        CHECK(scratch_tickets(ctx, fold->scratch));
    }
    CHECK(passes_run_programs(ctx, job, &first, &partials, fold, log));
cleanup:
    return status;
}

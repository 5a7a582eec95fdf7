/*
 * plan.c: launch geometry. A pass over `count` values launches work-groups
 * that each fold a slice into one partial value; the host relaunches over
 * the partials until one value is left (Harris's multi-kernel
 * decomposition). Slices: `block` values for K1-K3, 2*block for K4-K6 (the
 * first add during load), and for K7 a fixed grid that strides over the
 * whole array.
 */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BLOCK 256

static const char *const ENTRIES[] = {
    [CLFOLD_K1] = "reduce_k1", [CLFOLD_K2] = "reduce_k2", [CLFOLD_K3] = "reduce_k3",
    [CLFOLD_K4] = "reduce_k4", [CLFOLD_K5] = "reduce_k5", [CLFOLD_K6] = "reduce_k6",
    [CLFOLD_K7] = "reduce_k7", [CLFOLD_ATOMIC] = "reduce_atomic",
};

static size_t divide_up(size_t a, size_t b) { return a / b + (a % b != 0); }

static bool is_power_of_two(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

clfold_status plan_check_block(clfold_context *ctx, size_t block)
{
    if (!is_power_of_two(block))
        return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                    "block size %zu is not a power of two", block);
    if (block > ctx->caps.max_work_group_size)
        return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                    "block size %zu exceeds the device's maximum work-group size %zu", block,
                    ctx->caps.max_work_group_size);
    return CLFOLD_SUCCESS;
}

/*
 * K7's grid: enough work-groups to fill every compute unit several times
 * over, and at least 8192 work-items, so that no work-item folds a run
 * longer than count / 16384 before the tree takes over.
 */
static size_t k7_groups(const clfold_context *ctx, size_t block)
{
    size_t per_unit = 8 * (block < DEFAULT_BLOCK ? DEFAULT_BLOCK / block : 1);
    size_t fill = (size_t)ctx->caps.compute_units * per_unit;
    size_t floor = block < 8192 ? 8192 / block : 1;
    return fill > floor ? fill : floor;
}

/*
 * The auto path on a CPU device: one contiguous chunk per work-item
 * (cl/cpu.cl); on any other device, the GPU shape (cl/gpu.cl).
 */
static bool auto_cpu_shape(const clfold_context *ctx)
{
    /* CLFOLD_AUTO_SHAPE=cpu|gpu forces a shape: how CI tests both on one device. */
    const char *forced = getenv("CLFOLD_AUTO_SHAPE");
    bool cpu = ctx->caps.is_cpu;
    if (forced != NULL && strcmp(forced, "cpu") == 0)
        cpu = true;
    if (forced != NULL && strcmp(forced, "gpu") == 0)
        cpu = false;
    return ctx->kernel == CLFOLD_AUTO && cpu;
}

/*
 * The GPU shape: by default 512 work-items a group and four groups a
 * compute unit (2048 threads fill a Hopper SM), four 16-byte loads in
 * flight each; arrays of at most 256 KiB in one launch of one group, since
 * a second launch costs more than one compute unit takes to read them.
 * CLFOLD_GPU_SHAPE=BLOCK:GROUPS_PER_UNIT:UNROLL:SINGLE_KIB overrides these,
 * a developer's knob for tuning on new hardware.
 */
static clfold_status plan_gpu(clfold_context *ctx, size_t block, struct plan *plan)
{
    unsigned tune_block = 512, per_unit = 4, unroll = 4, single_kib = 256;
    const char *tune = getenv("CLFOLD_GPU_SHAPE");
    if (tune != NULL)
        sscanf(tune, "%u:%u:%u:%u", &tune_block, &per_unit, &unroll, &single_kib);
    size_t gpu_block = block != 0 ? block : tune_block;
    while (gpu_block > ctx->caps.max_work_group_size)
        gpu_block /= 2;
    *plan = (struct plan){.kernel = CLFOLD_AUTO, .block = gpu_block, .source = "gpu.cl",
                          .entry = "reduce_gpu", .block_is_constant = true,
                          .max_groups = (size_t)ctx->caps.compute_units * (per_unit ? per_unit : 1),
                          .gpu_shape = true, .unroll = unroll ? unroll : 1,
                          .single_launch_bytes = (size_t)single_kib * 1024, .path = "gpu"};
    /*
     * Where the kernel can fence with PTX, one launch does it all: a second
     * launch costs several microseconds, which at 2^17..2^23 elements is
     * most of the time. CLFOLD_GPU_ONE_LAUNCH=0 keeps two, for comparison.
     */
    const char *once = getenv("CLFOLD_GPU_ONE_LAUNCH");
    plan->gpu_once = ctx->caps.inline_ptx && !(once != NULL && strcmp(once, "0") == 0);
    if (plan->gpu_once)
        plan->entry = "reduce_gpu_once";
    return plan_check_block(ctx, gpu_block);
}

clfold_status plan_make(clfold_context *ctx, struct plan *plan)
{
    clfold_kernel kernel = ctx->kernel == CLFOLD_AUTO ? CLFOLD_K7 : ctx->kernel;
    size_t block = ctx->block_size;

    memset(plan, 0, sizeof *plan);
    if (auto_cpu_shape(ctx)) {
        *plan = (struct plan){.kernel = CLFOLD_AUTO, .block = 1, .source = "cpu.cl",
                              .entry = "reduce_cpu", .cpu_shape = true, .path = "cpu"};
        return CLFOLD_SUCCESS;
    }
    if (ctx->kernel == CLFOLD_AUTO)
        return plan_gpu(ctx, block, plan);

    if (block == 0)
        block = ctx->caps.max_work_group_size < DEFAULT_BLOCK ? ctx->caps.max_work_group_size
                                                              : DEFAULT_BLOCK;
    /*
     * With one work-item per group, K1-K3 fold a slice of one value and could
     * never shrink the array; their tree is empty anyway. Such passes run
     * K4, which folds two values in its load.
     */
    if (block == 1 && (kernel == CLFOLD_K1 || kernel == CLFOLD_K2 || kernel == CLFOLD_K3))
        kernel = CLFOLD_K4;
    plan->kernel = kernel;
    plan->block = block;
    plan->entry = ENTRIES[kernel];
    plan->source = kernel == CLFOLD_ATOMIC ? "atomic.cl"
                 : kernel >= CLFOLD_K6     ? "unrolled.cl"
                                           : "ladder.cl";
    plan->block_is_constant = kernel == CLFOLD_K6 || kernel == CLFOLD_K7;
    plan->local_arg = kernel >= CLFOLD_K1 && kernel <= CLFOLD_K5;
    plan->max_groups = kernel == CLFOLD_K7 ? k7_groups(ctx, block) : 0;
    plan->path = "ladder";
    return plan_check_block(ctx, block);
}

clfold_status plan_check_local_memory(clfold_context *ctx, const struct plan *plan, size_t acc_size)
{
    if (plan->kernel != CLFOLD_ATOMIC && plan->block * acc_size > ctx->caps.local_mem_size)
        return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                    "block size %zu needs %zu bytes of local memory; the device has %llu",
                    plan->block, plan->block * acc_size,
                    (unsigned long long)ctx->caps.local_mem_size);
    return CLFOLD_SUCCESS;
}

size_t plan_groups(const struct plan *plan, size_t count, unsigned vec)
{
    size_t slice = plan->block;
    if (plan->gpu_shape)
        slice = plan->block * plan->unroll * vec;
    if (plan->kernel >= CLFOLD_K4 && plan->kernel <= CLFOLD_K7)
        slice = 2 * plan->block;
    size_t groups = divide_up(count, slice);
    if (plan->max_groups != 0 && groups > plan->max_groups)
        groups = plan->max_groups;
    return groups;
}

/*
 * Lanes of the device's preferred vector of `lane` (what the kernel adds
 * in: the accumulator's scalar, or int for 8- and 16-bit sums), as a power
 * of two from 2 to 16. A device that prefers none gets 64 bytes' worth (one
 * AVX-512 register, two AVX2 ones).
 */
static unsigned preferred_lanes(const clfold_context *ctx, const struct type_info *lane)
{
    const struct device_caps *caps = &ctx->caps;
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
 * The device's preferred vectors, four accumulators, so that four additions
 * are in flight. Enough work-items to keep every compute unit busy four
 * times over, none with fewer than 64 Ki values, so that a chunk streams
 * well past the cost of a launch.
 */
struct cpu_launch plan_cpu_launch(const clfold_context *ctx, size_t count,
                                  const struct type_info *lane)
{
    struct cpu_launch launch = {.vec = preferred_lanes(ctx, lane), .accs = 4};
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

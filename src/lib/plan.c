/*
 * plan.c: launch geometry. A pass over `count` values launches work-groups
 * that each fold a slice into one partial value; the host relaunches over
 * the partials until one value is left (Harris's multi-kernel
 * decomposition). Slices: `block` values for K1-K3, 2*block for K4-K6 (the
 * first add during load), and for K7 a fixed grid that strides over the
 * whole array.
 */
#include "plan.h"

#define DEFAULT_BLOCK 256

static const char *const ENTRIES[] = {
    [CLFOLD_K1] = "reduce_k1", [CLFOLD_K2] = "reduce_k2", [CLFOLD_K3] = "reduce_k3",
    [CLFOLD_K4] = "reduce_k4", [CLFOLD_K5] = "reduce_k5", [CLFOLD_K6] = "reduce_k6",
    [CLFOLD_K7] = "reduce_k7", [CLFOLD_ATOMIC] = "reduce_atomic",
};

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

clfold_status plan_make(clfold_context *ctx, struct plan *plan)
{
    clfold_kernel kernel = ctx->kernel == CLFOLD_AUTO ? CLFOLD_K7 : ctx->kernel;
    size_t block = ctx->block_size;

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

static size_t divide_up(size_t a, size_t b) { return a / b + (a % b != 0); }

size_t plan_groups(const struct plan *plan, size_t count)
{
    size_t slice = plan->block;
    if (plan->kernel >= CLFOLD_K4 && plan->kernel <= CLFOLD_K7)
        slice = 2 * plan->block;
    size_t groups = divide_up(count, slice);
    if (plan->max_groups != 0 && groups > plan->max_groups)
        groups = plan->max_groups;
    return groups;
}

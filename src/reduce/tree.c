/*
 * tree.c: the launch geometry of Harris's ladder, K1..K7 (cl/reduce/ladder.cl,
 * cl/reduce/unrolled.cl). A pass's work-groups each fold a slice into one partial
 * value, and passes_run relaunches over the partials until one is left.
 * Slices: `block` values for K1-K3, 2 * block for K4-K6 (the first add
 * during load), and for K7 a fixed grid that strides over the whole array.
 */
#include "path.h"

#define DEFAULT_BLOCK 256

/*
 * Work-items that share one slot of the tree's local array: 1 where the
 * device's local memory holds a value for each, else the fewest (a power of
 * two) that make the slots fit. An exact double sum's state is 280 bytes, so
 * NVIDIA's 48 KiB holds 128 of them: blocks of 256 share each slot by two
 * (store_leaf in cl/core/defs.cl folds them in turn), and no block the
 * device runs is refused for its local memory.
 */
static size_t local_share(const clfold_context *ctx, const struct job *job, size_t block)
{
    return block / block_fitting_local(ctx, job, block, 1);
}

/*
 * A CPU device runs a work-group on one worker thread, whose stack holds
 * every work-item's private values: POCL 3.1 crashes on the thread's 8 MiB
 * default when K7 runs 4096 exact double states (1.1 MB of them, and
 * several copies each; tests/known-bugs/pocl_group_stack.py). So on CPU
 * devices a ladder group's accumulator values stay within 1 MiB, the
 * largest that every kernel ran there: blocks of 2048 for exact doubles.
 */
#define CPU_GROUP_VALUE_BYTES ((size_t)1 << 20)

static clfold_status check_cpu_group(clfold_context *ctx, const struct job *job, size_t block)
{
    size_t fitting = block_fitting(job, block, 1, CPU_GROUP_VALUE_BYTES);
    if (!ctx->caps.is_cpu || fitting == block)
        return CLFOLD_SUCCESS;
    return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                "%s cannot run %zu work-items per group of %zu-byte values on a CPU device: its "
                "worker thread's stack holds them all; blocks up to %zu",
                job->entry, block, accumulator_size(&job->config.acc), fitting);
}

/* Unless asked for one, blocks of 256, or less where the device's groups are smaller. */
clfold_status tree_shape(clfold_context *ctx, size_t block, struct job *job)
{
    clfold_status status = CLFOLD_SUCCESS;
    if (block == 0)
        block = ctx->caps.max_work_group_size < DEFAULT_BLOCK ? ctx->caps.max_work_group_size
                                                              : DEFAULT_BLOCK;
    /*
     * With one work-item per group, K1-K3 fold a slice of one value and could
     * never shrink the array; their tree is empty anyway. Such passes run
     * K4, which folds two values in its load.
     */
    clfold_kernel kernel = job->path->kernel;
    if (block == 1 && (kernel == CLFOLD_K1 || kernel == CLFOLD_K2 || kernel == CLFOLD_K3)) {
        job->path = path_of_kernel(CLFOLD_K4);
        job->entry = job->path->entry;
        job->params = job->path->params;
    }
    size_t share = local_share(ctx, job, block);
    job->block = block;
    job->local_values = block / share;
    if (share > 1)
        path_define(&job->config.defines, DEFINE_HEAD, " -DLOCAL_SHARE=%zu", share);
    CHECK(device_check_block(ctx, block));
    CHECK(check_cpu_group(ctx, job, block));
cleanup:
    return status;
}

/*
 * K7's grid: enough work-groups to fill every compute unit several times
 * over, and at least 8192 work-items, so that no work-item folds a run
 * longer than count / 16384 before the tree takes over.
 */
clfold_status k7_shape(clfold_context *ctx, size_t block, struct job *job)
{
    clfold_status status = tree_shape(ctx, block, job);
    size_t per_unit = 8 * (job->block < DEFAULT_BLOCK ? DEFAULT_BLOCK / job->block : 1);
    size_t fill = (size_t)ctx->caps.compute_units * per_unit;
    size_t floor = job->block < 8192 ? 8192 / job->block : 1;
    job->max_groups = fill > floor ? fill : floor;
    return status;
}

static size_t capped(const struct job *job, size_t groups)
{
    return job->max_groups != 0 && groups > job->max_groups ? job->max_groups : groups;
}

/* K1-K3, and the atomic baseline: a work-item per value. */
size_t tree_groups_one(const struct job *job, const struct build_config *config, size_t count)
{
    (void)config;
    return capped(job, divide_up(count, job->block));
}

/* K4-K7: two values per work-item in the load. */
size_t tree_groups_two(const struct job *job, const struct build_config *config, size_t count)
{
    (void)config;
    return capped(job, divide_up(count, 2 * job->block));
}

/* K1-K5: the local array, the job's local values, is their own argument. */
clfold_status tree_bind_local(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                              const struct fold *fold, const struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t bytes = job->local_values * accumulator_size(&pass->config->acc);
    (void)fold;
    CHECK(kernel_arg(ctx, kernel, job->params, "sdata", bytes, NULL));
cleanup:
    return status;
}

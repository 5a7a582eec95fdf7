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
 * Unless asked for one, blocks of 256, or less where the device's groups are
 * smaller or its local memory cannot hold 256 values (an exact double sum's
 * states, 280 bytes each, fit 128 to a group in NVIDIA's 48 KiB).
 */
clfold_status tree_shape(clfold_context *ctx, size_t block, struct job *job)
{
    if (block == 0) {
        block = ctx->caps.max_work_group_size < DEFAULT_BLOCK ? ctx->caps.max_work_group_size
                                                              : DEFAULT_BLOCK;
        block = block_fitting_local(ctx, job, block, 1);
    }
    /*
     * With one work-item per group, K1-K3 fold a slice of one value and could
     * never shrink the array; their tree is empty anyway. Such passes run
     * K4, which folds two values in its load.
     */
    clfold_kernel kernel = job->path->kernel;
    if (block == 1 && (kernel == CLFOLD_K1 || kernel == CLFOLD_K2 || kernel == CLFOLD_K3)) {
        job->path = path_of_kernel(CLFOLD_K4);
        job->entry = job->path->entry;
    }
    job->block = block;
    job->local_values = block;
    return device_check_block(ctx, block);
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

/* K1-K5: the local array, `block` accumulator values, is their own argument. */
clfold_status tree_bind_local(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                              const struct fold *fold, const struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t bytes = job->block * accumulator_size(&pass->config->acc);
    (void)fold;
    CHECK_CL(clSetKernelArg(kernel, FIRST_PATH_ARG, bytes, NULL), "clSetKernelArg(local)");
cleanup:
    return status;
}

/*
 * passes.c: what the reduction paths share: one launch of a path's kernel
 * (its wait list and event), Harris's multi-kernel decomposition (a pass
 * over the caller's values, then passes over the partial values until one
 * is left), and the one-work-item fold of a few values (cl/reduce/values.cl).
 */
#include "path.h"

/*
 * The work-group limit the driver reports for `kernel` (SIZE_MAX if it says
 * nothing). It is no authority: NVIDIA's driver 580 reports 256 for a
 * 10-register kernel that runs 1024 per group (measured on an H200 with
 * bench/nv_probe.c), so clfold tries the launch and lets the driver decide.
 */
static size_t reported_limit(const clfold_context *ctx, cl_kernel kernel)
{
    size_t reported = 0;
    if (clGetKernelWorkGroupInfo(kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof reported,
                                 &reported, NULL) != CL_SUCCESS)
        return SIZE_MAX;
    return reported;
}

kernel_params FOLD_KERNEL = {FOLD_PARAMS, NULL};

/* Every kernel's FOLD_PARAMS: in, offset, n, and where its values go (cl/core/defs.cl's write_value). */
static clfold_status bind_common(clfold_context *ctx, cl_kernel kernel, const char *const *params,
                                 const struct fold *fold, const struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_ulong offset = pass->offset, count = pass->count;
    cl_mem out = pass->last ? fold->out : pass->out;
    cl_ulong at = pass->last ? fold->at : 0;
    cl_uint finish = pass->last && fold->finish;
    CHECK(kernel_arg(ctx, kernel, params, "in", sizeof pass->in, &pass->in));
    CHECK(kernel_arg(ctx, kernel, params, "offset", sizeof offset, &offset));
    CHECK(kernel_arg(ctx, kernel, params, "n", sizeof count, &count));
    CHECK(kernel_arg(ctx, kernel, params, "out", sizeof out, &out));
    CHECK(kernel_arg(ctx, kernel, params, "at", sizeof at, &at));
    CHECK(kernel_arg(ctx, kernel, params, "finish", sizeof finish, &finish));
cleanup:
    return status;
}

clfold_status launch_kernel(clfold_context *ctx, cl_kernel kernel, const char *entry,
                            const char *const *params, const struct fold *fold,
                            const struct pass *pass, size_t global, size_t local,
                            struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc_size = accumulator_size(&pass->config->acc);
    size_t in_size = pass->config->in_partials ? acc_size : type_info(pass->config->in)->size;
    bool keep = log->timed || (pass->last && log->keep_last);
    const cl_event *wait_list;
    cl_uint waits;

    if (log->passes == MAX_PASSES)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "reduction needs more than %d passes", MAX_PASSES);
    CHECK(bind_common(ctx, kernel, params, fold, pass));
    take_waits(log, &waits, &wait_list);
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &local, waits,
                                        wait_list, keep ? &log->events[log->count] : NULL);
    if (err == CL_INVALID_WORK_GROUP_SIZE ||
        (err == CL_OUT_OF_RESOURCES && local > reported_limit(ctx, kernel))) {
        status = fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                      "%s cannot run %zu work-items per group on %s (%s; the driver reports at "
                      "most %zu)",
                      entry, local, ctx->caps.name, clfold_status_string((clfold_status)err),
                      reported_limit(ctx, kernel));
        goto cleanup;
    }
    CHECK_CL(err, "clEnqueueNDRangeKernel");
    log->count += keep;
    log->passes++;
    log->bytes_read += (uint64_t)pass->count * in_size;
    /* A last pass of several groups (the one launch) writes their partial values, then one. */
    uint64_t values = pass->values_written != 0 ? pass->values_written
                    : pass->last ? (pass->groups > 1 ? pass->groups + 1 : 1) : pass->groups;
    log->bytes_written += values * acc_size;
cleanup:
    return status;
}

clfold_status pass_launch(clfold_context *ctx, const struct job *job, const struct fold *fold,
                          const struct pass *pass, size_t global, size_t local,
                          struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_kernel kernel = NULL;
    CHECK(program_kernel(ctx, pass->config, job->entry, &kernel));
    if (job->path->bind != NULL)
        CHECK(job->path->bind(ctx, kernel, job, fold, pass));
    CHECK(launch_kernel(ctx, kernel, job->entry, job->params, fold, pass, global, local, log));
cleanup:
    return status;
}

clfold_status values_launch(clfold_context *ctx, const struct job *job, const struct fold *fold,
                            cl_mem in, size_t offset, size_t count, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct build_config config = {.source = "reduce/values.cl", .in = job->config.in,
                                  .in_partials = true, .acc = job->config.acc,
                                  .op = job->config.op};
    struct pass pass = {&config, in, offset, count, NULL, 1, 0, true, 0};
    cl_kernel kernel = NULL;
    CHECK(program_kernel(ctx, &config, "fold_values", &kernel));
    CHECK(launch_kernel(ctx, kernel, "fold_values", FOLD_KERNEL, fold, &pass, 1, 1, log));
cleanup:
    return status;
}

clfold_status passes_run_programs(clfold_context *ctx, const struct job *job,
                                  const struct build_config *first,
                                  const struct build_config *partials, const struct fold *fold,
                                  struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc_size = accumulator_size(&job->config.acc);
    struct pass pass = {first, fold->in, fold->offset, fold->count, NULL, 0, 0, false, 0};
    int out = 0;

    for (;;) {
        pass.groups = job->path->groups(job, pass.config, pass.count);
        /* The one-launch kernel's last group folds every group's value. */
        pass.last = pass.groups == 1 || job->once;
        if (!pass.last) {
            CHECK(scratch_partials(ctx, fold->scratch, out, pass.groups * acc_size));
            pass.out = fold->scratch->partials[out];
        }
        CHECK(pass_launch(ctx, job, fold, &pass, pass.groups * job->block, job->block, log));
        if (pass.last)
            break;
        pass.config = partials;
        pass.in = pass.out;
        pass.offset = 0;
        pass.count = pass.groups;
        out ^= 1;
    }
cleanup:
    return status;
}

clfold_status passes_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                         struct pass_log *log)
{
    struct build_config partials = job->config;
    partials.in_partials = true;
    return passes_run_programs(ctx, job, &job->config, &partials, fold, log);
}

size_t block_values_bytes(const struct job *job, size_t block, size_t per_value)
{
    return divide_up(block, per_value) * accumulator_size(&job->config.acc);
}

size_t block_fitting(const struct job *job, size_t block, size_t per_value, size_t bytes)
{
    while (block > 1 && block_values_bytes(job, block, per_value) > bytes)
        block /= 2;
    return block;
}

size_t block_fitting_local(const clfold_context *ctx, const struct job *job, size_t block,
                           size_t per_value)
{
    return block_fitting(job, block, per_value, (size_t)ctx->caps.local_mem_size);
}

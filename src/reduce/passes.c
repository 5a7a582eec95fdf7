/*
 * passes.c: what the reduction paths share: the scratch buffers that hold
 * partial values, one launch of a path's kernel, and Harris's multi-kernel
 * decomposition (a pass over the caller's values, then passes over the
 * partial values until one is left).
 */
#include "path.h"

size_t divide_up(size_t a, size_t b) { return a / b + (a % b != 0); }

bool sums_small_integers(const struct build_config *config)
{
    const struct type_info *in = type_info(config->in);
    return config->op == CLFOLD_SUM && !config->in_partials && in->float_bits == 0 &&
           in->size <= 2;
}

/*
 * Scratch buffers start at 64 KiB: partial values rarely need more, so
 * they are seldom released and re-created (which also spares Oclgrind 21.10
 * a false report on a buffer that takes a released one's place).
 */
#define SCRATCH_MIN_BYTES ((size_t)64 * 1024)

clfold_status scratch_ensure(clfold_context *ctx, int which, size_t bytes)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_int err;
    bytes = bytes > SCRATCH_MIN_BYTES ? bytes : SCRATCH_MIN_BYTES;
    if (ctx->scratch_bytes[which] >= bytes)
        return CLFOLD_SUCCESS;
    if (ctx->scratch[which] != NULL)
        clReleaseMemObject(ctx->scratch[which]);
    ctx->scratch_bytes[which] = 0;
    ctx->scratch[which] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_CL(err, "clCreateBuffer (partial results)");
    ctx->scratch_bytes[which] = bytes;
cleanup:
    return status;
}

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

/* A launch the driver refused for its work-group size, said in clfold's terms. */
static clfold_status refused_block(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                                   size_t local, cl_int err)
{
    size_t reported = reported_limit(ctx, kernel);
    return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                "%s cannot run %zu work-items per group on %s (%s; the driver reports at most %zu)",
                job->entry, local, ctx->caps.name, clfold_status_string((clfold_status)err),
                reported);
}

/* Every kernel's first four arguments: in, offset, n, out. */
static clfold_status bind_common(clfold_context *ctx, cl_kernel kernel, const struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_ulong offset = pass->offset, count = pass->count;
    CHECK_CL(clSetKernelArg(kernel, 0, sizeof pass->in, &pass->in), "clSetKernelArg(in)");
    CHECK_CL(clSetKernelArg(kernel, 1, sizeof offset, &offset), "clSetKernelArg(offset)");
    CHECK_CL(clSetKernelArg(kernel, 2, sizeof count, &count), "clSetKernelArg(n)");
    CHECK_CL(clSetKernelArg(kernel, 3, sizeof pass->out, &pass->out), "clSetKernelArg(out)");
cleanup:
    return status;
}

clfold_status pass_launch(clfold_context *ctx, const struct job *job, const struct pass *pass,
                          size_t global, size_t local, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_kernel kernel = NULL;
    size_t acc_size = accumulator_size(&pass->config->acc);
    size_t in_size = pass->config->in_partials ? acc_size : type_info(pass->config->in)->size;

    if (log->count == MAX_PASSES)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "reduction needs more than %d passes", MAX_PASSES);
    CHECK(program_kernel(ctx, pass->config, job->entry, &kernel));
    CHECK(bind_common(ctx, kernel, pass));
    if (job->path->bind != NULL)
        CHECK(job->path->bind(ctx, kernel, job, pass));
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &local, 0, NULL,
                                        &log->events[log->count]);
    if (err == CL_INVALID_WORK_GROUP_SIZE ||
        (err == CL_OUT_OF_RESOURCES && local > reported_limit(ctx, kernel))) {
        status = refused_block(ctx, kernel, job, local, err);
        goto cleanup;
    }
    CHECK_CL(err, "clEnqueueNDRangeKernel");
    log->count++;
    log->bytes_read += (uint64_t)pass->count * in_size;
    log->bytes_written += (uint64_t)pass->groups * acc_size;
cleanup:
    return status;
}

clfold_status passes_run(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                         size_t count, void *value, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc_size = accumulator_size(&job->config.acc);
    struct build_config config = job->config;
    int out = 0;

    do {
        size_t groups = job->path->groups(job, &config, count);
        CHECK(scratch_ensure(ctx, out, groups * acc_size));
        struct pass pass = {&config, in, offset, count, ctx->scratch[out], groups, 0};
        CHECK(pass_launch(ctx, job, &pass, groups * job->block, job->block, log));
        in = ctx->scratch[out];
        offset = 0;
        count = job->once ? 1 : groups;
        config.in_partials = true;
        config.small_int_sum = false;
        config.vec = config.vec != 0 ? 1 : 0; /* partial values: one at a time */
        out ^= 1;
    } while (count > 1);
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, in, CL_TRUE, 0, acc_size, value, 0, NULL, NULL),
             "clEnqueueReadBuffer (result)");
cleanup:
    return status;
}

/*
 * reduce.c: the public reductions. Checks a request, resolves it on the
 * path that the context's settings choose (paths.c), splits host arrays
 * larger than the device's largest buffer into chunks, has the path fold
 * each one, and records what ran and how long it took on the device.
 */
#include <stdlib.h>
#include <string.h>

#include "accumulator.h"
#include "path.h"

static void pass_log_release(struct pass_log *log)
{
    for (unsigned i = 0; i < log->count; i++)
        clReleaseEvent(log->events[i]);
    log->count = 0;
}

/* Checks type, operator and device support. */
static clfold_status check_request(clfold_context *ctx, clfold_type type, clfold_op op)
{
    clfold_type acc;
    clfold_status status = accumulator_type(type, op, &acc);
    if (status == CLFOLD_ERROR_INVALID_TYPE)
        return fail(ctx, status, "unknown element type %d", (int)type);
    if (status == CLFOLD_ERROR_INVALID_OP)
        return fail(ctx, status, "unknown operator %d", (int)op);
    if (status == CLFOLD_ERROR_OP_NOT_FOR_TYPE)
        return fail(ctx, status, "operator %s does not apply to %s values", clfold_op_name(op),
                    clfold_type_name(type));
    if ((type == CLFOLD_DOUBLE || acc == CLFOLD_DOUBLE) && !ctx->caps.has_fp64)
        return fail(ctx, CLFOLD_ERROR_NO_FP64, "device %s has no double precision (cl_khr_fp64)",
                    ctx->caps.name);
    return CLFOLD_SUCCESS;
}

/*
 * The device time of the logged launches: from the start of the first to
 * the end of the last, gaps between passes included, as CUDA events around
 * a peer library's call measure it. -1 without profiling.
 */
static double device_milliseconds(const clfold_context *ctx, const struct pass_log *log)
{
    cl_ulong start = 0, end = 0;
    if (!ctx->caps.profiling || log->count == 0)
        return -1.0;
    if (clGetEventProfilingInfo(log->events[0], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(log->events[log->count - 1], CL_PROFILING_COMMAND_END, sizeof end,
                                &end, NULL) != CL_SUCCESS)
        return -1.0;
    return (double)(end - start) * 1e-6;
}

/* Checks that elements [offset, offset + count) of `type` lie inside `buffer`. */
static clfold_status check_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                  size_t element)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_context owner = NULL;
    size_t bytes = 0;
    CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL),
             "clGetMemObjectInfo(CL_MEM_CONTEXT)");
    if (owner != ctx->cl)
        FAIL(CLFOLD_ERROR_WRONG_CONTEXT, "the buffer belongs to another cl_context");
    CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof bytes, &bytes, NULL),
             "clGetMemObjectInfo(CL_MEM_SIZE)");
    if (offset > bytes / element || count > bytes / element - offset)
        FAIL(CLFOLD_ERROR_OUT_OF_BOUNDS,
             "elements %zu..%zu+%zu lie beyond the buffer's %zu bytes (%zu elements)", offset,
             offset, count, bytes, bytes / element);
cleanup:
    return status;
}

/* A checked request: what to reduce, and on which path. */
struct request {
    clfold_type type;
    clfold_op op;
    struct job job;
};

/*
 * Resolves a request on the context's path: the accumulator for the path's
 * kernel and the accuracy, then the path's launch geometry, then whether a
 * work-group's values fit in local memory.
 */
static clfold_status make_request(clfold_context *ctx, clfold_type type, clfold_op op,
                                  struct request *request)
{
    clfold_status status = CLFOLD_SUCCESS;
    const struct reduce_path *path = path_choose(ctx);
    struct job *job = &request->job;
    struct accumulator acc;
    CHECK(accumulator_choose(ctx, type, op, path->kernel, &acc));
    request->type = type;
    request->op = op;
    *job = (struct job){.path = path, .entry = path->entry};
    job->config = (struct build_config){.source = path->source, .in = type, .acc = acc, .op = op};
    CHECK(path->shape(ctx, ctx->block_size, job));
    /* The shape may have moved to another entry (K1-K3 at block 1 run K4). */
    job->config.block_size = job->path->block_is_constant ? job->block : 0;
    size_t local_bytes = job->block * accumulator_size(&acc);
    if (job->path->local_values && local_bytes > ctx->caps.local_mem_size)
        FAIL(CLFOLD_ERROR_INVALID_BLOCK_SIZE,
             "block size %zu needs %zu bytes of local memory; the device has %llu", job->block,
             local_bytes, (unsigned long long)ctx->caps.local_mem_size);
cleanup:
    return status;
}

/* Folds elements [offset, offset + count) of `buffer` into one accumulator value. */
static clfold_status fold_buffer(clfold_context *ctx, const struct request *request, cl_mem buffer,
                                 size_t offset, size_t count, void *value, clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct pass_log log = {.count = 0};
    CHECK(request->job.path->run(ctx, &request->job, buffer, offset, count, value, &log));
    double ms = device_milliseconds(ctx, &log);
    info->device_ms = ms < 0 || info->device_ms < 0 ? -1.0 : info->device_ms + ms;
    info->passes += log.count;
    info->bytes_read += log.bytes_read;
    info->bytes_written += log.bytes_written;
cleanup:
    if (status != CLFOLD_SUCCESS)
        clFinish(ctx->queue); /* nothing of ours may still be running */
    pass_log_release(&log);
    return status;
}

static clfold_run_info empty_run(const struct request *request)
{
    const struct job *job = &request->job;
    return (clfold_run_info){job->path->kernel, job->path->name, job->block, 0, 0.0, 0, 0};
}

clfold_status clfold_reduce_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                   clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    unsigned char value[ACCUMULATOR_MAX_BYTES];
    clfold_run_info info;

    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    ctx->has_last_run = false;
    if (buffer == NULL || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", buffer == NULL ? "buffer" : "result");
    CHECK(check_request(ctx, type, op));
    CHECK(check_buffer(ctx, buffer, offset, count, type_info(type)->size));
    CHECK(make_request(ctx, type, op, &request));
    info = empty_run(&request);
    if (count == 0)
        accumulator_identity(&request.job.config.acc, op, value);
    else
        CHECK(fold_buffer(ctx, &request, buffer, offset, count, value, &info));
    accumulator_finish(&request.job.config.acc, value, result);
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

/* Folds one chunk of host memory: wrapped in place on a CPU, copied to a GPU. */
static clfold_status fold_host_chunk(clfold_context *ctx, const struct request *request,
                                     const void *data, size_t count, void *value,
                                     clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_ONLY |
                         (ctx->caps.is_cpu ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR);
    cl_int err;
    cl_mem buffer = clCreateBuffer(ctx->cl, flags, count * type_info(request->type)->size,
                                   (void *)data, &err);
    CHECK_CL(err, "clCreateBuffer (input)");
    CHECK(fold_buffer(ctx, request, buffer, 0, count, value, info));
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    return status;
}

/*
 * Elements per chunk: the device's largest buffer, or the developer's
 * CLFOLD_MAX_CHUNK_BYTES (which tests use to exercise chunking on small
 * arrays), whole elements.
 */
static size_t chunk_elements(const clfold_context *ctx, size_t element)
{
    size_t bytes = ctx->caps.max_alloc_size > SIZE_MAX ? SIZE_MAX : (size_t)ctx->caps.max_alloc_size;
    if (ctx->settings.max_chunk_bytes != 0 && ctx->settings.max_chunk_bytes < bytes)
        bytes = ctx->settings.max_chunk_bytes;
    return bytes / element > 0 ? bytes / element : 1;
}

clfold_status clfold_reduce_host(clfold_context *ctx, const void *data, size_t count,
                                 clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    unsigned char total[ACCUMULATOR_MAX_BYTES], part[ACCUMULATOR_MAX_BYTES];
    clfold_run_info info;

    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    ctx->has_last_run = false;
    if ((data == NULL && count != 0) || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", result == NULL ? "result" : "data");
    CHECK(check_request(ctx, type, op));
    size_t element = type_info(type)->size, chunk = chunk_elements(ctx, element);
    if (count > SIZE_MAX / element)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu elements of %zu bytes exceed the address space", count,
             element);
    CHECK(make_request(ctx, type, op, &request));
    info = empty_run(&request);
    accumulator_identity(&request.job.config.acc, op, total);
    for (size_t done = 0; done < count; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        /* The first chunk's value stands as it is: 0 + (-0) would lose a sign. */
        CHECK(fold_host_chunk(ctx, &request, (const char *)data + done * element, n,
                              done == 0 ? total : part, &info));
        if (done != 0)
            accumulator_fold(&request.job.config.acc, op, total, part);
    }
    accumulator_finish(&request.job.config.acc, total, result);
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

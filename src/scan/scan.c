/*
 * scan.c: the public scans. Checks a request (its operator, its ranges and
 * how they overlap), resolves it on the path the context's settings choose
 * (paths.c), and has levels.c enqueue it. The non-blocking scan stops
 * there; the blocking ones wait and record what ran. Host arrays larger
 * than the device's largest buffer go in chunks, each starting from the
 * last one's total, which stays on the device between them.
 */
#include <stdint.h>
#include <string.h>

#include "checks.h"
#include "host_input.h"
#include "scan_path.h"

/* The checks of check_request, and what scans refuse besides: operators without one, exact sums. */
static clfold_status check_scan_request(clfold_context *ctx, clfold_type type, clfold_op op)
{
    clfold_status status = check_request(ctx, type, op);
    if (status != CLFOLD_SUCCESS)
        return status;
    if (op_is_arg(op))
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                    "%s has no scan: a running index of the extreme has no NumPy counterpart",
                    clfold_op_name(op));
    if (!op_scans(op))
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED, "%s has no scan", clfold_op_name(op));
    if (ctx->accuracy == CLFOLD_ACCURACY_EXACT && op_fold(op) == FOLD_ADD &&
        type_info(type)->float_bits != 0)
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                    "exact float scans are not available: each output would need its own exact "
                    "state (docs/scans.md)");
    return CLFOLD_SUCCESS;
}

/* The buffer that `buffer` is a sub-buffer of (or itself), and where in it `buffer` starts. */
static clfold_status buffer_origin(clfold_context *ctx, cl_mem buffer, cl_mem *root,
                                   size_t *origin)
{
    clfold_status status = CLFOLD_SUCCESS;
    *origin = 0;
    for (;;) {
        cl_mem parent = NULL;
        size_t offset = 0;
        CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent,
                                    NULL),
                 "clGetMemObjectInfo(CL_MEM_ASSOCIATED_MEMOBJECT)");
        if (parent == NULL)
            break;
        CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_OFFSET, sizeof offset, &offset, NULL),
                 "clGetMemObjectInfo(CL_MEM_OFFSET)");
        *origin += offset;
        buffer = parent;
    }
    *root = buffer;
cleanup:
    return status;
}

/*
 * Kernels read an element and write its output in the same work-item, so a
 * scan in place is safe; outputs anywhere else in the input would be
 * written while other work-groups still read there.
 */
static clfold_status check_overlap(clfold_context *ctx, uintptr_t in, size_t in_bytes,
                                   uintptr_t out, size_t out_bytes, bool same_size)
{
    if (in_bytes == 0 || in + in_bytes <= out || out + out_bytes <= in)
        return CLFOLD_SUCCESS;
    if (in == out && same_size)
        return CLFOLD_SUCCESS;
    return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                "the output overlaps the input other than in place (the same first byte, with "
                "results as large as the elements)");
}

/* The ranges of a buffer scan: inside their buffers, out writable, no overlap but in place. */
static clfold_status check_scan_buffers(clfold_context *ctx, cl_mem in, size_t in_offset,
                                        size_t count, clfold_type type, clfold_op op, cl_mem out,
                                        size_t out_offset)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_type result;
    cl_mem in_root = NULL, out_root = NULL;
    size_t in_origin = 0, out_origin = 0;
    if (in == NULL || out == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", in == NULL ? "in" : "out");
    CHECK(check_scan_request(ctx, type, op));
    CHECK(clfold_result_type(type, op, &result));
    size_t in_size = type_info(type)->size, out_size = type_info(result)->size;
    CHECK(check_buffer(ctx, in, in_offset, count, in_size));
    if (out_offset > SIZE_MAX / out_size || count > SIZE_MAX / out_size)
        FAIL(CLFOLD_ERROR_OUT_OF_BOUNDS, "outputs %zu..%zu+%zu lie beyond any buffer", out_offset,
             out_offset, count);
    CHECK(check_result(ctx, out, out_offset * out_size, count * out_size));
    CHECK(buffer_origin(ctx, in, &in_root, &in_origin));
    CHECK(buffer_origin(ctx, out, &out_root, &out_origin));
    if (in_root == out_root)
        CHECK(check_overlap(ctx, in_origin + in_offset * in_size, count * in_size,
                            out_origin + out_offset * out_size, count * out_size,
                            in_size == out_size));
cleanup:
    return status;
}

static clfold_run_info scan_run_info(const struct scan_job *job)
{
    return (clfold_run_info){CLFOLD_AUTO, job->path->name, job->block, 0, 0.0, 0, 0};
}

/*
 * A blocking scan of in[offset .. offset + count) into out from out_at,
 * with a carry or none; its run added to `info`. Waits for the whole
 * queue, so every scratch is free afterwards.
 */
static clfold_status scan_and_wait(clfold_context *ctx, const struct scan_job *job, cl_mem in,
                                   size_t offset, size_t count, bool exclusive, cl_mem out,
                                   size_t out_at, const struct scan_carry *carry,
                                   clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct pass_log log = {.timed = ctx->caps.profiling};
    struct scratch *scratch = NULL;
    CHECK(scratch_acquire(ctx, &scratch));
    CHECK(scan_enqueue(ctx, job, in, offset, count, exclusive, out, out_at, carry, scratch, &log));
    CHECK_CL(clFinish(ctx->queue), "clFinish");
    add_run(info, ctx, &log);
cleanup:
    if (status != CLFOLD_SUCCESS)
        clFinish(ctx->queue); /* nothing of ours may still be running */
    scratch_all_free(ctx);
    pass_log_release(&log);
    return status;
}

clfold_status clfold_scan_buffer(clfold_context *ctx, cl_mem in, size_t in_offset, size_t count,
                                 clfold_type type, clfold_op op, clfold_scan_mode mode,
                                 cl_mem out, size_t out_offset)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct scan_job job;
    clfold_run_info info;

    CHECK(begin_call(ctx, &(struct call){0}));
    if (mode != CLFOLD_INCLUSIVE && mode != CLFOLD_EXCLUSIVE)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "unknown scan mode %d", (int)mode);
    CHECK(check_scan_buffers(ctx, in, in_offset, count, type, op, out, out_offset));
    CHECK(scan_job_make(ctx, type, op, &job));
    info = scan_run_info(&job);
    if (count == 0)
        CHECK_CL(clFinish(ctx->queue), "clFinish");
    else
        CHECK(scan_and_wait(ctx, &job, in, in_offset, count, mode == CLFOLD_EXCLUSIVE, out,
                            out_offset, NULL, &info));
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

clfold_status clfold_scan_buffer_async(clfold_context *ctx, cl_mem in, size_t in_offset,
                                       size_t count, clfold_type type, clfold_op op,
                                       clfold_scan_mode mode, cl_mem out, size_t out_offset,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct scan_job job;
    struct scratch *scratch = NULL;
    struct pass_log log = {.waits = num_events_in_wait_list, .wait_list = event_wait_list,
                           .keep_last = true};
    cl_event done = NULL, marker = NULL;

    CHECK(begin_call(ctx, &(struct call){.waits = num_events_in_wait_list,
                                         .wait_list = event_wait_list}));
    if (mode != CLFOLD_INCLUSIVE && mode != CLFOLD_EXCLUSIVE)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "unknown scan mode %d", (int)mode);
    CHECK(check_scan_buffers(ctx, in, in_offset, count, type, op, out, out_offset));
    CHECK(scan_job_make(ctx, type, op, &job));
    if (count == 0) {
        /* Nothing to scan: a marker still orders the caller's event after the wait list. */
        CHECK_CL(clEnqueueMarkerWithWaitList(ctx->queue, num_events_in_wait_list,
                                             event_wait_list, &marker),
                 "clEnqueueMarkerWithWaitList");
        done = marker;
    } else {
        CHECK(scratch_acquire(ctx, &scratch));
        CHECK(scan_enqueue(ctx, &job, in, in_offset, count, mode == CLFOLD_EXCLUSIVE, out,
                           out_offset, NULL, scratch, &log));
        /* The last launch's event: the scratch keeps it, and the caller gets a reference. */
        done = log.events[--log.count];
        scratch_hold(scratch, done);
        if (event != NULL)
            CHECK_CL(clRetainEvent(done), "clRetainEvent");
    }
    /* No device time: the launches have not run yet. */
    ctx->last_run = scan_run_info(&job);
    add_run(&ctx->last_run, ctx, &log);
    ctx->has_last_run = count != 0;
cleanup:
    if (status != CLFOLD_SUCCESS && scratch != NULL && scratch->done == NULL)
        scratch_abandon(ctx, scratch);
    pass_log_release(&log);
    if (marker != NULL && (status != CLFOLD_SUCCESS || event == NULL))
        clReleaseEvent(marker);
    /* Written last: `event` may point into the wait list, which the enqueue read. */
    if (event != NULL)
        *event = status == CLFOLD_SUCCESS ? done : NULL;
    return status;
}

/*
 * One chunk of a host scan: its elements in a buffer (host_input_buffer's),
 * its outputs in a device buffer read back into `out`, from the carry.
 */
static clfold_status scan_host_chunk(clfold_context *ctx, const struct scan_job *job,
                                     const void *in, size_t count, bool exclusive, void *out,
                                     const struct scan_carry *carry, clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t out_bytes = count * type_info(job->config.acc.result)->size;
    cl_mem in_buffer = NULL, out_buffer = NULL;
    cl_int err;
    CHECK(host_input_buffer(ctx, in, count * type_info(job->config.in)->size, &in_buffer));
    out_buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
    CHECK_CL(err, "clCreateBuffer (output)");
    CHECK(scan_and_wait(ctx, job, in_buffer, 0, count, exclusive, out_buffer, 0, carry, info));
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, out_buffer, CL_TRUE, 0, out_bytes, out, 0, NULL,
                                 NULL),
             "clEnqueueReadBuffer (output)");
cleanup:
    if (in_buffer != NULL)
        clReleaseMemObject(in_buffer);
    if (out_buffer != NULL)
        clReleaseMemObject(out_buffer);
    return status;
}

clfold_status clfold_scan_host(clfold_context *ctx, const void *in, size_t count,
                               clfold_type type, clfold_op op, clfold_scan_mode mode, void *out)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct scan_job job;
    struct scan_carry carry = {NULL, false, 0};
    clfold_type result;
    clfold_run_info info;
    cl_int err;

    CHECK(begin_call(ctx, &(struct call){0}));
    if (count != 0 && (in == NULL || out == NULL))
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", in == NULL ? "in" : "out");
    if (mode != CLFOLD_INCLUSIVE && mode != CLFOLD_EXCLUSIVE)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "unknown scan mode %d", (int)mode);
    CHECK(check_scan_request(ctx, type, op));
    CHECK(clfold_result_type(type, op, &result));
    size_t in_size = type_info(type)->size, out_size = type_info(result)->size;
    size_t largest = in_size > out_size ? in_size : out_size;
    if (count > SIZE_MAX / largest)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu elements of %zu bytes exceed the address space", count,
             largest);
    CHECK(check_overlap(ctx, (uintptr_t)in, count * in_size, (uintptr_t)out, count * out_size,
                        in_size == out_size));
    CHECK(scan_job_make(ctx, type, op, &job));
    info = scan_run_info(&job);
    size_t chunk = host_chunk_elements(ctx, largest);
    if (count > chunk) {
        carry.buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                                      2 * accumulator_size(&job.config.acc), NULL, &err);
        CHECK_CL(err, "clCreateBuffer (carry)");
    }
    /* Chunk k starts from slot k % 2 of the carry and leaves its total in the other. */
    for (size_t done = 0, k = 0; done < count; done += chunk, k++) {
        size_t n = count - done < chunk ? count - done : chunk;
        carry.seeded = done != 0;
        carry.from = k % 2;
        CHECK(scan_host_chunk(ctx, &job, (const char *)in + done * in_size, n,
                              mode == CLFOLD_EXCLUSIVE, (char *)out + done * out_size, &carry,
                              &info));
    }
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    if (carry.buffer != NULL)
        clReleaseMemObject(carry.buffer);
    return status;
}

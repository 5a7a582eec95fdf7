/*
 * reduce.c: the public reductions. Checks a request, resolves it on the
 * path that the context's settings choose (paths.c), and has the path
 * enqueue it. The non-blocking reduction stops there; the blocking ones
 * enqueue into a small buffer of the context's, wait, and record what ran
 * and how long it took on the device. Host arrays larger than the device's
 * largest buffer go in chunks whose values the host folds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accumulator.h"
#include "checks.h"
#include "host_input.h"
#include "landing.h"
#include "partial.h"
#include "path.h"

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
    *job = (struct job){.path = path, .entry = path->entry, .params = path->params};
    job->config = (struct build_config){.source = path->source, .in = type, .acc = acc, .op = op};
    CHECK(path->shape(ctx, ctx->block_size, job));
    /* The shape may have moved to another entry (K1-K3 at block 1 run K4). */
    job->config.block_size = job->path->block_is_constant ? job->block : 0;
    size_t local_bytes = job->local_values * accumulator_size(&acc);
    if (local_bytes > ctx->caps.local_mem_size) {
        const char *what = acc.exact ? "exact sums of this type" : "this accumulator";
        size_t per_value = job->block / job->local_values;
        size_t fit = block_fitting_local(ctx, job, job->block, per_value);
        if (block_values_bytes(job, fit, per_value) > ctx->caps.local_mem_size)
            FAIL(CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                 "block size %zu needs %zu bytes of local memory; the device has %llu, where no "
                 "block size fits %s (one needs %zu bytes): take another kernel or accuracy",
                 job->block, local_bytes, (unsigned long long)ctx->caps.local_mem_size, what,
                 block_values_bytes(job, 1, per_value));
        FAIL(CLFOLD_ERROR_INVALID_BLOCK_SIZE,
             "block size %zu needs %zu bytes of local memory; the device has %llu, which holds "
             "blocks up to %zu for %s", job->block, local_bytes,
             (unsigned long long)ctx->caps.local_mem_size, fit, what);
    }
cleanup:
    return status;
}

/* What both buffer reductions check, then their request resolved on the context's path. */
static clfold_status buffer_request(clfold_context *ctx, cl_mem buffer, size_t offset,
                                    size_t count, clfold_type type, clfold_op op,
                                    struct request *request)
{
    clfold_status status = check_request(ctx, type, op);
    if (status == CLFOLD_SUCCESS)
        status = check_arg_length(ctx, op, count);
    if (status == CLFOLD_SUCCESS)
        status = check_buffer(ctx, buffer, offset, count, type_info(type)->size);
    if (status == CLFOLD_SUCCESS)
        status = make_request(ctx, type, op, request);
    return status;
}

/*
 * Enqueues the fold: the path's commands, or for no values the identity
 * (values.cl over nothing; n = 0 reads no buffer, so `in` may be any).
 */
static clfold_status enqueue_fold(clfold_context *ctx, const struct request *request,
                                  struct fold *fold, struct pass_log *log)
{
    const struct job *job = &request->job;
    if (fold->count == 0)
        return values_launch(ctx, job, fold, fold->out, 0, 0, log);
    return job->path->run(ctx, job, fold, log);
}

static clfold_run_info empty_run(const struct request *request)
{
    const struct job *job = &request->job;
    return (clfold_run_info){job->path->kernel, job->path->name, job->block, 0, 0.0, 0, 0};
}

/*
 * A blocking fold of buffer[offset .. offset + count): the result (finish)
 * or the accumulator value into `value`, the run added to `info`. Returns
 * once the value is on the host (landing.c), when every command of clfold's
 * before it has completed and what is left of it can only be its end, so
 * that every reduction's scratch is free for commands enqueued afterwards.
 */
static clfold_status fold_and_wait(clfold_context *ctx, const struct request *request,
                                   cl_mem buffer, size_t offset, size_t count, bool finish,
                                   void *value, clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    const struct accumulator *acc = &request->job.config.acc;
    size_t bytes = finish ? type_info(acc->result)->size : accumulator_size(acc);
    struct pass_log log = {.timed = ctx->caps.profiling};
    struct fold fold = {buffer, offset, count, NULL, 0, finish, NULL};

    CHECK(landing_prepare(ctx));
    bool direct = landing_is_direct(ctx, &request->job, count, finish);
    fold.out = landing_target(ctx, direct);
    CHECK(scratch_acquire(ctx, &fold.scratch));
    if (direct)
        landing_arm(ctx, bytes);
    CHECK(enqueue_fold(ctx, request, &fold, &log));
    CHECK(landing_wait(ctx, direct, bytes, value));
    if (count != 0)
        add_run(info, ctx, &log);
cleanup:
    if (status != CLFOLD_SUCCESS) {
        clFinish(ctx->queue); /* nothing of ours may still be running */
        if (fold.scratch != NULL)
            scratch_forget_tickets(fold.scratch);
    }
    scratch_all_free(ctx);
    pass_log_release(&log);
    return status;
}

/*
 * The partial's bytes on the device: zeros, then its header (both fills copy
 * their pattern as they are enqueued), then the reduction's accumulator
 * value after the header, all in the queue's order after the wait list.
 */
static clfold_status enqueue_partial_frame(clfold_context *ctx, const struct request *request,
                                           cl_mem result, size_t result_offset,
                                           struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    const unsigned char zeros[PARTIAL_VALUE_AT] = {0};
    unsigned char value[ACCUMULATOR_MAX_BYTES] = {0};
    clfold_partial framed;
    const cl_event *wait_list;
    cl_uint waits;
    partial_pack(&request->job.config.acc, request->type, request->op, value, &framed);
    take_waits(log, &waits, &wait_list);
    CHECK_CL(clEnqueueFillBuffer(ctx->queue, result, zeros, sizeof zeros, result_offset,
                                 CLFOLD_PARTIAL_BYTES, waits, wait_list, NULL),
             "clEnqueueFillBuffer (partial)");
    CHECK_CL(clEnqueueFillBuffer(ctx->queue, result, framed.bytes, PARTIAL_VALUE_AT,
                                 result_offset, PARTIAL_VALUE_AT, 0, NULL, NULL),
             "clEnqueueFillBuffer (partial header)");
cleanup:
    return status;
}

/*
 * The non-blocking reductions' common end, once their arguments are
 * checked: the fold enqueued (after a partial's frame where `framed`), its
 * last launch's event held by its scratch and, where `retain`, retained for
 * the caller, in *done, and the run recorded. A failure leaves the scratch
 * to a marker or the next wait for the queue (scratch_abandon).
 */
static clfold_status enqueue_async(clfold_context *ctx, const struct request *request,
                                   struct fold *fold, struct pass_log *log, bool framed,
                                   bool retain, cl_event *done)
{
    clfold_status status = CLFOLD_SUCCESS;
    CHECK(scratch_acquire(ctx, &fold->scratch));
    if (framed)
        CHECK(enqueue_partial_frame(ctx, request, fold->out, fold->at - PARTIAL_VALUE_AT, log));
    CHECK(enqueue_fold(ctx, request, fold, log));
    *done = log->events[--log->count];
    scratch_hold(fold->scratch, *done);
    if (retain)
        CHECK_CL(clRetainEvent(*done), "clRetainEvent");
    /* No device time: the launches have not run yet. */
    ctx->last_run = empty_run(request);
    add_run(&ctx->last_run, ctx, log);
    ctx->has_last_run = fold->count != 0;
cleanup:
    if (status != CLFOLD_SUCCESS && fold->scratch != NULL && fold->scratch->done == NULL)
        scratch_abandon(ctx, fold->scratch);
    return status;
}

clfold_status clfold_reduce_buffer_async(clfold_context *ctx, cl_mem buffer, size_t offset,
                                         size_t count, clfold_type type, clfold_op op,
                                         cl_mem result, size_t result_offset,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    struct pass_log log = {.waits = num_events_in_wait_list, .wait_list = event_wait_list,
                           .keep_last = true};
    struct fold fold = {buffer, offset, count, result, result_offset, true, NULL};
    cl_event done = NULL;

    CHECK(begin_call(ctx, &(struct call){.required = {{"buffer", buffer}, {"result", result}},
                                         .waits = num_events_in_wait_list,
                                         .wait_list = event_wait_list}));
    CHECK(buffer_request(ctx, buffer, offset, count, type, op, &request));
    CHECK(check_result(ctx, result, result_offset,
                       type_info(request.job.config.acc.result)->size));
    CHECK(enqueue_async(ctx, &request, &fold, &log, false, event != NULL, &done));
cleanup:
    pass_log_release(&log);
    /* Written last: `event` may point into the wait list, which the enqueue read. */
    if (event != NULL)
        *event = status == CLFOLD_SUCCESS ? done : NULL;
    return status;
}

clfold_status clfold_reduce_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                   clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    clfold_run_info info;

    CHECK(begin_call(ctx, &(struct call){.required = {{"buffer", buffer}, {"result", result}}}));
    CHECK(buffer_request(ctx, buffer, offset, count, type, op, &request));
    info = empty_run(&request);
    CHECK(fold_and_wait(ctx, &request, buffer, offset, count, true, result, &info));
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

/* Folds one chunk of host memory (host_input_buffer's). */
static clfold_status fold_host_chunk(clfold_context *ctx, const struct request *request,
                                     const void *data, size_t count, bool finish, void *value,
                                     clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_mem buffer = NULL;
    CHECK(host_input_buffer(ctx, data, count * type_info(request->type)->size, &buffer));
    CHECK(fold_and_wait(ctx, request, buffer, 0, count, finish, value, info));
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    return status;
}

/*
 * The fold of a host array, checked: its accumulator value (finish false)
 * or the result, into `out`, its run into `info`. Chunks past the device's
 * largest buffer are folded here as the kernels fold them.
 */
static clfold_status fold_host(clfold_context *ctx, const void *data, size_t count,
                               clfold_type type, clfold_op op, bool finish,
                               struct request *request, void *out, clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    unsigned char total[ACCUMULATOR_MAX_BYTES], part[ACCUMULATOR_MAX_BYTES];

    if (data == NULL && count != 0)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "data is NULL");
    CHECK(check_request(ctx, type, op));
    if (finish)
        CHECK(check_arg_length(ctx, op, count));
    size_t element = type_info(type)->size, chunk = host_chunk_elements(ctx, element);
    if (count > SIZE_MAX / element)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu elements of %zu bytes exceed the address space", count,
             element);
    CHECK(make_request(ctx, type, op, request));
    *info = empty_run(request);
    if (count <= chunk) {
        /* One buffer, or none: the device finishes the result. */
        if (count == 0)
            CHECK(fold_and_wait(ctx, request, NULL, 0, 0, finish, out, info));
        else
            CHECK(fold_host_chunk(ctx, request, data, count, finish, out, info));
    } else {
        /* Chunks: their accumulator values, folded here as the kernels fold them. */
        const struct accumulator *acc = &request->job.config.acc;
        for (size_t done = 0; done < count; done += chunk) {
            size_t n = count - done < chunk ? count - done : chunk;
            /* The first chunk's value stands as it is: 0 + (-0) would lose a sign. */
            CHECK(fold_host_chunk(ctx, request, (const char *)data + done * element, n, false,
                                  done == 0 ? total : part, info));
            if (done != 0) {
                accumulator_move_index(acc, part, done);
                accumulator_fold(acc, op, total, part);
            }
        }
        if (finish)
            accumulator_finish(acc, total, out);
        else
            memcpy(out, total, accumulator_size(acc));
    }
cleanup:
    return status;
}

clfold_status clfold_reduce_host(clfold_context *ctx, const void *data, size_t count,
                                 clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    clfold_run_info info;

    CHECK(begin_call(ctx, &(struct call){.required = {{"result", result}}}));
    CHECK(fold_host(ctx, data, count, type, op, true, &request, result, &info));
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

clfold_status clfold_reduce_host_partial(clfold_context *ctx, const void *data, size_t count,
                                         clfold_type type, clfold_op op, clfold_partial *partial)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    clfold_run_info info;
    unsigned char value[ACCUMULATOR_MAX_BYTES];

    CHECK(begin_call(ctx, &(struct call){.required = {{"partial", partial}}}));
    CHECK(fold_host(ctx, data, count, type, op, false, &request, value, &info));
    partial_pack(&request.job.config.acc, type, op, value, partial);
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

clfold_status clfold_reduce_partial(clfold_context *ctx, cl_mem buffer, size_t offset,
                                    size_t count, clfold_type type, clfold_op op,
                                    clfold_partial *partial)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    clfold_run_info info;
    unsigned char value[ACCUMULATOR_MAX_BYTES];

    CHECK(begin_call(ctx, &(struct call){.required = {{"buffer", buffer}, {"partial", partial}}}));
    /* An empty part is allowed, argmin's and argmax's too: its partial holds no element. */
    CHECK(check_request(ctx, type, op));
    CHECK(check_buffer(ctx, buffer, offset, count, type_info(type)->size));
    CHECK(make_request(ctx, type, op, &request));
    info = empty_run(&request);
    CHECK(fold_and_wait(ctx, &request, buffer, offset, count, false, value, &info));
    partial_pack(&request.job.config.acc, type, op, value, partial);
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

clfold_status clfold_reduce_partial_async(clfold_context *ctx, cl_mem buffer, size_t offset,
                                          size_t count, clfold_type type, clfold_op op,
                                          cl_mem result, size_t result_offset,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    struct pass_log log = {.waits = num_events_in_wait_list, .wait_list = event_wait_list,
                           .keep_last = true};
    struct fold fold = {buffer, offset, count, result, result_offset + PARTIAL_VALUE_AT, false,
                        NULL};
    cl_event done = NULL;

    CHECK(begin_call(ctx, &(struct call){.required = {{"buffer", buffer}, {"result", result}},
                                         .waits = num_events_in_wait_list,
                                         .wait_list = event_wait_list}));
    if (result_offset % 16 != 0)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT,
             "a partial goes to a byte offset that is a multiple of 16, not %zu", result_offset);
    /* An empty part is allowed, argmin's and argmax's too: its partial holds no element. */
    CHECK(check_request(ctx, type, op));
    CHECK(check_buffer(ctx, buffer, offset, count, type_info(type)->size));
    CHECK(make_request(ctx, type, op, &request));
    CHECK(check_result(ctx, result, result_offset, CLFOLD_PARTIAL_BYTES));
    CHECK(enqueue_async(ctx, &request, &fold, &log, true, event != NULL, &done));
cleanup:
    pass_log_release(&log);
    /* Written last: `event` may point into the wait list, which the enqueue read. */
    if (event != NULL)
        *event = status == CLFOLD_SUCCESS ? done : NULL;
    return status;
}

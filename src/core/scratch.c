/*
 * scratch.c: each reduction's or scan's own scratch, its partial values
 * and the one-launch path's counter. An operation takes a free one when it
 * is enqueued and holds it until its last command completes, so operations
 * in flight never share one; a later one takes it over once it is free.
 * The pool grows only to the most operations ever in flight at once.
 */
#include <stdlib.h>

#include "scratch.h"

/*
 * Partial-value buffers start at 64 KiB: partial values rarely need more,
 * so they are seldom released and re-created (which also spares Oclgrind
 * 21.10 a false report on a buffer that takes a released one's place).
 */
#define SCRATCH_MIN_BYTES ((size_t)64 * 1024)

/* Whether the reduction holding `scratch` is over: its last command completed or failed. */
static bool is_done(struct scratch *scratch)
{
    cl_int state = CL_QUEUED;
    if (scratch->done == NULL)
        return false; /* a blocking reduction between its enqueue and its wait */
    if (clGetEventInfo(scratch->done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                       NULL) != CL_SUCCESS)
        return false;
    if (state < 0)
        scratch_forget_tickets(scratch); /* an aborted one-launch kernel's counter is anywhere */
    return state == CL_COMPLETE || state < 0;
}

static void set_free(struct scratch *scratch)
{
    if (scratch->done != NULL)
        clReleaseEvent(scratch->done);
    scratch->done = NULL;
    scratch->busy = false;
}

clfold_status scratch_acquire(clfold_context *ctx, struct scratch **out)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct scratch *scratch = NULL;
    for (size_t i = 0; i < ctx->scratch_count && scratch == NULL; i++) {
        struct scratch *candidate = ctx->scratch[i];
        if (!candidate->busy || is_done(candidate))
            scratch = candidate;
    }
    if (scratch == NULL) {
        struct scratch **grown = realloc(ctx->scratch, (ctx->scratch_count + 1) * sizeof *grown);
        if (grown == NULL)
            FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for a reduction's scratch");
        ctx->scratch = grown;
        scratch = calloc(1, sizeof *scratch);
        if (scratch == NULL)
            FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for a reduction's scratch");
        ctx->scratch[ctx->scratch_count++] = scratch;
    }
    set_free(scratch);
    scratch->busy = true;
    *out = scratch;
cleanup:
    return status;
}

void scratch_hold(struct scratch *scratch, cl_event done)
{
    scratch->done = done;
}

void scratch_all_free(clfold_context *ctx)
{
    for (size_t i = 0; i < ctx->scratch_count; i++) {
        if (ctx->scratch[i]->busy)
            is_done(ctx->scratch[i]); /* drops the counter of a reduction that failed */
        set_free(ctx->scratch[i]);
    }
}

void scratch_forget_tickets(struct scratch *scratch)
{
    if (scratch->tickets != NULL)
        clReleaseMemObject(scratch->tickets);
    scratch->tickets = NULL;
}

void scratch_release_all(clfold_context *ctx)
{
    for (size_t i = 0; i < ctx->scratch_count; i++) {
        struct scratch *scratch = ctx->scratch[i];
        set_free(scratch);
        for (int which = 0; which < 2; which++)
            if (scratch->partials[which] != NULL)
                clReleaseMemObject(scratch->partials[which]);
        if (scratch->tickets != NULL)
            clReleaseMemObject(scratch->tickets);
        free(scratch);
    }
    free(ctx->scratch);
    ctx->scratch = NULL;
    ctx->scratch_count = 0;
}

clfold_status scratch_partials(clfold_context *ctx, struct scratch *scratch, int which,
                               size_t bytes)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_int err;
    bytes = bytes > SCRATCH_MIN_BYTES ? bytes : SCRATCH_MIN_BYTES;
    if (scratch->bytes[which] >= bytes)
        return CLFOLD_SUCCESS;
    if (scratch->partials[which] != NULL)
        clReleaseMemObject(scratch->partials[which]);
    scratch->bytes[which] = 0;
    scratch->partials[which] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_CL(err, "clCreateBuffer (partial values)");
    scratch->bytes[which] = bytes;
cleanup:
    return status;
}

clfold_status scratch_tickets(clfold_context *ctx, struct scratch *scratch)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_uint zero = 0;
    cl_int err;
    if (scratch->tickets != NULL)
        return CLFOLD_SUCCESS;
    scratch->tickets = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      sizeof zero, &zero, &err);
    CHECK_CL(err, "clCreateBuffer (tickets)");
cleanup:
    return status;
}

/* Holds a failed enqueue's scratch until a marker after its commands completes (path.h). */
void scratch_abandon(clfold_context *ctx, struct scratch *scratch)
{
    cl_event marker = NULL;
    scratch_forget_tickets(scratch); /* its kernel may never have run to the reset */
    if (clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &marker) == CL_SUCCESS)
        scratch_hold(scratch, marker);
}

/*
 * checks.c: what every public reduction and scan checks before it enqueues anything:
 * the type and operator, and that the ranges it reads and writes lie
 * inside buffers of the context's cl_context.
 */
#include "checks.h"

clfold_status begin_call(clfold_context *ctx, const struct call *call)
{
    clfold_status status = CLFOLD_SUCCESS;
    if (ctx == NULL) {
        /* No context to say why in. */
        status = CLFOLD_ERROR_INVALID_ARGUMENT;
        goto cleanup;
    }
    clear_error(ctx);
    ctx->has_last_run = false;
    for (size_t i = 0; i < sizeof call->required / sizeof call->required[0]; i++)
        if (call->required[i].name != NULL && call->required[i].value == NULL)
            FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", call->required[i].name);
    if ((call->waits == 0) != (call->wait_list == NULL))
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "the wait list has %u events but is %s", call->waits,
             call->wait_list == NULL ? "NULL" : "not NULL");
cleanup:
    return status;
}

/* Checks type, operator and device support. */
clfold_status check_request(clfold_context *ctx, clfold_type type, clfold_op op)
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

clfold_status check_arg_length(clfold_context *ctx, clfold_op op, size_t length)
{
    if (!op_is_arg(op) || length != 0)
        return CLFOLD_SUCCESS;
    return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                "an %s of no elements: there is no element to give the index of", clfold_op_name(op));
}

/* The size of `buffer` (`what` in messages), which must belong to the context's cl_context. */
static clfold_status owned_bytes(clfold_context *ctx, cl_mem buffer, const char *what,
                                 size_t *bytes)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_context owner = NULL;
    CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL),
             "clGetMemObjectInfo(CL_MEM_CONTEXT)");
    if (owner != ctx->cl)
        FAIL(CLFOLD_ERROR_WRONG_CONTEXT, "%s belongs to another cl_context", what);
    CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof *bytes, bytes, NULL),
             "clGetMemObjectInfo(CL_MEM_SIZE)");
cleanup:
    return status;
}

/* Checks that elements [offset, offset + count) of `type` lie inside `buffer`. */
clfold_status check_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                  size_t element)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t bytes = 0;
    CHECK(owned_bytes(ctx, buffer, "the buffer", &bytes));
    if (offset > bytes / element || count > bytes / element - offset)
        FAIL(CLFOLD_ERROR_OUT_OF_BOUNDS,
             "elements %zu..%zu+%zu lie beyond the buffer's %zu bytes (%zu elements)", offset,
             offset, count, bytes, bytes / element);
cleanup:
    return status;
}

/* Checks that bytes [at, at + size) lie inside `result`, which kernels may write. */
clfold_status check_result(clfold_context *ctx, cl_mem result, size_t at, size_t size)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_mem_flags flags = 0;
    size_t bytes = 0;
    CHECK(owned_bytes(ctx, result, "the result buffer", &bytes));
    /* A sub-buffer made with no access flags inherits its parent's; some drivers report 0. */
    for (cl_mem buffer = result; buffer != NULL;) {
        cl_mem parent = NULL;
        CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL),
                 "clGetMemObjectInfo(CL_MEM_FLAGS)");
        if (flags & CL_MEM_READ_ONLY)
            FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "the result buffer is CL_MEM_READ_ONLY");
        CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent,
                                    NULL),
                 "clGetMemObjectInfo(CL_MEM_ASSOCIATED_MEMOBJECT)");
        buffer = parent;
    }
    if (at > bytes || size > bytes - at)
        FAIL(CLFOLD_ERROR_OUT_OF_BOUNDS,
             "a %zu-byte result at byte %zu lies beyond the result buffer's %zu bytes", size, at,
             bytes);
cleanup:
    return status;
}

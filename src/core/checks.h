/*
 * checks.h: what every public reduction and scan checks before it enqueues
 * anything (checks.c).
 */
#ifndef CLFOLD_CHECKS_H
#define CLFOLD_CHECKS_H

#include "internal.h"

/*
 * What a public entry checks before anything else: up to two named pointer
 * arguments that must not be NULL (unused slots have no name) and an async
 * entry's wait list, which is NULL exactly when it has no events.
 */
struct call {
    struct {
        const char *name;
        const void *value;
    } required[2];
    cl_uint waits;
    const cl_event *wait_list;
};

/*
 * Every public reduction's and scan's start: a NULL context is an invalid
 * argument; otherwise the last error is cleared, there is no last run until
 * this call succeeds, and `call`'s arguments are checked in order.
 */
clfold_status begin_call(clfold_context *ctx, const struct call *call);

/* Type, operator and the device's support for them. */
clfold_status check_request(clfold_context *ctx, clfold_type type, clfold_op op);

/* An argmin or argmax has an element to point at: its `length` elements are not none. */
clfold_status check_arg_length(clfold_context *ctx, clfold_op op, size_t length);

/* Elements [offset, offset + count) of `element` bytes lie inside `buffer`, of this context. */
clfold_status check_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                           size_t element);

/* Bytes [at, at + size) lie inside `result`, of this context, which kernels may write. */
clfold_status check_result(clfold_context *ctx, cl_mem result, size_t at, size_t size);

#endif /* CLFOLD_CHECKS_H */

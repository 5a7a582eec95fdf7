/*
 * checks.h: what every public reduction and scan checks before it enqueues
 * anything (checks.c).
 */
#ifndef CLFOLD_CHECKS_H
#define CLFOLD_CHECKS_H

#include "internal.h"

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

/*
 * types.h: the element-type and operator tables, the one place that says
 * how each type is spelled in OpenCL C, what each (type, operator) pair
 * accumulates in, and what its identity is.
 */
#ifndef CLFOLD_TYPES_H
#define CLFOLD_TYPES_H

#include <stdbool.h>

#include "clfold.h"

struct type_info {
    const char *name;        /* as the runner spells it: "int32" */
    const char *cl_name;     /* OpenCL C: "int" */
    const char *cl_unsigned; /* unsigned twin for wrapping arithmetic; NULL for floats */
    const char *cl_lowest;   /* OpenCL C expression of the least value */
    const char *cl_highest;  /* and of the greatest */
    size_t size;             /* bytes per element */
    unsigned float_bits;     /* 0 for integers */
    bool is_signed;
    clfold_type wide;        /* what sums and products accumulate in */
};

/* NULL for a value that is not a clfold_type. */
const struct type_info *type_info(clfold_type type);

bool op_is_valid(clfold_op op);
bool op_is_bitwise(clfold_op op);
bool op_is_arg(clfold_op op); /* argmin, argmax: (key, index) pairs, an index for a result */

/* Checks the pair and gives the result type (the accumulator's, but for arg-reductions). */
clfold_status accumulator_type(clfold_type type, clfold_op op, clfold_type *acc);

/* Writes the identity of `op` over values of type `acc` to `out`. */
void identity_value(clfold_type acc, clfold_op op, void *out);

/* The OpenCL C define that names the operator: "OP_SUM". */
const char *op_define(clfold_op op);

#endif /* CLFOLD_TYPES_H */

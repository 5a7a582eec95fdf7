/*
 * ops.h: the operators, from the one table in ops.c: what each folds by,
 * its identity, its result type, its OpenCL C define and what the public
 * clfold_op_describe says of it.
 */
#ifndef CLFOLD_OPS_H
#define CLFOLD_OPS_H

#include <stdbool.h>

#include "clfold.h"

/* How two values of an operator fold into one: the host's folds, partials and MPI go by it. */
enum op_fold {
    FOLD_ADD,
    FOLD_MULTIPLY,
    FOLD_LEAST,    /* IEEE minimum, a NaN wins; -0 below +0 */
    FOLD_GREATEST, /* IEEE maximum, a NaN wins; +0 above -0 */
    FOLD_AND,
    FOLD_OR,
    FOLD_XOR,
    FOLD_ARG       /* (key, index) pairs: the least key, the first index of equal keys */
};

bool op_is_valid(clfold_op op);
bool op_is_bitwise(clfold_op op); /* integer types only */
bool op_is_arg(clfold_op op);     /* argmin, argmax: (key, index) pairs, an index for a result */
enum op_fold op_fold(clfold_op op); /* for a valid op */

/* Checks the pair and gives the result type (the accumulator's, but for arg-reductions). */
clfold_status accumulator_type(clfold_type type, clfold_op op, clfold_type *acc);

/* Writes the identity of `op` over values of type `acc` to `out`. */
void identity_value(clfold_type acc, clfold_op op, void *out);

/* The OpenCL C define that names the operator's fold: "OP_SUM". */
const char *op_define(clfold_op op);

/* The OpenCL C define of the map applied to each element first ("MAP_SQUARE"); NULL: none. */
const char *op_map_define(clfold_op op);

/* Whether clfold_scan* takes it (CLFOLD_OP_SCANS). */
bool op_scans(clfold_op op);

#endif /* CLFOLD_OPS_H */

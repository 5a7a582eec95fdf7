/*
 * partial.h: a reduction's accumulator value as a clfold_partial's bytes
 * (partial.c says the layout); the public calls merge and finish them.
 */
#ifndef CLFOLD_PARTIAL_H
#define CLFOLD_PARTIAL_H

#include "accumulator.h"
#include "clfold.h"

/* The partial of `value`, an accumulator value of `acc` for `type` and `op`. */
void partial_pack(const struct accumulator *acc, clfold_type type, clfold_op op,
                  const void *value, clfold_partial *partial);

/* Where a partial's accumulator value starts: after its header. */
#define PARTIAL_VALUE_AT 16

#endif /* CLFOLD_PARTIAL_H */

/*
 * accumulator.h: what a reduction's kernels accumulate in, which can differ
 * from what the caller receives: a float sum in the compensated mode carries
 * (sum, carry) pairs, in the fp64 mode a double; a float product carries
 * its exponent apart. The kernels finish the
 * last value into the result (write_value in cl/core/defs.cl); the host folds
 * and finishes only the values of a large host array's chunks.
 */
#ifndef CLFOLD_ACCUMULATOR_H
#define CLFOLD_ACCUMULATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "clfold.h"
#include "exact.h"

struct accumulator {
    clfold_type result;  /* what the caller receives */
    clfold_type scalar;  /* the kernels' scalar: result, or double in the fp64 mode */
    bool compensated;    /* values are (sum, carry) pairs of scalars */
    bool run_carry;      /* a plain float sum whose work-item runs carry a Neumaier
                            compensation (every tree path at the default and fp64
                            accuracies; never the atomic baseline) */
    bool exact;          /* an exact sum's state (cl/core/exact.cl) */
    bool scaled;         /* a float product's (significand, exponent) pairs, int32
                            exponents for half and float, int64 for double
                            (cl/core/defs.cl); never the atomic baseline */
    bool arg;            /* an argmin's or argmax's (key, index) pairs of uint64
                            (cl/core/defs.cl): the least pair wins */
    struct exact_format exact_format;
};

/* The largest accumulator value: an exact double sum's state. */
#define ACCUMULATOR_MAX_BYTES (8 * (EXACT_MAX_WORDS + 1))

struct clfold_context;

/*
 * The accumulator for `op` over `type` (already checked) by `kernel` under
 * the context's accuracy. The atomic baseline always accumulates plainly,
 * and refuses the exact accuracy, as exact products are.
 */
clfold_status accumulator_choose(struct clfold_context *ctx, clfold_type type, clfold_op op,
                                 clfold_kernel kernel, struct accumulator *acc);

size_t accumulator_size(const struct accumulator *acc);

/* total = total (op) part, on the host, exactly as the kernels' combine(). */
void accumulator_fold(const struct accumulator *acc, clfold_op op, void *total, const void *part);

/*
 * An arg-reduction's value counts its index from the start of the values it
 * folded; this moves that start `elements` earlier (a host array's chunk
 * into the whole array). Other values are left as they are.
 */
void accumulator_move_index(const struct accumulator *acc, void *value, uint64_t elements);

/* Turns an accumulator value into the caller's result. */
void accumulator_finish(const struct accumulator *acc, const void *value, void *result);

#endif /* CLFOLD_ACCUMULATOR_H */

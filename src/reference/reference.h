/*
 * reference.h: host-side reductions and scans that the runner and the tests
 * compare the device against. Integer results are exact (wrapping like the
 * library); float sums and products are computed in long double, so they
 * serve as the exact value a float result is measured from.
 */
#ifndef CLFOLD_REFERENCE_H
#define CLFOLD_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "clfold.h"

/* The largest result any type has: 8 bytes. */
typedef union {
    int64_t i64;
    uint64_t u64;
    int32_t i32;
    uint32_t u32;
    int16_t i16;
    uint16_t u16;
    int8_t i8;
    uint8_t u8;
    float f32;
    double f64;
    unsigned char bytes[8];
} reference_value;

/*
 * The exact reduction of data[0..n) (floats in long double, rounded once to
 * the result type; argmin and argmax by NumPy's rules, -1 for n = 0). Fills *sum_abs with the sum of |x| for float sums, the
 * scale of their error bound; 0 otherwise. Returns the status that
 * clfold_result_type() gives for the pair.
 */
clfold_status reference_reduce(const void *data, size_t n, clfold_type type, clfold_op op,
                               reference_value *result, long double *sum_abs);

/*
 * The host's sequential loop, as a naive program writes it: one accumulator
 * of the result type, one element at a time. The ladder's baseline row.
 */
clfold_status reference_sequential(const void *data, size_t n, clfold_type type, clfold_op op,
                                   reference_value *result);

/* Element i of data as long double (half and double included). */
long double reference_element(const void *data, size_t i, clfold_type type);

/* IEEE binary16 bits to float, for half inputs on the host. */
float reference_half_to_float(uint16_t bits);

/*
 * How far a float result may lie from the exact one (docs/accuracy.md).
 * u is the unit roundoff of the result type: 2^-24 (float), 2^-53 (double);
 * S the exact sum, A = sum |x|, L = ceil(log2 n).
 *   sums, default accuracy, tree kernels K1-K7:  (L + 4) u A
 *     K1-K6 are pairwise trees of depth L; K7's sequential runs carry a
 *     Neumaier compensation, which costs at most 2u of the run's sum
 *   sums, compensated:  2u|S| + (L + 2)^2 u^2 A + (n / 8192) u^2 A
 *     the carries hold every rounding error; they are summed with error
 *     (L + 2) u per level of their own tree, plus K7's runs
 *   sums, fp64 (float in double):  u|S| + (L + 4) 2^-53 A
 *   sums, exact:  u|S| / 2 + (n + 1) 2^-64 A, the second term for this
 *     long double reference's own error (tests/test_exact.c checks bits)
 *   sums in sequential order (host loop, atomic baseline):  (n + 1) u A
 *   products, any order:  (n + 1) u |exact| + half the smallest subnormal
 *     (2^-150, 2^-1075); the atomic baseline's products may overflow on
 *     the way, and are held to this only on data where they cannot
 *   min, max and integers: exact, 0.
 */
long double reference_tolerance(clfold_type type, clfold_op op, clfold_accuracy accuracy,
                                size_t n, long double exact, long double sum_abs, bool sequential);

/* Whether `got` lies within reference_tolerance() of `exact`. */
bool reference_close(const reference_value *got, const reference_value *exact, clfold_type type,
                     clfold_op op, clfold_accuracy accuracy, size_t n, long double sum_abs,
                     bool sequential);

/*
 * The exact scan of data[0..n) (include/clfold.h, "Scans"): out[i] of
 * elements 0..i (inclusive) or 0..i-1 (exclusive, out[0] the operator's
 * identity), written into `out` as the library writes results: n packed
 * values of clfold_result_type(). Integers wrap in 64 bits, min and max
 * follow reference_reduce's rules, and each float output is its exact
 * prefix rounded once:
 *   sums: a running long double sum with Neumaier's compensation (its
 *     error stays near 2^-64 |S_i|, far below any float bound), started
 *     at -0 so that a prefix of -0 alone stays -0 (as numpy.cumsum's);
 *     infinities and NaN counted apart: NaN, or both infinities, give
 *     NaN, one infinity alone that infinity; the exclusive out[0] is +0;
 *   products: mantissa and exponent apart, as reference_reduce's.
 * exact (may be NULL) receives the n prefixes before that rounding, for
 * float results (0 for others); sum_abs (may be NULL) A_i, the sum of |x|
 * over the elements output i covers, for float sums (0 otherwise). `out`
 * may be `data` where the result type is as large as the element type:
 * element i is read before out[i] is written. Returns the status that
 * clfold_result_type() gives, and CLFOLD_ERROR_UNSUPPORTED for argmin and
 * argmax, as the library does.
 */
clfold_status reference_scan(const void *data, size_t n, clfold_type type, clfold_op op,
                             clfold_scan_mode mode, void *out, long double *exact,
                             long double *sum_abs);

/*
 * How far a float scan's output may lie from its exact prefix S_i
 * (docs/scans.md), with A_i = sum_abs, L = ceil(log2(max(count, 2))) over
 * the scan's whole count, u the unit roundoff of the result type (2^-24 for
 * half and float, 2^-53 for double):
 *   sums, default accuracy:  (5L + 4) u A_i
 *   sums, compensated:       2u|S_i| + (5L + 4)^2 u^2 A_i
 *   sums, fp64 (half and float summed in double, rounded once):
 *                            u|S_i| + (5L + 4) 2^-53 A_i
 *     (double under fp64 sums in double: the default bound);
 *   sums, exact: 0 (the library refuses them);
 *   products: reference_tolerance()'s, with n = count;
 *   min, max and integers: exact, 0.
 * Sums add 2^-62 |S_i| for this reference's own rounding of S_i.
 */
long double reference_scan_tolerance(clfold_type type, clfold_op op, clfold_accuracy accuracy,
                                     size_t count, long double exact, long double sum_abs);

/* Whether two results of `type` are the same value, bit for bit (NaN == NaN). */
bool reference_equal(const reference_value *a, const reference_value *b, clfold_type type);

/* Writes a result as the runner prints it: decimal integers, round-trip floats. */
int reference_format(char *buf, size_t cap, const reference_value *value, clfold_type type);

#endif /* CLFOLD_REFERENCE_H */

/*
 * util.h: what the clfold tests share: a deterministic PRNG, fill functions
 * per type, EXPECT macros that record a failure and go on, a mismatch
 * printer with the kernel/block/size/type/op context, the float error bound,
 * and a context made on the device that CLFOLD_DEVICE names (else the
 * library's default). Header-only: every test is one C file.
 */
#ifndef CLFOLD_TEST_UTIL_H
#define CLFOLD_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clfold.h"
#include "reference.h"

/* CTest's SKIP_RETURN_CODE for every test here. */
#define TEST_SKIP 77

/* ---- failures ------------------------------------------------------------ */

static inline unsigned long *test_failure_counter(void)
{
    static unsigned long failures;
    return &failures;
}

static inline unsigned long *test_check_counter(void)
{
    static unsigned long checks;
    return &checks;
}

/* Counts a check; on failure prints where and why, and counts the failure. */
#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        ++*test_check_counter();                                              \
        if (!(cond)) {                                                        \
            ++*test_failure_counter();                                        \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

/* A call must return `want`; prints both statuses and the context's last error. */
#define EXPECT_STATUS(ctx, call, want)                                               \
    do {                                                                             \
        clfold_status got_ = (call);                                                 \
        EXPECT(got_ == (want), "%s returned %s (%d), want %s; last error: \"%s\"",   \
               #call, clfold_status_string(got_), (int)got_,                         \
               clfold_status_string(want), clfold_last_error(ctx));                  \
    } while (0)

/*
 * Prints a summary and returns the process exit status: 0 only if something
 * was checked and nothing failed. A run that checked nothing (no data, no
 * device, a loop over an empty list) is a failure, never a pass.
 */
static inline int test_finish(const char *name)
{
    unsigned long failures = *test_failure_counter(), checks = *test_check_counter();
    printf("%s: %lu checks, %lu failed\n", name, checks, failures);
    if (checks == 0)
        fprintf(stderr, "%s: FAILED: nothing was checked\n", name);
    return failures == 0 && checks > 0 ? 0 : 1;
}

/*
 * For a part of a test that could loop over nothing: take the count before
 * it, and EXPECT_CHECKED after it fails the test if the part checked nothing.
 */
#define CHECKS_SO_FAR() (*test_check_counter())
#define EXPECT_CHECKED(before, what)                                             \
    do {                                                                         \
        unsigned long checked_ = *test_check_counter() - (before);               \
        EXPECT(checked_ > 0, "%s checked nothing", (what));                      \
    } while (0)

/* ---- a deterministic PRNG: splitmix64 ----------------------------------- */

typedef struct {
    uint64_t state;
} test_rng;

static inline uint64_t rng_next(test_rng *rng)
{
    uint64_t z = (rng->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound > 0 (the bias is irrelevant here). */
static inline uint64_t rng_below(test_rng *rng, uint64_t bound) { return rng_next(rng) % bound; }

/* Uniform double in [-1, 1) with 53 random bits. */
static inline double rng_unit(test_rng *rng)
{
    return (double)(rng_next(rng) >> 11) * 0x1p-52 - 1.0;
}

/* ---- element access ------------------------------------------------------ */

/*
 * Segment offsets from `start` with power-law lengths, 1 to about 2^17
 * (P(length > x) ~ 1/x), a tenth of them empty; the elements they cover.
 */
static inline size_t power_law(cl_ulong *bounds, size_t segments, cl_ulong start, test_rng *rng)
{
    bounds[0] = start;
    for (size_t s = 0; s < segments; s++) {
        double u = (double)(rng_next(rng) >> 11) * 0x1p-53;
        size_t length = rng_below(rng, 10) == 0 ? 0 : (size_t)(1.0 / (u + 1.0 / 131072.0));
        bounds[s + 1] = bounds[s] + length;
    }
    return (size_t)bounds[segments];
}

static inline bool type_is_float(clfold_type type)
{
    return type == CLFOLD_HALF || type == CLFOLD_FLOAT || type == CLFOLD_DOUBLE;
}

/*
 * IEEE binary16 bits of a float that half represents exactly (normal
 * numbers, zeros, infinities, NaN): the tests build half data from small
 * integers and powers of two only. Returns 0x7e00 (NaN) for anything else,
 * which store_element's round-trip check reports.
 */
static inline uint16_t float_to_half_exact(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, 4);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    int exponent = (int)((bits >> 23) & 0xff) - 127;
    uint32_t mantissa = bits & 0x7fffff;
    if (isnan(value))
        return 0x7e00;
    if (isinf(value))
        return (uint16_t)(sign | 0x7c00);
    if (value == 0.0f)
        return sign;
    if (exponent < -14 || exponent > 15 || (mantissa & 0x1fff) != 0)
        return 0x7e00;
    return (uint16_t)(sign | (uint16_t)((exponent + 15) << 10) | (uint16_t)(mantissa >> 13));
}

/*
 * Stores `value` as element i of `type`. Integers take the low bits of the
 * two's complement value; floats the nearest value (half: exact values only).
 */
static inline void store_element(void *data, size_t i, clfold_type type, int64_t integer,
                                 double real)
{
    unsigned char *p = (unsigned char *)data + i * clfold_type_size(type);
    uint64_t bits = (uint64_t)integer;
    uint8_t u8 = (uint8_t)bits;
    uint16_t u16 = (uint16_t)bits;
    uint32_t u32 = (uint32_t)bits;
    float f = (float)real;
    uint16_t h;
    switch (type) {
    case CLFOLD_INT8: case CLFOLD_UINT8: memcpy(p, &u8, 1); break;
    case CLFOLD_INT16: case CLFOLD_UINT16: memcpy(p, &u16, 2); break;
    case CLFOLD_INT32: case CLFOLD_UINT32: memcpy(p, &u32, 4); break;
    case CLFOLD_INT64: case CLFOLD_UINT64: memcpy(p, &bits, 8); break;
    case CLFOLD_FLOAT: memcpy(p, &f, 4); break;
    case CLFOLD_DOUBLE: memcpy(p, &real, 8); break;
    case CLFOLD_HALF:
        h = float_to_half_exact(f);
        if (!isnan(f) && reference_half_to_float(h) != f)
            EXPECT(!"exact in half", "test data %g is not exactly representable in half", real);
        memcpy(p, &h, 2);
        break;
    }
}

/* ---- fill functions ------------------------------------------------------ */

/*
 * Random integers in which every bit matters for `op`:
 *   sum, min, max, xor: uniformly random bits of the whole width;
 *   prod: random odd values, so that the wrapped product never collapses
 *         to 0 and all 64 bits of it depend on every element;
 *   and/or: each element differs from the identity in at most one bit of a
 *         random mask, and one planted element, at a random place, in a bit
 *         outside it: the result shows whether that element was read.
 */
static inline void fill_integers(void *data, size_t n, clfold_type type, clfold_op op,
                                 test_rng *rng)
{
    unsigned width = 8 * (unsigned)clfold_type_size(type);
    uint64_t ones = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
    unsigned planted_bit = (unsigned)rng_below(rng, width);
    uint64_t mask = rng_next(rng) & ones & ~(UINT64_C(1) << planted_bit);
    size_t planted = n > 0 ? (size_t)rng_below(rng, n) : 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = rng_next(rng);
        if (op == CLFOLD_PROD) {
            bits |= 1;
        } else if (op == CLFOLD_AND || op == CLFOLD_OR) {
            uint64_t bit = i == planted ? UINT64_C(1) << planted_bit
                                        : (UINT64_C(1) << rng_below(rng, width)) & mask;
            bits = op == CLFOLD_AND ? ~bit : bit;
        }
        store_element(data, i, type, (int64_t)bits, 0.0);
    }
}

/* Small integers -3..3 (0..3 unsigned): every partial sum exact in any float. */
static inline void fill_small(void *data, size_t n, clfold_type type, test_rng *rng)
{
    bool is_signed = type != CLFOLD_UINT8 && type != CLFOLD_UINT16 && type != CLFOLD_UINT32 &&
                     type != CLFOLD_UINT64;
    for (size_t i = 0; i < n; i++) {
        int64_t v = is_signed ? (int64_t)rng_below(rng, 7) - 3 : (int64_t)rng_below(rng, 4);
        store_element(data, i, type, v, (double)v);
    }
}

/*
 * Float data whose products are exact whatever the order: +-1 everywhere but
 * at most 60 places holding 2 and 60 holding 0.5, so every partial product
 * is +-2^k with |k| <= 60, exact in half-to-float accumulators and double.
 */
static inline void fill_product(void *data, size_t n, clfold_type type, test_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        store_element(data, i, type, 0, rng_below(rng, 2) ? 1.0 : -1.0);
    for (int k = 0; k < 120 && n > 0; k++)
        store_element(data, (size_t)rng_below(rng, n), type, 0, k % 2 ? 2.0 : 0.5);
}

/* Uniform random floats in [-1, 1) (half: multiples of 1/1024 in (-1, 1)). */
static inline void fill_unit(void *data, size_t n, clfold_type type, test_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        double v = rng_unit(rng);
        if (type == CLFOLD_HALF)
            v = floor(v * 1024.0) / 1024.0;
        store_element(data, i, type, 0, v);
    }
}

/*
 * The error a float sum of n elements may carry at the default accuracy:
 * the library's documented bound, reference_tolerance() in
 * src/reference/reference.c, which the runner checks too.
 */
static inline double float_sum_tolerance(size_t n, clfold_type result_type, long double sum_abs)
{
    clfold_type type = result_type == CLFOLD_DOUBLE ? CLFOLD_DOUBLE : CLFOLD_FLOAT;
    return (double)reference_tolerance(type, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT, n, 0, sum_abs,
                                       false);
}

/* A result as a long double, for tolerance checks. */
static inline long double result_value(const reference_value *value, clfold_type result_type)
{
    return result_type == CLFOLD_DOUBLE ? (long double)value->f64 : (long double)value->f32;
}

/* ---- context ------------------------------------------------------------- */

/* Whether the device reports the extension `name` in CL_DEVICE_EXTENSIONS. */
static inline bool test_device_has_extension(cl_device_id device, const char *name)
{
    char extensions[8192] = "";
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
    return strstr(extensions, name) != NULL;
}

/* Whether the device reports cl_khr_fp64 (double data, the fp64 accuracy). */
static inline bool test_device_has_fp64(cl_device_id device)
{
    return test_device_has_extension(device, "cl_khr_fp64");
}

/*
 * Says on stderr what a long test takes up next ("TEST: WHAT"), so that one
 * stopped at its time limit shows where it was.
 */
static inline void test_progress(const char *test, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", test);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

/*
 * A context on CLFOLD_DEVICE (through clfold's NULL selector) or the default
 * device. Standard output turns line-buffered: what a test printed before a
 * time limit stopped it is not lost in a buffer.
 */
static inline clfold_context *test_context(void)
{
    clfold_context *ctx = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    clfold_status status = clfold_create(&ctx, NULL);
    if (status != CLFOLD_SUCCESS) {
        fprintf(stderr, "clfold_create(CLFOLD_DEVICE=%s) failed: %s\n",
                getenv("CLFOLD_DEVICE") ? getenv("CLFOLD_DEVICE") : "(unset)",
                clfold_status_string(status));
        return NULL;
    }
    return ctx;
}

/* ---- mismatches ---------------------------------------------------------- */

/* Prints what ran and both values; `what` says which check. */
static inline void print_mismatch(const char *what, clfold_kernel kernel, size_t block, size_t n,
                                  clfold_type type, clfold_op op, const reference_value *got,
                                  const reference_value *want, clfold_type result_type)
{
    char got_text[64], want_text[64];
    reference_format(got_text, sizeof got_text, got, result_type);
    reference_format(want_text, sizeof want_text, want, result_type);
    fprintf(stderr, "MISMATCH %s: kernel=%s block=%zu n=%zu type=%s op=%s: got %s, want %s\n",
            what, clfold_kernel_name(kernel), block, n, clfold_type_name(type),
            clfold_op_name(op), got_text, want_text);
}

/* Parses a kernel name ("k3", "atomic", "auto"); false if unknown. */
/*
 * The test drivers' kernel arguments: takes "--kernel NAME" or "NAME" at
 * argv[*i] (moving *i past NAME) into chosen[*n_chosen]; false if it names
 * no kernel or chosen already holds `cap` of them.
 */
static inline bool take_kernel_arg(int argc, char **argv, int *i, clfold_kernel *chosen,
                                   size_t *n_chosen, size_t cap)
{
    const char *name = argv[*i];
    if (strcmp(name, "--kernel") == 0 && *i + 1 < argc)
        name = argv[++*i];
    if (*n_chosen == cap || clfold_kernel_from_name(name, &chosen[*n_chosen]) != CLFOLD_SUCCESS)
        return false;
    ++*n_chosen;
    return true;
}

#endif /* CLFOLD_TEST_UTIL_H */

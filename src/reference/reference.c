/*
 * reference.c: host reductions and scans to check the device against.
 * Integers wrap in 64 bits exactly as the kernels do; floats are summed in
 * long double; min and max follow the library's rule (NaN wins, -0 < +0).
 */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

float reference_half_to_float(uint16_t bits)
{
    unsigned sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    float magnitude;
    if (exponent == 0)
        magnitude = ldexpf((float)mantissa, -24); /* zero or subnormal */
    else if (exponent == 31)
        magnitude = mantissa != 0 ? NAN : INFINITY;
    else
        magnitude = ldexpf((float)(mantissa | 0x400), (int)exponent - 25);
    return sign ? -magnitude : magnitude;
}

static bool is_float_type(clfold_type type)
{
    return type == CLFOLD_HALF || type == CLFOLD_FLOAT || type == CLFOLD_DOUBLE;
}

static bool is_signed_type(clfold_type type)
{
    return type == CLFOLD_INT8 || type == CLFOLD_INT16 || type == CLFOLD_INT32 ||
           type == CLFOLD_INT64;
}

/* Element i as a 64-bit pattern: sign-extended for signed types. */
static uint64_t integer_element(const void *data, size_t i, clfold_type type)
{
    const unsigned char *p = (const unsigned char *)data + i * clfold_type_size(type);
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    switch (type) {
    case CLFOLD_INT8: memcpy(&i8, p, 1); return (uint64_t)(int64_t)i8;
    case CLFOLD_INT16: memcpy(&i16, p, 2); return (uint64_t)(int64_t)i16;
    case CLFOLD_INT32: memcpy(&i32, p, 4); return (uint64_t)(int64_t)i32;
    case CLFOLD_INT64: memcpy(&i64, p, 8); return (uint64_t)i64;
    case CLFOLD_UINT8: memcpy(&u8, p, 1); return u8;
    case CLFOLD_UINT16: memcpy(&u16, p, 2); return u16;
    case CLFOLD_UINT32: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

long double reference_element(const void *data, size_t i, clfold_type type)
{
    const unsigned char *p = (const unsigned char *)data + i * clfold_type_size(type);
    uint16_t h; float f; double d;
    switch (type) {
    case CLFOLD_HALF: memcpy(&h, p, 2); return reference_half_to_float(h);
    case CLFOLD_FLOAT: memcpy(&f, p, 4); return f;
    case CLFOLD_DOUBLE: memcpy(&d, p, 8); return d;
    default: break;
    }
    uint64_t bits = integer_element(data, i, type);
    return is_signed_type(type) ? (long double)(int64_t)bits : (long double)bits;
}

/* Stores the low bytes of `bits` as a value of integer type `type`. */
static void store_integer(reference_value *out, uint64_t bits, clfold_type type)
{
    memset(out, 0, sizeof *out);
    switch (clfold_type_size(type)) {
    case 1: out->u8 = (uint8_t)bits; break;
    case 2: out->u16 = (uint16_t)bits; break;
    case 4: out->u32 = (uint32_t)bits; break;
    default: out->u64 = bits; break;
    }
}

static uint64_t fold_integer(uint64_t a, uint64_t b, clfold_op op, bool is_signed)
{
    switch (op) {
    case CLFOLD_SUM: return a + b;
    case CLFOLD_PROD: return a * b;
    case CLFOLD_MIN: return (is_signed ? (int64_t)a < (int64_t)b : a < b) ? a : b;
    case CLFOLD_MAX: return (is_signed ? (int64_t)a > (int64_t)b : a > b) ? a : b;
    case CLFOLD_AND: return a & b;
    case CLFOLD_OR: return a | b;
    default: return a ^ b;
    }
}

/* min/max with NaN propagation and -0 < +0; exact for every float value. */
static long double fold_min_max(long double a, long double b, clfold_op op)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b) /* equal: only the sign of a zero can differ */
        return (op == CLFOLD_MIN) == (signbit(a) != 0) ? a : b;
    return (op == CLFOLD_MIN) == (a < b) ? a : b;
}

static void store_float(reference_value *out, long double value, clfold_type result)
{
    memset(out, 0, sizeof *out);
    if (result == CLFOLD_DOUBLE)
        out->f64 = (double)value;
    else
        out->f32 = (float)value;
}

/*
 * numpy.argmin and numpy.argmax, written as NumPy's documentation states
 * them rather than as the kernels fold: the first NaN wins outright; else
 * the first element that no later one beats strictly (-0 == +0). -1 for
 * no elements.
 */
static int64_t arg_index(const void *data, size_t n, clfold_type type, clfold_op op)
{
    bool is_signed = is_signed_type(type), is_float = is_float_type(type);
    size_t best = 0;
    if (n == 0)
        return -1;
    for (size_t i = 1; i < n; i++) {
        if (is_float) {
            long double x = reference_element(data, i, type), b = reference_element(data, best, type);
            if (isnan(b))
                break;
            if (isnan(x) || (op == CLFOLD_ARGMIN ? x < b : x > b))
                best = i;
        } else {
            uint64_t x = integer_element(data, i, type), b = integer_element(data, best, type);
            bool less = is_signed ? (int64_t)x < (int64_t)b : x < b;
            bool greater = is_signed ? (int64_t)x > (int64_t)b : x > b;
            if (op == CLFOLD_ARGMIN ? less : greater)
                best = i;
        }
    }
    return (int64_t)best;
}

/* A running float sum: Neumaier's compensation in long double, non-finite elements apart. */
typedef struct {
    long double sum, carry, sum_abs;
    bool nan, plus_inf, minus_inf;
} running_sum;

static void running_add(running_sum *s, long double x)
{
    if (isnan(x)) {
        s->nan = true;
    } else if (isinf(x)) {
        *(x > 0 ? &s->plus_inf : &s->minus_inf) = true;
    } else {
        long double t = s->sum + x;
        s->carry += fabsl(s->sum) >= fabsl(x) ? (s->sum - t) + x : (x - t) + s->sum;
        s->sum = t;
        s->sum_abs += fabsl(x);
    }
}

static long double running_value(const running_sum *s)
{
    if (s->nan || (s->plus_inf && s->minus_inf))
        return NAN;
    if (s->plus_inf || s->minus_inf)
        return s->plus_inf ? INFINITY : -INFINITY;
    /* Zeros alone: the sum, started at -0, holds their sign (-0 only if all are -0). */
    return s->sum_abs == 0 ? s->sum : s->sum + s->carry;
}

clfold_status reference_reduce(const void *data, size_t n, clfold_type type, clfold_op op,
                               reference_value *result, long double *sum_abs)
{
    clfold_type result_type;
    clfold_status status = clfold_result_type(type, op, &result_type);
    if (sum_abs != NULL)
        *sum_abs = 0;
    if (status != CLFOLD_SUCCESS)
        return status;
    if (op == CLFOLD_ARGMIN || op == CLFOLD_ARGMAX) {
        memset(result, 0, sizeof *result);
        result->i64 = arg_index(data, n, type, op);
        return CLFOLD_SUCCESS;
    }
    bool adds = op == CLFOLD_SUM || op == CLFOLD_SUMSQ;
    if (is_float_type(type)) {
        /*
         * Sums carry Neumaier's compensation: a plain long double sum of 2^28
         * doubles could be off by 2^28 of its roundings, more than the bounds
         * it judges (docs/accuracy.md).
         */
        running_sum sum = {0.0L, 0, 0, false, false, false};
        long double acc = adds ? 0.0L : op == CLFOLD_PROD ? 1.0L
                        : op == CLFOLD_MIN ? INFINITY : -INFINITY;
        long exponent = 0; /* products: acc * 2^exponent, so that no partial product overflows */
        for (size_t i = 0; i < n; i++) {
            long double x = reference_element(data, i, type);
            if (op == CLFOLD_SUMSQ) /* exact for halves and floats; within 2^-64 for doubles */
                x *= x;
            if (adds) {
                running_add(&sum, x);
            } else if (op == CLFOLD_PROD) {
                int k = 0;
                acc = frexpl(acc * x, &k);
                exponent += isfinite(acc) ? k : 0;
            } else {
                acc = fold_min_max(acc, x, op);
            }
            if (sum_abs != NULL && adds)
                *sum_abs += fabsl(x);
        }
        if (adds)
            acc = running_value(&sum);
        if (op == CLFOLD_PROD) /* long double's range holds any float or double result */
            acc = ldexpl(acc, exponent < -20000 ? -20000 : exponent > 20000 ? 20000 : (int)exponent);
        store_float(result, acc, result_type);
        return CLFOLD_SUCCESS;
    }
    if (op == CLFOLD_SUMSQ) { /* squares modulo 2^64, as the library's wrapping sums */
        uint64_t squares = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = integer_element(data, i, type);
            squares += x * x;
        }
        store_integer(result, squares, result_type);
        return CLFOLD_SUCCESS;
    }
    bool is_signed = is_signed_type(type);
    uint64_t acc = n > 0 ? integer_element(data, 0, type) : 0;
    if (n == 0) {
        /* The identity, as the library defines it. */
        unsigned bits = 8 * (unsigned)clfold_type_size(result_type);
        uint64_t ones = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        acc = op == CLFOLD_PROD ? 1 : op == CLFOLD_AND ? ones
            : op == CLFOLD_MIN ? (is_signed ? ones >> 1 : ones)
            : op == CLFOLD_MAX ? (is_signed ? ~(ones >> 1) : 0) : 0;
    }
    for (size_t i = 1; i < n; i++)
        acc = fold_integer(acc, integer_element(data, i, type), op, is_signed);
    store_integer(result, acc, result_type);
    return CLFOLD_SUCCESS;
}

/*
 * One tight loop over a typed array, as a naive program writes it. Integer
 * sums and products run in uint64_t, which wraps like the library.
 */
#define SEQUENTIAL_LOOP(T, ACC, INIT, STEP)                   \
    do {                                                      \
        const T *x = data;                                    \
        ACC acc = (INIT);                                     \
        for (size_t i = 0; i < n; i++)                        \
            acc = (STEP);                                     \
        memcpy(result->bytes, &acc, sizeof acc);              \
    } while (0)

#define SEQUENTIAL_INTEGER(T, WIDE)                                                         \
    do {                                                                                    \
        switch (op) {                                                                       \
        case CLFOLD_SUM: SEQUENTIAL_LOOP(T, WIDE, 0, acc + (WIDE)x[i]); break;                \
        case CLFOLD_PROD: SEQUENTIAL_LOOP(T, WIDE, 1, acc * (WIDE)x[i]); break;               \
        case CLFOLD_MIN: SEQUENTIAL_LOOP(T, T, x[0], x[i] < acc ? x[i] : acc); break;         \
        case CLFOLD_MAX: SEQUENTIAL_LOOP(T, T, x[0], x[i] > acc ? x[i] : acc); break;         \
        case CLFOLD_AND: SEQUENTIAL_LOOP(T, T, x[0], (T)(acc & x[i])); break;                 \
        case CLFOLD_OR: SEQUENTIAL_LOOP(T, T, x[0], (T)(acc | x[i])); break;                  \
        default: SEQUENTIAL_LOOP(T, T, 0, (T)(acc ^ x[i])); break;                           \
        }                                                                                   \
    } while (0)

clfold_status reference_sequential(const void *data, size_t n, clfold_type type, clfold_op op,
                                   reference_value *result)
{
    clfold_type result_type;
    clfold_status status = clfold_result_type(type, op, &result_type);
    if (status != CLFOLD_SUCCESS || n == 0 || type == CLFOLD_HALF || type == CLFOLD_DOUBLE ||
        (type == CLFOLD_FLOAT && op != CLFOLD_SUM && op != CLFOLD_PROD) ||
        op == CLFOLD_ARGMIN || op == CLFOLD_ARGMAX || op == CLFOLD_SUMSQ)
        return reference_reduce(data, n, type, op, result, NULL); /* no faster loop needed */
    memset(result, 0, sizeof *result);
    switch (type) {
    case CLFOLD_INT8: SEQUENTIAL_INTEGER(int8_t, uint64_t); break;
    case CLFOLD_UINT8: SEQUENTIAL_INTEGER(uint8_t, uint64_t); break;
    case CLFOLD_INT16: SEQUENTIAL_INTEGER(int16_t, uint64_t); break;
    case CLFOLD_UINT16: SEQUENTIAL_INTEGER(uint16_t, uint64_t); break;
    case CLFOLD_INT32: SEQUENTIAL_INTEGER(int32_t, uint64_t); break;
    case CLFOLD_UINT32: SEQUENTIAL_INTEGER(uint32_t, uint64_t); break;
    case CLFOLD_INT64: SEQUENTIAL_INTEGER(int64_t, uint64_t); break;
    case CLFOLD_UINT64: SEQUENTIAL_INTEGER(uint64_t, uint64_t); break;
    default: /* float sum or product, in float: the seed's naive loop */
        if (op == CLFOLD_SUM)
            SEQUENTIAL_LOOP(float, float, 0.0f, acc + x[i]);
        else
            SEQUENTIAL_LOOP(float, float, 1.0f, acc * x[i]);
        break;
    }
    return CLFOLD_SUCCESS;
}

long double reference_tolerance(clfold_type type, clfold_op op, clfold_accuracy accuracy,
                                size_t n, long double exact, long double sum_abs, bool sequential)
{
    clfold_type result;
    if (clfold_result_type(type, op, &result) != CLFOLD_SUCCESS || !is_float_type(result) ||
        op == CLFOLD_MIN || op == CLFOLD_MAX)
        return 0;
    long double u = result == CLFOLD_DOUBLE ? ldexpl(1, -53) : ldexpl(1, -24);
    long double levels = n > 1 ? ceill(log2l((long double)n)) : 0;
    if (op == CLFOLD_PROD) /* and half the smallest subnormal, for a result that is one */
        return ((long double)n + 1) * u * fabsl(exact) +
               ldexpl(1, result == CLFOLD_DOUBLE ? -1075 : -150);
    /* Sums of squares: each square rounds once more, u times itself, which sum_abs holds. */
    long double squares = op == CLFOLD_SUMSQ ? u * sum_abs : 0;
    if (sequential)
        return ((long double)n + 1) * u * sum_abs + squares;
    if (accuracy == CLFOLD_ACCURACY_EXACT) /* half an ulp, and the long double reference's own error */
        return u * fabsl(exact) / 2 + ((long double)n + 1) * ldexpl(1, -64) * sum_abs + squares;
    if (accuracy == CLFOLD_ACCURACY_COMPENSATED)
        return 2 * u * fabsl(exact) +
               ((levels + 2) * (levels + 2) + (long double)n / 8192) * u * u * sum_abs + squares;
    if (accuracy == CLFOLD_ACCURACY_FP64 && result == CLFOLD_FLOAT)
        return u * fabsl(exact) + (levels + 4) * ldexpl(1, -53) * sum_abs + squares;
    return (levels + 4) * u * sum_abs + squares;
}

/* ---- scans ----------------------------------------------------------------- */

/* The identity of `op` on integers, as the bits a fold starts from (sign-extended). */
static uint64_t integer_identity(clfold_type result, clfold_op op, bool is_signed)
{
    unsigned bits = 8 * (unsigned)clfold_type_size(result);
    uint64_t ones = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    return op == CLFOLD_PROD ? 1 : op == CLFOLD_AND ? ones
         : op == CLFOLD_MIN ? (is_signed ? ones >> 1 : ones)
         : op == CLFOLD_MAX ? (is_signed ? ~(ones >> 1) : 0) : 0;
}

/* Output i of packed results: an integer's low bytes, or a float rounded once. */
static void store_output(void *out, size_t i, clfold_type result, uint64_t bits, long double value)
{
    reference_value v;
    size_t size = clfold_type_size(result);
    if (is_float_type(result))
        store_float(&v, value, result);
    else
        store_integer(&v, bits, result);
    memcpy((unsigned char *)out + i * size, v.bytes, size);
}

/* A running float product: mantissa and exponent apart, as reference_reduce's. */
static long double product_value(long double mantissa, long exponent)
{
    return ldexpl(mantissa, exponent < -20000 ? -20000 : exponent > 20000 ? 20000 : (int)exponent);
}

static void scan_floats(const void *data, size_t n, clfold_type type, clfold_op op,
                        clfold_scan_mode mode, clfold_type result, void *out, long double *exact,
                        long double *sum_abs)
{
    running_sum sum = {-0.0L, 0, 0, false, false, false};
    long double acc = op == CLFOLD_PROD ? 1.0L : op == CLFOLD_MIN ? INFINITY : -INFINITY;
    long exponent = 0;
    for (size_t i = 0; i < n; i++) {
        long double x = reference_element(data, i, type), before, after, abs_before = 0.0L;
        int k = 0;
        if (op == CLFOLD_SUM) {
            before = i == 0 ? 0.0L : running_value(&sum); /* the exclusive out[0]: +0 */
            abs_before = sum.sum_abs;
            running_add(&sum, x);
            after = running_value(&sum);
        } else if (op == CLFOLD_PROD) {
            before = product_value(acc, exponent);
            acc = frexpl(acc * x, &k);
            exponent += isfinite(acc) ? k : 0;
            after = product_value(acc, exponent);
        } else {
            before = acc;
            after = acc = fold_min_max(acc, x, op);
        }
        long double value = mode == CLFOLD_EXCLUSIVE ? before : after;
        store_output(out, i, result, 0, value);
        if (exact != NULL)
            exact[i] = value;
        if (sum_abs != NULL)
            sum_abs[i] = op != CLFOLD_SUM ? 0 : mode == CLFOLD_EXCLUSIVE ? abs_before : sum.sum_abs;
    }
}

clfold_status reference_scan(const void *data, size_t n, clfold_type type, clfold_op op,
                             clfold_scan_mode mode, void *out, long double *exact,
                             long double *sum_abs)
{
    clfold_type result;
    clfold_status status = clfold_result_type(type, op, &result);
    if (status != CLFOLD_SUCCESS)
        return status;
    if (op == CLFOLD_ARGMIN || op == CLFOLD_ARGMAX)
        return CLFOLD_ERROR_UNSUPPORTED;
    if (mode != CLFOLD_INCLUSIVE && mode != CLFOLD_EXCLUSIVE)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (is_float_type(type)) {
        scan_floats(data, n, type, op, mode, result, out, exact, sum_abs);
        return CLFOLD_SUCCESS;
    }
    bool is_signed = is_signed_type(type);
    uint64_t acc = integer_identity(result, op, is_signed);
    for (size_t i = 0; i < n; i++) {
        uint64_t next = fold_integer(acc, integer_element(data, i, type), op, is_signed);
        store_output(out, i, result, mode == CLFOLD_EXCLUSIVE ? acc : next, 0);
        acc = next;
        if (exact != NULL)
            exact[i] = 0;
        if (sum_abs != NULL)
            sum_abs[i] = 0;
    }
    return CLFOLD_SUCCESS;
}

long double reference_scan_tolerance(clfold_type type, clfold_op op, clfold_accuracy accuracy,
                                     size_t count, long double exact, long double sum_abs)
{
    clfold_type result;
    if (clfold_result_type(type, op, &result) != CLFOLD_SUCCESS || !is_float_type(result) ||
        (op != CLFOLD_SUM && op != CLFOLD_PROD))
        return 0;
    if (op == CLFOLD_PROD)
        return reference_tolerance(type, op, accuracy, count, exact, 0, false);
    long double u = result == CLFOLD_DOUBLE ? ldexpl(1, -53) : ldexpl(1, -24);
    long double k = 5 * ceill(log2l(count > 2 ? (long double)count : 2)) + 4;
    long double own = ldexpl(fabsl(exact), -62); /* this reference's rounding of S_i */
    switch (accuracy) {
    case CLFOLD_ACCURACY_DEFAULT: return k * u * sum_abs + own;
    case CLFOLD_ACCURACY_COMPENSATED: return 2 * u * fabsl(exact) + k * k * u * u * sum_abs + own;
    case CLFOLD_ACCURACY_FP64:
        if (result == CLFOLD_FLOAT)
            return u * fabsl(exact) + k * ldexpl(1, -53) * sum_abs + own;
        return k * u * sum_abs + own; /* double sums in double: the default's */
    default: return 0;
    }
}

static long double value_of(const reference_value *v, clfold_type type)
{
    return type == CLFOLD_DOUBLE ? (long double)v->f64 : (long double)v->f32;
}

bool reference_close(const reference_value *got, const reference_value *exact, clfold_type type,
                     clfold_op op, clfold_accuracy accuracy, size_t n, long double sum_abs,
                     bool sequential)
{
    clfold_type result;
    if (clfold_result_type(type, op, &result) != CLFOLD_SUCCESS)
        return false;
    if (reference_equal(got, exact, result))
        return true;
    if (!is_float_type(result))
        return false;
    long double g = value_of(got, result), e = value_of(exact, result);
    if (isnan(g) || isnan(e) || isinf(g) || isinf(e))
        return false; /* equal specials were caught above */
    return fabsl(g - e) <= reference_tolerance(type, op, accuracy, n, e, sum_abs, sequential);
}

bool reference_equal(const reference_value *a, const reference_value *b, clfold_type type)
{
    if (type == CLFOLD_FLOAT && isnan(a->f32) && isnan(b->f32))
        return true;
    if (type == CLFOLD_DOUBLE && isnan(a->f64) && isnan(b->f64))
        return true;
    return memcmp(a->bytes, b->bytes, clfold_type_size(type)) == 0;
}

int reference_format(char *buf, size_t cap, const reference_value *value, clfold_type type)
{
    double f = type == CLFOLD_DOUBLE ? value->f64 : value->f32;
    switch (type) {
    case CLFOLD_INT8: return snprintf(buf, cap, "%d", value->i8);
    case CLFOLD_UINT8: return snprintf(buf, cap, "%u", value->u8);
    case CLFOLD_INT16: return snprintf(buf, cap, "%d", value->i16);
    case CLFOLD_UINT16: return snprintf(buf, cap, "%u", value->u16);
    case CLFOLD_INT32: return snprintf(buf, cap, "%d", value->i32);
    case CLFOLD_UINT32: return snprintf(buf, cap, "%u", value->u32);
    case CLFOLD_INT64: return snprintf(buf, cap, "%lld", (long long)value->i64);
    case CLFOLD_UINT64: return snprintf(buf, cap, "%llu", (unsigned long long)value->u64);
    default: break;
    }
    if (isnan(f))
        return snprintf(buf, cap, "nan"); /* no "-nan": the sign of a NaN means nothing */
    return snprintf(buf, cap, type == CLFOLD_DOUBLE ? "%.17g" : "%.9g", f);
}

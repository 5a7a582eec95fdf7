/*
 * accumulator.c: the kernels' accumulator for a request, and the host's
 * side of it: folding partial values across chunks with the kernels' own
 * rules (wrapping integers, IEEE min/max, Neumaier pairs, exact states,
 * scaled products), and finishing.
 */
#include "accumulator.h"

#include <math.h>
#include <string.h>

#include "internal.h"

clfold_status accumulator_choose(clfold_context *ctx, clfold_type type, clfold_op op,
                                 clfold_kernel kernel, struct accumulator *acc)
{
    clfold_type result;
    clfold_status status = accumulator_type(type, op, &result);
    if (status != CLFOLD_SUCCESS)
        return status;
    *acc = (struct accumulator){.result = result, .scalar = result};
    if (op_is_arg(op)) {
        if (kernel == CLFOLD_ATOMIC)
            return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                        "the atomic baseline folds into one word, which cannot hold both the "
                        "%s's value and its index", clfold_op_name(op));
        acc->arg = true;
        return CLFOLD_SUCCESS;
    }
    bool is_float = type_info(result)->float_bits != 0;
    enum op_fold fold = op_fold(op);
    if (ctx->accuracy == CLFOLD_ACCURACY_EXACT && is_float && fold == FOLD_MULTIPLY)
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                    "the exact accuracy is for sums: a correctly rounded product would need "
                    "the exact product of every element (docs/accuracy.md)");
    if (fold == FOLD_MULTIPLY && is_float && kernel != CLFOLD_ATOMIC)
        acc->scaled = true;
    if (fold != FOLD_ADD || !is_float)
        return CLFOLD_SUCCESS;
    if (ctx->accuracy == CLFOLD_ACCURACY_EXACT && kernel == CLFOLD_ATOMIC)
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                    "the atomic baseline adds in arrival order; exact sums need a tree path");
    if (kernel == CLFOLD_ATOMIC)
        return CLFOLD_SUCCESS;
    if (ctx->accuracy == CLFOLD_ACCURACY_EXACT && op_map_define(op) != NULL)
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED,
                    "the exact accuracy does not take %s: a square can lie below the least unit "
                    "of the exact state (docs/accuracy.md)", clfold_op_name(op));
    if (ctx->accuracy == CLFOLD_ACCURACY_EXACT) {
        acc->exact = true;
        acc->exact_format = exact_format_of(result);
        return CLFOLD_SUCCESS;
    }
    acc->compensated = ctx->accuracy == CLFOLD_ACCURACY_COMPENSATED;
    acc->run_carry = !acc->compensated;
    if (ctx->accuracy == CLFOLD_ACCURACY_FP64)
        acc->scalar = CLFOLD_DOUBLE; /* a no-op for double itself */
    return CLFOLD_SUCCESS;
}

size_t accumulator_size(const struct accumulator *acc)
{
    if (acc->exact)
        return exact_state_bytes(acc->exact_format);
    if (acc->arg)
        return 2 * sizeof(uint64_t);
    return type_info(acc->scalar)->size * (acc->compensated || acc->scaled ? 2 : 1);
}

/* ---- folding on the host --------------------------------------------------- */

static uint64_t load_bits(const void *p, size_t size)
{
    uint8_t b8; uint16_t b16; uint32_t b32; uint64_t b64;
    switch (size) {
    case 1: memcpy(&b8, p, 1); return b8;
    case 2: memcpy(&b16, p, 2); return b16;
    case 4: memcpy(&b32, p, 4); return b32;
    default: memcpy(&b64, p, 8); return b64;
    }
}

static void store_bits(void *p, uint64_t bits, size_t size)
{
    uint8_t b8 = (uint8_t)bits; uint16_t b16 = (uint16_t)bits; uint32_t b32 = (uint32_t)bits;
    switch (size) {
    case 1: memcpy(p, &b8, 1); break;
    case 2: memcpy(p, &b16, 2); break;
    case 4: memcpy(p, &b32, 4); break;
    default: memcpy(p, &bits, 8); break;
    }
}

/* Sign-extends the low `size` bytes of `bits`. */
static int64_t as_signed(uint64_t bits, size_t size)
{
    unsigned shift = 64 - 8 * (unsigned)size;
    return (int64_t)(bits << shift) >> shift;
}

static void fold_integer(const struct type_info *info, clfold_op op, void *total, const void *part)
{
    uint64_t a = load_bits(total, info->size), b = load_bits(part, info->size), r;
    bool less = info->is_signed ? as_signed(a, info->size) < as_signed(b, info->size) : a < b;
    switch (op_fold(op)) {
    case FOLD_ADD: r = a + b; break;
    case FOLD_MULTIPLY: r = a * b; break;
    case FOLD_LEAST: r = less ? a : b; break;
    case FOLD_GREATEST: r = less ? b : a; break;
    case FOLD_AND: r = a & b; break;
    case FOLD_OR: r = a | b; break;
    default: r = a ^ b; break;
    }
    store_bits(total, r, info->size);
}

/* Loads a float or double accumulator value as a double. */
static double load_float(const void *p, bool wide)
{
    float f;
    double d;
    if (wide) {
        memcpy(&d, p, 8);
        return d;
    }
    memcpy(&f, p, 4);
    return f;
}

/*
 * The kernels' float_min/float_max (defs.cl): a NaN operand gives NaN, and
 * of two equal operands (they can differ only in the sign of zero) min keeps
 * the or of their bits, -0, and max the and, +0.
 */
static void fold_min_max(bool wide, bool least, void *total, const void *part)
{
    size_t size = wide ? 8 : 4;
    double a = load_float(total, wide), b = load_float(part, wide);
    uint64_t bits_a = load_bits(total, size), bits_b = load_bits(part, size);
    if (isnan(a) || isnan(b))
        store_bits(total, isnan(a) ? bits_a : bits_b, size);
    else if (a != b)
        store_bits(total, least == (a < b) ? bits_a : bits_b, size);
    else
        store_bits(total, least ? bits_a | bits_b : bits_a & bits_b, size);
}

/* Plain sums and products, in the precision of the accumulator. */
static void fold_arithmetic(bool wide, bool add, void *total, const void *part)
{
    if (wide) {
        double a = load_float(total, true), b = load_float(part, true);
        double r = add ? a + b : a * b;
        memcpy(total, &r, 8);
    } else {
        float a = (float)load_float(total, false), b = (float)load_float(part, false);
        float r = add ? a + b : a * b;
        memcpy(total, &r, 4);
    }
}

/* Neumaier's merge of (s1, c1) and (s2, c2), as combine() does in defs.cl. */
#define NEUMAIER_MERGE(T, a, b)                                                     \
    do {                                                                            \
        T s = a[0] + b[0];                                                          \
        T err = !isfinite(s)                ? 0                                     \
              : fabs(a[0]) >= fabs(b[0])    ? (a[0] - s) + b[0]                     \
                                            : (b[0] - s) + a[0];                    \
        a[1] = a[1] + b[1] + err;                                                   \
        a[0] = s;                                                                   \
    } while (0)

static void fold_pair(bool wide, void *total, const void *part)
{
    if (wide) {
        double a[2], b[2];
        memcpy(a, total, sizeof a);
        memcpy(b, part, sizeof b);
        NEUMAIER_MERGE(double, a, b);
        memcpy(total, a, sizeof a);
    } else {
        float a[2], b[2];
        memcpy(a, total, sizeof a);
        memcpy(b, part, sizeof b);
        NEUMAIER_MERGE(float, a, b);
        memcpy(total, a, sizeof a);
    }
}

/*
 * A float product's (significand, exponent) pair as the host holds it,
 * whatever the kernels' widths: m as a double (a float widens exactly), e
 * as an int64, saturated at the kernels' bounds (int32 for half and float).
 */
struct scaled {
    double m;
    int64_t e;
};

static struct scaled scaled_load(bool wide, const void *value)
{
    if (wide) {
        struct { double m; int64_t e; } v;
        memcpy(&v, value, sizeof v);
        return (struct scaled){v.m, v.e};
    }
    struct { float m; int32_t e; } v;
    memcpy(&v, value, sizeof v);
    return (struct scaled){v.m, v.e};
}

static void scaled_store(bool wide, struct scaled s, void *value)
{
    if (wide) {
        struct { double m; int64_t e; } v = {s.m, s.e};
        memcpy(value, &v, sizeof v);
    } else {
        struct { float m; int32_t e; } v = {(float)s.m, (int32_t)s.e};
        memcpy(value, &v, sizeof v);
    }
}

static int64_t add_saturated(bool wide, int64_t a, int64_t b)
{
    const int64_t lowest = wide ? INT64_MIN : INT32_MIN, highest = wide ? INT64_MAX : INT32_MAX;
    if (b > 0 && a > highest - b)
        return highest;
    if (b < 0 && a < lowest - b)
        return lowest;
    return a + b;
}

/*
 * defs.cl's scaled_product: the significands' product split by frexp, the
 * exponents added with saturation. Float significands' product is rounded
 * to float before the split, as on the device (in double it is exact, and
 * a product that rounds up to a power of two must split as one).
 */
static void fold_scaled(bool wide, void *total, const void *part)
{
    struct scaled a = scaled_load(wide, total), b = scaled_load(wide, part);
    int k = 0;
    double m = frexp(wide ? a.m * b.m : (double)(float)(a.m * b.m), &k);
    a.e = add_saturated(wide, a.e, b.e);
    if (isfinite(m))
        a.e = add_saturated(wide, a.e, k);
    a.m = m;
    scaled_store(wide, a, total);
}

/*
 * defs.cl's scaled_value: m * 2^e, rounded once. For floats the double
 * ldexp is exact down to far below float's range, so the conversion is the
 * one rounding.
 */
static void finish_scaled(bool wide, const void *value, void *result)
{
    struct scaled v = scaled_load(wide, value);
    double r = ldexp(v.m, (int)(v.e < -4096 ? -4096 : v.e > 4096 ? 4096 : v.e));
    if (wide) {
        memcpy(result, &r, 8);
    } else {
        float narrow = (float)r;
        memcpy(result, &narrow, 4);
    }
}

/*
 * defs.cl's arg pairs: (key, index), the least key winning and of equal
 * keys the least index, so that any order of folds finds the same element.
 */
static void fold_arg(void *total, const void *part)
{
    uint64_t a[2], b[2];
    memcpy(a, total, sizeof a);
    memcpy(b, part, sizeof b);
    if (b[0] < a[0] || (b[0] == a[0] && b[1] < a[1]))
        memcpy(total, b, sizeof b);
}

void accumulator_move_index(const struct accumulator *acc, void *value, uint64_t elements)
{
    uint64_t pair[2];
    if (!acc->arg)
        return;
    memcpy(pair, value, sizeof pair);
    if (pair[1] != UINT64_MAX) /* "none" stays none */
        pair[1] += elements;
    memcpy(value, pair, sizeof pair);
}

void accumulator_fold(const struct accumulator *acc, clfold_op op, void *total, const void *part)
{
    const struct type_info *info = type_info(acc->scalar);
    bool wide = acc->scalar == CLFOLD_DOUBLE;
    if (acc->arg)
        fold_arg(total, part);
    else if (acc->exact)
        exact_state_merge(acc->exact_format, total, part);
    else if (acc->scaled)
        fold_scaled(wide, total, part);
    else if (info->float_bits == 0)
        fold_integer(info, op, total, part);
    else if (acc->compensated)
        fold_pair(wide, total, part);
    else if (op_fold(op) == FOLD_LEAST || op_fold(op) == FOLD_GREATEST)
        fold_min_max(wide, op_fold(op) == FOLD_LEAST, total, part);
    else
        fold_arithmetic(wide, op_fold(op) == FOLD_ADD, total, part);
}

void accumulator_finish(const struct accumulator *acc, const void *value, void *result)
{
    double sum;
    if (acc->arg) {
        /* The index; none (UINT64_MAX) is -1. */
        memcpy(result, (const unsigned char *)value + sizeof(uint64_t), sizeof(uint64_t));
        return;
    }
    if (acc->exact) {
        exact_state_round(acc->exact_format, acc->result, value, result);
        return;
    }
    if (acc->scaled) {
        finish_scaled(acc->scalar == CLFOLD_DOUBLE, value, result);
        return;
    }
    if (!acc->compensated && acc->scalar == acc->result) {
        memcpy(result, value, accumulator_size(acc));
        return;
    }
    if (acc->scalar == CLFOLD_DOUBLE) {
        double pair[2] = {0, 0};
        memcpy(pair, value, accumulator_size(acc));
        sum = isfinite(pair[0]) ? pair[0] + pair[1] : pair[0];
    } else {
        float pair[2] = {0, 0};
        memcpy(pair, value, accumulator_size(acc));
        /* One rounding of the pair's exact sum (the double sum of two floats is exact). */
        sum = isfinite(pair[0]) ? (double)pair[0] + (double)pair[1] : pair[0];
    }
    if (acc->result == CLFOLD_DOUBLE) {
        memcpy(result, &sum, 8);
    } else {
        float narrow = (float)sum;
        memcpy(result, &narrow, 4);
    }
}

/*
 * exact_reference.h: the correctly rounded sum of half, float or double
 * data, computed independently of the library, for the tests that check
 * exact sums bit for bit (test_exact.c, test_mpi.c): every element is added
 * as an integer multiple of the smallest subnormal into an array of signed
 * 64-bit digit sums (base 2^32), normalised once, and rounded by the host's
 * own conversion of its top 64 bits (with a sticky bit) to float or double,
 * then scaled with ldexp.
 */
#ifndef CLFOLD_TEST_EXACT_REFERENCE_H
#define CLFOLD_TEST_EXACT_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Digits of 2^32 from 2^lsb: 72 hold any sum of 2^64 doubles. */
#define DIGITS 72

struct exact_reference {
    int64_t digit[DIGITS]; /* signed digit sums, normalised at the end */
    int lsb;               /* -149 for half and float elements, -1074 for double */
    bool nan, pos_inf, neg_inf, seen, not_neg_zero;
};

/* One finite element, sign * m * 2^e with m below 2^53. */
static inline void reference_add(struct exact_reference *r, int negative, uint64_t m, int e)
{
    int p = e - r->lsb, i = p / 32, s = p % 32; /* an element is a whole number of units */
    int64_t sign = negative ? -1 : 1;
    r->digit[i] += sign * (int64_t)((m << s) & 0xffffffffu); /* the low bits survive the shift */
    m >>= 32 - s;
    for (i++; m != 0; i++, m >>= 32)
        r->digit[i] += sign * (int64_t)(m & 0xffffffffu);
}

static inline void add_element(struct exact_reference *r, clfold_type type, const void *data,
                              size_t i)
{
    uint64_t bits = 0;
    int mant_bits, exp_bits;
    if (type == CLFOLD_DOUBLE) {
        memcpy(&bits, (const char *)data + 8 * i, 8);
        mant_bits = 52, exp_bits = 11;
    } else if (type == CLFOLD_FLOAT) {
        uint32_t b;
        memcpy(&b, (const char *)data + 4 * i, 4);
        bits = b, mant_bits = 23, exp_bits = 8;
    } else {
        uint16_t b;
        memcpy(&b, (const char *)data + 2 * i, 2);
        bits = b, mant_bits = 10, exp_bits = 5;
    }
    int negative = (int)(bits >> (mant_bits + exp_bits));
    int field = (int)((bits >> mant_bits) & ((1u << exp_bits) - 1));
    uint64_t m = bits & ((UINT64_C(1) << mant_bits) - 1);
    int bias = (1 << (exp_bits - 1)) - 1;
    r->seen = true;
    if (!(negative && field == 0 && m == 0))
        r->not_neg_zero = true;
    if (field == (1 << exp_bits) - 1) {
        if (m != 0)
            r->nan = true;
        else if (negative)
            r->neg_inf = true;
        else
            r->pos_inf = true;
        return;
    }
    if (field != 0)
        m |= UINT64_C(1) << mant_bits;
    reference_add(r, negative, m, (field == 0 ? 1 : field) - bias - mant_bits);
}

/* The correctly rounded sum, as the bits of the result type (float or double). */
static inline uint64_t reference_bits(struct exact_reference *r, clfold_type result)
{
    bool wide = result == CLFOLD_DOUBLE;
    if (r->nan || (r->pos_inf && r->neg_inf))
        return wide ? UINT64_C(0x7ff8000000000000) : 0x7fc00000u;
    if (r->pos_inf || r->neg_inf) {
        uint64_t inf = wide ? UINT64_C(0x7ff0000000000000) : 0x7f800000u;
        return r->neg_inf ? inf | (wide ? UINT64_C(1) << 63 : UINT64_C(1) << 31) : inf;
    }
    uint32_t mag[DIGITS];
    int64_t carry = 0;
    for (int i = 0; i < DIGITS; i++) {
        int64_t v = r->digit[i] + carry;
        mag[i] = (uint32_t)v;
        carry = (v - (int64_t)mag[i]) / ((int64_t)1 << 32);
    }
    bool negative = carry < 0;
    if (negative) { /* two's complement of the whole array */
        uint64_t c = 1;
        for (int i = 0; i < DIGITS; i++) {
            uint64_t v = (uint64_t)(uint32_t)~mag[i] + c;
            mag[i] = (uint32_t)v;
            c = v >> 32;
        }
    }
    int top = -1;
    for (int i = DIGITS - 1; i >= 0 && top < 0; i--)
        for (int b = 31; b >= 0 && top < 0; b--)
            if ((mag[i] >> b) & 1)
                top = 32 * i + b;
    double value;
    float narrow;
    if (top < 0) {
        value = 0.0;
        narrow = 0.0f;
        if (r->seen && !r->not_neg_zero)
            value = -0.0, narrow = -0.0f;
    } else {
        /* The top 64 bits, the rest folded into a sticky last bit: one rounding below. */
        int low = top >= 63 ? top - 63 : 0;
        uint64_t top64 = 0;
        bool sticky = false;
        for (int b = 0; b < 32 * DIGITS; b++) {
            int bit = (mag[b / 32] >> (b % 32)) & 1;
            if (b < low)
                sticky = sticky || bit;
            else if (b <= top)
                top64 |= (uint64_t)bit << (b - low);
        }
        top64 |= sticky;
        value = ldexp((double)top64, low + r->lsb);
        narrow = ldexpf((float)top64, low + r->lsb);
        if (negative)
            value = -value, narrow = -narrow;
    }
    uint64_t bits = 0;
    if (wide) {
        memcpy(&bits, &value, 8);
    } else {
        uint32_t b;
        memcpy(&b, &narrow, 4);
        bits = b;
    }
    return bits;
}

static inline uint64_t exact_bits_of(clfold_type type, const void *data, size_t n)
{
    struct exact_reference *r = calloc(1, sizeof *r);
    if (r == NULL) {
        EXPECT(!"memory", "no memory for the reference");
        return 0;
    }
    r->lsb = type == CLFOLD_DOUBLE ? -1074 : -149;
    for (size_t i = 0; i < n; i++)
        add_element(r, type, data, i);
    uint64_t bits = reference_bits(r, type == CLFOLD_DOUBLE ? CLFOLD_DOUBLE : CLFOLD_FLOAT);
    free(r);
    return bits;
}

#endif /* CLFOLD_TEST_EXACT_REFERENCE_H */

/*
 * exact.c: merging and rounding exact-sum states on the host, word for
 * word the rules of cl/core/exact.cl, for the chunks of a host array too
 * large for one device buffer.
 */
#include "exact.h"

#include <stdint.h>
#include <string.h>

/* The kernels' flags (exact.cl). */
enum {
    EXACT_NAN = 1,
    EXACT_POS_INF = 2,
    EXACT_NEG_INF = 4,
    EXACT_SEEN = 8,
    EXACT_NOT_NEG_ZERO = 16,
};

struct exact_format exact_format_of(clfold_type result)
{
    if (result == CLFOLD_DOUBLE)
        return (struct exact_format){EXACT_MAX_WORDS, -1074};
    return (struct exact_format){6, -149};
}

size_t exact_state_bytes(struct exact_format format) { return 8 * ((size_t)format.words + 1); }

void exact_state_merge(struct exact_format format, void *total, const void *part)
{
    uint64_t a[EXACT_MAX_WORDS + 1], b[EXACT_MAX_WORDS + 1];
    memcpy(a, total, exact_state_bytes(format));
    memcpy(b, part, exact_state_bytes(format));
    uint64_t carry = 0;
    for (unsigned i = 0; i < format.words; i++) {
        uint64_t s = a[i] + b[i], t = s + carry;
        carry = (uint64_t)(s < a[i]) + (uint64_t)(t < s);
        a[i] = t;
    }
    a[format.words] |= b[format.words];
    memcpy(total, a, exact_state_bytes(format));
}

/* The 64 bits of the magnitude from bit `pos` up. */
static uint64_t bits_at(const uint64_t *w, unsigned words, int pos)
{
    unsigned k = (unsigned)pos / 64, s = (unsigned)pos % 64;
    uint64_t bits = k < words ? w[k] >> s : 0;
    if (s != 0 && k + 1 < words)
        bits |= w[k + 1] << (64 - s);
    return bits;
}

static int any_below(const uint64_t *w, int pos)
{
    unsigned k = (unsigned)pos / 64, s = (unsigned)pos % 64;
    for (unsigned i = 0; i < k; i++)
        if (w[i] != 0)
            return 1;
    return s != 0 && (w[k] & ((UINT64_C(1) << s) - 1)) != 0;
}

/* The result's bits: precision p, largest exponent field `max_field` (all ones). */
static uint64_t round_bits(uint64_t *w, unsigned words, uint64_t flags, int p, unsigned max_field,
                           unsigned width)
{
    const uint64_t sign = UINT64_C(1) << (width - 1);
    const uint64_t inf = (uint64_t)max_field << (p - 1);
    const uint64_t quiet_nan = inf | (UINT64_C(1) << (p - 2));
    if ((flags & EXACT_NAN) || (flags & (EXACT_POS_INF | EXACT_NEG_INF)) == (EXACT_POS_INF | EXACT_NEG_INF))
        return quiet_nan;
    if (flags & EXACT_POS_INF)
        return inf;
    if (flags & EXACT_NEG_INF)
        return inf | sign;
    int negative = (int)(w[words - 1] >> 63);
    if (negative) {
        uint64_t carry = 1;
        for (unsigned i = 0; i < words; i++) {
            w[i] = ~w[i] + carry;
            carry = carry && w[i] == 0;
        }
    }
    int top = -1;
    for (int i = (int)words - 1; i >= 0 && top < 0; i--)
        if (w[i] != 0)
            top = 64 * i + 63 - __builtin_clzll(w[i]);
    if (top < 0)
        return (flags & (EXACT_SEEN | EXACT_NOT_NEG_ZERO)) == EXACT_SEEN ? sign : 0;
    uint64_t bits;
    if (top < p) {
        bits = w[0];
    } else {
        int shift = top - (p - 1);
        uint64_t mant = bits_at(w, words, shift) & ((UINT64_C(1) << p) - 1);
        if ((bits_at(w, words, shift - 1) & 1) && ((mant & 1) || any_below(w, shift - 1)))
            mant++;
        if (mant >> p) {
            mant >>= 1;
            shift++;
        }
        bits = (unsigned)shift + 1 >= max_field ? inf : ((uint64_t)shift << (p - 1)) + mant;
    }
    return negative ? bits | sign : bits;
}

void exact_state_round(struct exact_format format, clfold_type result, const void *state,
                       void *out)
{
    uint64_t w[EXACT_MAX_WORDS + 1];
    memcpy(w, state, exact_state_bytes(format));
    if (result == CLFOLD_DOUBLE) {
        uint64_t bits = round_bits(w, format.words, w[format.words], 53, 2047, 64);
        memcpy(out, &bits, 8);
    } else {
        uint32_t bits = (uint32_t)round_bits(w, format.words, w[format.words], 24, 255, 32);
        memcpy(out, &bits, 4);
    }
}

/*
 * exact.cl: the state of an exact (correctly rounded) float sum, prepended
 * before defs.cl when the host sets ACC_EXACT (CLFOLD_ACCURACY_EXACT).
 *
 * The state is the exact sum itself, as a fixed-point two's-complement
 * integer of EXACT_WORDS 64-bit words in units of 2^EXACT_LSB: -149 for
 * half and float inputs (the smallest float subnormal; halves are multiples
 * of 2^-24), -1074 for doubles. Six words hold any sum of 2^64 floats
 * (149 + 128 + 64 bits and a sign), thirty-four any sum of 2^64 doubles.
 * Integer addition is associative, so merging states in any order, in any
 * tree, on any device or rank gives the same words, and the result is
 * rounded once, at the end (exact_round_bits). Beside the words, flags record
 * what the integer cannot: NaN, each infinity, and whether every element
 * was -0 (whose sum is -0).
 *
 * Merging two states costs EXACT_WORDS additions with carry: fine for trees,
 * too much per element. So a work-item's run first adds its elements into
 * doubles with error-free transformations (EXACT_FPE, where the device has
 * fp64): s0 + x = s + e exactly, e goes on to s1, and only what the doubles
 * cannot hold goes into the words (run_fold in defs.cl, lanes_fold in
 * cpu.cl). This is ExBLAS's expansion in front of a superaccumulator, with
 * an integer accumulator small enough to sit in every tree node.
 *
 * Flags: EXACT_WORDS, EXACT_LSB, EXACT_FPE (1: runs add in doubles first),
 * EXACT_WIDEN_BITS (1: the device may flush float subnormals, so floats are
 * widened to double from their bits).
 */
#if ACC_EXACT
#if NEEDS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF

#define EXACT_NAN 1u
#define EXACT_POS_INF 2u
#define EXACT_NEG_INF 4u
#define EXACT_SEEN 8u          /* at least one element */
#define EXACT_NOT_NEG_ZERO 16u /* an element other than -0 */

typedef struct {
    ulong word[EXACT_WORDS]; /* word 0 is the least significant */
    ulong flags;
} exact_t;

exact_t exact_zero(void)
{
    exact_t x;
#pragma unroll
    for (int i = 0; i < EXACT_WORDS; i++)
        x.word[i] = 0;
    x.flags = 0;
    return x;
}

/*
 * a + b + carry (0 or 1), and in *carry whether it wrapped. For doubles'
 * states, where the compiler takes PTX (NVIDIA), the hardware's carry flag
 * does it in three instructions instead of two additions and two 64-bit
 * comparisons: their 34-word additions, in merges and in each run's last
 * additions, are most of an exact double sum's fixed cost (H100, 2^16
 * doubles: 0.022 ms with PTX carries, 0.035 without;
 * bench/results/exact-h100.txt). Floats' 6-word states keep the plain
 * code: with PTX carries, even in merges alone, 2^28 floats are slower
 * (0.383 ms against 0.369, the same file), though small arrays gain.
 */
#if defined(INLINE_PTX) && INLINE_PTX && EXACT_LSB < -149
#define EXACT_PTX_CARRIES 1
#else
#define EXACT_PTX_CARRIES 0
#endif

inline ulong exact_add_carry(ulong a, ulong b, uint *carry)
{
#if EXACT_PTX_CARRIES
    ulong sum;
    asm("{\n\t.reg .u32 flag;\n\tadd.cc.u32 flag, %2, 0xffffffff;\n\t"
        "addc.cc.u64 %0, %3, %4;\n\taddc.u32 %1, 0, 0;\n\t}"
        : "=l"(sum), "=r"(*carry)
        : "r"(*carry), "l"(a), "l"(b));
    return sum;
#else
    const ulong s = a + b, t = s + *carry;
    *carry = (uint)(s < a) | (uint)(t < s);
    return t;
#endif
}

exact_t exact_merge(exact_t a, exact_t b)
{
    uint carry = 0;
#pragma unroll
    for (int i = 0; i < EXACT_WORDS; i++)
        a.word[i] = exact_add_carry(a.word[i], b.word[i], &carry);
    a.flags |= b.flags;
    return a;
}

/*
 * x += (-1)^negative * m * 2^shift units, m below 2^54, shift >= 0: the
 * addend's words are lo at word k and hi at word k + 1; a negative one is
 * added as its two's complement, its ones carried to the top. Every word
 * is visited, with constant indices, so that a state can stay in registers
 * (indexed, 2^28 exact floats take 0.47 ms on the H100, not 0.42;
 * bench/results/kernel-choices-nvidia.txt).
 */
void exact_add_scaled(exact_t *x, ulong m, int shift, int negative)
{
    const int k = shift / 64, s = shift % 64;
    const ulong lo = m << s, hi = s == 0 ? 0 : m >> (64 - s);
    uint carry = 0;
#pragma unroll
    for (int i = 0; i < EXACT_WORDS; i++) {
        const ulong part = i == k ? lo : i == k + 1 ? hi : 0;
        const ulong d = i < k ? 0 : negative ? ~part : part;
        if (i == k)
            carry = (uint)negative;
        x->word[i] = exact_add_carry(x->word[i], d, &carry);
    }
}

/* The flags of one element, from its sign and whether it is -0, infinite or NaN. */
ulong exact_element_flags(int negative, int neg_zero, int infinite, int nan)
{
    ulong flags = EXACT_SEEN | (neg_zero ? 0 : EXACT_NOT_NEG_ZERO);
    if (nan)
        flags |= EXACT_NAN;
    else if (infinite)
        flags |= negative ? EXACT_NEG_INF : EXACT_POS_INF;
    return flags;
}

/* x += f, a float, from its bits: subnormals count even where the device flushes them. */
void exact_add_float(exact_t *x, float f)
{
    const uint bits = as_uint(f);
    const int e = (int)((bits >> 23) & 0xffu);
    const uint m = bits & 0x7fffffu;
    x->flags |= exact_element_flags(bits >> 31, bits == 0x80000000u, e == 0xff, e == 0xff && m);
    if (e == 0xff || (e == 0 && m == 0))
        return;
    /* f = m' * 2^(max(e, 1) - 150), m' with the implicit bit; the unit is 2^EXACT_LSB. */
    exact_add_scaled(x, e == 0 ? m : m | 0x800000u, (e == 0 ? 1 : e) - 150 - EXACT_LSB, bits >> 31);
}

#if EXACT_FPE
/*
 * x += d, a finite double that is a multiple of 2^EXACT_LSB (every element,
 * and every sum and TwoSum error of elements, is), so bits below the unit
 * are zero and shifting them out loses nothing.
 */
void exact_add_double(exact_t *x, double d)
{
    const ulong bits = as_ulong(d);
    const int e = (int)((bits >> 52) & 0x7ff);
    ulong m = bits & 0xfffffffffffffUL;
    if ((e == 0 && m == 0) || e == 0x7ff) /* zeros add nothing; a run's specials are its flags */
        return;
    if (e != 0)
        m |= 1UL << 52;
    int shift = (e == 0 ? 1 : e) - 1075 - EXACT_LSB;
    if (shift < 0) {
        m >>= -shift;
        shift = 0;
    }
    exact_add_scaled(x, m, shift, (int)(bits >> 63));
}

/*
 * A float as a double, exactly. Where the device may flush subnormals
 * (EXACT_WIDEN_BITS), one that the conversion flushed is rebuilt from its
 * bits.
 */
double exact_widen(float f)
{
    double d = (double)f;
#if EXACT_WIDEN_BITS
    const uint bits = as_uint(f);
    if (d == 0.0 && (bits << 1) != 0) {
        d = (double)(bits & 0x7fffffu) * 0x1p-149;
        d = bits >> 31 ? -d : d;
    }
#endif
    return d;
}

/* x += one element (already widened), infinities and NaN as flags. */
void exact_add_element(exact_t *x, double d)
{
    const ulong bits = as_ulong(d);
    x->flags |= exact_element_flags((int)(bits >> 63), bits == 0x8000000000000000UL, isinf(d),
                                    isnan(d));
    exact_add_double(x, d);
}

/* One element into a state: the tree kernels' leaves. */
exact_t exact_of(double d)
{
    exact_t x = exact_zero();
    exact_add_element(&x, d);
    return x;
}

/*
 * The rounding error of s = a + b (finite), exactly: Dekker's Fast2Sum on
 * the operands ordered by magnitude, three additions where Knuth's TwoSum
 * takes six (the runs are bound by fp64 throughput on the GPU).
 */
inline double sum_error_exact(double a, double b, double s)
{
    return fabs(a) >= fabs(b) ? b - (s - a) : a - (s - b);
}

/* The same error by Knuth's TwoSum: six additions, no comparison. */
inline double two_sum_error(double a, double b, double s)
{
    const double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}
#else
exact_t exact_of(float f)
{
    exact_t x = exact_zero();
    exact_add_float(&x, f);
    return x;
}
#endif

/*
 * The correctly rounded value of the state, to nearest, ties to even, as
 * the bits of RESULT_T: float for half and float inputs, double for doubles.
 * The unit is the result's smallest subnormal, so a sum below 2^P units
 * (P, the result's precision) is its own encoding.
 */
#if RESULT_SIZE == 8
#define EXACT_P 53
#define EXACT_MAX_FIELD 2047
#define EXACT_QUIET_NAN 0x7ff8000000000000UL
#define EXACT_INF 0x7ff0000000000000UL
#else
#define EXACT_P 24
#define EXACT_MAX_FIELD 255
#define EXACT_QUIET_NAN 0x7fc00000UL
#define EXACT_INF 0x7f800000UL
#endif
#define EXACT_SIGN_BIT (8 * RESULT_SIZE - 1)

/* The 64 bits of x from bit `pos` up (pos >= 0). */
ulong exact_bits_at(const exact_t *x, int pos)
{
    const int k = pos / 64, s = pos % 64;
    ulong bits = k < EXACT_WORDS ? x->word[k] >> s : 0;
    if (s != 0 && k + 1 < EXACT_WORDS)
        bits |= x->word[k + 1] << (64 - s);
    return bits;
}

/* Whether any of bits 0 .. pos-1 of x is set. */
int exact_any_below(const exact_t *x, int pos)
{
    const int k = pos / 64, s = pos % 64;
    for (int i = 0; i < k; i++)
        if (x->word[i] != 0)
            return 1;
    return s != 0 && (x->word[k] & ((1UL << s) - 1)) != 0;
}

ulong exact_round_bits(exact_t x)
{
    const ulong sign = 1UL << EXACT_SIGN_BIT;
    if ((x.flags & EXACT_NAN) || (x.flags & (EXACT_POS_INF | EXACT_NEG_INF)) ==
                                     (EXACT_POS_INF | EXACT_NEG_INF))
        return EXACT_QUIET_NAN;
    if (x.flags & EXACT_POS_INF)
        return EXACT_INF;
    if (x.flags & EXACT_NEG_INF)
        return EXACT_INF | sign;
    const int negative = (int)(x.word[EXACT_WORDS - 1] >> 63);
    if (negative) {
        ulong carry = 1;
        for (int i = 0; i < EXACT_WORDS; i++) {
            x.word[i] = ~x.word[i] + carry;
            carry = carry && x.word[i] == 0;
        }
    }
    int top = -1;
    for (int i = EXACT_WORDS - 1; i >= 0 && top < 0; i--)
        if (x.word[i] != 0)
            top = 64 * i + 63 - (int)clz(x.word[i]);
    if (top < 0) /* an exact zero: -0 only when every element was -0 */
        return (x.flags & (EXACT_SEEN | EXACT_NOT_NEG_ZERO)) == EXACT_SEEN ? sign : 0;
    ulong bits;
    if (top < EXACT_P) {
        bits = x.word[0];
    } else {
        int shift = top - (EXACT_P - 1);
        ulong mant = exact_bits_at(&x, shift) & ((1UL << EXACT_P) - 1);
        const int round_bit = (int)(exact_bits_at(&x, shift - 1) & 1);
        if (round_bit && ((mant & 1) || exact_any_below(&x, shift - 1)))
            mant++;
        if (mant >> EXACT_P) {
            mant >>= 1;
            shift++;
        }
        bits = shift + 1 >= EXACT_MAX_FIELD ? EXACT_INF : ((ulong)shift << (EXACT_P - 1)) + mant;
    }
    return negative ? bits | sign : bits;
}
#endif

/*
 * defs.cl: prepended to every clfold kernel source. It turns the host's -D
 * flags into an element type, an accumulator type and an operator, the
 * stand-in for the C++ templates of Harris's slides.
 *
 * Flags (defaults let the file compile on its own):
 *   IN_T          type stored in the input buffer (int, half, ...)
 *   IN_HALF       1 when IN_T is half: loaded with vload_half
 *   IN_SIZE       sizeof(IN_T), for the preprocessor (caller's elements only)
 *   IN_IS_ACC     1 when the input holds partial values of an earlier pass
 *   ACC_T         accumulator type, what partial values are stored as
 *   ACC_SCALAR_T  the scalar type of ACC_T (ACC_T itself unless compensated)
 *   ACC_COMPENSATED 1 when ACC_T is a (sum, carry) pair, float2 or double2,
 *                 merged with Neumaier's rule: the accuracy option
 *   RUN_CARRY     1 when a work-item's run of a plain float sum carries a
 *                 Neumaier compensation (run_t below): the default and fp64
 *                 accuracies
 *   ACC_UT        its unsigned twin (integers), for wrapping arithmetic
 *   ACC_SIZE      sizeof(ACC_T)
 *   ACC_FLOAT     the width of ACC_T's float scalar (32, 64); 0 for integers
 *                 and for the structured values of ACC_EXACT and ACC_SCALED
 *   ACC_LOWEST    least ACC_T value (identity of max)
 *   ACC_HIGHEST   greatest ACC_T value (identity of min)
 *   OP            OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR
 *   NEEDS_FP64    1 when IN_T or ACC_T is double
 *   WARP_SHUFFLE  1 only where lanes of 32 are guaranteed to run in step and
 *                 shfl.sync exists (NVIDIA)
 *   SMALL_INT_SUM 1 when the device shapes add 8- or 16-bit integers in
 *                 32-bit lanes before widening (cpu.cl, gpu.cl), and where
 *                 NVIDIA's one-launch scan adds its tiles of them in ints
 *                 (scan/tiles.cl)
 *   RESULT_T      what the caller receives (clfold_result_type): ACC_T's
 *                 scalar, or float for an fp64 sum of floats
 *   RESULT_SIZE   sizeof(RESULT_T)
 *   ACC_EXACT     1 when ACC_T is exact.cl's exact_t: the exact accuracy
 *                 (EXACT_WORDS, EXACT_LSB and EXACT_FPE are exact.cl's)
 *   ACC_SCALED    1 for a float product (every tree path): ACC_T is an
 *                 integer pair (int2 or long2) holding a significand of type
 *                 ACC_SCALAR_T and an exponent of type EXPONENT_T (below)
 *   EXPONENT_T    int or long: ACC_T's component type when ACC_SCALED
 *   ACC_ARG       1 for argmin and argmax: ACC_T is ulong2, a (key, index)
 *                 pair (below), and RESULT_T the index, long
 *   ARG_FLOAT     with ACC_ARG: the caller's element type's float width
 *                 (16, 32, 64), 0 for integers; ARG_SIGNED: it is signed
 *   LOCAL_SHARE   the ladder's work-items a slot of its tree's local array
 *                 (store_leaf below): 1 unless local memory cannot hold a
 *                 value for each
 * The host decides each of these (src/core/program.c builds the flags);
 * no kernel derives one from the others.
 */
#ifndef IN_T
#define IN_T int
#endif
#ifndef IN_HALF
#define IN_HALF 0
#endif
#ifndef IN_SIZE
#define IN_SIZE 4
#endif
#ifndef ACC_T
#define ACC_T int
#define ACC_UT uint
#define ACC_SIZE 4
#define ACC_FLOAT 0
#define ACC_LOWEST INT_MIN
#define ACC_HIGHEST INT_MAX
#endif
#ifndef OP
#define OP OP_SUM
#endif
#ifndef IN_IS_ACC
#define IN_IS_ACC 0
#endif
#ifndef ACC_COMPENSATED
#define ACC_COMPENSATED 0
#endif
#ifndef ACC_SCALAR_T
#define ACC_SCALAR_T ACC_T
#endif
#ifndef NEEDS_FP64
#define NEEDS_FP64 0
#endif
#ifndef WARP_SHUFFLE
#define WARP_SHUFFLE 0
#endif
#ifndef RUN_CARRY
#define RUN_CARRY 0
#endif
#ifndef SMALL_INT_SUM
#define SMALL_INT_SUM 0
#endif
#ifndef ACC_EXACT
#define ACC_EXACT 0
#endif
#ifndef ACC_SCALED
#define ACC_SCALED 0
#endif
#ifndef ACC_ARG
#define ACC_ARG 0
#endif
#ifndef EXACT_FPE
#define EXACT_FPE 0
#endif
#ifndef LOCAL_SHARE
#define LOCAL_SHARE 1
#endif
#ifndef RESULT_T
#define RESULT_T ACC_SCALAR_T
#define RESULT_SIZE ACC_SIZE
#endif

#define OP_SUM 0
#define OP_PROD 1
#define OP_MIN 2
#define OP_MAX 3
#define OP_AND 4
#define OP_OR 5
#define OP_XOR 6
#define OP_ARGMIN 7
#define OP_ARGMAX 8

/*
 * The operators, one block each: all that a path needs to know of one.
 * Paths name no operator; they use what the block defines:
 *   PLAIN_IDENTITY       the identity of a plain accumulator, an integer or
 *                        a float (the structured ones below have their own)
 *   PLAIN_COMBINE(a, b)  two plain values folded into one; integer sums and
 *                        products wrap: they run in ACC_UT
 *   LANES_COMBINE(a, b)  the same on whole vectors, lane by lane, for the
 *                        CPU shape (AS_LANES and AS_ULANES reinterpret its
 *                        vectors as their type and as their unsigned twin)
 *   OP_ADDS              1 for the sum: the accuracies, the runs' carries,
 *                        the small-integer lanes and a scan's -0 are a sum's
 *   ATOMIC_32, ATOMIC_64 the device's atomic update for the operator, where
 *                        OpenCL has one (32-bit, and cl_khr_int64's);
 *                        ATOMIC_64_EXTENDED 1 where that is in the extended
 *                        set. Without one, the atomic baseline swaps.
 *   ARG_DESCENDING       1 for argmax: the greatest element's key is least
 * The host's twin of this list is the table in src/core/ops.c.
 */
#if OP == OP_SUM
#define OP_ADDS 1
#define PLAIN_IDENTITY 0
#if ACC_FLOAT
#define PLAIN_COMBINE(a, b) ((a) + (b))
#else
#define PLAIN_COMBINE(a, b) ((ACC_T)((ACC_UT)(a) + (ACC_UT)(b)))
#endif
#define LANES_COMBINE(a, b) AS_LANES(AS_ULANES(a) + AS_ULANES(b))
#define ATOMIC_32 atomic_add
#define ATOMIC_64 atom_add
#define ATOMIC_64_EXTENDED 0

#elif OP == OP_PROD
#define PLAIN_IDENTITY 1
#if ACC_FLOAT
#define PLAIN_COMBINE(a, b) ((a) * (b))
#define LANES_COMBINE(a, b) ((a) * (b))
#else
#define PLAIN_COMBINE(a, b) ((ACC_T)((ACC_UT)(a) * (ACC_UT)(b)))
#define LANES_COMBINE(a, b) AS_LANES(AS_ULANES(a) * AS_ULANES(b))
#endif

#elif OP == OP_MIN
#define PLAIN_IDENTITY ACC_HIGHEST
#if ACC_FLOAT
#define PLAIN_COMBINE(a, b) float_min((a), (b))
#define LANES_COMBINE(a, b) lanes_float_min((a), (b))
#else
#define PLAIN_COMBINE(a, b) ((a) < (b) ? (a) : (b))
#define LANES_COMBINE(a, b) select((b), (a), (a) < (b))
#endif
#define ATOMIC_32 atomic_min
#define ATOMIC_64 atom_min
#define ATOMIC_64_EXTENDED 1

#elif OP == OP_MAX
#define PLAIN_IDENTITY ACC_LOWEST
#if ACC_FLOAT
#define PLAIN_COMBINE(a, b) float_max((a), (b))
#define LANES_COMBINE(a, b) lanes_float_max((a), (b))
#else
#define PLAIN_COMBINE(a, b) ((a) > (b) ? (a) : (b))
#define LANES_COMBINE(a, b) select((b), (a), (a) > (b))
#endif
#define ATOMIC_32 atomic_max
#define ATOMIC_64 atom_max
#define ATOMIC_64_EXTENDED 1

#elif OP == OP_AND
#define PLAIN_IDENTITY (~(ACC_T)0)
#define PLAIN_COMBINE(a, b) ((a) & (b))
#define LANES_COMBINE(a, b) ((a) & (b))
#define ATOMIC_32 atomic_and
#define ATOMIC_64 atom_and
#define ATOMIC_64_EXTENDED 1

#elif OP == OP_OR
#define PLAIN_IDENTITY 0
#define PLAIN_COMBINE(a, b) ((a) | (b))
#define LANES_COMBINE(a, b) ((a) | (b))
#define ATOMIC_32 atomic_or
#define ATOMIC_64 atom_or
#define ATOMIC_64_EXTENDED 1

#elif OP == OP_XOR
#define PLAIN_IDENTITY 0
#define PLAIN_COMBINE(a, b) ((a) ^ (b))
#define LANES_COMBINE(a, b) ((a) ^ (b))
#define ATOMIC_32 atomic_xor
#define ATOMIC_64 atom_xor
#define ATOMIC_64_EXTENDED 1

#elif OP == OP_ARGMIN
#define ARG_DESCENDING 0

#elif OP == OP_ARGMAX
#define ARG_DESCENDING 1
#endif
#ifndef OP_ADDS
#define OP_ADDS 0
#endif

/*
 * The maps: what an element of the caller's becomes before it is folded
 * (MAP, the host's, from the same table). MAPPED(x) takes an element as
 * loaded (a half as a float) and gives the plain accumulator's scalar;
 * MAPPED_LANES(v, AS_T, AS_UT) does the same to a vector already converted
 * to the accumulator's scalar, AS_T and AS_UT reinterpreting it. Integers
 * square in their unsigned twin, so that they wrap modulo 2^64 as sums do.
 * The identity map is the element itself, so those kernels are as they were.
 * Only the caller's elements are mapped: an earlier pass's values are
 * folded already. The structured accumulators (exact, scaled, arg) take no
 * map: the host refuses those pairs.
 */
#define MAP_IDENTITY 0
#define MAP_SQUARE 1
#ifndef MAP
#define MAP MAP_IDENTITY
#endif
#if MAP != MAP_IDENTITY && (ACC_EXACT || ACC_SCALED || ACC_ARG)
#error "maps are for plain and compensated accumulators"
#endif
#if MAP == MAP_SQUARE && ACC_FLOAT
#define MAPPED(x) ((ACC_SCALAR_T)(x) * (ACC_SCALAR_T)(x))
#define MAPPED_LANES(v, AS_T, AS_UT) ((v) * (v))
#elif MAP == MAP_SQUARE
#define MAPPED(x) CONCAT(as_, ACC_T)((ACC_UT)(x) * (ACC_UT)(x))
#define MAPPED_LANES(v, AS_T, AS_UT) AS_T(AS_UT(v) * AS_UT(v))
#else
#define MAPPED(x) (x)
#define MAPPED_LANES(v, AS_T, AS_UT) (v)
#endif

#if NEEDS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* No fused multiply-add behind our back: the same bits on every device. */
#pragma OPENCL FP_CONTRACT OFF

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

#if ACC_SCALED
/*
 * A float product as a pair (m, e), the value m * 2^e: m is the product's
 * significand, in [0.5, 1) in magnitude (or a zero, infinity or NaN), e an
 * integer. A float product formed factor by factor overflows to infinity or
 * underflows to zero on the way whenever a tree's order meets many large or
 * many small factors together, and then infinity times zero gives NaN
 * where the true product is 0 (SciPy's tables with zeros did). With the
 * exponent apart, a product of two significands lies in [0.25, 1): it never
 * overflows or underflows, whatever the order, and only the finished value
 * (scaled_value) meets the type's range, once.
 *
 * ACC_T is an integer pair, m's bits in .x and e in .y, so that no device
 * moves an exponent through a float register (a flushing move would zero an
 * exponent that looks like a subnormal). Exponents add with saturation:
 * int for half and float products, whose factors' exponents lie within
 * -149..128, so that a partial product saturates only past 14 million
 * factors at the ends of float's range (docs/accuracy.md); long for doubles.
 */
#if ACC_SIZE == 16
#define SIGNIFICAND(v) as_double((v).x)
#define SIGNIFICAND_BITS(m) as_long(m)
/* The layout of a double, for the runs that split values from their bits. */
#define SCALAR_BITS(x) as_ulong(x)
#define FROM_SCALAR_BITS(b) as_double(b)
#define MANTISSA_BITS 52
#define EXPONENT_FIELD 0x7ffUL
#define HALF_BITS 0x3fe0000000000000UL /* the exponent field of 0.5 */
#define FIELD_OF_HALF 1022
#define SUBNORMAL_SCALE 0x1p64
#else
#define SIGNIFICAND(v) as_float((v).x)
#define SIGNIFICAND_BITS(m) as_int(m)
#define SCALAR_BITS(x) as_uint(x)
#define FROM_SCALAR_BITS(b) as_float(b)
#define MANTISSA_BITS 23
#define EXPONENT_FIELD 0xffu
#define HALF_BITS 0x3f000000u
#define FIELD_OF_HALF 126
#define SUBNORMAL_SCALE 0x1p64f
#endif
#define SUBNORMAL_SHIFT 64 /* 2^64 takes any subnormal into the normal range */

inline ACC_T scaled(ACC_SCALAR_T m, EXPONENT_T e)
{
    return (ACC_T)(SIGNIFICAND_BITS(m), e);
}

/*
 * The pair of x * 2^e: frexp's split of x, m in [0.5, 1), taken from the
 * bits (Oclgrind 21.10 cannot follow frexp's exponent pointer:
 * tests/known-bugs/oclgrind_frexp_private.py). A subnormal is scaled into
 * the normal range first; zeros, infinities and NaN stand as they are.
 */
inline ACC_T scaled_split(ACC_SCALAR_T x, EXPONENT_T e)
{
    if (((SCALAR_BITS(x) >> MANTISSA_BITS) & EXPONENT_FIELD) == 0 && x != 0) {
        x *= SUBNORMAL_SCALE;
        e = add_sat(e, (EXPONENT_T)-SUBNORMAL_SHIFT);
    }
    const EXPONENT_T field = (EXPONENT_T)((SCALAR_BITS(x) >> MANTISSA_BITS) & EXPONENT_FIELD);
    if (field == 0 || field == (EXPONENT_T)EXPONENT_FIELD)
        return scaled(x, e);
    const ACC_SCALAR_T m = FROM_SCALAR_BITS((SCALAR_BITS(x) & ~(EXPONENT_FIELD << MANTISSA_BITS)) | HALF_BITS);
    return scaled(m, add_sat(e, field - FIELD_OF_HALF));
}

inline ACC_T scaled_product(ACC_T a, ACC_T b)
{
    return scaled_split(SIGNIFICAND(a) * SIGNIFICAND(b), add_sat(a.y, b.y));
}

/*
 * m * 2^e in the result type, rounded once (ldexp is exact, or rounds a
 * subnormal once). Past 2^+-4096 every nonzero significand gives an
 * infinity or a zero, so ldexp's int never overflows.
 */
inline ACC_SCALAR_T scaled_value(ACC_T v)
{
    return ldexp(SIGNIFICAND(v), (int)clamp(v.y, (EXPONENT_T)-4096, (EXPONENT_T)4096));
}
#endif

#if ACC_ARG
/*
 * Argmin and argmax fold (key, index) pairs, ulong2. The key orders the
 * elements so that the one asked for is the least; the fold keeps the
 * least key and, of equal keys, the least index. That rule is associative
 * and commutative, so every kernel, in whatever order it folds, finds the
 * same element: the first of the extreme ones, as NumPy does. IDENTITY,
 * (ULONG_MAX, ULONG_MAX), loses to every element on its index; an index of
 * ULONG_MAX means none, and finishes as -1 (an empty segment).
 *
 * A key is the element's place in its type's order: integers shifted so
 * that unsigned order is theirs, floats by their bits (negative ones
 * flipped) with -0 taken as +0, so the two are equal; for argmax its
 * complement. A NaN's key is 0, which no number's is, so that the first
 * NaN wins for both, as NumPy has it. Only integer operations on bits: a
 * device that flushes subnormals still orders them. The first pass's
 * elements carry their index in the buffer (load_in); COUNTED_FROM below
 * makes it the caller's.
 */
#if ARG_FLOAT == 64
#define ARG_ELEMENT_T double
#elif ARG_FLOAT
#define ARG_ELEMENT_T float /* halves too: vload_half widens them exactly */
#elif ARG_SIGNED
#define ARG_ELEMENT_T long
#else
#define ARG_ELEMENT_T ulong
#endif

inline ulong arg_key(ARG_ELEMENT_T x)
{
#if ARG_FLOAT == 64
    ulong bits = as_ulong(x);
    bits = bits << 1 == 0 ? 0 : bits;
    if (bits << 1 > 0xffe0000000000000UL)
        return 0;
    const ulong order = bits >> 63 ? ~bits : bits | 0x8000000000000000UL;
#elif ARG_FLOAT
    uint bits = as_uint(x);
    bits = bits << 1 == 0 ? 0 : bits;
    if (bits << 1 > 0xff000000u)
        return 0;
    const ulong order = bits >> 31 ? ~bits : bits | 0x80000000u;
#elif ARG_SIGNED
    const ulong order = as_ulong(x) ^ 0x8000000000000000UL;
#else
    const ulong order = x;
#endif
#if ARG_DESCENDING
    return ~order;
#else
    return order;
#endif
}

inline ACC_T arg_pair(ARG_ELEMENT_T x, ulong index) { return (ACC_T)(arg_key(x), index); }

/* Whether pair a comes before pair b: the lesser key, or of equal keys the lesser index. */
inline bool arg_before(ACC_T a, ACC_T b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

/*
 * `run` and then element x at `index`, where index lies past every index
 * the run holds (a work-item's run in element order): x wins on a lesser
 * key, or over a run that holds none yet, whose key may equal x's
 * (ULONG_MAX: argmin of the largest uint64).
 */
inline ACC_T arg_later(ACC_T run, ARG_ELEMENT_T x, ulong index)
{
    const ulong key = arg_key(x);
    return key < run.x || run.y == ULONG_MAX ? (ACC_T)(key, index) : run;
}
#endif

/*
 * COUNTED_FROM(value, origin): a value of the caller's elements as the
 * caller counts its index: an arg pair's buffer index less `origin` (the
 * reduction's first element, or its row's or segment's), none staying
 * none. Every other value, and a later pass's, which are counted already,
 * stand as they are, and `origin` is not evaluated.
 */
#if ACC_ARG && !IN_IS_ACC
inline ACC_T arg_counted_from(ACC_T value, ulong origin)
{
    if (value.y != ULONG_MAX)
        value.y -= origin;
    return value;
}
#define COUNTED_FROM(value, origin) arg_counted_from((value), (origin))
#else
#define COUNTED_FROM(value, origin) (value)
#endif

#if ACC_EXACT
#define IDENTITY exact_zero()
#elif ACC_SCALED
#define IDENTITY scaled(0.5, 1)
#elif ACC_COMPENSATED
#define IDENTITY ((ACC_T)((ACC_SCALAR_T)0, (ACC_SCALAR_T)0))
#elif ACC_ARG
#define IDENTITY ((ACC_T)(ULONG_MAX, ULONG_MAX))
#else
#define IDENTITY ((ACC_T)(PLAIN_IDENTITY))
#endif

/*
 * Every kernel's first six arguments are
 *     (in, offset, n, __global uchar *out, ulong at, uint finish):
 * it folds in[offset .. offset + n) and each work-group's value leaves
 * through write_value. Without `finish` it is an accumulator value, ACC_T,
 * at index `index` (the group's, mostly) from byte `at` of out, a multiple
 * of ACC_SIZE: a partial value for the next pass, or a host chunk's value.
 * `finish` is set only in a reduction's last pass, on the one group that
 * writes (its only group, or in the one-launch kernel the group that takes
 * the last ticket): the value is the caller's result, finished (a
 * compensated pair's sum and carry added once, a wider sum narrowed, as the
 * host's accumulator_finish does; an exact state rounded once) and written as
 * RESULT_SIZE bytes at byte `at` of out, whatever that address's alignment,
 * touching no other byte.
 */
/*
 * The caller's result from an accumulator value: a compensated pair's sum
 * and carry added once, a wider sum narrowed, as the host's
 * accumulator_finish does; an exact state rounded once (as its bits).
 */
#if ACC_EXACT && RESULT_SIZE == 8
#define RESULT_BITS_T ulong
#elif ACC_EXACT
#define RESULT_BITS_T uint
#endif
#if ACC_EXACT
inline RESULT_BITS_T finish_value(ACC_T value) { return (RESULT_BITS_T)exact_round_bits(value); }
#elif ACC_ARG
inline RESULT_T finish_value(ACC_T value) { return as_long(value.y); /* none, ULONG_MAX, is -1 */ }
#else
inline RESULT_T finish_value(ACC_T value)
{
#if ACC_SCALED
    const ACC_SCALAR_T total = scaled_value(value);
#elif ACC_COMPENSATED
    /* One rounding of the pair's exact sum; an infinite or NaN sum stands as it is. */
    const ACC_SCALAR_T total = isfinite(value.x) ? value.x + value.y : value.x;
#else
    const ACC_T total = value;
#endif
    return (RESULT_T)total;
}
#endif

inline void write_value(__global uchar *out, ulong at, size_t index, uint finish, ACC_T value)
{
    if (!finish) {
#if ACC_EXACT
        /*
         * Word by word: a state copied whole from local memory compiled to a
         * memmove, which Oclgrind 21.10's --uninitialized cannot follow.
         */
        __global exact_t *to = (__global exact_t *)(out + at) + index;
        for (int w = 0; w < EXACT_WORDS; w++)
            to->word[w] = value.word[w];
        to->flags = value.flags;
#else
        ((__global ACC_T *)(out + at))[index] = value;
#endif
        return;
    }
#if RESULT_SIZE == 1
    out[at] = as_uchar(finish_value(value));
#else
    CONCAT(vstore, RESULT_SIZE)(CONCAT(as_uchar, RESULT_SIZE)(finish_value(value)), 0, out + at);
#endif
}

/*
 * Reductions with many results (axis.cl, and the CPU shape's in cpu.cl).
 *
 * Row (or segment) v >> piece_shift is cut into 2^piece_shift nearly equal
 * pieces, so that a few long rows still keep every compute unit busy;
 * piece_span gives piece v's elements [x, y), counted from the kernel's
 * offset. A row r is [r * pitch, r * pitch + cols); with SEGMENTED, segment
 * r is [bounds[r], bounds[r + 1]), offsets past n or an end before its start
 * clamped so that nothing outside is read. Powers of two, so that no
 * division needs a remainder too: LLVM then emits `freeze`, which Oclgrind
 * 21.10's --uninitialized cannot run.
 */
#ifndef SEGMENTED
#define SEGMENTED 0
#endif

/* Row (or segment) `row`'s first element, counted from the kernel's offset. */
inline ulong row_start(ulong row, ulong n, ulong pitch, __global const ulong *bounds)
{
#if SEGMENTED
    (void)pitch;
    return min(bounds[row], min(bounds[row + 1], n));
#else
    (void)n;
    (void)bounds;
    return row * pitch;
#endif
}

inline ulong2 piece_span(ulong v, ulong n, ulong cols, ulong pitch, ulong piece_shift,
                         __global const ulong *bounds)
{
    const ulong pieces = (ulong)1 << piece_shift;
    const ulong row = v >> piece_shift, piece = v & (pieces - 1);
    const ulong start = row_start(row, n, pitch, bounds);
#if SEGMENTED
    const ulong end = min(bounds[row + 1], n); /* at least start */
    (void)cols;
#else
    const ulong end = start + cols;
#endif
    const ulong length = end - start;
    const ulong part = (length >> piece_shift) + ((length & (pieces - 1)) != 0);
    return (ulong2)(start + min(piece * part, length), start + min(piece * part + part, length));
}

/*
 * Where a result goes: the caller's (finished) at its own offset, or an
 * accumulator value at index i. write_value stores a result byte by byte,
 * since the caller's offset may be anything; where the host says `at` is a
 * multiple of the result's size (ALIGNED_RESULTS), one store does: 2^23 rows
 * make 2^23 results.
 */
#ifndef ALIGNED_RESULTS
#define ALIGNED_RESULTS 0
#endif

inline void write_result(__global uchar *out, ulong at, ulong i, uint finish, ACC_T value)
{
#if ALIGNED_RESULTS && ACC_EXACT
    if (finish) {
        ((__global RESULT_BITS_T *)(out + at))[i] = finish_value(value);
        return;
    }
#elif ALIGNED_RESULTS
    if (finish) {
        ((__global RESULT_T *)(out + at))[i] = finish_value(value);
        return;
    }
#endif
    write_value(out, finish ? at + i * RESULT_SIZE : at, i, finish, value);
}

/*
 * An element as an accumulator value, mapped (MAPPED above): (x, 0) for a compensated pair; an
 * exact state for the exact accuracy; frexp's (significand, exponent) for a
 * float product. TO_RUN(x): an element as a work-item's run (run_t below)
 * takes it: the accumulator value; for an exact sum with EXACT_FPE the
 * element as a double, exactly; for a float product the factor itself.
 */
#if ACC_SCALED && !IN_IS_ACC
#define TO_RUN(x) ((ACC_SCALAR_T)(x))
#elif ACC_EXACT && EXACT_FPE && IN_SIZE == 8
#define TO_RUN(x) (x)
#elif ACC_EXACT && EXACT_FPE
#define TO_RUN(x) exact_widen(x)
#endif
#if ACC_EXACT && EXACT_FPE
#define TO_ACC(x) exact_of(TO_RUN(x))
#elif ACC_EXACT
#define TO_ACC(x) exact_of(x)
#elif ACC_SCALED
#define TO_ACC(x) scaled_split((ACC_SCALAR_T)(x), 0)
#elif ACC_COMPENSATED && ACC_SIZE == 8
/*
 * (x, +0), by a select rather than (float2)(x, 0), which LLVM builds on a
 * poison vector that Oclgrind 21.10's --uninitialized then reports
 * wherever the pair is stored (tests/known-bugs/oclgrind_pair_poison.py).
 */
#define TO_ACC(x) select((ACC_T)0, (ACC_T)((ACC_SCALAR_T)(MAPPED(x))), (int2)(-1, 0))
#elif ACC_COMPENSATED
#define TO_ACC(x) ((ACC_T)((ACC_SCALAR_T)(MAPPED(x)), (ACC_SCALAR_T)0))
#elif ACC_ARG
/* No TO_ACC: an arg pair needs its element's index (arg_pair). */
#else
#define TO_ACC(x) ((ACC_T)(MAPPED(x)))
#endif
#ifndef TO_RUN
#define TO_RUN(x) TO_ACC(x)
#endif

/* Element i of the input, converted to the accumulator type. */
inline ACC_T load_in(__global const IN_T *in, size_t i)
{
#if IN_IS_ACC
    return in[i];
#elif ACC_ARG && IN_HALF
    return arg_pair(vload_half(i, in), i);
#elif ACC_ARG
    return arg_pair(in[i], i);
#elif IN_HALF
    return TO_ACC(vload_half(i, in));
#else
    return TO_ACC(in[i]);
#endif
}

#if IN_HALF
/*
 * Halves p[0..N-1] as floats, for the CPU shapes' vectors. POCL 3.1 crashes
 * on a vload_half8 from an address that is not 16-byte aligned
 * (tests/known-bugs/pocl_vload_half8.py), though the function asks only for
 * a half's alignment: there (SPLIT_HALF_LOADS, set by the host for POCL)
 * wider vectors are built from vload_half4s, which it loads from any
 * address. Elsewhere vload_halfN itself, since Oclgrind 21.10's
 * --uninitialized crashes on the vectors built
 * (tests/known-bugs/oclgrind_lo_hi_shuffle.py).
 */
#ifndef SPLIT_HALF_LOADS
#define SPLIT_HALF_LOADS 0
#endif
#define load_halves2(p) vload_half2(0, (p))
#define load_halves4(p) vload_half4(0, (p))
#if SPLIT_HALF_LOADS
#define load_halves8(p) ((float8)(vload_half4(0, (p)), vload_half4(0, (p) + 4)))
#define load_halves16(p) ((float16)(load_halves8(p), load_halves8((p) + 8)))
#else
#define load_halves8(p) vload_half8(0, (p))
#define load_halves16(p) vload_half16(0, (p))
#endif
#endif

#if ACC_FLOAT
/*
 * Neumaier's rule for s = a + b: its rounding error, exactly, where s is
 * finite; ZERO otherwise, so that an infinity or NaN passes through
 * untouched. For scalars and, lane by lane, for vectors (cl/reduce/cpu.cl's
 * lanes): ?: selects per component when its condition is a vector.
 */
#define NEUMAIER_ERROR(a, b, s, ZERO) \
    (isfinite(s) ? (fabs(a) >= fabs(b) ? ((a) - (s)) + (b) : ((b) - (s)) + (a)) : (ZERO))

inline ACC_SCALAR_T sum_error(ACC_SCALAR_T a, ACC_SCALAR_T b, ACC_SCALAR_T s)
{
    return NEUMAIER_ERROR(a, b, s, (ACC_SCALAR_T)0);
}
#endif

#if ACC_FLOAT && !ACC_COMPENSATED
#if ACC_FLOAT == 64
#define ACC_BITS ulong
#else
#define ACC_BITS uint
#endif
#define AS_BITS(x) CONCAT(as_, ACC_BITS)(x)
#define AS_ACC(x) CONCAT(as_, ACC_T)(x)

/*
 * IEEE 754-2019 minimum/maximum: a NaN operand gives NaN, and -0 < +0. The
 * rule is associative and commutative, so every kernel, whatever its order,
 * returns the same bits. Equal operands differ at most in the sign of zero:
 * or-ing the bits picks -0 for min, and-ing picks +0 for max.
 */
inline ACC_T float_min(ACC_T a, ACC_T b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    if (a != b)
        return a < b ? a : b;
    return AS_ACC(AS_BITS(a) | AS_BITS(b));
}

inline ACC_T float_max(ACC_T a, ACC_T b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    if (a != b)
        return a > b ? a : b;
    return AS_ACC(AS_BITS(a) & AS_BITS(b));
}
#endif

/*
 * The operator. Integer sums and products wrap: they run in ACC_UT. A
 * compensated sum adds the sums, and the carries plus the new rounding error.
 */
inline ACC_T combine(ACC_T a, ACC_T b)
{
#if ACC_EXACT
    return exact_merge(a, b);
#elif ACC_ARG
    return arg_before(b, a) ? b : a;
#elif ACC_SCALED
    return scaled_product(a, b);
#elif ACC_COMPENSATED
    const ACC_SCALAR_T s = a.x + b.x;
    return (ACC_T)(s, a.y + b.y + sum_error(a.x, b.x, s));
#else
    return PLAIN_COMBINE(a, b);
#endif
}

/*
 * The last six levels of a work-group's tree, kept correct everywhere:
 * on entry sdata[0 .. min(block, 64)) holds the partial values; on return
 * work-item 0 holds the group's value.
 *
 * Harris's "unroll the last warp" drops the barriers and relies on 32 lanes
 * running in lockstep through volatile shared memory. OpenCL promises no
 * such thing: on POCL the work-items of a "warp" run one after another and
 * the sum comes out wrong, and on any device it is a data race. So:
 *   - with WARP_SHUFFLE (NVIDIA, chosen by the host), the 32 lanes exchange
 *     registers with shfl.sync, which synchronises them by definition;
 *   - everywhere else each level keeps its barrier.
 */
#if WARP_SHUFFLE
/*
 * shfl.sync's three modes on 32 bits: down (lane + delta, warp_fold's),
 * up (lane - delta, a scan's) and idx (a lane by number); a lane past the
 * warp's end (or before its start) keeps its own value. `clamp` is PTX's
 * c operand: 0x1f bounds down and idx by the warp's last lane, 0 bounds up
 * by its first.
 */
#define SHFL_U32(mode, clamp)                                                         \
    inline uint shfl_##mode##_u32(uint value, uint delta)                             \
    {                                                                                 \
        uint result;                                                                  \
        asm volatile("shfl.sync." #mode ".b32 %0, %1, %2, " #clamp ", 0xffffffff;"    \
                     : "=r"(result)                                                   \
                     : "r"(value), "r"(delta));                                       \
        return result;                                                                \
    }
SHFL_U32(down, 0x1f)
SHFL_U32(up, 0)
SHFL_U32(idx, 0x1f) /* delta: the lane read */

/* An accumulator value through shfl_<mode>_u32, 32 bits at a time. */
#if ACC_EXACT
#define SHFL_ACC(mode)                                                  \
    inline ACC_T shfl_##mode(ACC_T value, uint delta)                   \
    {                                                                   \
        for (int i = 0; i < EXACT_WORDS; i++) {                         \
            uint2 halves = as_uint2(value.word[i]);                     \
            halves.x = shfl_##mode##_u32(halves.x, delta);              \
            halves.y = shfl_##mode##_u32(halves.y, delta);              \
            value.word[i] = as_ulong(halves);                           \
        }                                                               \
        value.flags = (ulong)shfl_##mode##_u32((uint)value.flags, delta); \
        return value;                                                   \
    }
#elif ACC_SIZE == 16
#define SHFL_ACC(mode)                                                  \
    inline ACC_T shfl_##mode(ACC_T value, uint delta)                   \
    {                                                                   \
        uint4 quarters = as_uint4(value);                               \
        quarters.x = shfl_##mode##_u32(quarters.x, delta);              \
        quarters.y = shfl_##mode##_u32(quarters.y, delta);              \
        quarters.z = shfl_##mode##_u32(quarters.z, delta);              \
        quarters.w = shfl_##mode##_u32(quarters.w, delta);              \
        return CONCAT(as_, ACC_T)(quarters);                            \
    }
#elif ACC_SIZE == 8
#define SHFL_ACC(mode)                                                  \
    inline ACC_T shfl_##mode(ACC_T value, uint delta)                   \
    {                                                                   \
        uint2 halves = as_uint2(value);                                 \
        halves.x = shfl_##mode##_u32(halves.x, delta);                  \
        halves.y = shfl_##mode##_u32(halves.y, delta);                  \
        return CONCAT(as_, ACC_T)(halves);                              \
    }
#elif ACC_FLOAT
#define SHFL_ACC(mode)                                                  \
    inline ACC_T shfl_##mode(ACC_T value, uint delta)                   \
    {                                                                   \
        return as_float(shfl_##mode##_u32(as_uint(value), delta));      \
    }
#else
#define SHFL_ACC(mode)                                                  \
    inline ACC_T shfl_##mode(ACC_T value, uint delta)                   \
    {                                                                   \
        return (ACC_T)shfl_##mode##_u32((uint)value, delta);            \
    }
#endif
SHFL_ACC(down)
SHFL_ACC(up)
SHFL_ACC(idx)

/* Lane 0 gets the fold of the warp's 32 values (every lane of the warp calls it). */
inline ACC_T warp_reduce(ACC_T value)
{
    for (uint delta = 16; delta > 0; delta >>= 1)
        value = combine(value, shfl_down(value, delta));
    return value;
}

/* Lanes 0..31 of a full warp fold sdata[0..64) into lane 0's register. */
inline ACC_T warp_fold(__local const ACC_T *sdata, uint tid)
{
    return warp_reduce(combine(sdata[tid], sdata[tid + 32]));
}
#endif

/*
 * Folds the last levels of the tree (s = 32 .. 1) and returns the group's
 * value, valid in work-item 0. `block` is the work-group size: a runtime
 * value for K5, a compile-time constant for K6 and K7, where every branch
 * below folds away.
 */
inline ACC_T fold_tail(__local ACC_T *sdata, uint tid, uint block)
{
#if WARP_SHUFFLE
    if (block >= 64) {
        ACC_T value = IDENTITY;
        if (tid < 32)
            value = warp_fold(sdata, tid);
        return value;
    }
#endif
    for (uint s = min(block / 2, 32u); s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] = combine(sdata[tid], sdata[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return sdata[0];
}

/*
 * Puts each work-item's value where the group's tree starts and returns how
 * many values the tree folds. Where local memory holds a value for each
 * work-item (LOCAL_SHARE 1) that is sdata[tid], and `block` values. Where it
 * cannot (an exact double state is 280 bytes: NVIDIA's 48 KiB holds 128),
 * the host makes LOCAL_SHARE work-items share each of block / LOCAL_SHARE
 * slots, and they fold into it in turn, a barrier apart, before the tree.
 * The trip count is the same for every work-item (POCL's barriers need it).
 */
inline uint store_leaf(__local ACC_T *sdata, uint tid, uint block, ACC_T value)
{
#if LOCAL_SHARE == 1
    sdata[tid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    return block;
#else
    const uint slots = block / LOCAL_SHARE;
    const uint slot = tid % slots;
    for (uint turn = 0; turn < LOCAL_SHARE; turn++) {
        if (tid / slots == turn) {
            ACC_T leaf = value;
            if (turn > 0)
                leaf = combine(sdata[slot], value);
            sdata[slot] = leaf;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return slots;
#endif
}

/* Whether work-item tid holds one of the tree's `live` values (always, unless slots are shared). */
#define IN_TREE(tid, live) (LOCAL_SHARE == 1 || (tid) < (live))

/*
 * A work-group's whole tree: on entry sdata[0 .. block) holds one value per
 * work-item; every level above the last 64 values halves them with a
 * barrier, then fold_tail finishes. Work-item 0 gets the group's value.
 * `block` is a compile-time constant for K6, K7 and the GPU shape, where
 * the loop unrolls completely; K5 passes its run-time work-group size.
 */
inline ACC_T fold_tree(__local ACC_T *sdata, uint tid, uint block)
{
    for (uint s = block / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] = combine(sdata[tid], sdata[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return fold_tail(sdata, tid, block);
}

/*
 * A work-item's sequential run (K7's grid-stride loop). A float sum carries a
 * Neumaier compensation, so that a run of thousands of values loses no more
 * than one rounding: run_value() is within 2 ulp of the run's exact sum.
 * An exact sum of the caller's elements adds them into doubles first
 * (exact.cl says why). Every other fold just combines.
 */
/* An exact sum's runs over the caller's elements add in doubles first (below). */
#define EXACT_RUNS (ACC_EXACT && EXACT_FPE && !IN_IS_ACC)
#if EXACT_RUNS
/*
 * s0 + s1 + s2 + rest is the run's exact sum. For floats and halves s0
 * takes every element; its rounding error, when there is one, goes to s1,
 * s1's to s2, and s2's to rest, the words, which the common case never
 * touches: bench data (i % 1000) / 1000 as floats add into s0 exactly, one
 * addition and its error per element. Doubles use s0 and s1 (below).
 * s0 starts at -0: it stays -0 exactly when every element was -0.
 * Infinities and NaN pass through s0 as IEEE addition takes them, which is
 * exact.cl's rule: NaN if any NaN or both infinities, else the infinity.
 * Doubles could overflow s0: an element from 2^970 up goes to the words
 * instead (infinities with it, as flags), so that s0 stays below 2^970 times
 * the run's length, finite for any run shorter than 2^53 elements. Floats
 * sum far below that. The words' flags also say that an element came.
 *
 * Keep the struct to doubles and the state: with a uint `seen` among them,
 * exact double sums take the H100 24.5 ms at 2^27 instead of 0.88
 * (bench/results/exact-h100.txt).
 */
#if EXACT_LSB < -149
typedef struct {
    double s0, s1;
    exact_t rest;
} run_t;

inline run_t run_start(void)
{
    run_t run = {-0.0, 0.0, exact_zero()};
    return run;
}
#else
typedef struct {
    double s0, s1, s2;
    exact_t rest;
} run_t;

inline run_t run_start(void)
{
    run_t run = {-0.0, 0.0, 0.0, exact_zero()};
    return run;
}
#endif

#if EXACT_LSB < -149
#define EXACT_TOO_BIG(x) (fabs(x) >= 0x1p970)
#endif

inline run_t run_fold(run_t run, double x)
{
    run.rest.flags |= EXACT_SEEN;
#if EXACT_LSB < -149
    /*
     * Doubles round in s0 at almost every element: s0 and s1 take each one
     * without a branch (Knuth's TwoSum), and only s1's error goes on to the
     * words.
     */
    if (EXACT_TOO_BIG(x)) {
        exact_add_element(&run.rest, x);
        return run;
    }
    const double s = run.s0 + x, e = two_sum_error(run.s0, x, s);
    const double t = run.s1 + e, f = two_sum_error(run.s1, e, t);
    run.s0 = s;
    run.s1 = t;
    if (f != 0.0)
        exact_add_double(&run.rest, f);
#else
    const double s = run.s0 + x, e = sum_error_exact(run.s0, x, s);
    run.s0 = s;
    if (e != 0.0) { /* NaN too: then s0 is NaN and the words no longer count */
        const double t = run.s1 + e, f = sum_error_exact(run.s1, e, t);
        run.s1 = t;
        if (f != 0.0) {
            const double u = run.s2 + f, g = sum_error_exact(run.s2, f, u);
            run.s2 = u;
            if (g != 0.0)
                exact_add_double(&run.rest, g);
        }
    }
#endif
    return run;
}

/*
 * run_fold as far as the doubles go: where an element or an error would
 * need the words, it sets *trouble instead, and the run it returns is not
 * to be used (gpu.cl redoes the step with run_fold). It repeats run_fold's
 * additions on purpose: with both calling one helper that returned the
 * left-over error, 2^28 exact floats take the H100 0.411 ms against 0.368
 * (doubles and halves unchanged; bench/results/exact-h100.txt).
 */
inline run_t run_fold_fast(run_t run, double x, uint *trouble)
{
    run.rest.flags |= EXACT_SEEN;
#if EXACT_LSB < -149
    const double s = run.s0 + x, e = two_sum_error(run.s0, x, s);
    const double t = run.s1 + e, f = two_sum_error(run.s1, e, t);
    run.s0 = s;
    run.s1 = t;
    *trouble |= (uint)EXACT_TOO_BIG(x) | (uint)(f != 0.0);
#else
    const double s = run.s0 + x, e = sum_error_exact(run.s0, x, s);
    run.s0 = s;
    if (e != 0.0) {
        const double t = run.s1 + e, f = sum_error_exact(run.s1, e, t);
        run.s1 = t;
        if (f != 0.0) {
            const double u = run.s2 + f, g = sum_error_exact(run.s2, f, u);
            run.s2 = u;
            *trouble |= (uint)(g != 0.0);
        }
    }
#endif
    return run;
}

/* v += a run's s0, s1 and s2, or the flags of the special value s0 holds. */
inline void exact_add_run(exact_t *v, double s0, double s1, double s2)
{
    if (isnan(s0))
        v->flags |= EXACT_NAN;
    else if (isinf(s0))
        v->flags |= s0 > 0 ? EXACT_POS_INF : EXACT_NEG_INF;
    else if (as_ulong(s0) != 0x8000000000000000UL)
        v->flags |= EXACT_NOT_NEG_ZERO;
    exact_add_double(v, s0); /* nothing for an infinity or NaN */
    exact_add_double(v, s1);
    exact_add_double(v, s2);
}

inline ACC_T run_value(run_t run)
{
#if EXACT_LSB < -149
    exact_add_run(&run.rest, run.s0, run.s1, 0.0);
#else
    exact_add_run(&run.rest, run.s0, run.s1, run.s2);
#endif
    return run.rest;
}
#elif RUN_CARRY
typedef struct {
    ACC_T sum;
    ACC_T carry;
} run_t;

inline run_t run_start(void)
{
    run_t run = {(ACC_T)0, (ACC_T)0};
    return run;
}

inline run_t run_fold(run_t run, ACC_T x)
{
    const ACC_T s = run.sum + x;
    run.carry += sum_error(run.sum, x, s);
    run.sum = s;
    return run;
}

inline ACC_T run_value(run_t run) { return run.sum + run.carry; }
#elif ACC_SCALED && !IN_IS_ACC
/*
 * A float product's run multiplies its significand m, in [0.5, 1), by each
 * factor as it is, and splits the product from its bits: |m| < 1, so the
 * product cannot overflow, and where it is normal it has rounded exactly
 * as scaled_product's product of significands does (the factor's power of
 * two scales it exactly). scaled_split takes it apart from its bits, and
 * the factor needs no split of its own: one split an element, not two. A
 * zero, infinity or NaN product is the true product's (m times a finite
 * factor cannot overflow) and stays as it is, so that a zero early in a
 * run does not send every later factor down the slow path. Only a
 * subnormal product, of a factor below about 2^-125, goes through
 * scaled_product. On the H100 two splits an element would make half
 * products take 3.5 times a sum's time, and zeros that sent their runs
 * down the slow path would make bench data's products take 2.4 times as
 * long (bench/results/kernel-choices-nvidia.txt).
 */
typedef ACC_T run_t;

inline run_t run_start(void) { return IDENTITY; }

inline run_t run_fold(run_t run, ACC_SCALAR_T x)
{
    const ACC_SCALAR_T product = SIGNIFICAND(run) * x;
    const EXPONENT_T field = (EXPONENT_T)((SCALAR_BITS(product) >> MANTISSA_BITS) & EXPONENT_FIELD);
    if (field == 0 && product != 0)
        return scaled_product(run, scaled_split(x, 0));
    return scaled_split(product, run.y); /* a zero, infinity or NaN stays as it is */
}

inline ACC_T run_value(run_t run) { return run; }
#else
typedef ACC_T run_t;

inline run_t run_start(void) { return IDENTITY; }
inline run_t run_fold(run_t run, ACC_T x) { return combine(run, x); }
inline ACC_T run_value(run_t run) { return run; }
#endif

/*
 * Element offset + i of the input, or the identity where i is past n: the
 * ladder's loads. An if, not ?: (`i < n ? load_in(...) : IDENTITY`), whose
 * identity Mesa 22.3.6's llvmpipe turns to 0 for signed chars
 * (tests/known-bugs/rusticl_char_select.py: the ladder's int8 min, max and
 * and came out 0 there). The value is a private one before it goes to
 * local memory: stored straight from the conditional, an exact state
 * compiled to a global-to-local memmove, which Oclgrind 21.10's
 * --uninitialized cannot follow ("Unsupported intrinsic llvm.memmove").
 */
inline ACC_T load_or_identity(__global const IN_T *in, ulong offset, ulong n, size_t i)
{
    ACC_T value = IDENTITY;
    if (i < n)
        value = load_in(in, offset + i);
    return value;
}

/* Element i of the input as a run takes it (TO_RUN): load_in's value, a double, or a factor. */
#if ACC_SCALED && !IN_IS_ACC && IN_HALF
#define load_run(in, i) vload_half((i), (in))
#elif ACC_SCALED && !IN_IS_ACC
#define load_run(in, i) ((ACC_SCALAR_T)(in)[i])
#elif ACC_EXACT && EXACT_FPE && !IN_IS_ACC && IN_HALF
#define load_run(in, i) TO_RUN(vload_half((i), (in)))
#elif ACC_EXACT && EXACT_FPE && !IN_IS_ACC
#define load_run(in, i) TO_RUN((in)[i])
#else
#define load_run(in, i) load_in((in), (i))
#endif

/* load_run with the element's index given, not its place in the buffer: columns count by row. */
#if ACC_ARG && IN_HALF && !IN_IS_ACC
#define load_run_at(in, i, index) arg_pair(vload_half((i), (in)), (index))
#elif ACC_ARG && !IN_IS_ACC
#define load_run_at(in, i, index) arg_pair((in)[i], (index))
#else
#define load_run_at(in, i, index) load_run((in), (i))
#endif

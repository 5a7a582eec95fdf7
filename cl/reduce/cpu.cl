/*
 * cpu.cl: the auto path's shape for CPU devices (POCL). A GPU-style grid
 * stride makes every CPU work-item touch one value per cache line and a
 * barrier splits a work-group into loops; on a CPU the fast reduction is the
 * opposite: each work-item folds one contiguous chunk with wide vectors and
 * ACCS independent accumulators, no barriers, no local memory. Accumulator a
 * streams the a-th of ACCS equal parts of the chunk: their additions
 * overlap, and the prefetcher follows ACCS streams at once, which keeps more
 * cache-line fetches in flight than one stream (POCL: int32 sums 15-20%
 * faster; bench/results/kernel-choices-pocl3.txt). Work-item w writes its
 * chunk's value at index w, and values.cl folds those few values pairwise.
 *
 * Float sums are compensated lane by lane (defs.cl's NEUMAIER_ERROR on
 * vectors), so long chunks lose no accuracy: the compiler may not reorder
 * float additions, so the lanes are explicit. At the default accuracy a
 * lane is compensated once per SUM_BLOCK values of each of the ACCS
 * streams, not once per value: the streams' blocks are added pairwise,
 * plainly, and only their sum goes through Neumaier's rule, into one
 * accumulator (RUNS). Per value that is one addition instead of ten
 * operations. It costs log2(SUM_BLOCK * ACCS) levels of the (L + 4) u A
 * bound, which the lanes' short final fold (VEC values, not VEC * ACCS)
 * leaves free: a work-item with a whole step has at least SUM_BLOCK * LANES
 * values. So the loop keeps up with a plain read of the same bytes, where a
 * compensated step per stream falls 7-10% behind (POCL 3.1;
 * bench/results/kernel-choices-pocl3.txt).
 *
 * 8- and 16-bit sums add blocks of vectors in 32-bit lanes and widen them
 * to the 64-bit accumulator once per block (SMALL_INT_SUM below).
 *
 * Flags, besides defs.cl's: VEC, the lanes of an accumulator vector (2, 4,
 * 8 or 16: the device's preferred width of the type the lanes add in, see
 * cpu_launch in src/reduce/cpu_shape.c); ACCS, accumulators per work-item
 * (cpu_streams there); PREFETCH, how many bytes ahead of each stream
 * fold_chunk asks the cache for the lines it will read (0: none; rows and
 * segments, src/reduce/axis.c).
 */
#ifndef VEC
#define VEC 8
#endif
#ifndef ACCS
#define ACCS 4
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#define CACHE_LINE 64

#define LANES (VEC * ACCS)
/* Accumulators fold_chunk keeps: one for float sums' runs (above), else one a stream. */
#if RUN_CARRY
#define RUNS 1
#else
#define RUNS ACCS
#endif
/* What a lane adds in: the accumulator's scalar, or for exact sums a double (exact.cl). */
#if ACC_EXACT && !EXACT_FPE
#error "the CPU shape's exact sums add in doubles first: EXACT_FPE"
#elif ACC_EXACT
#define LANE_T double
#define LANE_BITS_T CONCAT(ulong, VEC)
#define AS_LANE_BITS CONCAT(as_, LANE_BITS_T)
#else
#define LANE_T ACC_SCALAR_T
#endif
/* The or of a vector's lanes, halving it with swizzles (not .lo/.hi: see gpu.cl's horizontal_sum). */
#define OR_LANES2(v) ((v).s0 | (v).s1)
#define OR_LANES4(v) OR_LANES2((v).s01 | (v).s23)
#define OR_LANES8(v) OR_LANES4((v).s0123 | (v).s4567)
#define OR_LANES16(v) OR_LANES8((v).s01234567 | (v).s89abcdef)
#define OR_LANES CONCAT(OR_LANES, VEC)
#define VACC_T CONCAT(LANE_T, VEC)
#define VLOAD CONCAT(vload, VEC)
#define VSTORE CONCAT(vstore, VEC)
#define TO_VACC CONCAT(convert_, VACC_T)
#define AS_LANES CONCAT(as_, VACC_T)
#define AS_ULANES CONCAT(as_, CONCAT(ACC_UT, VEC)) /* integer accumulators only */
#define MAP_LANES(v) MAPPED_LANES((v), AS_LANES, AS_ULANES)

/* Element i as a lane's scalar. */
inline LANE_T load_scalar(__global const IN_T *in, size_t i)
{
#if ACC_EXACT
    return load_run(in, i);
#elif IN_HALF
    return MAPPED((ACC_SCALAR_T)vload_half(i, in));
#else
    return MAPPED((ACC_SCALAR_T)in[i]);
#endif
}

/*
 * VEC consecutive elements from element i, as an accumulator vector. POCL
 * 3.1 builds vload16 from 8-byte pieces in 16-byte registers, which makes
 * the loop compute-bound; a plain load of a vector type that is only
 * element-aligned (clang's typedef attribute) is one unaligned 64-byte load.
 */
#if !IN_HALF
#if defined(__clang__)
typedef CONCAT(IN_T, VEC) in_vector_t __attribute__((aligned(sizeof(IN_T))));

inline in_vector_t load_raw(__global const IN_T *in, size_t i)
{
    return *(__global const in_vector_t *)(in + i);
}
#else
#define load_raw(in, i) VLOAD(0, (in) + (i))
#endif
#endif

inline VACC_T load_vector(__global const IN_T *in, size_t i)
{
#if IN_HALF
    return MAP_LANES(TO_VACC(CONCAT(load_halves, VEC)(in + i)));
#elif ACC_EXACT && IN_SIZE == 4 && EXACT_WIDEN_BITS
    /* Floats widened exactly: a subnormal that the device flushes is rebuilt (exact_widen). */
    const CONCAT(float, VEC) f = load_raw(in, i);
    VACC_T d = TO_VACC(f);
    if (any(((CONCAT(as_uint, VEC)(f) << 1) != 0) & (f == 0.0f))) {
        float lanes[VEC];
        LANE_T wide[VEC];
        VSTORE(f, 0, lanes);
        for (int j = 0; j < VEC; j++)
            wide[j] = exact_widen(lanes[j]);
        d = VLOAD(0, wide);
    }
    return d;
#else
    return MAP_LANES(TO_VACC(load_raw(in, i)));
#endif
}

#if ACC_EXACT
#define COMPENSATED_LANES 0
/*
 * Exact sums: per lane three doubles, s0 + s1 + s2, as a float sum's
 * run_fold (defs.cl) keeps, for every type, and one exact state for the
 * work-item, `spilled`, kept apart from the lanes
 * (inside their struct POCL copied it at every fold). s0 takes every vector;
 * only when some lane's addition rounds do s1 and the state come in. For
 * doubles, a vector with a value that could overflow s0 (from 2^970 up,
 * infinities and NaN too) goes into the state lane by lane instead.
 */
typedef struct {
    VACC_T s0, s1, s2;
} lanes_t;

inline lanes_t lanes_start(void)
{
    lanes_t lanes = {(VACC_T)(-0.0), (VACC_T)(0.0), (VACC_T)(0.0)};
    return lanes;
}

/* sum_error_exact (exact.cl), lane by lane: Fast2Sum on the operands ordered by magnitude. */
inline VACC_T lanes_error(VACC_T a, VACC_T b, VACC_T s)
{
    const CONCAT(long, VEC) a_first = fabs(a) >= fabs(b);
    return select(a, b, a_first) - (s - select(b, a, a_first));
}

/*
 * Whether any lane's bits are set, tested in integers (|x| kept apart: a
 * -0 error is none): POCL 3.1 makes any() and isfinite() on double vectors
 * into slow code (six times as slow; bench/results/kernel-choices-pocl3.txt).
 */
#define ANY_NONZERO(v) (OR_LANES(AS_LANE_BITS(v) << 1) != 0)

/* total += each lane's s0, s1 and s2, or its special value's flags (exact_add_run). */
__attribute__((noinline)) void lanes_exact(lanes_t lanes, exact_t *total)
{
    LANE_T s0[VEC], s1[VEC], s2[VEC];
    VSTORE(lanes.s0, 0, s0);
    VSTORE(lanes.s1, 0, s1);
    VSTORE(lanes.s2, 0, s2);
    for (int j = 0; j < VEC; j++)
        exact_add_run(total, s0[j], s1[j], s2[j]);
}

/*
 * The rare paths, kept out of the loop: inlined, they make POCL 3.1 spill
 * the lanes' registers around them (four times as slow;
 * bench/results/kernel-choices-pocl3.txt).
 */
__attribute__((noinline)) void spill_values(exact_t *spilled, VACC_T x)
{
    LANE_T values[VEC];
    VSTORE(x, 0, values);
    for (int j = 0; j < VEC; j++)
        exact_add_element(spilled, values[j]);
}

__attribute__((noinline)) void spill_errors(exact_t *spilled, VACC_T g)
{
    LANE_T errors[VEC];
    VSTORE(g, 0, errors);
    for (int j = 0; j < VEC; j++)
        exact_add_double(spilled, errors[j]);
}

inline lanes_t lanes_fold(lanes_t lanes, VACC_T x, exact_t *spilled)
{
#if EXACT_LSB < -149
    /* Exponent fields from 1993 (2^970, run_fold's EXACT_TOO_BIG) carry into bit 63. */
    const LANE_BITS_T big = (AS_LANE_BITS(x) & 0x7ff0000000000000UL) + (55UL << 52);
    if (OR_LANES(big) >> 63) {
        spill_values(spilled, x);
        return lanes;
    }
#endif
    const VACC_T s = lanes.s0 + x, e = lanes_error(lanes.s0, x, s);
    lanes.s0 = s;
    if (ANY_NONZERO(e)) { /* NaN too: then s0 is NaN in that lane */
        const VACC_T t = lanes.s1 + e, f = lanes_error(lanes.s1, e, t);
        lanes.s1 = t;
        if (ANY_NONZERO(f)) {
            const VACC_T u = lanes.s2 + f, g = lanes_error(lanes.s2, f, u);
            lanes.s2 = u;
            if (ANY_NONZERO(g))
                spill_errors(spilled, g);
        }
    }
    return lanes;
}
#elif ACC_SCALED
#define COMPENSATED_LANES 0
/*
 * Float products: per lane a significand m and an exponent, defs.cl's
 * scaled pairs. frexp on vectors is slow in POCL 3.1 (a product with it
 * takes five times a sum's time; bench/results/kernel-choices-pocl3.txt), so
 * split() takes a value apart from its bits, as defs.cl's scaled_split
 * does, without a branch.
 *
 * A float or double factor can reach either end of the range alone, so
 * each one is split before it multiplies m. Then m only drifts: a factor
 * in [0.5, 1) shrinks it by at most half, and after SPLIT_EVERY folds m is
 * split too, long before it could leave the normal range. Halves span
 * 2^-24 to 2^16: SPLIT_EVERY of them multiply into m as they are, and no
 * product of four leaves float's normal range.
 * The significands' products round exactly as defs.cl's scaled_product's.
 */
#define VEXPONENT_T CONCAT(EXPONENT_T, VEC)
#define TO_VEXPONENT CONCAT(convert_, VEXPONENT_T)
#define AS_VEXPONENT CONCAT(as_, VEXPONENT_T)
/* MANTISSA_BITS, EXPONENT_FIELD, HALF_BITS, FIELD_OF_HALF, SUBNORMAL_*: defs.cl's. */
#if ACC_SIZE == 16
#define VBITS_T CONCAT(ulong, VEC)
#else
#define VBITS_T CONCAT(uint, VEC)
#endif
#define AS_VBITS CONCAT(as_, VBITS_T)
#if IN_HALF
#define SPLIT_EVERY 4
#else
#define SPLIT_EVERY 64
#endif

typedef struct {
    VACC_T m;
    VEXPONENT_T k; /* exponents split off since the last split of m */
    VEXPONENT_T e; /* the rest, saturated as defs.cl's pairs are */
    uint folds;    /* since the last split of m */
} lanes_t;

inline lanes_t lanes_start(void)
{
    lanes_t lanes = {(VACC_T)0.5, (VEXPONENT_T)0, (VEXPONENT_T)1, 0};
    return lanes;
}

/*
 * x = m * 2^k, m in [0.5, 1) lane by lane, as frexp splits it. Subnormals
 * are first scaled by 2^64 into the normal range; zeros, infinities and
 * NaN pass as they are, with k = 0.
 */
inline VACC_T split(VACC_T x, VEXPONENT_T *k)
{
    const VEXPONENT_T subnormal = AS_VEXPONENT(((AS_VBITS(x) >> MANTISSA_BITS) & EXPONENT_FIELD) == 0);
    x = select(x, x * SUBNORMAL_SCALE, subnormal);
    const VBITS_T bits = AS_VBITS(x), field = (bits >> MANTISSA_BITS) & EXPONENT_FIELD;
    const VEXPONENT_T special = AS_VEXPONENT((field == 0) | (field == EXPONENT_FIELD));
    const VACC_T m = AS_LANES((bits & ~(EXPONENT_FIELD << MANTISSA_BITS)) | HALF_BITS);
    *k = select(TO_VEXPONENT(field) - FIELD_OF_HALF + (subnormal & -SUBNORMAL_SHIFT), (VEXPONENT_T)0, special);
    return select(m, x, special);
}

inline lanes_t lanes_split(lanes_t lanes)
{
    VEXPONENT_T k;
    lanes.m = split(lanes.m, &k);
    lanes.e = add_sat(lanes.e, lanes.k + k);
    lanes.k = (VEXPONENT_T)0;
    lanes.folds = 0;
    return lanes;
}

inline lanes_t lanes_fold(lanes_t lanes, VACC_T x)
{
#if IN_HALF
    lanes.m *= x;
#else
    VEXPONENT_T k;
    lanes.m *= split(x, &k);
    lanes.k += k;
#endif
    if (++lanes.folds == SPLIT_EVERY)
        lanes = lanes_split(lanes);
    return lanes;
}

inline void lanes_values(lanes_t lanes, ACC_T *values)
{
    ACC_SCALAR_T m[VEC];
    EXPONENT_T e[VEC];
    lanes = lanes_split(lanes);
    VSTORE(lanes.m, 0, m);
    VSTORE(lanes.e, 0, e);
    for (int j = 0; j < VEC; j++)
        values[j] = scaled(m[j], e[j]);
}
#elif RUN_CARRY || ACC_COMPENSATED
#define COMPENSATED_LANES 1
/* A vector of runs: per lane a sum and the Neumaier carry of its roundings. */
typedef struct {
    VACC_T sum;
    VACC_T carry;
} lanes_t;

inline lanes_t lanes_start(void)
{
    lanes_t lanes = {(VACC_T)0, (VACC_T)0};
    return lanes;
}

inline lanes_t lanes_fold(lanes_t lanes, VACC_T x)
{
    const VACC_T s = lanes.sum + x;
    lanes.carry += NEUMAIER_ERROR(lanes.sum, x, s, (VACC_T)0);
    lanes.sum = s;
    return lanes;
}

/*
 * Moves the carry into the sum, exactly (Neumaier's rule on sum + carry):
 * the carry is a plain float sum of rounding errors, and over the hundreds
 * of thousands of values of a lane's run it would lose its own bits. Equal
 * values make that systematic: 10^8 x 0.1f came out 4 units off at the
 * compensated accuracy, against a documented bound of about 1. Once every
 * RENORMALIZE_EVERY folds keeps the carry a run of at most that many
 * errors, as the GPU kernels' short runs are, for no measurable time.
 */
#define RENORMALIZE_EVERY 256

inline lanes_t lanes_renormalize(lanes_t lanes)
{
    const VACC_T s = lanes.sum + lanes.carry;
    lanes.carry = NEUMAIER_ERROR(lanes.sum, lanes.carry, s, (VACC_T)0);
    lanes.sum = s;
    return lanes;
}

/* Lane j as an accumulator value: its compensated sum, or the pair itself. */
inline void lanes_values(lanes_t lanes, ACC_T *values)
{
    ACC_SCALAR_T sums[VEC], carries[VEC];
    VSTORE(lanes.sum, 0, sums);
    VSTORE(lanes.carry, 0, carries);
    for (int j = 0; j < VEC; j++) {
#if ACC_COMPENSATED
        values[j] = (ACC_T)(sums[j], carries[j]);
#else
        values[j] = isfinite(sums[j]) ? sums[j] + carries[j] : sums[j];
#endif
    }
}
#else
#define COMPENSATED_LANES 0
/* Every other fold: the operator on whole vectors. */
typedef VACC_T lanes_t;

#if ACC_FLOAT
/* defs.cl's float_min and float_max, lane by lane: NaN wins, -0 < +0. */
#define VBITS_T CONCAT(ACC_BITS, VEC)
#define AS_VBITS CONCAT(as_, VBITS_T)

inline VACC_T lanes_float_min(VACC_T a, VACC_T b)
{
    VACC_T r = select(b, a, a < b);
    r = select(r, AS_LANES(AS_VBITS(a) | AS_VBITS(b)), a == b);
    return select(r, a + b, isnan(a) | isnan(b));
}

inline VACC_T lanes_float_max(VACC_T a, VACC_T b)
{
    VACC_T r = select(b, a, a > b);
    r = select(r, AS_LANES(AS_VBITS(a) & AS_VBITS(b)), a == b);
    return select(r, a + b, isnan(a) | isnan(b));
}
#endif

inline lanes_t lanes_start(void) { return (VACC_T)(IDENTITY); }

/* The operator's LANES_COMBINE (defs.cl). */
inline lanes_t lanes_fold(lanes_t a, VACC_T b) { return LANES_COMBINE(a, b); }

inline void lanes_values(lanes_t lanes, ACC_T *values) { VSTORE(lanes, 0, values); }
#endif

/*
 * Sums of 8- and 16-bit integers (SMALL_INT_SUM, the host's): a block of
 * SUM_BLOCK vectors adds up exactly in 32-bit lanes (16 values under 2^16
 * each), widened to the 64-bit accumulator once per block instead of value
 * by value. Only the caller's small integers add up so: a flag that says
 * otherwise is the host's mistake, said here rather than cutting values.
 */
#if SMALL_INT_SUM && (IN_IS_ACC || ACC_FLOAT || IN_SIZE > 2)
#error "SMALL_INT_SUM is for sums of the caller's 8- and 16-bit integers"
#endif

/*
 * SUM_BLOCK: the vectors combined before one fold into an accumulator. 16
 * for small-integer sums (in 32 bits); 8 for float sums at the default
 * accuracy (pairwise, then one compensated step; at the compensated
 * accuracy a (sum, carry) pair must see every value); else 1.
 */
#if SMALL_INT_SUM
#define SUM_BLOCK 16
#elif RUN_CARRY
#define SUM_BLOCK 8
#else
#define SUM_BLOCK 1
#endif

/*
 * block_sum(in, i, stride): the SUM_BLOCK vectors from element i, `stride`
 * elements apart: VEC for a chunk's neighbouring vectors, the row pitch for
 * a block of rows' columns (reduce_cpu_columns).
 */
#if SMALL_INT_SUM
/* Added in 32 bits. */
inline VACC_T block_sum(__global const IN_T *in, size_t i, size_t stride)
{
    CONCAT(int, VEC) sum = CONCAT(convert_int, VEC)(load_raw(in, i));
#pragma unroll
    for (int b = 1; b < SUM_BLOCK; b++)
        sum += CONCAT(convert_int, VEC)(load_raw(in, i + b * stride));
    return TO_VACC(sum);
}
#else
/*
 * NAME(in, i, stride): COUNT vectors from element i, `stride` elements
 * apart, folded pairwise with FOLD: (v0 . v1) . (v2 . v3) ...
 */
#define PAIRWISE_BLOCK(NAME, COUNT, FOLD)                                    \
    inline VACC_T NAME(__global const IN_T *in, size_t i, size_t stride)    \
    {                                                                       \
        VACC_T v[COUNT];                                                    \
        _Pragma("unroll") for (int b = 0; b < COUNT; b++)                   \
            v[b] = load_vector(in, i + b * stride);                        \
        _Pragma("unroll") for (int s = 1; s < COUNT; s *= 2)                \
            _Pragma("unroll") for (int b = 0; b + s < COUNT; b += 2 * s)    \
                v[b] = FOLD(v[b], v[b + s]);                                \
        return v[0];                                                        \
    }
#define VECTOR_PLUS(a, b) ((a) + (b))
/* Added pairwise. */
PAIRWISE_BLOCK(block_sum, SUM_BLOCK, VECTOR_PLUS)
#endif

/* A vector into lanes: an exact sum spills into the work-item's state, declared in the kernel. */
#if ACC_EXACT
#define LANES_FOLD(lanes, x) lanes_fold((lanes), (x), &spilled)
#else
#define LANES_FOLD(lanes, x) lanes_fold((lanes), (x))
#endif

/*
 * What pads a short last vector: 0 for sums (also of pairs), -0 for exact
 * sums (which keep track of -0), 1 for float products (a lane's factor),
 * else the identity.
 */
#if ACC_EXACT
#define PAD (-0.0)
#elif ACC_COMPENSATED
#define PAD ((ACC_SCALAR_T)0)
#elif ACC_SCALED
#define PAD ((ACC_SCALAR_T)1)
#else
#define PAD IDENTITY
#endif

/*
 * Element i as a lane where `live`, else PAD: a short vector's lanes. An
 * if, not ?:, whose constant arm Mesa 22.3.6's llvmpipe turns to 0 for
 * signed chars (defs.cl's load_or_identity; the CPU shape's int8 `and` of
 * 1 to 15 elements came out 0 there).
 */
inline LANE_T lane_or_pad(__global const IN_T *in, size_t i, bool live)
{
    LANE_T lane = PAD;
    if (live)
        lane = load_scalar(in, i);
    return lane;
}

/*
 * Asks the cache for `lines` lines, the first `ahead` bytes past p and each
 * `stride` bytes past the one before, where clang's builtin exists. A hint:
 * it never faults, past the buffer neither, and the addresses are made as
 * integers, so that no out-of-bounds pointer is ever formed.
 */
inline void prefetch_lines(__global const IN_T *p, size_t ahead, uint lines, size_t stride)
{
#if PREFETCH && defined(__clang__)
    const uintptr_t first = (uintptr_t)p + ahead;
    for (uint l = 0; l < lines; l++)
        __builtin_prefetch((__global const char *)(first + l * stride));
#else
    (void)p;
    (void)ahead;
    (void)lines;
    (void)stride;
#endif
}

/* The lines of `count` elements from p, PREFETCH bytes ahead. */
#define PREFETCH_RUN(p, count) \
    prefetch_lines((p), PREFETCH, ((count) * sizeof(IN_T) + CACHE_LINE - 1) / CACHE_LINE, CACHE_LINE)

/*
 * The ACCS streams' blocks at k, `part` elements apart, added pairwise: for
 * RUNS == 1, which is plain float sums' runs, or one stream (rows), where
 * this is block_sum alone.
 */
inline VACC_T streams_block(__global const IN_T *start, size_t part, size_t k)
{
    VACC_T blocks[ACCS];
#pragma unroll
    for (int a = 0; a < ACCS; a++)
        blocks[a] = block_sum(start, a * part + k, VEC);
#pragma unroll
    for (int s = 1; s < ACCS; s *= 2)
#pragma unroll
        for (int a = 0; a + s < ACCS; a += 2 * s)
            blocks[a] += blocks[a + s];
    return blocks[0];
}

/*
 * Elements [begin, end) of in[offset ..], folded into one accumulator value
 * (an exact sum's state): ACCS streams of whole blocks, then whole vectors,
 * then the last vector padded.
 */
inline ACC_T fold_chunk(__global const IN_T *in, ulong offset, size_t begin, size_t end)
{
    lanes_t acc[RUNS];
#if ACC_EXACT
    exact_t spilled = IDENTITY;
#endif
#pragma unroll
    for (int a = 0; a < RUNS; a++)
        acc[a] = lanes_start();

    /* ACCS streams of `part` values each, a block at a time. */
    const size_t step = VEC * SUM_BLOCK;
    const size_t part = (end - begin) / (ACCS * step) * step;
    __global const IN_T *const start = in + offset + begin;
    for (size_t k = 0; k < part; k += step) {
#pragma unroll
        for (int a = 0; a < ACCS; a++)
            PREFETCH_RUN(start + a * part + k, step);
#if RUNS == 1
        acc[0] = LANES_FOLD(acc[0], streams_block(start, part, k));
#else
#pragma unroll
        for (int a = 0; a < ACCS; a++)
            acc[a] = LANES_FOLD(acc[a], block_sum(start, a * part + k, VEC));
#endif
#if COMPENSATED_LANES
        if (k / step % RENORMALIZE_EVERY == RENORMALIZE_EVERY - 1)
#pragma unroll
            for (int a = 0; a < RUNS; a++)
                acc[a] = lanes_renormalize(acc[a]);
#endif
    }
    /* Fewer than LANES * SUM_BLOCK values remain: a vector at a time, the last one padded. */
    size_t i = begin + ACCS * part;
    for (; i + VEC <= end; i += VEC)
        acc[0] = LANES_FOLD(acc[0], load_vector(in, offset + i));
    if (i < end) {
        LANE_T pad[VEC];
        for (int j = 0; j < VEC; j++)
            pad[j] = lane_or_pad(in, offset + i + j, i + j < end);
        acc[0] = LANES_FOLD(acc[0], VLOAD(0, pad));
    }

#if ACC_EXACT
    for (int a = 0; a < RUNS; a++)
        lanes_exact(acc[a], &spilled);
    if (begin < end)
        spilled.flags |= EXACT_SEEN;
    return spilled;
#else
    /* The accumulators' lanes, folded pairwise in a fixed order. */
    ACC_T values[RUNS * VEC];
    for (int a = 0; a < RUNS; a++)
        lanes_values(acc[a], values + a * VEC);
    for (int stride = 1; stride < RUNS * VEC; stride *= 2)
        for (int j = 0; j + stride < RUNS * VEC; j += 2 * stride)
            values[j] = combine(values[j], values[j + stride]);
    return values[0];
#endif
}

/*
 * Work-item w folds elements [w * chunk, min(n, (w + 1) * chunk)) of
 * in[offset ..]. A work-item past the array folds nothing: the host
 * launches none, but llvmpipe runs a group of one in 8 lanes whose empty
 * ones still loop, and end - begin wrapped round there
 * (tests/known-bugs/rusticl_loop_budget.py).
 */
__kernel void reduce_cpu(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                         ulong at, uint finish, ulong chunk)
{
    const size_t w = get_global_id(0);
    const size_t end = min((size_t)n, (w + 1) * (size_t)chunk);
    const size_t begin = min(w * (size_t)chunk, end);
    write_value(out, at, w, finish, fold_chunk(in, offset, begin, end));
}

/*
 * A short row, of at most SHORT_ROW elements, with plain lanes: its vectors
 * folded in turn (a float sum's plainly, without the lanes' compensation:
 * pairwise, four vectors and a tree of VEC lanes lose no more than
 * log2(SHORT_ROW) roundings, within the (L + 4) u A bound), then its lanes
 * pairwise. fold_chunk's streams, compensation and LANES-wide final fold
 * would cost rows of 32 floats twice this fold's time on POCL
 * (bench/results/kernel-choices-pocl3.txt).
 */
#define SHORT_ROWS (!ACC_EXACT && !ACC_SCALED && !ACC_COMPENSATED && !SMALL_INT_SUM)
#define SHORT_ROW (4 * VEC)
#if SHORT_ROWS
#if RUN_CARRY
#define VECTOR_COMBINE(a, b) ((a) + (b))
#else
#define VECTOR_COMBINE(a, b) lanes_fold((a), (b))
#endif

/* A short row's vectors, folded in turn into one vector (PAD's for an empty row). */
inline VACC_T short_lanes(__global const IN_T *in, ulong offset, size_t begin, size_t end)
{
    VACC_T sum = (VACC_T)(PAD);
    for (size_t i = begin; i < end; i += VEC) {
        VACC_T x;
        if (i + VEC <= end) {
            x = load_vector(in, offset + i);
        } else {
            LANE_T pad[VEC];
            for (int k = 0; k < VEC; k++)
                pad[k] = lane_or_pad(in, offset + i + k, i + k < end);
            x = VLOAD(0, pad);
        }
        sum = i == begin ? x : VECTOR_COMBINE(sum, x);
    }
    return sum;
}

inline ACC_T fold_short(__global const IN_T *in, ulong offset, size_t begin, size_t end)
{
    ACC_T values[VEC];
    VSTORE(short_lanes(in, offset, begin, end), 0, values);
    for (int stride = 1; stride < VEC; stride *= 2)
        for (int j = 0; j + stride < VEC; j += 2 * stride)
            values[j] = combine(values[j], values[j + stride]);
    return values[0];
}

/*
 * VEC rows' lanes at once: lane j of the result is row j's lanes folded
 * pairwise, as fold_short folds them (lanes 2k and 2k + 1 first, then those
 * pairs' pairs), so the bits are fold_short's. Each level takes a pair of
 * vectors' even and odd lanes (shuffle2 with constant masks: swizzles
 * into a vector literal made Oclgrind 21.10 report uninitialized values) and combines them, halving the vectors: VEC - 1 vector steps
 * for VEC rows, where fold_short takes VEC - 1 scalar steps through memory
 * for each row.
 */
/* shuffle2's mask: unsigned lanes of the accumulator's width. */
#if ACC_SIZE == 8
#define MASK_T ulong
#elif ACC_SIZE == 4
#define MASK_T uint
#elif ACC_SIZE == 2
#define MASK_T ushort
#else
#define MASK_T uchar
#endif
#define EVENS2 (0, 2)
#define EVENS4 (0, 2, 4, 6)
#define EVENS8 (0, 2, 4, 6, 8, 10, 12, 14)
#define EVENS16 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define EVENS_MASK ((CONCAT(MASK_T, VEC))CONCAT(EVENS, VEC))
#define EVENS(a, b) shuffle2((a), (b), EVENS_MASK)
#define ODDS(a, b) shuffle2((a), (b), EVENS_MASK + (MASK_T)1)

inline VACC_T fold_transposed(VACC_T *rows)
{
#pragma unroll
    for (int n = VEC / 2; n >= 1; n /= 2)
#pragma unroll
        for (int k = 0; k < n; k++)
            rows[k] = VECTOR_COMBINE(EVENS(rows[2 * k], rows[2 * k + 1]),
                                     ODDS(rows[2 * k], rows[2 * k + 1]));
    return rows[0];
}
#endif

/*
 * Rows and segments on CPUs (src/reduce/axis.c): work-item g folds the
 * pieces [g * per_group, (g + 1) * per_group) in order, each as a chunk
 * above, or a short one as fold_short does (axis.cl's reduce_rows says what
 * pieces are).
 */
__kernel void reduce_cpu_rows(__global const IN_T *in, ulong offset, ulong n,
                              __global uchar *out, ulong at, uint finish, ulong rows, ulong cols,
                              ulong pitch, ulong piece_shift, ulong per_group,
                              __global const ulong *bounds)
{
    const ulong first = get_global_id(0) * per_group;
    const ulong stop = min(first + per_group, rows << piece_shift);
    ulong v = first;
#if SHORT_ROWS
    /* VEC pieces at a time: the short ones' lanes folded together, a long one on its own. */
    for (; v + VEC <= stop; v += VEC) {
        VACC_T lanes[VEC];
        uint long_pieces = 0;
        for (int k = 0; k < VEC; k++) {
            const ulong2 span = piece_span(v + k, n, cols, pitch, piece_shift, bounds);
            if (span.y - span.x <= SHORT_ROW) {
                lanes[k] = short_lanes(in, offset, span.x, span.y);
            } else {
                write_result(out, at, v + k, finish, fold_chunk(in, offset, span.x, span.y));
                lanes[k] = (VACC_T)(PAD);
                long_pieces |= 1u << k;
            }
        }
        ACC_T values[VEC];
        VSTORE(fold_transposed(lanes), 0, values);
        for (int k = 0; k < VEC; k++)
            if (!((long_pieces >> k) & 1))
                write_result(out, at, v + k, finish, values[k]);
    }
#endif
    for (; v < stop; v++) {
        const ulong2 span = piece_span(v, n, cols, pitch, piece_shift, bounds);
#if SHORT_ROWS
        if (span.y - span.x <= SHORT_ROW) {
            write_result(out, at, v, finish, fold_short(in, offset, span.x, span.y));
            continue;
        }
#endif
        write_result(out, at, v, finish, fold_chunk(in, offset, span.x, span.y));
    }
}

#if !ACC_EXACT
/*
 * Columns on CPUs: work-item g folds a band of COL_VECTORS vectors of VEC
 * neighbouring columns (band g & (2^block_shift - 1)) down the rows of
 * slice g >> block_shift, one lane a column, each block of COLUMN_BLOCK
 * rows (below) folded before the lanes take it. The host makes a
 * band a whole row where a row is at most 512 vectors, so that a
 * work-item streams its slice as one run of memory, as an OpenMP loop
 * adding whole rows into its columns' sums does (axis.c's
 * CPU_BAND_VECTORS has the measurements). The band's vectors wholly
 * inside the matrix take the blocks; a last one cut by its edge is padded
 * lane by lane. An exact sum's lanes merge into one state: its columns run
 * axis.cl's reduce_columns.
 */
#ifndef COL_VECTORS
#define COL_VECTORS 1
#endif

/*
 * Rows a band folds a block at a time (a row pitch apart) before its lanes
 * take them: block_sum's SUM_BLOCK for float sums; 8 for the operators
 * that give the same bits in any order (integers, float min and max),
 * folded pairwise with the lanes' own operator, so that a band's lanes are
 * read and written once every 8 rows, not every row; else 1 (a compensated
 * pair, a product's scaled lanes).
 */
#if RUN_CARRY || SMALL_INT_SUM || ACC_COMPENSATED || ACC_SCALED
#define COLUMN_BLOCK SUM_BLOCK
#define column_block block_sum
#else
#define COLUMN_BLOCK 8
PAIRWISE_BLOCK(column_block, COLUMN_BLOCK, lanes_fold)
#endif

/*
 * The band's whole vectors, v in turn: up to 16 unrolled, so that their
 * lanes stay in registers; a longer band's lanes live in private memory,
 * where an unrolled loop would only be longer.
 */
#if COL_VECTORS <= 16
#define FOR_WHOLE_VECTORS(v) \
    _Pragma("unroll") for (uint v = 0; v < COL_VECTORS; v++) if (v < whole)
#else
#define FOR_WHOLE_VECTORS(v) for (uint v = 0; v < whole; v++)
#endif

__kernel void reduce_cpu_columns(__global const IN_T *in, ulong offset, ulong n,
                                 __global uchar *out, ulong at, uint finish, ulong rows,
                                 ulong cols, ulong pitch, ulong slice_rows, ulong block_shift)
{
    const ulong g = get_global_id(0), slice = g >> block_shift;
    const ulong col = (g & (((ulong)1 << block_shift) - 1)) * (VEC * COL_VECTORS);
    const ulong first = slice * slice_rows, stop = min(first + slice_rows, rows);
    const ulong in_band = col < cols ? min((ulong)(VEC * COL_VECTORS), cols - col) : 0;
    const uint whole = (uint)(in_band / VEC);
    lanes_t acc[COL_VECTORS];
    (void)n;
    for (int v = 0; v < COL_VECTORS; v++)
        acc[v] = lanes_start();
    /*
     * Rows narrower than PREFETCH bytes: a block's lines are asked for a
     * block and PREFETCH bytes of rows ahead. Wider ones are long runs that
     * the hardware's prefetcher follows, and hints there only slow it
     * (bench/results/kernel-choices-pocl3.txt).
     */
    const size_t row_bytes = pitch * sizeof(IN_T);
    const bool hint = row_bytes != 0 && row_bytes < PREFETCH;
    const size_t ahead = hint ? (COLUMN_BLOCK + PREFETCH / row_bytes) * row_bytes : 0;
    ulong r = first;
    for (ulong k = 0; r + COLUMN_BLOCK <= stop; r += COLUMN_BLOCK, k++) {
        FOR_WHOLE_VECTORS(v) {
            const size_t i = offset + r * pitch + col + v * VEC;
            if (hint)
                prefetch_lines(in + i, ahead, COLUMN_BLOCK, row_bytes);
            acc[v] = lanes_fold(acc[v], column_block(in, i, pitch));
        }
#if COMPENSATED_LANES
        if (k % RENORMALIZE_EVERY == RENORMALIZE_EVERY - 1)
            FOR_WHOLE_VECTORS(v)
                acc[v] = lanes_renormalize(acc[v]);
#endif
    }
    for (; r < stop; r++)
        FOR_WHOLE_VECTORS(v)
            acc[v] = lanes_fold(acc[v], load_vector(in, offset + r * pitch + col + v * VEC));
    if (in_band % VEC != 0) {
        for (r = first; r < stop; r++) {
            LANE_T pad[VEC];
            for (int j = 0; j < VEC; j++) {
                const ulong c = col + whole * VEC + j;
                pad[j] = lane_or_pad(in, offset + r * pitch + c, c < cols);
            }
            acc[whole] = lanes_fold(acc[whole], VLOAD(0, pad));
        }
    }
    for (uint v = 0; v < COL_VECTORS && col + v * VEC < cols; v++) {
        ACC_T values[VEC];
        lanes_values(acc[v], values);
        for (int j = 0; j < VEC; j++)
            if (col + v * VEC + j < cols)
                write_result(out, at, slice * cols + col + v * VEC + j, finish, values[j]);
    }
}
#endif

/*
 * gpu.cl: the auto path's shape for GPUs. A reduction is bound by memory,
 * so the kernel's one job is to keep the memory system full: every
 * work-item keeps UNROLL loads of VEC elements (16 bytes) in flight,
 * neighbouring work-items read neighbouring vectors, and the grid is a fixed
 * multiple of the compute units (so the order of additions, and the result,
 * depend on the device and n alone). Each group folds its work-items' runs
 * with warp shuffles where the device guarantees them (NVIDIA, WARP_SHUFFLE)
 * and through local memory elsewhere, and writes one value; the host
 * relaunches the kernel over those values (VEC = 1) until one is left.
 *
 * Flags, besides defs.cl's: BLOCK_SIZE; VEC, elements per load (16 bytes'
 * worth on the first pass, 1 on partial values); UNROLL, loads in flight;
 * INLINE_PTX on NVIDIA, for converting halves in one instruction;
 * ALIGNED_RESULTS where the result's offset is a multiple of its size, so
 * that it goes in one store, which the host may watch for in host memory
 * (src/reduce/landing.c).
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 512
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
#ifndef INLINE_PTX
#define INLINE_PTX 0
#endif

#if VEC == 1
#define VIN_T IN_T
#else
#define VIN_T CONCAT(IN_T, VEC)
#endif

/*
 * IEEE binary16 bits to float, exactly (subnormals, infinities, NaN): one
 * cvt.f32.f16 where the compiler takes PTX, integer arithmetic elsewhere.
 */
inline float half_bits_to_float(uint bits)
{
#if INLINE_PTX
    float value;
    asm("{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.f32.f16 %0, h; }" : "=f"(value) : "r"(bits));
    return value;
#endif
    const uint sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
    if (exponent == 0x1fu)
        return as_float(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        const float magnitude = (float)mantissa * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    return as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/* Folds each component of a vector, in order, into a run (with RUN_FOLD: fold_vector_fast redefines it). */
#define RUN_FOLD run_fold
#define FOLD2(run, v, CONVERT) run = RUN_FOLD(RUN_FOLD(run, CONVERT((v).s0)), CONVERT((v).s1))
#define FOLD4(run, v, CONVERT) FOLD2(run, (v).s01, CONVERT); FOLD2(run, (v).s23, CONVERT)
#define FOLD8(run, v, CONVERT) FOLD4(run, (v).s0123, CONVERT); FOLD4(run, (v).s4567, CONVERT)
#define FOLD16(run, v, CONVERT) FOLD8(run, (v).s01234567, CONVERT); FOLD8(run, (v).s89abcdef, CONVERT)
#define FOLD_VEC CONCAT(FOLD, VEC)
#define HALF_TO_ACC(bits) TO_ACC(half_bits_to_float(bits))
#define HALF_TO_RUN(bits) TO_RUN(half_bits_to_float(bits))

/*
 * A compensated float sum (defs.cl's run_t) takes a vector's values added
 * pairwise, (v0 + v1) + (v2 + v3) ..., in one compensated step: a Neumaier
 * step is nine operations, which in fp64 (accuracy fp64 on float data) made
 * the loop compute-bound. The pairwise sum costs log2(VEC) levels of the
 * (L + 4) u A bound, which a work-item's run leaves free (it has a whole
 * vector only when n is at least VEC times the grid).
 */
#define PAIRWISE_VECTOR (RUN_CARRY && VEC >= 2)
#define PAIR2(v, CONVERT) (CONVERT((v).s0) + CONVERT((v).s1))
#define PAIR4(v, CONVERT) (PAIR2((v).s01, CONVERT) + PAIR2((v).s23, CONVERT))
#define PAIR8(v, CONVERT) (PAIR4((v).s0123, CONVERT) + PAIR4((v).s4567, CONVERT))
#define PAIR16(v, CONVERT) (PAIR8((v).s01234567, CONVERT) + PAIR8((v).s89abcdef, CONVERT))
#define PAIR_VEC CONCAT(PAIR, VEC)

/* SMALL_INT_SUM (the host's, with VEC >= 8): no vector of 8- or 16-bit values overflows an int. */
#if SMALL_INT_SUM && (IN_IS_ACC || ACC_FLOAT || VEC < 8)
#error "SMALL_INT_SUM is for vectors of 8 or more of the caller's 8- and 16-bit integers"
#endif
#if SMALL_INT_SUM
/*
 * The VEC lanes' sum, through a private array: halving the vector with
 * .lo/.hi compiles to the same code on the devices, but Oclgrind 21.10's
 * --uninitialized crashes on those shuffles.
 */
inline int horizontal_sum(CONCAT(int, VEC) v)
{
    int lanes[VEC];
    CONCAT(vstore, VEC)(v, 0, lanes);
    for (int width = VEC / 2; width > 0; width /= 2)
        for (int j = 0; j < width; j++)
            lanes[j] += lanes[j + width];
    return lanes[0];
}
#endif

#if ACC_ARG && VEC > 1
/*
 * An argmin's or argmax's vector: its elements in order, each with its
 * index. A run's vectors come in element order (fold_slice's loop), so
 * defs.cl's arg_later suffices.
 */
#define ARG2(run, v, CONVERT, i) \
    run = arg_later(arg_later(run, CONVERT((v).s0), (i)), CONVERT((v).s1), (i) + 1)
#define ARG4(run, v, CONVERT, i) ARG2(run, (v).s01, CONVERT, i); ARG2(run, (v).s23, CONVERT, (i) + 2)
#define ARG8(run, v, CONVERT, i) ARG4(run, (v).s0123, CONVERT, i); ARG4(run, (v).s4567, CONVERT, (i) + 4)
#define ARG16(run, v, CONVERT, i) \
    ARG8(run, (v).s01234567, CONVERT, i); ARG8(run, (v).s89abcdef, CONVERT, (i) + 8)
#define ARG_VEC CONCAT(ARG, VEC)
#define AS_ELEMENT(x) (x)

inline run_t fold_arg_vector(run_t run, __global const IN_T *in, size_t element)
{
#if IN_HALF
    const CONCAT(ushort, VEC) bits = CONCAT(as_ushort, VEC)(*(__global const uint4 *)(in + element));
    ARG_VEC(run, convert_uint8(bits), half_bits_to_float, element);
#else
    const VIN_T values = *(__global const VIN_T *)(in + element);
    ARG_VEC(run, values, AS_ELEMENT, element);
#endif
    return run;
}
#endif

/* Folds the VEC elements of one loaded vector into a work-item's run. */
inline run_t fold_vector(run_t run, __global const IN_T *in, size_t element)
{
#if VEC == 1
    run = run_fold(run, load_run(in, element));
#elif ACC_ARG
    run = fold_arg_vector(run, in, element);
#elif IN_HALF
    /* 16 bytes of halves as raw bits in one load, converted in registers. */
    const CONCAT(ushort, VEC) bits = CONCAT(as_ushort, VEC)(*(__global const uint4 *)(in + element));
#if PAIRWISE_VECTOR
    const ACC_T pair = PAIR_VEC(convert_uint8(bits), HALF_TO_ACC); /* named: see below */
    run = run_fold(run, pair);
#else
    FOLD_VEC(run, convert_uint8(bits), HALF_TO_RUN);
#endif
#elif SMALL_INT_SUM
    /*
     * 8- and 16-bit sums: the vector's 16 or 8 values add up exactly in 32
     * bits first, so the 64-bit run takes one addition per load, not 16.
     */
    const CONCAT(int, VEC) wide = CONCAT(convert_int, VEC)(*(__global const VIN_T *)(in + element));
    const ACC_T sum = TO_ACC(horizontal_sum(wide)); /* named: see the pairwise sum below */
    run = run_fold(run, sum);
#else
    /* A 16-byte load: the host only asks for vectors at aligned elements. */
    const VIN_T values = *(__global const VIN_T *)(in + element);
#if PAIRWISE_VECTOR
    /*
     * Named before the fold: Oclgrind 21.10's --uninitialized crashes (a
     * memcpy in Uninitialized::instructionExecuted) when the sum is
     * run_fold's argument expression; tests/oclgrind_driver.c runs this.
     */
    const ACC_T pair = PAIR_VEC(values, TO_ACC);
    run = run_fold(run, pair);
#else
    FOLD_VEC(run, values, TO_RUN);
#endif
#endif
    return run;
}

#if EXACT_RUNS && !IN_HALF && VEC > 1
/*
 * fold_vector without the words: run_fold_fast (defs.cl) sets `trouble`
 * where an element or an error would need them, and the caller then redoes
 * the whole unrolled step with fold_vector. The hot loop then holds no
 * path into the words, which at every fold would take 2^27 exact doubles
 * from 0.46 ms to 0.88 on the H100 (bench/results/exact-h100.txt).
 */
#undef RUN_FOLD
#define RUN_FOLD(run, x) run_fold_fast((run), (x), trouble)
inline run_t fold_vector_fast(run_t run, __global const IN_T *in, size_t element, uint *trouble)
{
    const VIN_T values = *(__global const VIN_T *)(in + element);
    FOLD_VEC(run, values, TO_RUN);
    return run;
}
#undef RUN_FOLD
#define RUN_FOLD run_fold
#endif

#if EXACT_RUNS && IN_HALF && VEC > 1
/*
 * Exact sums of halves need no error terms within a step. Every finite
 * half is a multiple of 2^-24 below 2^16 in magnitude, and a double holds
 * every multiple of 2^-24 below 2^29 exactly, so the plain double sum of up
 * to HALVES_EXACT_IN_DOUBLE halves is their exact sum. fold_slice adds an
 * unrolled step's halves so and folds only the step's sum into the run:
 * one addition per half instead of an addition and its error. Infinities
 * and NaN pass through the plain sum as through run_fold (NaN if any NaN or
 * both infinities, else the infinity), and the sum, started at -0, stays
 * -0 exactly when every half was -0.
 */
#define HALVES_EXACT_IN_DOUBLE 8192

/* sum plus the VEC halves from `element`, added pairwise: any order is exact, and pairs overlap. */
inline double add_halves(double sum, __global const IN_T *in, size_t element)
{
    const uint8 bits = convert_uint8(as_ushort8(*(__global const uint4 *)(in + element)));
    const double halves = PAIR_VEC(bits, HALF_TO_RUN); /* named: see fold_vector */
    return sum + halves;
}
#endif

/* Shuffles need whole warps: groups of 64 or more. */
#define GROUP_SHUFFLE (WARP_SHUFFLE && BLOCK_SIZE >= 64)

/*
 * GROUP_REDUCE(name, T, warp_merge, identity, tree) defines
 * T name(T value, __local T *scratch): work-item 0 gets the merge of the
 * group's values, in one order for every value type. With shuffles, each
 * warp merges its 32 values (warp_merge, which leaves the merge in lane 0),
 * lane 0 leaves it in scratch[warp], and warp 0 merges those, its lanes past
 * the last warp holding identity. Without, each work-item leaves its value
 * in scratch[tid], and `tree`, an expression of scratch and tid, merges
 * scratch[0 .. BLOCK_SIZE) in local memory and gives work-item 0 the merge.
 * scratch holds GROUP_VALUES values (below).
 */
#if GROUP_SHUFFLE
#define GROUP_REDUCE(name, T, warp_merge, identity, tree)                       \
    inline T name(T value, __local T *scratch)                                  \
    {                                                                           \
        const uint tid = get_local_id(0), lane = tid % 32, warp = tid / 32;     \
        value = warp_merge(value);                                              \
        if (lane == 0)                                                          \
            scratch[warp] = value;                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                           \
        value = identity;                                                       \
        if (warp == 0) {                                                        \
            if (lane < BLOCK_SIZE / 32)                                         \
                value = scratch[lane];                                          \
            value = warp_merge(value);                                          \
        }                                                                       \
        return value;                                                           \
    }
#else
#define GROUP_REDUCE(name, T, warp_merge, identity, tree)                       \
    inline T name(T value, __local T *scratch)                                  \
    {                                                                           \
        const uint tid = get_local_id(0);                                       \
        scratch[tid] = value;                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                           \
        return tree;                                                            \
    }
#endif

/*
 * Work-item 0 gets the group's value: warps fold with defs.cl's
 * warp_reduce, or, without shuffles, K6's unrolled tree (fold_tree).
 */
GROUP_REDUCE(group_fold, ACC_T, warp_reduce, IDENTITY, fold_tree(scratch, tid, BLOCK_SIZE))

/*
 * This work-item's share of in[offset .. offset + n): its vectors, UNROLL
 * loads in flight, then its part of the unaligned head and of the tail that
 * makes no whole vector, one element at a time.
 */
inline run_t fold_slice(__global const IN_T *in, ulong offset, ulong n, ulong head)
{
    const size_t id = get_global_id(0), threads = get_global_size(0);
    const size_t vectors = (n - head) / VEC;
    const size_t first = offset + head;
    run_t run = run_start();

    size_t v = id;
    for (; v + (UNROLL - 1) * threads < vectors; v += UNROLL * threads) {
#if EXACT_RUNS && IN_HALF && VEC > 1
        double step = -0.0;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            step = add_halves(step, in, first + (v + u * threads) * VEC);
            if ((u + 1) % (HALVES_EXACT_IN_DOUBLE / VEC) == 0 || u + 1 == UNROLL) {
                run = run_fold(run, step);
                step = -0.0;
            }
        }
#elif EXACT_RUNS && VEC > 1
        const run_t before = run;
        uint trouble = 0;
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            run = fold_vector_fast(run, in, first + (v + u * threads) * VEC, &trouble);
        if (trouble) {
            run = before;
            for (int u = 0; u < UNROLL; u++)
                run = fold_vector(run, in, first + (v + u * threads) * VEC);
        }
#else
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            run = fold_vector(run, in, first + (v + u * threads) * VEC);
#endif
    }
    for (; v < vectors; v += threads)
        run = fold_vector(run, in, first + v * VEC);
    const size_t tail = head + vectors * VEC;
    for (size_t j = id; j < head; j += threads)
        run = run_fold(run, load_run(in, offset + j));
    for (size_t j = id; j < n - tail; j += threads)
        run = run_fold(run, load_run(in, offset + tail + j));
    return run;
}

#if EXACT_RUNS
/*
 * An exact sum's group merges its runs' doubles first. A run's exact sum is
 * s0 + s1 (+ s2 for floats and halves) plus its words, which only rare
 * data reach; turning every run into words and merging those would cost
 * three times the default sum at 2^16 doubles (H100;
 * bench/results/kernel-choices-nvidia.txt). So the group
 * merges (s0, s1, s2) pairwise with error-free additions, each level's
 * errors added into the next, and while no run has words and no last error
 * is left over, the merged doubles are the group's exact sum: only work-item
 * 0 turns them into words. Otherwise (EXACT_SPILLED, or an infinity or NaN
 * in s0, whose error is NaN) the group merges whole states, with the same
 * bits. s0 keeps IEEE addition's signed zeros: -0 exactly
 * when every element was -0, as run_fold's s0 does.
 */
#define EXACT_SPILLED 0x100u /* beside exact.cl's flags: the doubles do not hold the sum */

typedef struct {
    double s0, s1, s2; /* s2: 0 for doubles' runs, which have none */
    uint flags;        /* the run's flags, and EXACT_SPILLED */
} run_sums_t;

inline run_sums_t run_sums(run_t run)
{
    ulong words = 0;
#pragma unroll
    for (int i = 0; i < EXACT_WORDS; i++)
        words |= run.rest.word[i];
#if EXACT_LSB < -149
    run_sums_t sums = {run.s0, run.s1, 0.0, (uint)run.rest.flags};
#else
    run_sums_t sums = {run.s0, run.s1, run.s2, (uint)run.rest.flags};
#endif
    sums.flags |= words != 0 ? EXACT_SPILLED : 0u;
    return sums;
}

/* a + b in doubles, exactly, or with EXACT_SPILLED set. */
inline run_sums_t sums_merge(run_sums_t a, run_sums_t b)
{
    const double s0 = a.s0 + b.s0, e0 = two_sum_error(a.s0, b.s0, s0);
    const double t = a.s1 + b.s1, e1 = two_sum_error(a.s1, b.s1, t);
    const double s1 = t + e0, f1 = two_sum_error(t, e0, s1);
#if EXACT_LSB < -149
    const bool left = e1 != 0.0 || f1 != 0.0;
    const double s2 = 0.0;
#else
    const double u = a.s2 + b.s2, e2 = two_sum_error(a.s2, b.s2, u);
    const double v = u + e1, f2 = two_sum_error(u, e1, v);
    const double s2 = v + f1, g2 = two_sum_error(v, f1, s2);
    const bool left = e2 != 0.0 || f2 != 0.0 || g2 != 0.0;
#endif
    run_sums_t sum = {s0, s1, s2, a.flags | b.flags | (left ? EXACT_SPILLED : 0u)};
    return sum;
}

inline run_sums_t sums_identity(void)
{
    run_sums_t none = {-0.0, 0.0, 0.0, 0u};
    return none;
}

#if GROUP_SHUFFLE
inline double shfl_down_double(double x, uint delta)
{
    uint2 halves = as_uint2(x);
    halves.x = shfl_down_u32(halves.x, delta);
    halves.y = shfl_down_u32(halves.y, delta);
    return as_double(halves);
}

/* Lane 0 gets the merge of the warp's 32 sums. */
inline run_sums_t warp_merge_sums(run_sums_t sums)
{
    for (uint delta = 16; delta > 0; delta >>= 1) {
        run_sums_t other = {shfl_down_double(sums.s0, delta), shfl_down_double(sums.s1, delta),
#if EXACT_LSB < -149
                            0.0,
#else
                            shfl_down_double(sums.s2, delta),
#endif
                            shfl_down_u32(sums.flags, delta)};
        sums = sums_merge(sums, other);
    }
    return sums;
}
#else
/*
 * scratch[0 .. BLOCK_SIZE) merged level by level down to one, a barrier
 * after each; work-item 0 gets the merge.
 */
inline run_sums_t sums_tree(__local run_sums_t *scratch, uint tid)
{
    for (uint s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s)
            scratch[tid] = sums_merge(scratch[tid], scratch[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}
#endif

/* Work-item 0 gets the group's sums: as group_fold does with values. */
GROUP_REDUCE(group_merge_sums, run_sums_t, warp_merge_sums, sums_identity(),
             sums_tree(scratch, tid))
#endif

/*
 * The group's local memory: GROUP_VALUES accumulator values for group_fold,
 * or for exact sums, in the same bytes, their runs' sums first.
 */
#if GROUP_SHUFFLE
#define GROUP_VALUES (BLOCK_SIZE / 32)
#else
#define GROUP_VALUES BLOCK_SIZE
#endif
typedef struct {
    union {
        ACC_T value[GROUP_VALUES];
#if EXACT_RUNS
        run_sums_t sums[GROUP_VALUES];
#endif
    } held;
    uint spilled; /* exact sums: the group's runs need their words */
} group_scratch_t;

#if EXACT_RUNS
/*
 * Work-item 0 gets the merge of the group's sums, and every work-item
 * learns from scratch->spilled whether it holds their exact sum.
 */
inline run_sums_t group_sums(run_sums_t sums, __local group_scratch_t *scratch)
{
    const run_sums_t all = group_merge_sums(sums, scratch->held.sums);
    if (get_local_id(0) == 0)
        scratch->spilled = all.flags & EXACT_SPILLED;
    barrier(CLK_LOCAL_MEM_FENCE);
    return all;
}

/* The state of sums that hold an exact sum: run_value of a run that holds them. */
inline ACC_T sums_value(run_sums_t sums)
{
    run_t merged = run_start();
    merged.s0 = sums.s0;
    merged.s1 = sums.s1;
#if EXACT_LSB >= -149
    merged.s2 = sums.s2;
#endif
    merged.rest.flags = sums.flags;
    return run_value(merged);
}
#endif

/* Work-item 0 gets the value of the group's runs. */
inline ACC_T group_fold_runs(run_t run, __local group_scratch_t *scratch)
{
#if EXACT_RUNS
    const run_sums_t all = group_sums(run_sums(run), scratch);
    if (!scratch->spilled)
        return sums_value(all);
#endif
    return group_fold(run_value(run), scratch->held.value);
}

/*
 * Elements [offset, offset + head) and the last ones that make no whole
 * vector are folded one by one; the `vectors` vectors from element
 * offset + head, aligned to VEC elements, go through the unrolled loop.
 */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_gpu(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong at,
                uint finish, ulong head)
{
    __local group_scratch_t scratch;
    const ACC_T value = group_fold_runs(fold_slice(in, offset, n, head), &scratch);
    if (get_local_id(0) == 0)
        write_result(out, at, get_group_id(0), finish, COUNTED_FROM(value, offset));
}

#if INLINE_PTX
#if EXACT_RUNS
/*
 * In the one launch, a group whose runs' sums hold its exact sum leaves
 * them as its partial, not words: EXACT_AS_SUMS in the partial's flags and
 * the bits of s0, s1 and s2 in its first three words. The last group merges
 * such partials as the groups merged their runs, and whole states only
 * where some group spilled. Turning every group's sums into words and
 * merging the 35-word states would take about a third of an exact sum of
 * 2^16 to 2^19 doubles (H100; bench/results/kernel-choices-nvidia.txt).
 */
#define EXACT_AS_SUMS 0x200u /* beside exact.cl's flags and EXACT_SPILLED */

inline void partial_put_sums(__global ACC_T *partial, run_sums_t sums)
{
    partial->word[0] = as_ulong(sums.s0);
    partial->word[1] = as_ulong(sums.s1);
    partial->word[2] = as_ulong(sums.s2);
    partial->flags = sums.flags | EXACT_AS_SUMS;
}

/* A partial's sums; a partial of words gives none, EXACT_SPILLED. */
inline run_sums_t partial_sums(volatile __global ACC_T *partial)
{
    const uint flags = (uint)partial->flags;
    run_sums_t sums = sums_identity();
    if (flags & EXACT_AS_SUMS) {
        sums.s0 = as_double(partial->word[0]);
        sums.s1 = as_double(partial->word[1]);
        sums.s2 = as_double(partial->word[2]);
        sums.flags = flags & ~EXACT_AS_SUMS;
    } else {
        sums.flags = EXACT_SPILLED;
    }
    return sums;
}

/* A partial as a state, whichever form it has. */
inline ACC_T partial_value(volatile __global ACC_T *partial)
{
    if (partial->flags & EXACT_AS_SUMS)
        return sums_value(partial_sums(partial));
    ACC_T value;
    for (int w = 0; w < EXACT_WORDS; w++)
        value.word[w] = partial->word[w];
    value.flags = partial->flags;
    return value;
}
#endif

/* Work-item 0 leaves the group's value in *partial: for exact sums, its sums where they hold it. */
inline void group_leave(run_t run, __local group_scratch_t *scratch, __global ACC_T *partial)
{
#if EXACT_RUNS
    const run_sums_t all = group_sums(run_sums(run), scratch);
    if (!scratch->spilled) {
        if (get_local_id(0) == 0)
            partial_put_sums(partial, all);
        return;
    }
#endif
    const ACC_T value = group_fold(run_value(run), scratch->held.value);
    if (get_local_id(0) == 0)
        *partial = value;
}

/* The last group: work-item 0 gets the fold of every group's partial, in index order. */
inline ACC_T partials_fold(volatile __global ACC_T *partials, uint groups,
                           __local group_scratch_t *scratch)
{
    const uint tid = get_local_id(0);
#if EXACT_RUNS
    run_sums_t sums = sums_identity();
    for (uint g = tid; g < groups; g += BLOCK_SIZE)
        sums = sums_merge(sums, partial_sums(partials + g));
    const run_sums_t all = group_sums(sums, scratch);
    if (!scratch->spilled)
        return sums_value(all);
    ACC_T value = IDENTITY;
    for (uint g = tid; g < groups; g += BLOCK_SIZE)
        value = combine(value, partial_value(partials + g));
#elif ACC_EXACT || ACC_SCALED
    /* Exact states and scaled products merge as they are: a run would take elements. */
    ACC_T value = IDENTITY;
    for (uint g = tid; g < groups; g += BLOCK_SIZE)
        value = combine(value, partials[g]);
#else
    run_t all = run_start();
    for (uint g = tid; g < groups; g += BLOCK_SIZE)
        all = run_fold(all, partials[g]);
    ACC_T value = run_value(all);
#endif
    return group_fold(value, scratch->held.value);
}

/*
 * One launch for the whole reduction (NVIDIA): every group writes its value
 * to partials[group] and takes a ticket; the group that takes the last one
 * folds all partial values, in index order, so the result does not depend on
 * which group finished last, and resets the counter for the next launch.
 * fence.acq_rel.gpu orders each group's partial before its ticket, and the
 * last group's ticket before its reads; volatile loads read from L2.
 */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_gpu_once(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong at,
                     uint finish, ulong head, __global ACC_T *partials,
                     volatile __global uint *tickets)
{
    __local group_scratch_t scratch;
    __local uint last;
    const uint tid = get_local_id(0), groups = get_num_groups(0);
    group_leave(fold_slice(in, offset, n, head), &scratch, partials + get_group_id(0));
    if (tid == 0) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        last = atomic_inc(tickets) == groups - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last)
        return;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    const ACC_T value = partials_fold(partials, groups, &scratch);
    if (tid == 0) {
        write_result(out, at, 0, finish, COUNTED_FROM(value, offset));
        *tickets = 0;
    }
}
#endif

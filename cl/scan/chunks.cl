/*
 * chunks.cl: the auto path's scans on CPUs (common.cl's totals and scan
 * kernels). A tile is a contiguous chunk of `run` elements, the host's
 * choice, taken in order: POCL runs such loops on a core at full speed,
 * where a GPU's strided loops run about ten times slower. A work-group is
 * one work-item, which takes CHUNK_WAYS consecutive chunks in step: element
 * j of each in turn, so that the ways' folds are independent chains the
 * core overlaps (a float sum's Neumaier step waits on the last one's
 * result). The totals kernel folds the chunks; the scan kernel walks each
 * from its prefix.
 */

/* What a run takes an element as (defs.cl's load_run): a float product's factor, else an accumulator value. */
#if ACC_SCALED && !IN_IS_ACC
#define RUN_ELEMENT_T ACC_SCALAR_T
#else
#define RUN_ELEMENT_T ACC_T
#endif

#ifndef CHUNK_WAYS
#define CHUNK_WAYS 4
#endif

/*
 * The work-item's chunks, [start[k], end[k]) each, empty past n, and how
 * many elements all of them have (the last one may be short). Plain
 * arrays, not ulong2 pairs: Oclgrind 21.10's --uninitialized crashes on
 * the pairs' vector code (tests/known-bugs/oclgrind_lo_hi_shuffle.py).
 */
inline ulong chunks_of(ulong first, ulong run, ulong n, ulong *start, ulong *end)
{
    ulong common = run;
#pragma unroll
    for (uint k = 0; k < CHUNK_WAYS; k++) {
        start[k] = min((first + k) * run, n);
        end[k] = min(start[k] + run, n);
        common = min(common, end[k] - start[k]);
    }
    return common;
}

#if RUN_CARRY && !IN_IS_ACC && !IN_HALF
/*
 * A plain float sum's chunk total (the default and fp64 accuracies): eight
 * lanes of consecutive elements, each with its Neumaier carry, so that the
 * core's vector units take eight at a time, not one: so 2^26 float scans
 * run ahead of an OpenMP scan loop on POCL 3.1 (61-64 ms against 77-78;
 * bench/results/scans-pocl3.txt). A total's order is free: only the
 * outputs follow the elements' order. The lanes start from -0 and a zero
 * carry joins no total, so that -0 elements still total -0.
 */
#define LANES_T CONCAT(ACC_T, 8)
#define TO_LANES CONCAT(convert_, LANES_T)

inline ACC_T chunk_total(__global const IN_T *in, ulong from, ulong to)
{
    LANES_T sum = (LANES_T)SCAN_IDENTITY, carry = (LANES_T)0;
    ulong i = from;
    for (; i + 8 <= to; i += 8) {
        const LANES_T x = TO_LANES(vload8(0, in + i));
        const LANES_T s = sum + x;
        carry += NEUMAIER_ERROR(sum, x, s, (LANES_T)0);
        sum = s;
    }
    ACC_T sums[8], carries[8];
    vstore8(sum, 0, sums);
    vstore8(carry, 0, carries);
    run_t total = scan_run_from(SCAN_IDENTITY);
    for (uint lane = 0; lane < 8; lane++) {
        total = run_fold(total, sums[lane]);
        if (carries[lane] != 0)
            total = run_fold(total, carries[lane]);
    }
    for (; i < to; i++)
        total = run_fold(total, load_run(in, i));
    return scan_run_value(total);
}

__kernel void scan_chunks_totals(__global const IN_T *in, ulong offset, ulong n,
                                 __global ACC_T *totals, ulong totals_at, ulong run,
                                 __local ACC_T *buf)
{
    (void)buf;
    const ulong first = get_group_id(0) * CHUNK_WAYS;
    ulong start[CHUNK_WAYS], end[CHUNK_WAYS];
    chunks_of(first, run, n, start, end);
    for (uint k = 0; k < CHUNK_WAYS; k++)
        if (start[k] < end[k])
            totals[totals_at + first + k] = chunk_total(in, offset + start[k], offset + end[k]);
}
#else
__kernel void scan_chunks_totals(__global const IN_T *in, ulong offset, ulong n,
                                 __global ACC_T *totals, ulong totals_at, ulong run,
                                 __local ACC_T *buf)
{
    (void)buf;
    const ulong first = get_group_id(0) * CHUNK_WAYS;
    ulong start[CHUNK_WAYS], end[CHUNK_WAYS];
    run_t walk[CHUNK_WAYS];
    const ulong common = chunks_of(first, run, n, start, end);
#pragma unroll
    for (uint k = 0; k < CHUNK_WAYS; k++)
        walk[k] = scan_run_from(SCAN_IDENTITY);
    for (ulong j = 0; j < common; j++) {
#pragma unroll
        for (uint k = 0; k < CHUNK_WAYS; k++)
            walk[k] = run_fold(walk[k], load_run(in, offset + start[k] + j));
    }
    for (uint k = 0; k < CHUNK_WAYS; k++) {
        for (ulong i = start[k] + common; i < end[k]; i++)
            walk[k] = run_fold(walk[k], load_run(in, offset + i));
        if (start[k] < end[k])
            totals[totals_at + first + k] = scan_run_value(walk[k]);
    }
}
#endif

/* Element i of a chunk: loaded before its output is stored, since the scan may run in place. */
inline run_t walk_element(__global const IN_T *in, ulong offset, __global uchar *out,
                          ulong out_at, uint finish, uint mode, run_t walk, ulong i)
{
    const RUN_ELEMENT_T x = load_run(in, offset + i);
    const ACC_T before = scan_run_value(walk);
    walk = run_fold(walk, x);
    store_output(out, out_at, i, finish, output_value(mode, i, before, scan_run_value(walk)));
    return walk;
}

__kernel void scan_chunks(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                          ulong out_at, ulong run, __local ACC_T *buf, uint finish, uint mode,
                          __global const ACC_T *seeds, ulong seeds_at, uint seeded,
                          __global ACC_T *carry, ulong carry_at, uint keep_carry)
{
    (void)buf;
    const ulong first = get_group_id(0) * CHUNK_WAYS;
    ulong start[CHUNK_WAYS], end[CHUNK_WAYS];
    run_t walk[CHUNK_WAYS];
    const ulong common = chunks_of(first, run, n, start, end);
#pragma unroll
    for (uint k = 0; k < CHUNK_WAYS; k++) {
        ACC_T seed = SCAN_IDENTITY;
        if (seeded && start[k] < end[k]) /* a chunk past the last has no seed */
            seed = seeds[seeds_at + first + k];
        walk[k] = scan_run_from(seed);
    }
    for (ulong j = 0; j < common; j++) {
#pragma unroll
        for (uint k = 0; k < CHUNK_WAYS; k++)
            walk[k] = walk_element(in, offset, out, out_at, finish, mode, walk[k], start[k] + j);
    }
    for (uint k = 0; k < CHUNK_WAYS; k++) {
        for (ulong i = start[k] + common; i < end[k]; i++)
            walk[k] = walk_element(in, offset, out, out_at, finish, mode, walk[k], i);
        if (keep_carry && start[k] < end[k] && end[k] == n)
            carry[carry_at] = scan_run_value(walk[k]);
    }
}

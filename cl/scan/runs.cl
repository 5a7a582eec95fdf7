/*
 * runs.cl: the auto path's scans (common.cl's totals and scan kernels),
 * where each work-item takes a run of consecutive elements in order.
 *
 * On GPUs (BLOCK_SIZE > 1) a run is RUN_ITEMS elements, kept in registers:
 * a work-item folds its run, the group scans the runs' folds with
 * Kogge-Stone, and each work-item goes through its run again from its
 * prefix, writing an output an element. A tile is BLOCK_SIZE * RUN_ITEMS
 * elements, read once by each kernel.
 *
 * On CPUs (BLOCK_SIZE 1) a work-item is a group and its run a contiguous
 * chunk of `run` elements, the host's choice: POCL runs one such loop on a
 * core at full speed, where the GPU's strides run about ten times slower.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef RUN_ITEMS
#define RUN_ITEMS 8
#endif

/* What a run takes an element as (defs.cl's load_run): a float product's factor, else an accumulator value. */
#if ACC_SCALED && !IN_IS_ACC
#define RUN_ELEMENT_T ACC_SCALAR_T
#else
#define RUN_ELEMENT_T ACC_T
#endif

#if BLOCK_SIZE > 1
/* Loads work-item lid's run of the tile that starts at `start`; returns how many of its elements exist. */
inline uint load_run_items(__global const IN_T *in, ulong offset, ulong n, ulong start, uint lid,
                           RUN_ELEMENT_T *items)
{
    const ulong first = start + (ulong)lid * RUN_ITEMS;
    const uint count = first >= n ? 0 : (uint)min((ulong)RUN_ITEMS, n - first);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++)
        if (j < count)
            items[j] = load_run(in, offset + first + j);
    return count;
}

/* The fold of a run's elements. */
inline ACC_T run_fold_items(const RUN_ELEMENT_T *items, uint count)
{
    run_t run = scan_run_from(SCAN_IDENTITY);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++)
        if (j < count)
            run = run_fold(run, items[j]);
    return scan_run_value(run);
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_runs_totals(__global const IN_T *in, ulong offset, ulong n, __global ACC_T *totals,
                      ulong totals_at, ulong run, __local ACC_T *buf)
{
    (void)run;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0);
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_run_items(in, offset, n, group * BLOCK_SIZE * RUN_ITEMS, lid, items);
    ACC_T before, through;
    const ACC_T total = kogge_stone(buf, lid, BLOCK_SIZE, run_fold_items(items, count), &before,
                                    &through);
    if (lid == 0)
        totals[totals_at + group] = total;
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_runs(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong out_at,
               ulong run, __local ACC_T *buf, uint finish, uint exclusive,
               __global const ACC_T *seeds, ulong seeds_at, uint seeded, __global ACC_T *carry,
               ulong carry_at, uint keep_carry)
{
    (void)run;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0), start = group * BLOCK_SIZE * RUN_ITEMS;
    const ulong first = start + (ulong)lid * RUN_ITEMS;
    const ACC_T seed = tile_seed(seeds, seeds_at, seeded, group);
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_run_items(in, offset, n, start, lid, items);
    ACC_T before, through;
    const ACC_T total = kogge_stone(buf, lid, BLOCK_SIZE, run_fold_items(items, count), &before,
                                    &through);
    run_t walk = scan_run_from(combine(seed, before));
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++) {
        if (j < count) {
            const ulong i = first + j;
            ACC_T value = scan_run_value(walk);
            walk = run_fold(walk, items[j]);
            if (!exclusive)
                value = scan_run_value(walk);
            else if (i == 0 && !seeded)
                value = empty_prefix(finish);
            store_output(out, out_at, i, finish, value);
        }
    }
    keep_total(carry, carry_at, keep_carry, lid, seed, total);
}
#else
/* A CPU work-item's chunk: elements [group * run, min(group * run + run, n)). */
inline ulong2 chunk_of(ulong group, ulong run, ulong n)
{
    const ulong start = min(group * run, n);
    return (ulong2)(start, min(start + run, n));
}

__kernel void scan_runs_totals(__global const IN_T *in, ulong offset, ulong n,
                               __global ACC_T *totals, ulong totals_at, ulong run,
                               __local ACC_T *buf)
{
    (void)buf;
    const ulong group = get_group_id(0);
    const ulong2 chunk = chunk_of(group, run, n);
    run_t walk = scan_run_from(SCAN_IDENTITY);
    for (ulong i = chunk.x; i < chunk.y; i++)
        walk = run_fold(walk, load_run(in, offset + i));
    totals[totals_at + group] = scan_run_value(walk);
}

__kernel void scan_runs(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                        ulong out_at, ulong run, __local ACC_T *buf, uint finish, uint exclusive,
                        __global const ACC_T *seeds, ulong seeds_at, uint seeded,
                        __global ACC_T *carry, ulong carry_at, uint keep_carry)
{
    (void)buf;
    const ulong group = get_group_id(0);
    const ulong2 chunk = chunk_of(group, run, n);
    const ACC_T seed = tile_seed(seeds, seeds_at, seeded, group);
    run_t walk = scan_run_from(seed);
    ulong i = chunk.x;
    /* Each element is loaded before its output is stored: the scan may run in place. */
    if (exclusive && i == 0 && !seeded && i < chunk.y) {
        const RUN_ELEMENT_T x = load_run(in, offset);
        store_output(out, out_at, 0, finish, empty_prefix(finish));
        walk = run_fold(walk, x);
        i = 1;
    }
    if (exclusive) {
        for (; i < chunk.y; i++) {
            const RUN_ELEMENT_T x = load_run(in, offset + i);
            store_output(out, out_at, i, finish, scan_run_value(walk));
            walk = run_fold(walk, x);
        }
    } else {
        for (; i < chunk.y; i++) {
            walk = run_fold(walk, load_run(in, offset + i));
            store_output(out, out_at, i, finish, scan_run_value(walk));
        }
    }
    if (keep_carry && group == get_num_groups(0) - 1)
        carry[carry_at] = scan_run_value(walk);
}
#endif

/*
 * chunks.cl: the auto path's scans on CPUs (common.cl's totals and scan
 * kernels). A work-group is one work-item, and its tile a contiguous chunk
 * of `run` elements, the host's choice, taken in order: POCL runs one such
 * loop on a core at full speed, where a GPU's strided loops run about ten
 * times slower. The totals kernel folds each chunk; the scan kernel walks
 * each from its prefix.
 */

/* What a run takes an element as (defs.cl's load_run): a float product's factor, else an accumulator value. */
#if ACC_SCALED && !IN_IS_ACC
#define RUN_ELEMENT_T ACC_SCALAR_T
#else
#define RUN_ELEMENT_T ACC_T
#endif

/* A CPU work-item's chunk: elements [group * run, min(group * run + run, n)). */
inline ulong2 chunk_of(ulong group, ulong run, ulong n)
{
    const ulong start = min(group * run, n);
    return (ulong2)(start, min(start + run, n));
}

__kernel void scan_chunks_totals(__global const IN_T *in, ulong offset, ulong n,
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

__kernel void scan_chunks(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
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

/*
 * common.cl: what every scan kernel shares, prepended to cl/scan/'s
 * sources after cl/core/defs.cl (whose types, operators and finishing they
 * use). A scan runs in levels (src/scan/levels.c): a tile is the elements
 * one work-group scans; the totals kernel writes each tile's total, the
 * totals are scanned one level down, and the scan kernel scans each tile
 * from its prefix, its seed.
 *
 * Flags, besides defs.cl's:
 *   BLOCK_SIZE    the work-group size, where a source compiles it in
 *   RUN_ITEMS     the GPU tiles' elements a work-item (tiles.cl)
 *
 * The two kernels of every scan take:
 *   totals: (in, offset, n, __global ACC_T *totals, ulong totals_at, ulong run,
 *            __local ACC_T *scratch)
 *           tile g's total goes to totals[totals_at + g];
 *   scan:   (in, offset, n, __global uchar *out, ulong out_at, ulong run,
 *            __local ACC_T *scratch, uint finish, uint mode,
 *            __global const ACC_T *seeds, ulong seeds_at, uint seeded,
 *            __global ACC_T *carry, ulong carry_at, uint keep_carry)
 *           output i goes to out's element out_at + i: the caller's result
 *           (finish) or an accumulator value for the level above. Tile g
 *           starts from seeds[seeds_at + g] where `seeded`, else from
 *           nothing; the last tile's total, seed included, goes to
 *           carry[carry_at] where `keep_carry` (a host array's next chunk
 *           starts from it). `mode` is one of SCAN_MODE's below.
 * `run` is the elements a work-item takes where the host chooses it (the
 * auto path on CPUs); the ladder's kernels ignore it.
 */

/*
 * The identity a scan starts from and pads with. For float sums it is -0,
 * not defs.cl's +0: -0 + x is x for every x, while +0 + -0 is +0, so that a
 * prefix of -0 elements would come out +0 (NumPy's cumsum gives -0). Every
 * other identity is exact already. The caller's first output of an
 * exclusive scan is defs.cl's IDENTITY, +0, all the same: an empty sum.
 */
#if OP_ADDS && ACC_COMPENSATED
#define SCAN_IDENTITY ((ACC_T)(-(ACC_SCALAR_T)0, -(ACC_SCALAR_T)0))
#elif OP_ADDS && ACC_FLOAT
#define SCAN_IDENTITY (-(ACC_T)0)
#else
#define SCAN_IDENTITY IDENTITY
#endif

/* Element offset + i of the input, or the scan's identity past n (an if: defs.cl's load_or_identity says why). */
inline ACC_T scan_load(__global const IN_T *in, ulong offset, ulong n, ulong i)
{
    ACC_T value = SCAN_IDENTITY;
    if (i < n)
        value = load_in(in, offset + i);
    return value;
}

/* Tile `group`'s seed: its prefix from the level below, or the identity. */
inline ACC_T tile_seed(__global const ACC_T *seeds, ulong seeds_at, uint seeded, ulong group)
{
    ACC_T seed = SCAN_IDENTITY;
    if (seeded)
        seed = seeds[seeds_at + group];
    return seed;
}

/*
 * The scan kernels' `mode`: inclusive, exclusive, or exclusive where output
 * 0 starts the caller's array (not a chunk that continues one, not a level
 * of prefixes): that output is the operator's identity as the caller gets
 * it, defs.cl's IDENTITY (+0 for float sums, where SCAN_IDENTITY is -0).
 */
#define SCAN_INCLUSIVE 0
#define SCAN_EXCLUSIVE 1
#define SCAN_EXCLUSIVE_FROM_START 2

/* Output i, the caller's result type where `finish`, else an accumulator value for the level above. */
inline void store_output(__global uchar *out, ulong out_at, ulong i, uint finish, ACC_T value)
{
    if (finish)
        ((__global RESULT_T *)out)[out_at + i] = finish_value(value);
    else
        ((__global ACC_T *)out)[out_at + i] = value;
}

/* Output i of a scan in `mode`: `before` (the fold of every element before i) or `through` (and i's). */
inline ACC_T output_value(uint mode, ulong i, ACC_T before, ACC_T through)
{
    ACC_T value = through;
    if (mode != SCAN_INCLUSIVE)
        value = before;
    if (mode == SCAN_EXCLUSIVE_FROM_START && i == 0)
        value = IDENTITY;
    return value;
}

/*
 * Kogge-Stone (Hillis-Steele) over the work-group: each work-item brings
 * one value; on return *before holds the fold of the values of the
 * work-items below it (the identity for work-item 0) and *through that and
 * its own; the function returns the group's total. Each of the log2(block)
 * steps combines a value with the one `d` places lower, in two halves of
 * `buf` (2 * block values) taken in turn, so that no step reads what it
 * writes: n log n work, one barrier a step.
 */
inline ACC_T kogge_stone(__local ACC_T *buf, uint lid, uint block, ACC_T value, ACC_T *before,
                         ACC_T *through)
{
    uint from = 0;
    buf[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < block; d <<= 1) {
        ACC_T v = buf[from + lid];
        if (lid >= d)
            v = combine(buf[from + lid - d], v);
        from = block - from;
        buf[from + lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    ACC_T lower = SCAN_IDENTITY;
    if (lid > 0)
        lower = buf[from + lid - 1];
    *before = lower;
    *through = buf[from + lid];
    const ACC_T total = buf[from + block - 1];
    barrier(CLK_LOCAL_MEM_FENCE); /* buf is free again for the caller */
    return total;
}

/*
 * A run of a work-item's elements in order, as a scan takes them, started
 * from a seed (a prefix, or the scan's identity): for a plain float sum
 * with RUN_CARRY, a Neumaier carry beside the sum (defs.cl's run_t), read
 * without adding a zero carry, so that -0 elements give -0; otherwise
 * defs.cl's run as it is (a float product's run takes the factors as they
 * are).
 */
#if RUN_CARRY
inline run_t scan_run_from(ACC_T seed)
{
    run_t run = {seed, (ACC_T)0};
    return run;
}

inline ACC_T scan_run_value(run_t run) { return run.carry == 0 ? run.sum : run.sum + run.carry; }
#else
inline run_t scan_run_from(ACC_T seed) { return seed; }
inline ACC_T scan_run_value(run_t run) { return run_value(run); }
#endif

/* Keeps the scan's total for a host array's next chunk: the last tile's work-item 0 writes it. */
inline void keep_total(__global ACC_T *carry, ulong carry_at, uint keep_carry, uint lid,
                       ACC_T seed, ACC_T total)
{
    if (keep_carry && lid == 0 && get_group_id(0) == get_num_groups(0) - 1)
        carry[carry_at] = combine(seed, total);
}

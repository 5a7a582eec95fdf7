/*
 * tiles.cl: the auto path's scans on GPUs. A work-group of BLOCK_SIZE
 * work-items scans a tile of BLOCK_SIZE * RUN_ITEMS elements:
 *   - the tile is read with consecutive work-items on consecutive elements
 *     (coalesced) into local memory, and each work-item takes back a run of
 *     RUN_ITEMS consecutive ones (padded against bank conflicts);
 *   - each work-item folds its run, the group scans the runs' folds
 *     (common.cl's kogge_stone), and each work-item walks its run again
 *     from its prefix; the outputs go back through local memory and leave
 *     coalesced too.
 * The tile's own prefix comes from one of two places:
 *   - scan_tiles: the level below (levels.c's multi-block decomposition:
 *     scan_tiles_totals writes each tile's total first). Elements are read
 *     twice, so it moves 3n values. Any device.
 *   - scan_tiles_lookback (NVIDIA, INLINE_PTX): in the same launch, from
 *     the tiles before it, as Merrill and Garland's decoupled look-back
 *     does, so that it moves 2n values. Tile numbers come from a counter,
 *     in the order groups start, so a tile waits only on tiles whose groups
 *     are running, and every group that runs finishes. Unlike CUB's
 *     look-back, the prefix does not depend on which earlier tiles happen
 *     to have finished: tiles publish the nodes of a Fenwick tree of tile
 *     totals (below), each node a fixed fold, and a tile's prefix is the
 *     fixed fold of the nodes that cover the tiles before it. So a float
 *     scan gives the same bits on every run, and a tile waits only for
 *     totals, never for a chain of prefixes.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef RUN_ITEMS
#define RUN_ITEMS 8
#endif
#ifndef INLINE_PTX
#define INLINE_PTX 0
#endif

#define TILE (BLOCK_SIZE * RUN_ITEMS)

/* Staging slot of tile element k: one spare slot every 32, so that runs of RUN_ITEMS spread over the banks. */
#define STAGE(k) ((k) + ((k) >> 5))
#define STAGE_VALUES STAGE(TILE)

/* What a run takes an element as (defs.cl's load_run): a float product's factor, else an accumulator value. */
#if ACC_SCALED && !IN_IS_ACC
#define RUN_ELEMENT_T ACC_SCALAR_T
#else
#define RUN_ELEMENT_T ACC_T
#endif

/*
 * The local array the host gives: STAGE_VALUES accumulator values for the
 * tile, 2 * BLOCK_SIZE for Kogge-Stone, and 64 for the look-back's nodes.
 */
#define KS_AT STAGE_VALUES
#define NODES_AT (STAGE_VALUES + 2 * BLOCK_SIZE)

/*
 * Loads work-item lid's run of the tile at `start` (elements past n are
 * left out): read coalesced into local memory, then each work-item's
 * consecutive RUN_ITEMS. Returns how many of its run exist.
 */
inline uint load_tile_run(__global const IN_T *in, ulong offset, ulong n, ulong start, uint lid,
                          __local ACC_T *buf, RUN_ELEMENT_T *items)
{
    __local RUN_ELEMENT_T *stage = (__local RUN_ELEMENT_T *)buf;
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++) {
        const uint k = j * BLOCK_SIZE + lid;
        if (start + k < n)
            stage[STAGE(k)] = load_run(in, offset + start + k);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong first = start + (ulong)lid * RUN_ITEMS;
    const uint count = first >= n ? 0 : (uint)min((ulong)RUN_ITEMS, n - first);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++)
        if (j < count)
            items[j] = stage[STAGE(lid * RUN_ITEMS + j)];
    barrier(CLK_LOCAL_MEM_FENCE);
    return count;
}

/* The fold of a run's elements. */
inline ACC_T fold_run(const RUN_ELEMENT_T *items, uint count)
{
    run_t run = scan_run_from(SCAN_IDENTITY);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++)
        if (j < count)
            run = run_fold(run, items[j]);
    return scan_run_value(run);
}

/*
 * Walks work-item lid's run from `from`, the fold of everything before it,
 * staging each output in local memory; then the tile's outputs leave
 * coalesced.
 */
inline void store_tile_run(__global uchar *out, ulong out_at, ulong n, ulong start, uint lid,
                           __local ACC_T *buf, const RUN_ELEMENT_T *items, uint count,
                           ACC_T from, uint finish, uint mode)
{
    run_t walk = scan_run_from(from);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++) {
        if (j < count) {
            const ACC_T before = scan_run_value(walk);
            walk = run_fold(walk, items[j]);
            buf[STAGE(lid * RUN_ITEMS + j)] =
                output_value(mode, start + lid * RUN_ITEMS + j, before, scan_run_value(walk));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++) {
        const uint k = j * BLOCK_SIZE + lid;
        if (start + k < n)
            store_output(out, out_at, start + k, finish, buf[STAGE(k)]);
    }
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_tiles_totals(__global const IN_T *in, ulong offset, ulong n, __global ACC_T *totals,
                       ulong totals_at, ulong run, __local ACC_T *buf)
{
    (void)run;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0);
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_tile_run(in, offset, n, group * TILE, lid, buf, items);
    ACC_T before, through;
    const ACC_T total = kogge_stone(buf + KS_AT, lid, BLOCK_SIZE, fold_run(items, count), &before,
                                    &through);
    if (lid == 0)
        totals[totals_at + group] = total;
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_tiles(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong out_at,
                ulong run, __local ACC_T *buf, uint finish, uint mode,
                __global const ACC_T *seeds, ulong seeds_at, uint seeded, __global ACC_T *carry,
                ulong carry_at, uint keep_carry)
{
    (void)run;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0), start = group * TILE;
    const ACC_T seed = tile_seed(seeds, seeds_at, seeded, group);
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_tile_run(in, offset, n, start, lid, buf, items);
    ACC_T before, through;
    const ACC_T total = kogge_stone(buf + KS_AT, lid, BLOCK_SIZE, fold_run(items, count), &before,
                                    &through);
    store_tile_run(out, out_at, n, start, lid, buf, items, count, combine(seed, before), finish,
                   mode);
    keep_total(carry, carry_at, keep_carry, lid, seed, total);
}

#if INLINE_PTX
/*
 * The look-back's memory order (PTX): a node is stored, then fence, then
 * its flag; a flag is seen, then fence, then the node is read. Volatile
 * loads and stores go to L2, which every SM shares.
 */
inline void fence_gpu(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

/*
 * A waiting lane sleeps between looks at a flag (PTX nanosleep, sm_70 and
 * later), so that hundreds of waiting groups do not keep L2 busy with them.
 */
#ifndef LOOKBACK_SLEEP_NS
#define LOOKBACK_SLEEP_NS 64
#endif

/* Node j once its flag is up. */
inline ACC_T wait_node(volatile __global uint *flags, volatile __global ACC_T *nodes, uint j)
{
    while (flags[j] == 0) {
#if LOOKBACK_SLEEP_NS > 0
        asm volatile("nanosleep.u32 %0;" ::"r"(LOOKBACK_SLEEP_NS));
#endif
    }
    fence_gpu();
    return nodes[j];
}

/* The lowest set bit of j. */
inline uint lowbit(uint j) { return j & (0u - j); }

/*
 * Tile t's node of the Fenwick tree (1-based i = t + 1): the fold of tiles
 * [i - lowbit(i), i), as R_0 = tile t's total, R_m = node(i - 2^(m-1)) then
 * R_(m-1), up to m = log2(lowbit(i)). Its parts are nodes of earlier tiles,
 * whose lanes of the first warp wait for them together; work-item 0 folds.
 */
inline void publish_node(volatile __global uint *flags, volatile __global ACC_T *nodes,
                         __local ACC_T *parts, uint lid, uint i, ACC_T total)
{
    const uint levels = 31 - clz(lowbit(i));
    if (lid < levels)
        parts[lid] = wait_node(flags, nodes, i - (1u << lid));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        ACC_T node = total;
        for (uint m = 0; m < levels; m++)
            node = combine(parts[m], node);
        nodes[i] = node;
        fence_gpu();
        flags[i] = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/*
 * The fold of tiles [0, t): Fenwick's nodes t, t - lowbit(t), ... cover
 * them, the last one leftmost; lanes wait for one each, and work-item 0
 * folds them from the left.
 */
inline ACC_T tiles_before(volatile __global uint *flags, volatile __global ACC_T *nodes,
                          __local ACC_T *parts, uint lid, uint t)
{
    const uint count = popcount(t);
    if (lid < count) {
        uint j = t;
        for (uint k = 0; k < lid; k++)
            j -= lowbit(j);
        parts[lid] = wait_node(flags, nodes, j);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ACC_T prefix = SCAN_IDENTITY;
    for (uint k = count; k > 0; k--)
        prefix = combine(prefix, parts[k - 1]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return prefix;
}

/*
 * The one-launch scan: common.cl's scan arguments, then `status` (the tile
 * counter, then a flag for each Fenwick node, 1-based; zeroed by the host)
 * and `nodes` (a value for each node, 1-based).
 */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_tiles_lookback(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                         ulong out_at, ulong run, __local ACC_T *buf, uint finish,
                         uint mode, __global const ACC_T *seeds, ulong seeds_at,
                         uint seeded, __global ACC_T *carry, ulong carry_at, uint keep_carry,
                         volatile __global uint *status, volatile __global ACC_T *nodes)
{
    (void)run;
    const uint lid = get_local_id(0);
    __local uint *ticket = (__local uint *)(buf + NODES_AT);
    if (lid == 0)
        *ticket = atomic_inc(&status[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = *ticket;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong start = (ulong)t * TILE;
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_tile_run(in, offset, n, start, lid, buf, items);
    ACC_T before, through;
    const ACC_T total = kogge_stone(buf + KS_AT, lid, BLOCK_SIZE, fold_run(items, count), &before,
                                    &through);
    volatile __global uint *flags = status; /* status[0] counts tiles; status[j], j >= 1, is node j's flag */
    publish_node(flags, nodes, buf + NODES_AT, lid, t + 1, total);
    const ACC_T seed = combine(tile_seed(seeds, seeds_at, seeded, 0),
                               tiles_before(flags, nodes, buf + NODES_AT, lid, t));
    store_tile_run(out, out_at, n, start, lid, buf, items, count, combine(seed, before), finish,
                   mode);
    if (keep_carry && lid == 0 && t == get_num_groups(0) - 1)
        carry[carry_at] = combine(seed, total);
}
#endif

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
 * On NVIDIA (WARP_SHUFFLE, groups of whole warps) each warp reads and
 * writes its own slice of the tile, so only its 32 lanes meet in local
 * memory (bar.warp.sync), and the runs' folds are scanned with shfl.sync:
 * five shuffles a warp, then the warps' totals scanned the same way, one
 * barrier between. Elsewhere the group scans them with Kogge-Stone in
 * local memory, a barrier a step.
 * The tile's own prefix comes from one of two places:
 *   - scan_tiles: the level below (levels.c's multi-block decomposition:
 *     scan_tiles_totals writes each tile's total first). Elements are read
 *     twice, so it moves 3n values. Any device.
 *   - scan_tiles_lookback (NVIDIA, INLINE_PTX, the default there): in the
 *     same launch, from the tiles before it, as Merrill and Garland's
 *     decoupled look-back does, so that it moves 2n values. Its tiles are
 *     held in registers, not staged, or for integer sums that widen kept
 *     in local memory as loaded (below, where it is).
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
 * tile, then 2 * BLOCK_SIZE for Kogge-Stone (or the warps' totals).
 */
#define KS_AT STAGE_VALUES

/*
 * Who moves the tile between global and local memory. Step j of work-item
 * lid takes tile element TILE_ELEMENT(j, lid), and TILE_SYNC() lets the
 * work-items that share a stretch of local memory see each other's writes:
 *   - with warp scans, lane l of warp w takes element l + 32 j of its
 *     warp's slice (32 * RUN_ITEMS elements, its lanes' runs), so the warp
 *     is alone there and its lanes meet in a warp barrier;
 *   - else work-item lid takes element lid + BLOCK_SIZE j, and the group
 *     meets in a barrier.
 * Either way each step's loads and stores are consecutive across lanes.
 */
#if WARP_SHUFFLE && BLOCK_SIZE % 32 == 0
#define WARP_SCANS 1
#define WARPS (BLOCK_SIZE / 32)
#define TILE_ELEMENT(j, lid) (((lid) & ~31u) * RUN_ITEMS + (j) * 32 + ((lid) & 31))
#define TILE_SYNC() asm volatile("bar.warp.sync -1;" ::: "memory")
#else
#define WARP_SCANS 0
#define TILE_ELEMENT(j, lid) ((j) * BLOCK_SIZE + (lid))
#define TILE_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif

/*
 * NVIDIA's one launch (below), where the host asks for it: its program
 * holds only scan_tiles_lookback, since the staged kernels would be
 * compiled and never run, and every kernel lengthens a cold build
 * (bench/results/scans-h100-lookback.txt has the times).
 */
#if INLINE_PTX && WARP_SCANS && defined(LOOKBACK_ROUNDS)
#define ONE_LAUNCH 1
#else
#define ONE_LAUNCH 0
#endif

/*
 * Loads work-item lid's run of the tile at `start` (elements past n are
 * left out): read coalesced into local memory, then each work-item's
 * consecutive RUN_ITEMS. Returns how many of its run exist.
 */
inline uint load_tile_run(__global const IN_T *in, ulong offset, ulong n, ulong start, uint lid,
                          __local ACC_T *buf, RUN_ELEMENT_T *items)
{
    __local RUN_ELEMENT_T *stage = (__local RUN_ELEMENT_T *)buf;
    /*
     * Every tile but the last skips the bounds: checking every element's
     * takes the scan of 2^28 floats from 0.94 ms to 1.58 (H200;
     * bench/results/scans-h200-warp.txt).
     */
    if (start + TILE <= n) {
#pragma unroll
        for (uint j = 0; j < RUN_ITEMS; j++) {
            const uint k = TILE_ELEMENT(j, lid);
            stage[STAGE(k)] = load_run(in, offset + start + k);
        }
    } else {
#pragma unroll
        for (uint j = 0; j < RUN_ITEMS; j++) {
            const uint k = TILE_ELEMENT(j, lid);
            if (start + k < n)
                stage[STAGE(k)] = load_run(in, offset + start + k);
        }
    }
    TILE_SYNC();
    const ulong first = start + (ulong)lid * RUN_ITEMS;
    const uint count = first >= n ? 0 : (uint)min((ulong)RUN_ITEMS, n - first);
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++)
        if (j < count)
            items[j] = stage[STAGE(lid * RUN_ITEMS + j)];
    TILE_SYNC();
    return count;
}

/*
 * The runs' scan: work-item lid brings its run's fold; on return *before
 * holds the fold of the runs below it (the identity for work-item 0), and
 * the function returns the tile's total, in every work-item.
 */
#if WARP_SCANS
/*
 * Kogge-Stone over a warp's registers: lane l ends with the fold of lanes
 * 0..l. A run's fold reaches its outputs through at most five additions
 * here, log2(WARPS) in the warps' scan (the identity's are exact) and one
 * more for its warp's prefix: log2(BLOCK_SIZE) + 1, within the 2 log2 of
 * the tile that docs/scans.md's bound allows. WARP_SCAN defines it for
 * values of T, with T's shuffle and operator; warp_scan is ACC_T's.
 */
#define WARP_SCAN(name, T, shfl_up_of, combine_of)            \
    inline T name(T value, uint lane)                         \
    {                                                         \
        _Pragma("unroll") for (uint d = 1; d < 32; d <<= 1) { \
            const T lower = shfl_up_of(value, d);             \
            if (lane >= d)                                    \
                value = combine_of(lower, value);             \
        }                                                     \
        return value;                                         \
    }
WARP_SCAN(warp_scan, ACC_T, shfl_up, combine)

/*
 * The warps' totals, in every work-item: the lane where `holds` brings its
 * warp's total, one barrier, then every warp scans them (lane w holding
 * warp w's). *warp_before is the fold of the warps before its own (the
 * identity for warp 0), and the group's total returns. warp_totals: WARPS
 * values of local memory.
 */
inline ACC_T scan_warp_totals(__local ACC_T *warp_totals, uint warp, uint lane, bool holds,
                              ACC_T warp_total, ACC_T *warp_before)
{
    if (holds)
        warp_totals[warp] = warp_total;
    barrier(CLK_LOCAL_MEM_FENCE);
    ACC_T warps = SCAN_IDENTITY;
    if (lane < WARPS)
        warps = warp_totals[lane];
    warps = warp_scan(warps, lane);
    *warp_before = warp == 0 ? SCAN_IDENTITY : shfl_idx(warps, warp - 1);
    return shfl_idx(warps, WARPS - 1);
}

inline ACC_T scan_runs(__local ACC_T *buf, uint lid, ACC_T value, ACC_T *before)
{
    const uint lane = lid & 31, warp = lid / 32;
    const ACC_T through = warp_scan(value, lane);
    ACC_T lower = shfl_up(through, 1), warp_before;
    const ACC_T total =
        scan_warp_totals(buf + KS_AT, warp, lane, lane == 31, through, &warp_before);
    if (lane == 0)
        lower = SCAN_IDENTITY;
    if (warp > 0)
        lower = combine(warp_before, lower);
    *before = lower;
    barrier(CLK_LOCAL_MEM_FENCE); /* the warps' totals are free again */
    return total;
}
#else
inline ACC_T scan_runs(__local ACC_T *buf, uint lid, ACC_T value, ACC_T *before)
{
    ACC_T through;
    return kogge_stone(buf + KS_AT, lid, BLOCK_SIZE, value, before, &through);
}
#endif

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
    TILE_SYNC();
    if (start + TILE <= n) {
#pragma unroll
        for (uint j = 0; j < RUN_ITEMS; j++) {
            const uint k = TILE_ELEMENT(j, lid);
            store_output(out, out_at, start + k, finish, buf[STAGE(k)]);
        }
    } else {
#pragma unroll
        for (uint j = 0; j < RUN_ITEMS; j++) {
            const uint k = TILE_ELEMENT(j, lid);
            if (start + k < n)
                store_output(out, out_at, start + k, finish, buf[STAGE(k)]);
        }
    }
}

/*
 * The tile's total, in work-item 0. With warp scans nothing is staged: each
 * work-item folds its elements as it loads them (a run of strided
 * elements), each warp folds its lanes' runs with shfl.sync, and warp 0 the
 * warps'. The tile's prefixes may group its elements otherwise than
 * scan_tiles does: docs/scans.md's bound holds for any grouping whose
 * additions are as deep, and staging the tile to fold scan_tiles' own
 * runs costs a tenth of the scan's time (H200;
 * bench/results/scans-h200-warp.txt). Else the tile is scanned as
 * scan_tiles scans it.
 */
#if WARP_SCANS
inline ACC_T tile_total(__global const IN_T *in, ulong offset, ulong n, ulong start, uint lid,
                        __local ACC_T *buf)
{
    __local ACC_T *warp_totals = buf + KS_AT;
    run_t run = scan_run_from(SCAN_IDENTITY);
    if (start + TILE <= n) {
#pragma unroll
        for (uint j = 0; j < RUN_ITEMS; j++)
            run = run_fold(run, load_run(in, offset + start + TILE_ELEMENT(j, lid)));
    } else {
#pragma unroll
        for (uint j = 0; j < RUN_ITEMS; j++) {
            const uint k = TILE_ELEMENT(j, lid);
            if (start + k < n)
                run = run_fold(run, load_run(in, offset + start + k));
        }
    }
    const ACC_T warp_total = warp_reduce(scan_run_value(run));
    if ((lid & 31) == 0)
        warp_totals[lid / 32] = warp_total;
    barrier(CLK_LOCAL_MEM_FENCE);
    ACC_T total = SCAN_IDENTITY;
    if (lid < 32) { /* warp 0, every lane of it */
        if (lid < WARPS)
            total = warp_totals[lid];
        total = warp_reduce(total);
    }
    return total;
}
#else
inline ACC_T tile_total(__global const IN_T *in, ulong offset, ulong n, ulong start, uint lid,
                        __local ACC_T *buf)
{
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_tile_run(in, offset, n, start, lid, buf, items);
    ACC_T before;
    return scan_runs(buf, lid, fold_run(items, count), &before);
}
#endif

#if !ONE_LAUNCH
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_tiles_totals(__global const IN_T *in, ulong offset, ulong n, __global ACC_T *totals,
                       ulong totals_at, ulong run, __local ACC_T *buf)
{
    (void)run;
    const uint lid = get_local_id(0);
    const ulong group = get_group_id(0);
    const ACC_T total = tile_total(in, offset, n, group * TILE, lid, buf);
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
    ACC_T before;
    const ACC_T total = scan_runs(buf, lid, fold_run(items, count), &before);
    store_tile_run(out, out_at, n, start, lid, buf, items, count, combine(seed, before), finish,
                   mode);
    keep_total(carry, carry_at, keep_carry, lid, seed, total);
}
#endif

#if ONE_LAUNCH
/*
 * The one-launch scan (NVIDIA): Merrill and Garland's decoupled look-back,
 * made deterministic, over tiles held in registers (or, for integer sums
 * that widen, kept in local memory: LOCAL_ROWS, below).
 *
 * The tile. Warp w's slice is rows of 32 lanes' runs; lane l of a row
 * holds LANE_RUN consecutive elements (below). So a row is read and
 * written in whole vectors, consecutive across the warp's lanes, and
 * nothing is staged in local memory (LOCAL_ROWS keeps the tile there, but
 * reads and writes it in rows too). The rows are scanned with shfl.sync,
 * and the warps meet in one barrier (scan_rows). Without the look-back such
 * tiles scan at the speed of a copy of the same bytes (H100, 2^28 floats:
 * 0.716 ms against 0.713; bench/results/scans-h100-probes.txt).
 *
 * The look-back. Tile numbers come from a counter, in the order groups
 * start, so a tile waits only on tiles whose groups run. Each tile
 * publishes its total, its aggregate A_t, as soon as it has it, and then
 * its inclusive prefix P_t = P_(t-1) then A_t. The first warp looks at the
 * 32 tiles before it, a lane a tile, until each shows A or P; from the
 * nearest P_j it folds A_(j+1) ... A_(t-1) onto it in order. Where none of
 * the 32 shows its P, it keeps their A's and looks at the 32 before, up to
 * LOOKBACK_ROUNDS rounds, and then waits on the last 32 for a P.
 *
 * Every P is a left fold of the tiles' aggregates, and a left fold gives
 * the same bits from whichever P_j it picks up: no output depends on which
 * tiles happened to be done. CUB folds what its look-back finds as a tree,
 * whose shape does. The folds are chains (chain_t): a Neumaier run for a
 * float sum, so that a chain of thousands of tiles adds 2u of the prefix,
 * not a rounding a tile; elsewhere the operator.
 */

/*
 * A lane's run in a row: 16 bytes of whichever is wider, its elements or
 * its results (4 floats, 2 int32 elements into 2 int64 sums), so that its
 * stores are whole 16-byte vectors and its loads whole vectors of 2 to 16
 * bytes. Longer runs of results cost more than they save (H100, 2^28 int32
 * sums: 1.62 ms with 32 bytes of results a lane, against 1.29-1.30 with
 * 16; bench/results/scans-h100-lookback.txt).
 *
 * A run is folded with plain additions, a float sum's too: its at most 4
 * elements add 3 roundings, within docs/scans.md's bound, and a Neumaier
 * carry (common.cl's scan runs) would cost 1% of the time
 * (bench/results/scans-h100-lookback.txt).
 */
#if IN_SIZE > RESULT_SIZE
#define LANE_BYTES IN_SIZE
#else
#define LANE_BYTES RESULT_SIZE
#endif
#if RUN_ITEMS % (16 / LANE_BYTES) == 0
#define LANE_RUN (16 / LANE_BYTES)
#else
#define LANE_RUN 1
#endif
#define ROWS (RUN_ITEMS / LANE_RUN)
/* Tile element of lane `lane` of warp `warp`, row r, k-th of its run. */
#define ROW_ELEMENT(warp, lane, r, k) \
    ((warp) * (32 * RUN_ITEMS) + (r) * (32 * LANE_RUN) + (lane) * LANE_RUN + (k))

/* Whole-vector loads and stores: an unsigned type of LANE_RUN elements' or results' bytes. */
#define LOAD_BYTES (LANE_RUN * IN_SIZE)
#define STORE_BYTES (LANE_RUN * RESULT_SIZE)
#if LANE_RUN == 1
#define VECTOR_LOADS 0
#elif LOAD_BYTES == 16
#define LOAD_RAW_T uint4
#elif LOAD_BYTES == 8
#define LOAD_RAW_T uint2
#elif LOAD_BYTES == 4
#define LOAD_RAW_T uint
#elif LOAD_BYTES == 2
#define LOAD_RAW_T ushort
#endif
#ifndef VECTOR_LOADS
#define VECTOR_LOADS 1
#endif
#if LANE_RUN == 1
#define VECTOR_STORES 0
#elif STORE_BYTES == 16
#define STORE_RAW_T uint4
#elif STORE_BYTES == 8
#define STORE_RAW_T uint2
#elif STORE_BYTES == 4
#define STORE_RAW_T uint
#elif STORE_BYTES == 2
#define STORE_RAW_T ushort
#endif
#ifndef VECTOR_STORES
#define VECTOR_STORES 1
#endif

/*
 * What a tile holds its elements and its prefixes within it as, tile_t:
 * for 8- and 16-bit sums into 64 bits (SMALL_INT_SUM, which the host sets
 * only where no tile's sum leaves an int), ints, widened to ACC_T where
 * they meet the tile's prefix, so that a work-item's 32 elements and 16
 * rows' prefixes take 48 registers, not 96, and two groups of 512 fit a
 * multiprocessor (src/scan/paths.c's tile_sums_fit_int has the times; with
 * LOCAL_ROWS the rows' scans add in ints after the look-back); else ACC_T.
 * A tile's total and the warps' prefixes are ACC_T either way.
 */
#if SMALL_INT_SUM
typedef int tile_t;
#define TILE_IDENTITY 0
#define TILE_OF(x) ((tile_t)(x))
#define ACC_OF(x) ((ACC_T)(x))
inline tile_t tile_combine(tile_t a, tile_t b) { return a + b; }
inline tile_t tile_shfl_up(tile_t value, uint delta) { return (int)shfl_up_u32((uint)value, delta); }
inline tile_t tile_shfl_idx(tile_t value, uint lane) { return (int)shfl_idx_u32((uint)value, lane); }
WARP_SCAN(tile_warp_scan, tile_t, tile_shfl_up, tile_combine)
#else
typedef ACC_T tile_t;
#define TILE_IDENTITY SCAN_IDENTITY
#define TILE_OF(x) (x)
#define ACC_OF(x) (x)
#define tile_combine combine
#define tile_shfl_up shfl_up
#define tile_shfl_idx shfl_idx
#define tile_warp_scan warp_scan
#endif
#if SMALL_INT_SUM && TILE > (IN_SIZE == 1 ? 8421504 : 32768)
#error "SMALL_INT_SUM: a tile's sum could leave an int (src/scan/paths.c's tile_sums_fit_int)"
#endif

#if IN_HALF
typedef ushort raw_element_t;
#else
typedef IN_T raw_element_t;
#endif

#if VECTOR_LOADS
/* A run's LANE_RUN elements in one load: `at` is a multiple of LANE_RUN. */
inline void load_vector(__global const IN_T *in, ulong at, tile_t *items)
{
    union {
        LOAD_RAW_T raw;
        raw_element_t element[LANE_RUN];
    } bits;
    bits.raw = *(__global const LOAD_RAW_T *)(in + at);
#pragma unroll
    for (uint k = 0; k < LANE_RUN; k++)
#if IN_HALF
        items[k] = TO_ACC(vload_half(k, (__private const half *)bits.element));
#else
        items[k] = TILE_OF(TO_ACC(bits.element[k]));
#endif
}
#endif

/*
 * The work-item's runs of the tile at `start`: whole vectors where the
 * tile is whole and its elements start on a vector's bytes, else element
 * by element, the identity past n.
 */
inline void load_rows(__global const IN_T *in, ulong offset, ulong n, ulong start, uint warp,
                      uint lane, tile_t *items)
{
    const bool whole = start + TILE <= n;
#if VECTOR_LOADS
    if (whole && (offset + start) % LANE_RUN == 0) {
#pragma unroll
        for (uint r = 0; r < ROWS; r++)
            load_vector(in, offset + start + ROW_ELEMENT(warp, lane, r, 0), items + r * LANE_RUN);
        return;
    }
#endif
#pragma unroll
    for (uint r = 0; r < ROWS; r++) {
#pragma unroll
        for (uint k = 0; k < LANE_RUN; k++) {
            const ulong i = start + ROW_ELEMENT(warp, lane, r, k);
            if (whole)
                items[r * LANE_RUN + k] = TILE_OF(load_in(in, offset + i));
            else
                items[r * LANE_RUN + k] = TILE_OF(scan_load(in, offset, n, i));
        }
    }
}

/* Whether a tile's outputs may leave in whole vectors: a whole tile, its results on STORE_BYTES. */
inline bool stores_whole(ulong out_at, ulong n, ulong start, uint finish)
{
    return start + TILE <= n && finish && (out_at * RESULT_SIZE) % STORE_BYTES == 0;
}

/*
 * A lane's run of a row, from `walk` (the fold of everything before it):
 * its outputs from `first` on leave in one store where `vectors`
 * (stores_whole), else one by one, those past n left out.
 */
inline void store_run(__global uchar *out, ulong out_at, ulong n, ulong first, ACC_T walk,
                      const tile_t *run, bool whole, bool vectors, uint finish, uint mode)
{
    ACC_T values[LANE_RUN];
#pragma unroll
    for (uint k = 0; k < LANE_RUN; k++) {
        const ACC_T before = walk;
        walk = combine(walk, ACC_OF(run[k]));
        values[k] = output_value(mode, first + k, before, walk);
    }
#if VECTOR_STORES
    if (vectors) {
        union {
            RESULT_T result[LANE_RUN];
            STORE_RAW_T raw;
        } bits;
#pragma unroll
        for (uint k = 0; k < LANE_RUN; k++)
            bits.result[k] = finish_value(values[k]);
        *(__global STORE_RAW_T *)(out + (out_at + first) * RESULT_SIZE) = bits.raw;
        return;
    }
#endif
#pragma unroll
    for (uint k = 0; k < LANE_RUN; k++)
        if (whole || first + k < n)
            store_output(out, out_at, first + k, finish, values[k]);
}

/* The runs' outputs from `from`, each run walked from its lane's prefix (store_run). */
inline void store_rows(__global uchar *out, ulong out_at, ulong n, ulong start, uint warp,
                       uint lane, const tile_t *items, const tile_t *lane_before, ACC_T from,
                       uint finish, uint mode)
{
    const bool whole = start + TILE <= n, vectors = stores_whole(out_at, n, start, finish);
#pragma unroll
    for (uint r = 0; r < ROWS; r++)
        store_run(out, out_at, n, start + ROW_ELEMENT(warp, lane, r, 0),
                  combine(from, ACC_OF(lane_before[r])), items + r * LANE_RUN, whole, vectors,
                  finish, mode);
}

/*
 * The tile's scan within itself: each lane folds each of its runs, each
 * row is scanned with shfl.sync (warp_scan), the rows' totals are folded
 * in order, and every warp scans the warps' totals, lane w holding warp
 * w's. On return lane_before[r] holds the fold of the warp's elements
 * before row r's run (the rows before, then the lanes below),
 * *warp_before the fold of the warps before, and the tile's total
 * returns, in every work-item. warp_totals: WARPS values of local memory.
 * The rows' scans come before the tile's total: folding the total first,
 * to publish it sooner, makes integer sums slower and float sums no faster
 * (H100, 2^28 int32 sums: 1.405 ms against 1.292;
 * bench/results/scans-h100-lookback.txt).
 */
inline ACC_T scan_rows(__local ACC_T *warp_totals, uint warp, uint lane, const tile_t *items,
                       tile_t *lane_before, ACC_T *warp_before)
{
    tile_t row_total[ROWS];
#pragma unroll
    for (uint r = 0; r < ROWS; r++) {
        tile_t run = items[r * LANE_RUN];
#pragma unroll
        for (uint k = 1; k < LANE_RUN; k++)
            run = tile_combine(run, items[r * LANE_RUN + k]);
        const tile_t through = tile_warp_scan(run, lane);
        tile_t lower = tile_shfl_up(through, 1);
        if (lane == 0)
            lower = TILE_IDENTITY;
        lane_before[r] = lower;
        row_total[r] = tile_shfl_idx(through, 31);
    }
    tile_t rows = TILE_IDENTITY;
#pragma unroll
    for (uint r = 0; r < ROWS; r++) {
        lane_before[r] = tile_combine(rows, lane_before[r]);
        rows = tile_combine(rows, row_total[r]);
    }
    return scan_warp_totals(warp_totals, warp, lane, lane == 0, ACC_OF(rows), warp_before);
}

/*
 * Local rows (LOCAL_ROWS; integer sums that widen, as the host chooses):
 * the group keeps its tile in local memory as loaded, not widened, and a
 * work-item holds no elements and no prefixes through the look-back; each
 * row is scanned across its warp as its outputs leave. So NVIDIA's
 * compiler gives the kernel 32 registers for 8- and 16-bit sums and 40 for
 * int32, not 88 to 128 with the rows in registers, and three groups of 512
 * or six of 256 run a multiprocessor, not two: while some wait on the
 * look-back, others store. src/scan/paths.c's lookback_local_rows has the
 * times. A lane
 * reads rows that other lanes of its warp loaded; the group's barrier
 * after the look-back orders the two.
 */
#ifndef LOCAL_ROWS
#define LOCAL_ROWS 0
#endif
#if LOCAL_ROWS && !(OP_ADDS && !ACC_FLOAT && !IN_HALF && VECTOR_LOADS && IN_SIZE < RESULT_SIZE)
#error "LOCAL_ROWS: integer sums that widen, in whole-vector rows"
#endif

#if LOCAL_ROWS
/* Row r of work-item (warp, lane) is at ROW_SLOT(warp, lane) + 32 r, lanes side by side. */
#define ROW_SLOT(warp, lane) ((warp) * (32 * ROWS) + (lane))

typedef union {
    LOAD_RAW_T raw;
    raw_element_t element[LANE_RUN];
} row_bits_t;

/*
 * Puts the work-item's share of its warp's slice of the tile at `start` in
 * `rows`, which holds the tile in element order (so row r of a work-item is
 * at ROW_SLOT + 32 r), and returns the sum of the elements it loaded. In
 * a whole tile that starts on 16 bytes, a slice of whole 512-byte rounds
 * (every default tile's) loads in 16-byte vectors, consecutive across the
 * warp's lanes, whatever its rows' width; else element by element, lanes
 * consecutive, 0 past n. The vectors take about the time of loading each
 * lane's rows for int16 and int32 sums, and less for int8 sums (2 bytes a
 * row; bench/results/scans-h100-local-rows.txt).
 */
#define SLICE_ELEMENTS (32 * RUN_ITEMS)
#define LANE_VECTORS (SLICE_ELEMENTS * IN_SIZE / 16 / 32)
inline tile_t keep_rows(__global const IN_T *in, ulong offset, ulong n, ulong start, uint warp,
                        uint lane, __local uint4 *rows)
{
    const uint slice = warp * SLICE_ELEMENTS;
    tile_t sum = 0;
#if SLICE_ELEMENTS * IN_SIZE % 512 == 0
    if (start + TILE <= n && (offset + start) * IN_SIZE % 16 == 0) {
        __global const uint4 *from = (__global const uint4 *)(in + offset + start + slice);
        __local uint4 *to = rows + slice * IN_SIZE / 16;
#pragma unroll
        for (uint j = 0; j < LANE_VECTORS; j++) {
            union {
                uint4 raw;
                raw_element_t element[16 / IN_SIZE];
            } bits;
            bits.raw = from[j * 32 + lane];
            to[j * 32 + lane] = bits.raw;
#pragma unroll
            for (uint k = 0; k < 16 / IN_SIZE; k++)
                sum += (tile_t)bits.element[k];
        }
        return sum;
    }
#endif
    __local raw_element_t *elements = (__local raw_element_t *)rows;
#pragma unroll
    for (uint j = 0; j < RUN_ITEMS; j++) {
        const uint e = slice + j * 32 + lane;
        const raw_element_t element = start + e < n ? in[offset + start + e] : (raw_element_t)0;
        elements[e] = element;
        sum += (tile_t)element;
    }
    return sum;
}

/*
 * The kept rows' outputs from `from`, the fold of what lies before the
 * warp's slice: row r's run is scanned across the warp (warp_scan), and
 * `below` carries the fold of the slice's rows before it. Sums only, so a
 * lane's exclusive prefix is its inclusive one less its run.
 */
inline void store_kept_rows(__global uchar *out, ulong out_at, ulong n, ulong start, uint warp,
                            uint lane, __local const uint4 *rows, ACC_T from, uint finish,
                            uint mode)
{
    const bool whole = start + TILE <= n, vectors = stores_whole(out_at, n, start, finish);
    tile_t below = 0;
#pragma unroll 2
    for (uint r = 0; r < ROWS; r++) {
        row_bits_t bits;
        bits.raw = ((__local const LOAD_RAW_T *)rows)[ROW_SLOT(warp, lane) + 32 * r];
        tile_t run[LANE_RUN], sum = 0;
#pragma unroll
        for (uint k = 0; k < LANE_RUN; k++) {
            run[k] = (tile_t)bits.element[k];
            sum += run[k];
        }
        const tile_t through = tile_warp_scan(sum, lane);
        store_run(out, out_at, n, start + ROW_ELEMENT(warp, lane, r, 0),
                  combine(from, ACC_OF(below + through - sum)), run, whole, vectors, finish, mode);
        below += tile_shfl_idx(through, 31);
    }
}
#endif

#if RUN_CARRY
typedef run_t chain_t;
inline chain_t chain_fold(chain_t chain, ACC_T value) { return run_fold(chain, value); }
inline chain_t shfl_chain(chain_t chain, uint lane)
{
    chain.sum = shfl_idx(chain.sum, lane);
    chain.carry = shfl_idx(chain.carry, lane);
    return chain;
}
#else
typedef ACC_T chain_t;
inline chain_t chain_fold(chain_t chain, ACC_T value) { return combine(chain, value); }
inline chain_t shfl_chain(chain_t chain, uint lane) { return shfl_idx(chain, lane); }
#endif
inline chain_t chain_from(ACC_T value) { return scan_run_from(value); }
/* The chain's value: a run's sum and carry, added where the carry is not 0 (-0 stays -0). */
inline ACC_T chain_value(chain_t chain) { return scan_run_value(chain); }

/*
 * What tiles publish, on the board (zeroed by the host before the launch):
 * a value of ACC_T as FLAG_WORDS 64-bit words, each 32 bits of the value
 * under a flag of 1. NVIDIA loads and stores an aligned 64-bit word whole,
 * so a word that shows its flag shows its bits, and a value whose every
 * word does is whole: no fences, and one round trip to L2 a look, where a
 * flag and a value apart take two, with a fence between. Each slot is
 * written once a launch.
 */
#define FLAG_WORDS ((ACC_SIZE + 3) / 4)

typedef union {
    ACC_T value;
    uint words[FLAG_WORDS];
} value_words_t;

/* Relaxed loads and stores at the GPU's scope: whole, and never from a stale L1 line. */
inline void store_word(volatile __global ulong *word, ulong value)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(value) : "memory");
}

inline ulong load_word(volatile __global ulong *word)
{
    ulong value;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
    return value;
}

inline void publish(volatile __global ulong *slot, ACC_T value)
{
    value_words_t bits;
    for (uint i = 0; i < FLAG_WORDS; i++)
        bits.words[i] = 0;
    bits.value = value;
    for (uint i = 0; i < FLAG_WORDS; i++)
        store_word(slot + i, (ulong)1 << 32 | bits.words[i]);
}

/* Whether the slot's value is whole yet; if so, it goes to *value. */
inline bool look(volatile __global ulong *slot, ACC_T *value)
{
    ulong words[FLAG_WORDS];
    for (uint i = 0; i < FLAG_WORDS; i++)
        words[i] = load_word(slot + i);
    value_words_t bits;
    bool whole = true;
    for (uint i = 0; i < FLAG_WORDS; i++) {
        bits.words[i] = (uint)words[i];
        whole = whole && (words[i] >> 32) != 0;
    }
    *value = bits.value;
    return whole;
}

/* A chain takes one slot, or two for a run's sum and carry. */
#if RUN_CARRY
#define CHAIN_WORDS (2 * FLAG_WORDS)
inline void publish_chain(volatile __global ulong *slot, chain_t chain)
{
    publish(slot, chain.sum);
    publish(slot + FLAG_WORDS, chain.carry);
}

inline bool look_chain(volatile __global ulong *slot, chain_t *chain)
{
    ACC_T sum, carry;
    const bool whole = look(slot, &sum) & look(slot + FLAG_WORDS, &carry);
    chain->sum = sum;
    chain->carry = carry;
    return whole;
}
#else
#define CHAIN_WORDS FLAG_WORDS
inline void publish_chain(volatile __global ulong *slot, chain_t chain) { publish(slot, chain); }
inline bool look_chain(volatile __global ulong *slot, chain_t *chain) { return look(slot, chain); }
#endif

/* A tile's slot on the board, after the counter's word: its aggregate, then its inclusive prefix. */
#define TILE_WORDS (FLAG_WORDS + CHAIN_WORDS)
#define AGGREGATE_OF(board, t) ((board) + 1 + (size_t)(t) * TILE_WORDS)
#define PREFIX_OF(board, t) (AGGREGATE_OF(board, t) + FLAG_WORDS)

/*
 * A waiting warp sleeps between looks (PTX nanosleep, sm_70 and later), so
 * that hundreds of waiting groups do not keep L2 busy with them.
 */
#ifndef LOOKBACK_SLEEP_NS
#define LOOKBACK_SLEEP_NS 32
#endif
#define LOOKBACK_SLEEP() asm volatile("nanosleep.u32 %0;" ::"r"(LOOKBACK_SLEEP_NS))

/* The lanes of the warp where `p` holds (vote.sync over the whole warp). */
inline uint warp_ballot(bool p)
{
    uint lanes;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }"
                 : "=r"(lanes)
                 : "r"((uint)p));
    return lanes;
}

/*
 * The first warp, every lane: the fold of the tiles before tile t (the
 * board's P_(t-1), by the left fold above), having published tile t's
 * aggregate; tile t's own P goes out after it. `kept` holds the
 * aggregates seen, by distance: kept[d] is tile t-1-d's, 32 a round.
 *
 * The fold runs from the nearest P's distance down, so that it costs only
 * what lies between (not all 32 of a round under a lane mask). It loads
 * four values at a time, then folds them, so that the chain does not wait
 * on each load: tiles of 256 x 32, whose nearest P trails by about 104
 * tiles, take 0.815 ms for 2^28 float sums against 1.209 with a load a
 * fold (H100; bench/results/scans-h100-lookback.txt). One warp looks
 * back: two or four, looking at 64 or 128 tiles a round, are no faster.
 */
inline chain_t look_back(volatile __global ulong *board, uint t, ACC_T total, uint lane,
                         __local ACC_T *kept)
{
    chain_t chain = chain_from(SCAN_IDENTITY);
    if (t == 0) {
        if (lane == 0)
            publish_chain(PREFIX_OF(board, 0), chain_fold(chain, total));
        return chain;
    }
    if (lane == 0)
        publish(AGGREGATE_OF(board, t), total);
    long tile = (long)t - 1 - lane; /* this lane's tile; before tile 0, a prefix of nothing */
    uint round = 0, prefix_lanes;
    chain_t prefix;
    for (;;) {
        ACC_T aggregate = SCAN_IDENTITY;
        bool inclusive = tile < 0, shown = inclusive;
        prefix = chain;
        while (warp_ballot(!shown)) {
            if (!shown) {
                inclusive = look_chain(PREFIX_OF(board, tile), &prefix);
                shown = look(AGGREGATE_OF(board, tile), &aggregate) || inclusive;
                if (!shown)
                    LOOKBACK_SLEEP();
            }
        }
        kept[round * 32 + lane] = aggregate;
        prefix_lanes = warp_ballot(inclusive);
        if (prefix_lanes != 0)
            break;
        if (round + 1 < LOOKBACK_ROUNDS) { /* look at the 32 before */
            tile -= 32;
            round++;
        } else {
            LOOKBACK_SLEEP(); /* the same 32 again, until one shows its P */
        }
    }
    asm volatile("bar.warp.sync -1;" ::: "memory"); /* every lane's kept, seen by all */
    const uint nearest = 31 - clz(prefix_lanes & (0u - prefix_lanes));
    chain = shfl_chain(prefix, nearest);
    uint distance = round * 32 + nearest;
    for (; distance >= 4; distance -= 4) { /* four loads, then their folds */
        ACC_T batch[4];
#pragma unroll
        for (uint k = 0; k < 4; k++)
            batch[k] = kept[distance - 1 - k];
#pragma unroll
        for (uint k = 0; k < 4; k++)
            chain = chain_fold(chain, batch[k]);
    }
    while (distance-- > 0)
        chain = chain_fold(chain, kept[distance]);
    if (lane == 0)
        publish_chain(PREFIX_OF(board, t), chain_fold(chain, total));
    return chain;
}

#ifndef PREFETCH_TILES
#define PREFETCH_TILES 0
#endif

#if PREFETCH_TILES
/*
 * Asks L2 for the elements of the tile at `start`, a 128-byte line a
 * work-item, if that tile is whole: a tile PREFETCH_TILES ahead, which a
 * group that has yet to start will load (src/scan/paths.c's
 * lookback_prefetch says why and how far). That covers the tile where a
 * work-item holds at most 128 bytes of its elements, as every default
 * does; a larger CLFOLD_SCAN_GPU tile gets its first BLOCK_SIZE lines. A
 * prefetch is a hint: it changes no value, and a whole tile's lines lie
 * within the input.
 */
inline void prefetch_tile(__global const IN_T *in, ulong offset, ulong n, ulong start, uint lid)
{
    if (start + TILE > n || (ulong)lid * 128 >= (ulong)TILE * IN_SIZE)
        return;
    __global const uchar *line = (__global const uchar *)(in + offset + start) + (ulong)lid * 128;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
}
#endif

/*
 * The one-launch scan: common.cl's scan arguments (buf: WARPS values),
 * then the board (AGGREGATE_OF above; the host zeroes it).
 */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_tiles_lookback(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                         ulong out_at, ulong run, __local ACC_T *buf, uint finish,
                         uint mode, __global const ACC_T *seeds, ulong seeds_at,
                         uint seeded, __global ACC_T *carry, ulong carry_at, uint keep_carry,
                         volatile __global ulong *board)
{
    __local uint ticket;
    __local ACC_T tile_prefix;
    __local ACC_T kept[LOOKBACK_ROUNDS * 32];
#if LOCAL_ROWS
    __local uint4 rows[(TILE * IN_SIZE + 15) / 16];
#endif
    (void)run;
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid / 32;
    const uint tiles = get_num_groups(0);
    if (lid == 0)
        ticket = atomic_inc((volatile __global uint *)board);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = ticket;
    const ulong start = (ulong)t * TILE;
    ACC_T warp_before;
#if LOCAL_ROWS
    const tile_t lane_sum = keep_rows(in, offset, n, start, warp, lane, rows);
#else
    tile_t items[RUN_ITEMS], lane_before[ROWS];
    load_rows(in, offset, n, start, warp, lane, items);
#endif
#if PREFETCH_TILES
    prefetch_tile(in, offset, n, start + (ulong)PREFETCH_TILES * TILE, lid);
#endif
#if LOCAL_ROWS
    const ACC_T total = scan_warp_totals(buf, warp, lane, lane == 31,
                                         ACC_OF(tile_warp_scan(lane_sum, lane)), &warp_before);
#else
    const ACC_T total = scan_rows(buf, warp, lane, items, lane_before, &warp_before);
#endif
    if (warp == 0) {
        const chain_t before = look_back(board, t, total, lane, kept);
        if (lane == 0)
            tile_prefix = chain_value(before);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ACC_T seed = combine(tile_seed(seeds, seeds_at, seeded, 0), tile_prefix);
#if LOCAL_ROWS
    store_kept_rows(out, out_at, n, start, warp, lane, rows, combine(seed, warp_before), finish,
                    mode);
#else
    store_rows(out, out_at, n, start, warp, lane, items, lane_before, combine(seed, warp_before),
               finish, mode);
#endif
    if (keep_carry && lid == 0 && t == tiles - 1)
        carry[carry_at] = combine(seed, total);
}
#endif

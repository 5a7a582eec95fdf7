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
 *   - scan_tiles_lookback (NVIDIA, INLINE_PTX): in the same launch, from
 *     the tiles before it, as Merrill and Garland's decoupled look-back
 *     does, so that it moves 2n values. Tile numbers come from a counter,
 *     in the order groups start, so a tile waits only on tiles whose groups
 *     are running, and every group that runs finishes. Unlike CUB's
 *     look-back, the prefix does not depend on which earlier tiles happen
 *     to have finished (below), so a float scan gives the same bits on
 *     every run.
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
     * made the whole scan of 2^28 floats take 1.58 ms, not 0.94 (H200,
     * tiles of 128 x 16).
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
 * the tile that docs/scans.md's bound allows.
 */
inline ACC_T warp_scan(ACC_T value, uint lane)
{
#pragma unroll
    for (uint d = 1; d < 32; d <<= 1) {
        const ACC_T lower = shfl_up(value, d);
        if (lane >= d)
            value = combine(lower, value);
    }
    return value;
}

inline ACC_T scan_runs(__local ACC_T *buf, uint lid, ACC_T value, ACC_T *before)
{
    __local ACC_T *warp_totals = buf + KS_AT;
    const uint lane = lid & 31, warp = lid / 32;
    const ACC_T through = warp_scan(value, lane);
    ACC_T lower = shfl_up(through, 1);
    if (lane == 31)
        warp_totals[warp] = through;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Every warp scans the warps' totals (lane w holds warp w's) and takes its own prefix. */
    ACC_T warps = SCAN_IDENTITY;
    if (lane < WARPS)
        warps = warp_totals[lane];
    warps = warp_scan(warps, lane);
    const ACC_T warp_before = shfl_idx(warps, warp == 0 ? 0 : warp - 1);
    const ACC_T total = shfl_idx(warps, WARPS - 1);
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
 * additions are as deep. Staging the tile to fold scan_tiles' own runs cost
 * 0.09 ms more in 0.94 (H200, 2^28 floats in tiles of 128 x 16). Else the
 * tile is scanned as scan_tiles scans it.
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

#if INLINE_PTX && !defined(LOOKBACK_WINDOW)
#error "the host sizes the look-back's board by LOOKBACK_WINDOW (scan_path.h)"
#endif
/*
 * Only where a group has two whole warps (a lane a window, a lane a tile
 * of one) and warps scan with shfl.sync: the host runs other groups' scans
 * in three launches, from this same program.
 */
#if INLINE_PTX && WARP_SCANS && LOOKBACK_WINDOW != 32
#error "the look-back scans a window's tiles in one warp: LOOKBACK_WINDOW is 32 (scan_path.h)"
#endif
#if INLINE_PTX && WARP_SCANS && BLOCK_SIZE >= 2 * LOOKBACK_WINDOW
/*
 * The one-launch scan: Merrill and Garland's decoupled look-back, made
 * deterministic. Tiles come in windows of LOOKBACK_WINDOW consecutive
 * tiles (tile t is tile k = t % LOOKBACK_WINDOW of window
 * w = t / LOOKBACK_WINDOW):
 *   - every tile publishes its total, its aggregate, as soon as it has it;
 *   - a tile's second warp scans the aggregates of its window's tiles up to
 *     it, lane i holding tile i's (its own at lane k, the identity above),
 *     with shfl.sync: S_k, the fold of those before it, is lane k - 1's
 *     result, the same bits in every tile that takes it, since a lane's
 *     result depends only on the lanes below it;
 *   - the last tile of window w publishes lane 31's, the window's
 *     aggregate R_w, at once; then, having found P_(w-1), it publishes the
 *     window's inclusive prefix P_w = P_(w-1) then R_w;
 *   - tile k of window w starts from P_(w-1), then S_k.
 * A tile finds P_(w-1) by looking back (tiles_before below): the nearest
 * window j before w whose P_j is out, and R_(j+1) ... R_(w-1) folded onto
 * it one by one. Every P is a left fold of the R's before it, and a left
 * fold gives the same bits from whichever P_j it picks up, so no output
 * depends on which tiles happened to be done, where CUB's look-back folds
 * what it finds as a tree, whose shape does. Every wait is for tiles with
 * smaller tickets, which are running or done.
 *
 * The folds are chains (chain_t): for float sums a Neumaier run, so a
 * chain thousands of windows long adds 2u of the prefix, not a rounding a
 * window; elsewhere the operator.
 */
#if RUN_CARRY
typedef run_t chain_t;
inline chain_t chain_fold(chain_t chain, ACC_T value) { return run_fold(chain, value); }
#else
typedef ACC_T chain_t;
inline chain_t chain_fold(chain_t chain, ACC_T value) { return combine(chain, value); }
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

/*
 * A waiting lane sleeps between looks (PTX nanosleep, sm_70 and later), so
 * that hundreds of waiting groups do not keep L2 busy with them.
 */
#ifndef LOOKBACK_SLEEP_NS
#define LOOKBACK_SLEEP_NS 32
#endif
#define LOOKBACK_SLEEP() asm volatile("nanosleep.u32 %0;" ::"r"(LOOKBACK_SLEEP_NS))

/*
 * The board, in 64-bit words: the tile counter (its low 32 bits), then a
 * slot a tile for its aggregate, a slot a window for its aggregate, and a
 * chain's slots a window for its inclusive prefix.
 */
typedef struct {
    volatile __global ulong *tiles;
    volatile __global ulong *window_totals;
    volatile __global ulong *window_prefixes;
} board_t;

inline board_t board_of(volatile __global ulong *board, uint tiles)
{
    const size_t windows = (tiles + LOOKBACK_WINDOW - 1) / LOOKBACK_WINDOW;
    board_t slots;
    slots.tiles = board + 1;
    slots.window_totals = slots.tiles + (size_t)tiles * FLAG_WORDS;
    slots.window_prefixes = slots.window_totals + windows * FLAG_WORDS;
    return slots;
}

/* What a group's lanes found, for work-item 0 to fold in order. */
typedef struct {
    ACC_T tiles_before;                 /* S_k: this window's tiles before this one */
    ACC_T windows[LOOKBACK_WINDOW];     /* lane k: window w - 1 - k's aggregate */
    chain_t prefixes[LOOKBACK_WINDOW];  /* lane k: its inclusive prefix, where out */
    uint inclusive[LOOKBACK_WINDOW];    /* lane k: whether it is */
    uint ticket;
    uint found;
    ACC_T window_total;                 /* R_w, where this tile closes its window */
    chain_t window_prefix;              /* P_(w-1) */
    ACC_T tile_prefix;
} lookback_scratch_t;

/* Tile i's aggregate, once it is out. */
inline ACC_T await_tile(board_t board, size_t i)
{
    ACC_T value;
    while (!look(board.tiles + i * FLAG_WORDS, &value))
        LOOKBACK_SLEEP();
    return value;
}

/*
 * The windows just before a tile's are the ones whose aggregates R are
 * least likely out: their last tiles publish R a round trip after reading
 * their windows' tiles. So the group's warps after the first two each fold
 * one of those windows from its tiles' aggregates themselves
 * (fold_window_directly), by the same shuffle tree as its last tile, which
 * gives its R to the bit; the first warp looks at the windows before them.
 * Slot m of the scratch's windows holds window w - 1 - m.
 */
#define DIRECT_WINDOWS (BLOCK_SIZE / 32 - 2)

/*
 * Lanes 0 .. LOOKBACK_WINDOW - DIRECT_WINDOWS - 1 each look at the window
 * of slot DIRECT_WINDOWS + lane until it shows its aggregate or its
 * inclusive prefix (windows before 0 count as a prefix of nothing), both
 * in the same round trip.
 */
inline void look_at_windows(board_t board, __local lookback_scratch_t *scratch, uint lid, uint w)
{
    if (lid >= LOOKBACK_WINDOW - DIRECT_WINDOWS)
        return;
    const uint slot = DIRECT_WINDOWS + lid;
    const int j = (int)w - 1 - (int)slot;
    chain_t prefix = chain_from(SCAN_IDENTITY);
    ACC_T total = SCAN_IDENTITY;
    bool inclusive = true;
    if (j >= 0) {
        bool aggregate;
        for (;;) {
            inclusive = look_chain(board.window_prefixes + (size_t)j * CHAIN_WORDS, &prefix);
            aggregate = look(board.window_totals + (size_t)j * FLAG_WORDS, &total);
            if (inclusive || aggregate)
                break;
            LOOKBACK_SLEEP();
        }
    }
    scratch->inclusive[slot] = inclusive;
    scratch->windows[slot] = total;
    scratch->prefixes[slot] = prefix;
}

/* Warp 2 + d: the aggregate of window w - 1 - d, from its tiles' (slot d). */
inline void fold_window_directly(board_t board, __local lookback_scratch_t *scratch, uint lid,
                                 uint w)
{
    const uint d = lid / 32 - 2, lane = lid & 31;
    const int j = (int)w - 1 - (int)d;
    if (j < 0) { /* the whole warp: before window 0, a prefix of nothing */
        if (lane == 0) {
            scratch->inclusive[d] = true;
            scratch->windows[d] = SCAN_IDENTITY;
            scratch->prefixes[d] = chain_from(SCAN_IDENTITY);
        }
        return;
    }
    const ACC_T value = await_tile(board, (size_t)j * LOOKBACK_WINDOW + lane);
    const ACC_T through = warp_scan(value, lane);
    if (lane == LOOKBACK_WINDOW - 1) {
        scratch->inclusive[d] = false;
        scratch->windows[d] = through;
    }
}

/*
 * Work-item 0: P_(w-1) from the nearest window with its inclusive prefix
 * out (lanes before it show their aggregates), or found = 0 if none is.
 */
inline void fold_windows(__local lookback_scratch_t *scratch)
{
    uint m = 0;
    while (m < LOOKBACK_WINDOW && !scratch->inclusive[m])
        m++;
    scratch->found = m < LOOKBACK_WINDOW;
    if (scratch->found) {
        chain_t prefix = scratch->prefixes[m];
        while (m > 0)
            prefix = chain_fold(prefix, scratch->windows[--m]);
        scratch->window_prefix = prefix;
    }
}

/*
 * The second warp (work-items LOOKBACK_WINDOW ..): S_k into scratch, and,
 * where tile k closes window w, R_w there and on the board. Lane i < k
 * waits for tile i's aggregate.
 */
inline void scan_window(board_t board, __local lookback_scratch_t *scratch, uint lid, uint w,
                        uint k, ACC_T total)
{
    const uint lane = lid - LOOKBACK_WINDOW;
    ACC_T value = SCAN_IDENTITY;
    if (lane < k)
        value = await_tile(board, (size_t)w * LOOKBACK_WINDOW + lane);
    else if (lane == k)
        value = total;
    const ACC_T through = warp_scan(value, lane);
    const ACC_T before = shfl_idx(through, k == 0 ? 0 : k - 1);
    if (lane == LOOKBACK_WINDOW - 1 && k == LOOKBACK_WINDOW - 1) {
        publish(board.window_totals + (size_t)w * FLAG_WORDS, through);
        scratch->window_total = through;
    }
    if (lane == 0)
        scratch->tiles_before = k == 0 ? SCAN_IDENTITY : before;
}

/*
 * The fold of the tiles before tile t into scratch->tile_prefix, and the
 * window's publications where t closes it. The first warp looks at the
 * windows before while the second scans this one's tiles, and the others
 * fold the nearest windows from their tiles.
 */
inline void tiles_before(board_t board, __local lookback_scratch_t *scratch, uint lid, uint t,
                         uint tiles, ACC_T total)
{
    const uint w = t / LOOKBACK_WINDOW, k = t % LOOKBACK_WINDOW;
    const bool closes = k == LOOKBACK_WINDOW - 1;
    if (lid == 0 && t + 1 < tiles) /* a window's last tile too: fold_window_directly reads it */
        publish(board.tiles + (size_t)t * FLAG_WORDS, total);
    if (lid >= LOOKBACK_WINDOW && lid < 2 * LOOKBACK_WINDOW)
        scan_window(board, scratch, lid, w, k, total);
    else if (w > 0 && lid < LOOKBACK_WINDOW)
        look_at_windows(board, scratch, lid, w);
    else if (w > 0 && lid < LOOKBACK_WINDOW * (2 + DIRECT_WINDOWS))
        fold_window_directly(board, scratch, lid, w);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w > 0) {
        for (;;) {
            if (lid == 0)
                fold_windows(scratch);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (scratch->found)
                break;
            look_at_windows(board, scratch, lid, w); /* none of them out yet: again */
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    if (lid == 0) {
        const chain_t window_prefix = w > 0 ? scratch->window_prefix : chain_from(SCAN_IDENTITY);
        scratch->tile_prefix = chain_value(chain_fold(window_prefix, scratch->tiles_before));
        if (closes)
            publish_chain(board.window_prefixes + (size_t)w * CHAIN_WORDS,
                          chain_fold(window_prefix, scratch->window_total));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/*
 * The one-launch scan: common.cl's scan arguments, then the board
 * (board_of above; the host zeroes it).
 */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void scan_tiles_lookback(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                         ulong out_at, ulong run, __local ACC_T *buf, uint finish,
                         uint mode, __global const ACC_T *seeds, ulong seeds_at,
                         uint seeded, __global ACC_T *carry, ulong carry_at, uint keep_carry,
                         volatile __global ulong *board)
{
    __local lookback_scratch_t scratch;
    (void)run;
    const uint lid = get_local_id(0), tiles = get_num_groups(0);
    if (lid == 0)
        scratch.ticket = atomic_inc((volatile __global uint *)board);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = scratch.ticket;
    const ulong start = (ulong)t * TILE;
    RUN_ELEMENT_T items[RUN_ITEMS];
    const uint count = load_tile_run(in, offset, n, start, lid, buf, items);
    ACC_T before;
    const ACC_T total = scan_runs(buf, lid, fold_run(items, count), &before);
    tiles_before(board_of(board, tiles), &scratch, lid, t, tiles, total);
    const ACC_T seed = combine(tile_seed(seeds, seeds_at, seeded, 0), scratch.tile_prefix);
    store_tile_run(out, out_at, n, start, lid, buf, items, count, combine(seed, before), finish,
                   mode);
    if (keep_carry && lid == 0 && t == tiles - 1)
        carry[carry_at] = combine(seed, total);
}
#endif

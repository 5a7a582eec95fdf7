/*
 * axis.cl: reductions with many results: every row of a matrix, every
 * column, or every segment of a CSR-style offsets array, on GPUs; on CPUs
 * the exact sums' columns and the second pass over pieces (cpu.cl folds
 * the rest there). Each result is folded as the whole-array paths fold
 * one: work-items' sequential runs (run_t of defs.cl, compensated or exact
 * as the accuracy asks), then a team's fold (shuffles where warps shuffle,
 * else a tree in local memory), then defs.cl's write_result, so every
 * operator, type and accuracy works here as it does there.
 *
 * Flags beside defs.cl's (the host, src/reduce/axis.c, sets them):
 *   BLOCK_SIZE     work-items a group
 *   TEAM           rows and segments: the work-items that fold one (a power
 *                  of two up to BLOCK_SIZE); its lanes read neighbouring
 *                  elements, so a team's loads coalesce
 *   SEGMENTED      rows are segments (defs.cl's piece_span)
 *   STRIDED        rows: a group's rounds are every groups-th (GPUs)
 *   VEC            elements a lane loads at once (GPUs: 16 bytes of a plain
 *                  type; 1 elsewhere); for columns it is COLS_PER_ITEM
 *   WIDTH          columns: the work-items a group spreads across columns;
 *                  BLOCK_SIZE / WIDTH lanes of each fold its rows in turn
 *   COLS_PER_ITEM  columns: neighbouring columns one work-item folds
 *   ALIGNED_RESULTS  results stored whole (defs.cl's write_result)
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef TEAM
#define TEAM 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef WIDTH
#define WIDTH BLOCK_SIZE
#endif
#ifndef COLS_PER_ITEM
#define COLS_PER_ITEM 1
#endif
#if VEC > 1 && COLS_PER_ITEM > 1 && VEC != COLS_PER_ITEM
#error "a column vector's elements are COLS_PER_ITEM columns"
#endif

/*
 * Folds `value` of every lane of a team of `lanes` work-items, the lanes of
 * a team `stride` slots apart in sdata; the team's first lane gets the
 * team's value. Every work-item of the group calls it (its barriers).
 */
inline ACC_T fold_team(__local ACC_T *sdata, uint tid, uint lane, uint lanes, uint stride,
                       ACC_T value)
{
    sdata[tid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = lanes / 2; s > 0; s >>= 1) {
        if (lane < s)
            sdata[tid] = combine(sdata[tid], sdata[tid + s * stride]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    value = sdata[tid];
    barrier(CLK_LOCAL_MEM_FENCE); /* sdata is the next call's */
    return value;
}

/*
 * A row's elements [from, to) of in[offset ..] into a lane's run: the lanes
 * of a team take every TEAM-th element or, with VEC > 1 (GPUs, plain
 * loads), every TEAM-th aligned vector of VEC elements, the elements before
 * the first aligned one and after the last whole vector one a lane.
 */
/*
 * FOLD_ONE(run, x, i): element x, at index i, into a lane's run. An
 * argmin's or argmax's lane meets its vectors' elements in element order,
 * after its elements before them, so defs.cl's arg_later suffices.
 */
#if ACC_ARG
#define FOLD_ONE(run, x, i) run = arg_later(run, (x), (i))
#else
#define FOLD_ONE(run, x, i) run = run_fold(run, TO_RUN(x))
#endif
#if VEC > 1
#define VIN_T CONCAT(IN_T, VEC)
#define FOLD2(run, v, i) FOLD_ONE(run, (v).s0, i); FOLD_ONE(run, (v).s1, (i) + 1)
#define FOLD4(run, v, i) FOLD2(run, (v).s01, i); FOLD2(run, (v).s23, (i) + 2)
#define FOLD8(run, v, i) FOLD4(run, (v).s0123, i); FOLD4(run, (v).s4567, (i) + 4)
#define FOLD16(run, v, i) FOLD8(run, (v).s01234567, i); FOLD8(run, (v).s89abcdef, (i) + 8)
#define FOLD_VEC CONCAT(FOLD, VEC)
#endif

inline run_t fold_span(run_t run, __global const IN_T *in, ulong from, ulong to, uint lane)
{
#if VEC > 1
    const ulong body = min((from + VEC - 1) / VEC * VEC, to);
    const ulong body_end = max(body, to / VEC * VEC);
    for (ulong i = from + lane; i < body; i += TEAM)
        run = run_fold(run, load_run(in, i));
    /* Four loads in flight, then each folded: a load folded at once holds the lane until it lands. */
    ulong i = body + lane * VEC;
    for (; i + 3 * TEAM * VEC < body_end; i += 4 * TEAM * VEC) {
        const VIN_T v0 = *(__global const VIN_T *)(in + i);
        const VIN_T v1 = *(__global const VIN_T *)(in + i + TEAM * VEC);
        const VIN_T v2 = *(__global const VIN_T *)(in + i + 2 * TEAM * VEC);
        const VIN_T v3 = *(__global const VIN_T *)(in + i + 3 * TEAM * VEC);
        FOLD_VEC(run, v0, i);
        FOLD_VEC(run, v1, i + TEAM * VEC);
        FOLD_VEC(run, v2, i + 2 * TEAM * VEC);
        FOLD_VEC(run, v3, i + 3 * TEAM * VEC);
    }
    for (; i < body_end; i += TEAM * VEC) {
        const VIN_T values = *(__global const VIN_T *)(in + i);
        FOLD_VEC(run, values, i);
    }
    for (ulong i = body_end + lane; i < to; i += TEAM)
        run = run_fold(run, load_run(in, i));
#else
    for (ulong i = from + lane; i < to; i += TEAM)
        run = run_fold(run, load_run(in, i));
#endif
    return run;
}

/*
 * A team's fold, which every work-item of the group calls. Where warps
 * shuffle (NVIDIA): a team within a warp folds by shuffles alone; a larger
 * one folds each warp so, then its first warp folds the warps' values,
 * one barrier in all, where a tree in local memory takes a barrier a
 * level (H100, 3634 power-law segments: 0.40 ms with this and pieces,
 * 0.97 with such trees and one group a segment;
 * bench/results/shapes-h100.txt, shapes-h100-first.txt). Elsewhere, a
 * tree in local memory, a barrier a level.
 */
#define TEAM_SHUFFLES (WARP_SHUFFLE && TEAM <= 32 && BLOCK_SIZE >= 32)
#define WARPS_SHUFFLE (WARP_SHUFFLE && TEAM > 32)

inline ACC_T fold_row_team(__local ACC_T *sdata, uint tid, uint lane, ACC_T value)
{
#if TEAM_SHUFFLES
    (void)sdata;
    (void)tid;
    (void)lane;
    for (uint s = TEAM / 2; s > 0; s >>= 1)
        value = combine(value, shfl_down(value, s));
    return value;
#elif WARPS_SHUFFLE
    (void)lane;
    const uint warp = tid / 32, first_warp = tid / TEAM * (TEAM / 32);
    value = warp_reduce(value);
    if (tid % 32 == 0)
        sdata[warp] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp == first_warp) { /* the whole warp, as shuffles need */
        value = tid % 32 < TEAM / 32 ? sdata[warp + tid % 32] : IDENTITY;
        for (uint s = TEAM / 64; s > 0; s >>= 1)
            value = combine(value, shfl_down(value, s));
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* sdata is the next round's */
    return value;
#elif TEAM > 1
    return fold_team(sdata, tid, lane, TEAM, 1, value);
#else
    (void)sdata;
    (void)tid;
    (void)lane;
    return value;
#endif
}

/*
 * Rows and segments, in pieces (defs.cl's piece_span): each piece leaves an
 * accumulator value, and where a row has several, a second launch of this
 * kernel folds each row's pieces (a matrix of rows x pieces values).
 *
 * A group folds TEAMS pieces at a time, one a team. With STRIDED (GPUs) its
 * rounds are every groups-th, so that the pieces of one long segment go to
 * different groups; otherwise (CPUs) group g folds the contiguous pieces
 * [g * per_group, (g + 1) * per_group). Either way the trip count is the
 * group's, the same for every work-item, as POCL's barriers need.
 */
#define TEAMS (BLOCK_SIZE / TEAM)
#ifndef STRIDED
#define STRIDED 0
#endif

/* The local memory fold_row_team needs. */
#if WARPS_SHUFFLE
#define TEAM_SCRATCH(sdata) __local ACC_T sdata[BLOCK_SIZE / 32]
#elif TEAM > 1 && !TEAM_SHUFFLES
#define TEAM_SCRATCH(sdata) __local ACC_T sdata[BLOCK_SIZE]
#else
#define TEAM_SCRATCH(sdata) __local ACC_T *sdata = 0
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_rows(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong at,
                 uint finish, ulong rows, ulong cols, ulong pitch, ulong piece_shift,
                 ulong per_group, __global const ulong *bounds)
{
    TEAM_SCRATCH(sdata);
    const uint tid = get_local_id(0), lane = tid % TEAM;
    const ulong total = rows << piece_shift;
#if STRIDED
    const ulong first = get_group_id(0) * TEAMS, stop = total;
    const ulong step = get_num_groups(0) * TEAMS;
    (void)per_group;
#else
    const ulong first = get_group_id(0) * per_group, stop = min(first + per_group, total);
    const ulong step = TEAMS;
#endif
    for (ulong base = first; base < stop; base += step) {
        const ulong v = base + tid / TEAM;
        run_t run = run_start();
        if (v < stop) {
            const ulong2 span = piece_span(v, n, cols, pitch, piece_shift, bounds);
            run = fold_span(run, in, offset + span.x, offset + span.y, lane);
        }
        const ACC_T value = fold_row_team(sdata, tid, lane, run_value(run));
        if (lane == 0 && v < stop)
            write_result(out, at, v, finish,
                         COUNTED_FROM(value, offset + row_start(v >> piece_shift, n, pitch, bounds)));
    }
}

/*
 * Short rows of one length, each row's start aligned to VEC (the host's
 * ROW_VECTORS, GPUs): every lane loads exactly ROW_VECTORS vectors of its
 * team's row, and a team takes ROUND_ROWS rows a round, every load issued
 * before the first fold. reduce_rows' loops cannot issue a row's loads
 * before the last row's are folded, which holds rows of 32 floats to 82%
 * of the H100's read (bench/results/shapes-h100-before-short-rows.txt).
 * The lanes meet the same elements in the same order
 * as reduce_rows', so the results have its bits.
 */
#ifdef ROW_VECTORS
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_short_rows(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                       ulong at, uint finish, ulong rows, ulong cols, ulong pitch,
                       ulong piece_shift, ulong per_group, __global const ulong *bounds)
{
    TEAM_SCRATCH(sdata);
    const uint tid = get_local_id(0), lane = tid % TEAM;
    const ulong step = get_num_groups(0) * TEAMS;
    (void)n;
    (void)cols;
    (void)piece_shift;
    (void)per_group;
    (void)bounds;
    for (ulong base = get_group_id(0) * TEAMS; base < rows; base += ROUND_ROWS * step) {
        VIN_T loaded[ROUND_ROWS][ROW_VECTORS];
#pragma unroll
        for (int k = 0; k < ROUND_ROWS; k++) {
            const ulong v = base + k * step + tid / TEAM;
#pragma unroll
            for (int j = 0; j < ROW_VECTORS; j++)
                loaded[k][j] = v < rows ? *(__global const VIN_T *)(in + offset + v * pitch +
                                                                      (lane + j * TEAM) * VEC)
                                        : (VIN_T)0;
        }
#pragma unroll
        for (int k = 0; k < ROUND_ROWS; k++) {
            const ulong v = base + k * step + tid / TEAM, start = offset + v * pitch;
            run_t run = run_start();
            for (int j = 0; j < ROW_VECTORS && v < rows; j++) {
                FOLD_VEC(run, loaded[k][j], start + (lane + j * TEAM) * VEC);
            }
            const ACC_T value = fold_row_team(sdata, tid, lane, run_value(run));
            if (lane == 0 && v < rows)
                write_result(out, at, v, finish, COUNTED_FROM(value, start));
        }
    }
}
#endif

/*
 * Columns. Group g covers WIDTH * COLS_PER_ITEM neighbouring columns (block
 * g & (2^block_shift - 1), a power of two for the reason above; blocks past
 * the columns have nothing to do) over rows [slice * slice_rows, (slice + 1)
 * * slice_rows), slice g >> block_shift; its LANES lanes of each column take every LANES-th
 * row, so that a row's loads coalesce across the group. One slice writes
 * the results; several leave a matrix of slices x cols accumulator values,
 * which a second launch folds the same way.
 */
#define LANES (BLOCK_SIZE / WIDTH)

/*
 * COLS_PER_ITEM neighbouring elements from element i, of row r, into their
 * columns' runs: one vector load where VEC is COLS_PER_ITEM (GPUs; the host
 * asks for it only where every row's columns lie aligned for it), else one
 * by one. An argmin's or argmax's index is the row.
 */
inline void run_columns(run_t *run, __global const IN_T *in, ulong i, ulong r)
{
#if VEC > 1
    union {
        VIN_T vector;
        IN_T element[VEC];
    } values;
    values.vector = *(__global const VIN_T *)(in + i);
    for (uint c = 0; c < VEC; c++)
        FOLD_ONE(run[c], values.element[c], r);
#else
    for (uint c = 0; c < COLS_PER_ITEM; c++)
        run[c] = run_fold(run[c], load_run_at(in, i + c, r));
#endif
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_columns(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                    ulong at, uint finish, ulong rows, ulong cols, ulong pitch, ulong slice_rows,
                    ulong block_shift)
{
#if LANES > 1
    __local ACC_T sdata[BLOCK_SIZE];
#endif
    const uint tid = get_local_id(0), across = tid % WIDTH, lane = tid / WIDTH;
    const ulong slice = get_group_id(0) >> block_shift;
    const ulong col_block = get_group_id(0) & (((ulong)1 << block_shift) - 1);
    const ulong col = (col_block * WIDTH + across) * COLS_PER_ITEM;
    const ulong first = slice * slice_rows, stop = min(first + slice_rows, rows);
    run_t run[COLS_PER_ITEM];
    for (uint c = 0; c < COLS_PER_ITEM; c++)
        run[c] = run_start();
    if (col + COLS_PER_ITEM <= cols) {
        for (ulong r = first + lane; r < stop; r += LANES)
            run_columns(run, in, offset + r * pitch + col, r);
    } else {
        for (ulong r = first + lane; r < stop; r += LANES)
            for (uint c = 0; c < COLS_PER_ITEM; c++)
                if (col + c < cols)
                    run[c] = run_fold(run[c], load_run_at(in, offset + r * pitch + col + c, r));
    }
    for (uint c = 0; c < COLS_PER_ITEM; c++) {
        ACC_T value = run_value(run[c]);
#if LANES > 1
        value = fold_team(sdata, tid, lane, LANES, WIDTH, value);
#endif
        if (lane == 0 && col + c < cols)
            write_result(out, at, slice * cols + col + c, finish, value);
    }
}

/*
 * axis.cl: reductions with many results: every row of a matrix, every
 * column, or every segment of a CSR-style offsets array. Each result is
 * folded as the whole-array paths fold one: work-items' sequential runs
 * (run_t of defs.cl, compensated or exact as the accuracy asks), then a
 * tree in local memory, then write_value, so every operator, type and
 * accuracy works here as it does there.
 *
 * Flags beside defs.cl's (the host, src/reduce/axis.c, sets them):
 *   BLOCK_SIZE     work-items a group
 *   TEAM           rows and segments: the work-items that fold one (a power
 *                  of two up to BLOCK_SIZE); its lanes read neighbouring
 *                  elements, so a team's loads coalesce
 *   SEGMENTED      rows are segments whose bounds an offsets array holds
 *   WIDTH          columns: the work-items a group spreads across columns;
 *                  BLOCK_SIZE / WIDTH lanes of each fold its rows in turn
 *   COLS_PER_ITEM  columns: neighbouring columns one work-item folds (a
 *                  CPU reads a cache line a row so; 1 on GPUs)
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef TEAM
#define TEAM 1
#endif
#ifndef SEGMENTED
#define SEGMENTED 0
#endif
#ifndef WIDTH
#define WIDTH BLOCK_SIZE
#endif
#ifndef COLS_PER_ITEM
#define COLS_PER_ITEM 1
#endif

/* Where a result goes: the caller's (finished) at its own offset, or an accumulator value at index i. */
inline void write_result(__global uchar *out, ulong at, ulong i, uint finish, ACC_T value)
{
    write_value(out, finish ? at + i * RESULT_SIZE : at, i, finish, value);
}

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
 * Rows and segments. Work is in "pieces": row (or segment) v >> piece_shift
 * is cut into 2^piece_shift nearly equal parts, so that a few long rows still keep every
 * compute unit busy; then each piece leaves an accumulator value and a second
 * launch of this kernel folds each row's pieces (a matrix of rows x pieces
 * values). Powers of two, so that no division needs a remainder too: LLVM
 * then emits `freeze`, which Oclgrind 21.10's --uninitialized cannot run. Group g folds pieces [g * per_group, (g + 1) * per_group), TEAMS
 * of them at a time, one a team; the trip count is the group's, the same for
 * every work-item, as POCL's barriers need.
 */
#define TEAMS (BLOCK_SIZE / TEAM)

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_rows(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong at,
                 uint finish, ulong rows, ulong cols, ulong pitch, ulong piece_shift,
                 ulong per_group, __global const ulong *bounds)
{
#if TEAM > 1
    __local ACC_T sdata[BLOCK_SIZE];
#endif
    const uint tid = get_local_id(0), lane = tid % TEAM;
    const ulong first = get_group_id(0) * per_group;
    const ulong pieces = (ulong)1 << piece_shift;
    const ulong stop = min(first + per_group, rows << piece_shift);
    for (ulong base = first; base < stop; base += TEAMS) {
        const ulong v = base + tid / TEAM;
        run_t run = run_start();
        if (v < stop) {
            const ulong row = v >> piece_shift, piece = v & (pieces - 1);
#if SEGMENTED
            /* Offsets past n, or an end before its start, are clamped: nothing outside is read. */
            const ulong end = min(bounds[row + 1], n);
            const ulong start = min(bounds[row], end);
#else
            const ulong start = row * pitch, end = start + cols;
#endif
            const ulong length = end - start;
            const ulong part = (length >> piece_shift) + ((length & (pieces - 1)) != 0);
            const ulong from = start + min(piece * part, length);
            const ulong to = start + min(piece * part + part, length);
            for (ulong i = from + lane; i < to; i += TEAM)
                run = run_fold(run, load_run(in, offset + i));
        }
        ACC_T value = run_value(run);
#if TEAM > 1
        value = fold_team(sdata, tid, lane, TEAM, 1, value);
#endif
        if (lane == 0 && v < stop)
            write_result(out, at, v, finish, value);
    }
}

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
            for (uint c = 0; c < COLS_PER_ITEM; c++)
                run[c] = run_fold(run[c], load_run(in, offset + r * pitch + col + c));
    } else {
        for (ulong r = first + lane; r < stop; r += LANES)
            for (uint c = 0; c < COLS_PER_ITEM; c++)
                if (col + c < cols)
                    run[c] = run_fold(run[c], load_run(in, offset + r * pitch + col + c));
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

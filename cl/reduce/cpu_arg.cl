/*
 * cpu_arg.cl: the CPU shape of cpu.cl for argmin and argmax, its kernels by
 * the same names and arguments. As there, a work-item folds one contiguous
 * chunk in ACCS streams of VEC lanes, no barriers, and values.cl folds the
 * work-items' values. A lane keeps the least key it has met and that
 * element's index (defs.cl's pairs): it meets its elements in order, so a
 * lesser key alone wins, and a tie keeps the earlier element, one
 * comparison and two selects a lane, no branch. The lanes' pairs are then
 * folded by defs.cl's combine, in any order.
 *
 * Flags, besides defs.cl's: VEC, lanes of 64-bit keys (the device's
 * preferred long vector, src/reduce/cpu_shape.c); ACCS, streams a
 * work-item; COL_VECTORS, columns: vectors of neighbouring columns a
 * work-item.
 */
#if !ACC_ARG
#error "cpu_arg.cl is the CPU shape of argmin and argmax"
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef ACCS
#define ACCS 4
#endif
#ifndef COL_VECTORS
#define COL_VECTORS 1
#endif

#define VKEY_T CONCAT(ulong, VEC)
#define VMASK_T CONCAT(long, VEC)
#define VUINT_T CONCAT(uint, VEC)
#define VSTORE CONCAT(vstore, VEC)

#if VEC == 2
#define LANE_OFFSETS ((VKEY_T)(0, 1))
#elif VEC == 4
#define LANE_OFFSETS ((VKEY_T)(0, 1, 2, 3))
#elif VEC == 8
#define LANE_OFFSETS ((VKEY_T)(0, 1, 2, 3, 4, 5, 6, 7))
#else
#define LANE_OFFSETS ((VKEY_T)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#endif

/* VEC elements from element i, in one plain load where the compiler allows (cpu.cl's load_raw says why). */
#if !IN_HALF && defined(__clang__)
typedef CONCAT(IN_T, VEC) in_vector_t __attribute__((aligned(sizeof(IN_T))));
#define LOAD_ELEMENTS(in, i) (*(__global const in_vector_t *)((in) + (i)))
#elif !IN_HALF
#define LOAD_ELEMENTS(in, i) CONCAT(vload, VEC)(0, (in) + (i))
#endif

/* The keys of the VEC elements from element i: defs.cl's arg_key, lane by lane. */
inline VKEY_T load_keys(__global const IN_T *in, size_t i)
{
#if ARG_FLOAT == 16 || ARG_FLOAT == 32
#if IN_HALF
    VUINT_T bits = CONCAT(as_uint, VEC)(CONCAT(vload_half, VEC)(0, in + i));
#else
    VUINT_T bits = CONCAT(as_uint, VEC)(LOAD_ELEMENTS(in, i));
#endif
    bits = select(bits, (VUINT_T)0, (bits << 1) == 0); /* -0 is +0 */
    const VMASK_T nan = CONCAT(convert_long, VEC)((bits << 1) > 0xff000000u);
    const VKEY_T order = CONCAT(convert_ulong, VEC)(select(bits | 0x80000000u, ~bits, (bits >> 31) != 0));
#elif ARG_FLOAT == 64
    VKEY_T bits = CONCAT(as_ulong, VEC)(LOAD_ELEMENTS(in, i));
    bits = select(bits, (VKEY_T)0, (bits << 1) == 0);
    const VMASK_T nan = (bits << 1) > 0xffe0000000000000UL;
    const VKEY_T order = select(bits | 0x8000000000000000UL, ~bits, (bits >> 63) != 0);
#elif ARG_SIGNED
    const VKEY_T order =
        CONCAT(as_ulong, VEC)(CONCAT(convert_long, VEC)(LOAD_ELEMENTS(in, i))) ^ 0x8000000000000000UL;
#else
    const VKEY_T order = CONCAT(convert_ulong, VEC)(LOAD_ELEMENTS(in, i));
#endif
#if OP == OP_ARGMAX
    const VKEY_T key = ~order;
#else
    const VKEY_T key = order;
#endif
#if ARG_FLOAT
    return select(key, (VKEY_T)0, nan);
#else
    return key;
#endif
}

/* Per lane the least key met and its element's index; ULONG_MAX for none yet. */
typedef struct {
    VKEY_T key;
    VKEY_T index;
} lanes_t;

inline lanes_t lanes_start(void)
{
    lanes_t lanes = {(VKEY_T)ULONG_MAX, (VKEY_T)ULONG_MAX};
    return lanes;
}

/*
 * The lanes, then elements with `key` at `index`, later than any they hold:
 * a lesser key wins, and any key over none (defs.cl's arg_later).
 */
inline lanes_t lanes_take(lanes_t lanes, VKEY_T key, VKEY_T index)
{
    const VMASK_T wins = (key < lanes.key) | (lanes.index == ULONG_MAX);
    lanes.key = select(lanes.key, key, wins);
    lanes.index = select(lanes.index, index, wins);
    return lanes;
}

/* value folded with every lane's pair. */
inline ACC_T lanes_fold_into(ACC_T value, lanes_t lanes)
{
    ulong keys[VEC], indices[VEC];
    VSTORE(lanes.key, 0, keys);
    VSTORE(lanes.index, 0, indices);
    for (int j = 0; j < VEC; j++)
        value = combine(value, (ACC_T)(keys[j], indices[j]));
    return value;
}

/*
 * Elements [begin, end) of in[offset ..]: ACCS streams of whole vectors,
 * then whole vectors into the first stream's lanes (later than all of its),
 * then the last few one by one. Indices are the buffer's (load_in's).
 */
inline ACC_T fold_chunk(__global const IN_T *in, ulong offset, size_t begin, size_t end)
{
    lanes_t acc[ACCS];
#pragma unroll
    for (int a = 0; a < ACCS; a++)
        acc[a] = lanes_start();
    const size_t part = (end - begin) / (ACCS * VEC) * VEC;
    const size_t first = offset + begin, stop = offset + end;
    for (size_t k = 0; k < part; k += VEC) {
#pragma unroll
        for (int a = 0; a < ACCS; a++) {
            const size_t i = first + a * part + k;
            acc[a] = lanes_take(acc[a], load_keys(in, i), (VKEY_T)i + LANE_OFFSETS);
        }
    }
    size_t i = first + ACCS * part;
    for (; i + VEC <= stop; i += VEC)
        acc[0] = lanes_take(acc[0], load_keys(in, i), (VKEY_T)i + LANE_OFFSETS);
    ACC_T value = IDENTITY;
    for (int a = 0; a < ACCS; a++)
        value = lanes_fold_into(value, acc[a]);
    for (; i < stop; i++)
        value = combine(value, load_in(in, i));
    return value;
}

/* Work-item w folds elements [w * chunk, min(n, (w + 1) * chunk)) of in[offset ..]. */
__kernel void reduce_cpu(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                         ulong at, uint finish, ulong chunk)
{
    const size_t w = get_global_id(0);
    const size_t begin = w * chunk;
    const size_t end = min((size_t)n, begin + (size_t)chunk);
    write_value(out, at, w, finish, COUNTED_FROM(fold_chunk(in, offset, begin, end), offset));
}

/* Rows and segments: cpu.cl's reduce_cpu_rows, each piece a chunk, its index counted from its row. */
__kernel void reduce_cpu_rows(__global const IN_T *in, ulong offset, ulong n,
                              __global uchar *out, ulong at, uint finish, ulong rows, ulong cols,
                              ulong pitch, ulong piece_shift, ulong per_group,
                              __global const ulong *bounds)
{
    const ulong first = get_global_id(0) * per_group;
    const ulong stop = min(first + per_group, rows << piece_shift);
    for (ulong v = first; v < stop; v++) {
        const ulong2 span = piece_span(v, n, cols, pitch, piece_shift, bounds);
        const ulong origin = offset + row_start(v >> piece_shift, n, pitch, bounds);
        write_result(out, at, v, finish,
                     COUNTED_FROM(fold_chunk(in, offset, span.x, span.y), origin));
    }
}

/*
 * Columns: cpu.cl's reduce_cpu_columns, a lane a column, its index the
 * row. A last block of columns narrower than the work-item's vectors takes
 * its elements one by one, row by row.
 */
#define BLOCK_COLS (VEC * COL_VECTORS)

__kernel void reduce_cpu_columns(__global const IN_T *in, ulong offset, ulong n,
                                 __global uchar *out, ulong at, uint finish, ulong rows,
                                 ulong cols, ulong pitch, ulong slice_rows, ulong block_shift)
{
    const ulong g = get_global_id(0), slice = g >> block_shift;
    const ulong col = (g & (((ulong)1 << block_shift) - 1)) * BLOCK_COLS;
    const ulong first = slice * slice_rows, stop = min(first + slice_rows, rows);
    (void)n;
    if (col + BLOCK_COLS <= cols) {
        lanes_t acc[COL_VECTORS];
        for (int v = 0; v < COL_VECTORS; v++)
            acc[v] = lanes_start();
        for (ulong r = first; r < stop; r++)
            for (int v = 0; v < COL_VECTORS; v++)
                acc[v] = lanes_take(acc[v], load_keys(in, offset + r * pitch + col + v * VEC),
                                    (VKEY_T)r);
        for (int v = 0; v < COL_VECTORS; v++) {
            ulong keys[VEC], indices[VEC];
            VSTORE(acc[v].key, 0, keys);
            VSTORE(acc[v].index, 0, indices);
            for (int j = 0; j < VEC; j++)
                write_result(out, at, slice * cols + col + v * VEC + j, finish,
                             (ACC_T)(keys[j], indices[j]));
        }
    } else if (col < cols) {
        ACC_T best[BLOCK_COLS];
        for (int c = 0; c < BLOCK_COLS; c++)
            best[c] = IDENTITY;
        for (ulong r = first; r < stop; r++)
            for (ulong c = 0; col + c < cols; c++)
                best[c] = combine(best[c], load_run_at(in, offset + r * pitch + col + c, r));
        for (ulong c = 0; col + c < cols; c++)
            write_result(out, at, slice * cols + col + c, finish, best[c]);
    }
}

/*
 * cpu_arg.cl: the CPU shape of cpu.cl for argmin and argmax, its kernels by
 * the same names and arguments. As there, a work-item folds one contiguous
 * chunk in ACCS streams of VEC lanes, no barriers, and values.cl folds the
 * work-items' values.
 *
 * A lane keeps the least key it has met and the number of the vector it
 * came in (for columns, its row), counted from the span's start: the lane's
 * element is that vector's lane. Lanes meet their elements in order, so a
 * lesser key alone wins and a tie keeps the earlier one: per vector one
 * unsigned min, one comparison and one select of a broadcast number, no
 * branch. Every lane starts from its stream's first vector, so none is
 * ever empty. Only at the end are the lanes' (key, element) pairs folded,
 * lexicographically, into defs.cl's pair (key_pair).
 *
 * Keys order the elements as defs.cl's arg_key does, in the element's
 * width: 32 bits for types of 32 bits or less, 64 for the rest (an argmax
 * key is the complement in that width; a NaN's is 0). A float's is its
 * magnitude, negated for negative ones, so that -0 and +0 meet without a
 * test of their own. Against 64-bit keys and indices in every lane, a
 * float vector takes one register instead of four: on POCL 3.1 an argmax
 * of 2^24 floats takes about 1.6 ms, near a sum's 1.4, against 3.3
 * (bench/results/kernel-choices-pocl3.txt). Vector numbers are 32 bits with
 * 32-bit keys: a span is at most SPAN elements (rows, for columns), and
 * longer ones are folded span by span.
 *
 * Flags, besides defs.cl's: VEC, lanes of keys (the device's preferred
 * vector of the key's width, src/reduce/cpu_shape.c); ACCS, streams a
 * work-item; COL_VECTORS, columns: vectors of neighbouring columns a
 * work-item.
 */
#if !ACC_ARG
#error "cpu_arg.cl is the CPU shape of argmin and argmax"
#endif
#ifndef VEC
#define VEC 16
#endif
#ifndef ACCS
#define ACCS 4
#endif
#ifndef COL_VECTORS
#define COL_VECTORS 1
#endif

#if ARG_FLOAT == 64 || (!ARG_FLOAT && IN_SIZE == 8)
#define KEY_BITS 64
#define KEY_T ulong
#define SKEY_T long
#define SIGN_BIT 0x8000000000000000UL
#else
#define KEY_BITS 32
#define KEY_T uint
#define SKEY_T int
#define SIGN_BIT 0x80000000u
#endif
#define VKEY_T CONCAT(KEY_T, VEC)
#define VSKEY_T CONCAT(SKEY_T, VEC)
#define AS_VKEY CONCAT(as_, VKEY_T)
#define AS_VSKEY CONCAT(as_, VSKEY_T)
#define VSTORE CONCAT(vstore, VEC)

/* Elements (rows) a span: its vector numbers, and its elements' offsets, fit KEY_T. */
#define SPAN ((size_t)1 << 31)

/* VEC elements from element i, in one plain load where the compiler allows (cpu.cl's load_raw says why). */
#if !IN_HALF && defined(__clang__)
typedef CONCAT(IN_T, VEC) in_vector_t __attribute__((aligned(sizeof(IN_T))));
#define LOAD_ELEMENTS(in, i) (*(__global const in_vector_t *)((in) + (i)))
#elif !IN_HALF
#define LOAD_ELEMENTS(in, i) CONCAT(vload, VEC)(0, (in) + (i))
#endif

/* The keys of the VEC elements from element i: defs.cl's arg_key, lane by lane, in KEY_BITS. */
inline VKEY_T load_keys(__global const IN_T *in, size_t i)
{
#if ARG_FLOAT
#if IN_HALF
    const VKEY_T bits = AS_VKEY(CONCAT(load_halves, VEC)(in + i));
#else
    const VKEY_T bits = AS_VKEY(LOAD_ELEMENTS(in, i));
#endif
    /*
     * The magnitude, negated for negative ones, offset by the sign bit:
     * -0 and +0 meet at SIGN_BIT, with no test of their own.
     */
    const VKEY_T magnitude = bits & ~SIGN_BIT, sign = AS_VKEY(AS_VSKEY(bits) >> (KEY_BITS - 1));
    const VSKEY_T nan = magnitude > (KEY_T)(ARG_FLOAT == 64 ? 0x7ff0000000000000UL : 0x7f800000u);
    const VKEY_T order = ((magnitude ^ sign) - sign) ^ SIGN_BIT;
#elif ARG_SIGNED
    const VKEY_T order = AS_VKEY(CONCAT(convert_, VSKEY_T)(LOAD_ELEMENTS(in, i))) ^ SIGN_BIT;
#else
    const VKEY_T order = CONCAT(convert_, VKEY_T)(LOAD_ELEMENTS(in, i));
#endif
#if ARG_DESCENDING
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

/*
 * defs.cl's pair of a lane's key and the index of its element: the element
 * rebuilt from the key (a zero as +0) and keyed again by arg_key. A float's
 * key is 0 only for NaN, whose key is 0 there too.
 */
inline ACC_T key_pair(KEY_T key, ulong index)
{
#if ARG_DESCENDING
    const KEY_T order = ~key;
#else
    const KEY_T order = key;
#endif
#if ARG_FLOAT
    if (key == 0)
        return (ACC_T)(0, index);
    const KEY_T signed_magnitude = order ^ SIGN_BIT;
    const KEY_T bits = signed_magnitude >> (KEY_BITS - 1) ? SIGN_BIT | -signed_magnitude
                                                          : signed_magnitude;
#if ARG_FLOAT == 64
    return arg_pair(as_double(bits), index);
#else
    return arg_pair(as_float(bits), index);
#endif
#elif ARG_SIGNED
    return arg_pair((long)CONCAT(as_, SKEY_T)(order ^ SIGN_BIT), index);
#else
    return arg_pair((ulong)order, index);
#endif
}

/* Per lane the least key met and the number of the vector (row) it came in. */
typedef struct {
    VKEY_T key;
    VKEY_T at;
} lanes_t;

inline lanes_t lanes_first(VKEY_T key, KEY_T at)
{
    lanes_t lanes = {key, (VKEY_T)at};
    return lanes;
}

/* The lanes, then vector `at` of keys, later than any they hold: a lesser key wins. */
inline lanes_t lanes_take(lanes_t lanes, VKEY_T key, KEY_T at)
{
    lanes.at = select(lanes.at, (VKEY_T)at, key < lanes.key);
    lanes.key = min(lanes.key, key);
    return lanes;
}

/* Lanes a and then b, of the same elements' lanes: b's where its key is less, or equal and earlier. */
inline lanes_t lanes_merge(lanes_t a, lanes_t b)
{
    const VSKEY_T take = (b.key < a.key) | ((b.key == a.key) & (b.at < a.at));
    a.key = select(a.key, b.key, take);
    a.at = select(a.at, b.at, take);
    return a;
}

/*
 * The least of the lanes' (key, element) pairs, element at * VEC + lane
 * from `first`, as defs.cl's pair. Through private arrays, not by halving
 * vectors (Oclgrind, tests/known-bugs/oclgrind_lo_hi_shuffle.py), and
 * lane by lane: a min-reduction over the arrays (vectorized through the
 * stack) or a tree of shuffle() takes POCL 3.1 two to three times as long
 * (bench/results/kernel-choices-pocl3.txt).
 */
inline ACC_T lanes_best(lanes_t lanes, ulong first)
{
    KEY_T keys[VEC], at[VEC];
    VSTORE(lanes.key, 0, keys);
    VSTORE(lanes.at, 0, at);
    KEY_T key = keys[0], element = at[0] * VEC;
    for (int j = 1; j < VEC; j++) {
        const KEY_T e = at[j] * VEC + j;
        if (keys[j] < key || (keys[j] == key && e < element)) {
            key = keys[j];
            element = e;
        }
    }
    return key_pair(key, first + element);
}

/*
 * Elements [s, e) of in, at most SPAN of them: ACCS streams of whole
 * vectors (one, from the first vector, when there are too few for ACCS),
 * then the rest's whole vectors into the first stream's lanes (later than
 * all of its), then the last few one by one. Indices are the buffer's
 * (load_in's).
 */
inline ACC_T fold_span(__global const IN_T *in, size_t s, size_t e)
{
    const size_t length = e - s;
    const KEY_T per_stream = (KEY_T)(length / (ACCS * VEC)); /* vectors */
    const KEY_T vectors = (KEY_T)(length / VEC);
    lanes_t acc[ACCS];
    KEY_T v = 0;
    if (per_stream > 0) {
        const size_t stride = (size_t)per_stream * VEC;
#pragma unroll
        for (int a = 0; a < ACCS; a++)
            acc[a] = lanes_first(load_keys(in, s + a * stride), a * per_stream);
        for (size_t k = 1; k < per_stream; k++) {
#pragma unroll
            for (int a = 0; a < ACCS; a++)
                acc[a] = lanes_take(acc[a], load_keys(in, s + a * stride + k * VEC),
                                    (KEY_T)(a * per_stream + k));
        }
#pragma unroll
        for (int a = 1; a < ACCS; a++)
            acc[0] = lanes_merge(acc[0], acc[a]);
        v = ACCS * per_stream;
    } else if (vectors > 0) {
        acc[0] = lanes_first(load_keys(in, s), 0);
        v = 1;
    }
    for (; v < vectors; v++)
        acc[0] = lanes_take(acc[0], load_keys(in, s + (size_t)v * VEC), v);
    ACC_T value = vectors > 0 ? lanes_best(acc[0], s) : IDENTITY;
    for (size_t i = s + (size_t)vectors * VEC; i < e; i++)
        value = combine(value, load_in(in, i));
    return value;
}

/* Elements [begin, end) of in[offset ..], span by span. */
inline ACC_T fold_chunk(__global const IN_T *in, ulong offset, size_t begin, size_t end)
{
    ACC_T value = IDENTITY;
    for (size_t s = offset + begin; s < offset + end; s += SPAN)
        value = combine(value, fold_span(in, s, min(s + SPAN, (size_t)(offset + end))));
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
 * Columns: cpu.cl's reduce_cpu_columns, a lane a column, its vector number
 * the row from the span's first. A last block of columns narrower than the
 * work-item's vectors takes its elements one by one, row by row.
 */
#define BLOCK_COLS (VEC * COL_VECTORS)

inline void write_columns(__global uchar *out, ulong at, uint finish, ulong slot, lanes_t lanes,
                          ulong first_row)
{
    KEY_T keys[VEC], rows[VEC];
    VSTORE(lanes.key, 0, keys);
    VSTORE(lanes.at, 0, rows);
    for (int j = 0; j < VEC; j++)
        write_result(out, at, slot + j, finish, key_pair(keys[j], first_row + rows[j]));
}

__kernel void reduce_cpu_columns(__global const IN_T *in, ulong offset, ulong n,
                                 __global uchar *out, ulong at, uint finish, ulong rows,
                                 ulong cols, ulong pitch, ulong slice_rows, ulong block_shift)
{
    const ulong g = get_global_id(0), slice = g >> block_shift;
    const ulong col = (g & (((ulong)1 << block_shift) - 1)) * BLOCK_COLS;
    const ulong first = slice * slice_rows, stop = min(first + slice_rows, rows);
    (void)n;
    if (col + BLOCK_COLS <= cols && first < stop && stop - first <= SPAN) {
        __global const IN_T *const base = in + offset + first * pitch + col;
        lanes_t acc[COL_VECTORS];
#pragma unroll
        for (int v = 0; v < COL_VECTORS; v++)
            acc[v] = lanes_first(load_keys(base, v * VEC), 0);
        const KEY_T count = (KEY_T)(stop - first);
        for (KEY_T r = 1; r < count; r++)
#pragma unroll
            for (int v = 0; v < COL_VECTORS; v++)
                acc[v] = lanes_take(acc[v], load_keys(base, r * pitch + v * VEC), r);
#pragma unroll
        for (int v = 0; v < COL_VECTORS; v++)
            write_columns(out, at, finish, slice * cols + col + v * VEC, acc[v], first);
    } else if (col < cols) {
        /* The narrow last block, an empty slice, or one of more than SPAN rows. */
        ACC_T best[BLOCK_COLS];
        for (int c = 0; c < BLOCK_COLS; c++)
            best[c] = IDENTITY;
        for (ulong r = first; r < stop; r++)
            for (ulong c = 0; c < BLOCK_COLS && col + c < cols; c++)
                best[c] = combine(best[c], load_run_at(in, offset + r * pitch + col + c, r));
        for (ulong c = 0; c < BLOCK_COLS && col + c < cols; c++)
            write_result(out, at, slice * cols + col + c, finish, best[c]);
    }
}

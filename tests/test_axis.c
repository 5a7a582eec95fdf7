/*
 * test_axis.c: reductions along an axis and over segments. Each result is
 * checked against the same elements gathered on the host: exact sums bit
 * for bit against the library's whole-array exact sum; the rest against
 * the host reference, equal for integers, minima and maxima, within the
 * documented bound for float sums and products. One mode per CTest entry:
 *
 *   --matrix    every type and operator (and the float sums' accuracies)
 *               on a tall and a wide matrix, both axes, with a row pitch
 *               and an offset; results run twice have the same bits
 *   --sweep     every type and operator, both axes, on every matrix of 1
 *               to 20 rows and 1 to 70 columns (run with CLFOLD_CPU_LANES)
 *   --shapes    1 x n, n x 1, tall, wide, square, empty and long-row
 *               shapes (rows cut into pieces, columns into slices), short
 *               aligned rows (the GPU shape's reduce_short_rows), both
 *               axes, on int32, float and double, and sums of squares
 *   --segments  empty segments, segments of one element, one huge one, a
 *               power-law mix; offsets starting past 0; the blocking form
 *               refuses decreasing offsets and offsets past the end, and
 *               the non-blocking form clamps them without reading outside
 *   --small     a few small shapes and segments that take every branch,
 *               for Oclgrind; --small-exact the same for exact sums
 *   --misuse    bad arguments are refused with their status before anything
 *               runs; the non-blocking form writes its results at an odd
 *               byte offset and no other byte; no results give an event;
 *               the host forms refuse what the buffer forms do, and arrays
 *               past the device's largest buffer
 * Every matrix and segment case also runs through the host forms.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "util.h"

#define GUARD 0xa5

static clfold_context *ctx;
static cl_context cl;
static bool fp64;
/*
 * --small runs under Oclgrind, where the CPU shape's whole-array exact sum
 * cannot run with --uninitialized (tests/known-bugs/oclgrind_lo_hi_shuffle.py).
 * There float data are multiples of 2^-20 in [-1, 1), whose long double
 * sums are exact, and the host reference, rounded once, is the exact sum.
 */
static bool coarse_floats;
/*
 * ... and buffers only: Oclgrind 21.10's --uninitialized takes the
 * CL_MEM_USE_HOST_PTR buffer that the host forms make on a CPU device as
 * uninitialised (tests/oclgrind_driver.c).
 */
static bool buffers_only;

static cl_mem buffer_of(size_t bytes, const void *data)
{
    cl_int err;
    unsigned char one = 0;
    cl_mem buffer = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes > 0 ? bytes : 1, bytes > 0 ? (void *)data : &one, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer of %zu bytes: %d", bytes, err);
    return buffer;
}

/* Exact sums: the host reference's long double is not exact, the whole-array exact sum is. */
static bool exact_sum(clfold_type type, clfold_op op, clfold_accuracy accuracy)
{
    return type_is_float(type) && op == CLFOLD_SUM && accuracy == CLFOLD_ACCURACY_EXACT;
}

/* Data for `op`: random bits, exact-product factors, or floats with a few signed zeros and a NaN. */
static void fill_for(void *data, size_t n, clfold_type type, clfold_op op, test_rng *rng)
{
    if (!type_is_float(type)) {
        fill_integers(data, n, type, op, rng);
    } else if (op == CLFOLD_PROD) {
        fill_product(data, n, type, rng);
    } else {
        fill_unit(data, n, type, rng);
        for (size_t i = 0; i < n && coarse_floats; i++)
            store_element(data, i, type, 0,
                          floor((double)reference_element(data, i, type) * 0x1p20) * 0x1p-20);
        for (int k = 0; k < 8 && n > 0; k++)
            store_element(data, (size_t)rng_below(rng, n), type, 0, k % 2 ? 0.0 : -0.0);
        if ((op == CLFOLD_MIN || op == CLFOLD_MAX) && n > 100)
            store_element(data, (size_t)rng_below(rng, n), type, 0, NAN);
    }
}

/*
 * Checks one result against `n` gathered elements; `what` names the case.
 * The oracle for exact sums is the whole-array exact sum, bit for bit; for
 * the rest the host reference, whose integers, minima and maxima the
 * result must equal, and whose float sums and products it must meet
 * within the documented bound.
 */
static void check_result(const void *got, const void *gathered, size_t n, clfold_type type,
                         clfold_op op, clfold_accuracy accuracy, const char *what, size_t index)
{
    clfold_type result_type;
    clfold_result_type(type, op, &result_type);
    reference_value have = {0}, want = {0};
    memcpy(&have, got, clfold_type_size(result_type));
    bool ok;
    if (exact_sum(type, op, accuracy) && coarse_floats) {
        reference_reduce(gathered, n, type, op, &want, NULL);
        ok = reference_equal(&have, &want, result_type);
    } else if (exact_sum(type, op, accuracy)) {
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, gathered, n, type, op, &want),
                      CLFOLD_SUCCESS);
        ok = reference_equal(&have, &want, result_type);
    } else {
        long double sum_abs = 0;
        reference_reduce(gathered, n, type, op, &want, &sum_abs);
        ok = reference_close(&have, &want, type, op, accuracy, n, sum_abs, false);
    }
    EXPECT(ok, "%s: result %zu of %zu elements", what, index, n);
    if (!ok)
        print_mismatch(what, CLFOLD_AUTO, 0, n, type, op, &have, &want, result_type);
}

struct matrix_case {
    size_t rows, cols, pitch, offset;
};

/*
 * Reduces `m` along `axis` twice from a buffer and checks every result, then
 * once from host memory (clfold_reduce_axis_host), which must meet the same
 * reference: it sees the matrix from its element (0, 0), so where vectors
 * align may differ from the buffer's.
 */
static void check_matrix(const struct matrix_case *m, int axis, clfold_type type, clfold_op op,
                         clfold_accuracy accuracy, test_rng *rng)
{
    size_t element = clfold_type_size(type);
    size_t span = m->rows == 0 || m->cols == 0 ? 0 : (m->rows - 1) * m->pitch + m->cols;
    size_t total = m->offset + span;
    clfold_type result_type;
    if (clfold_result_type(type, op, &result_type) != CLFOLD_SUCCESS)
        return;
    size_t size = clfold_type_size(result_type);
    size_t results = axis == 1 ? m->rows : m->cols, length = axis == 1 ? m->cols : m->rows;
    unsigned char *data = malloc(total * element + 1);
    unsigned char *first = malloc(results * size + 1), *again = malloc(results * size + 1);
    unsigned char *host = malloc(results * size + 1);
    unsigned char *gathered = malloc(length * element + 1);
    char what[160];
    snprintf(what, sizeof what, "%zux%zu (pitch %zu, offset %zu) axis %d %s %s %s", m->rows,
             m->cols, m->pitch, m->offset, axis, clfold_type_name(type), clfold_op_name(op),
             clfold_accuracy_name(accuracy));
    fill_for(data, total, type, op, rng);
    cl_mem buffer = buffer_of(total * element, data);
    clfold_matrix view = {m->offset, m->rows, m->cols, m->pitch};

    EXPECT_STATUS(ctx, clfold_reduce_axis(ctx, buffer, &view, axis, type, op, first),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_axis(ctx, buffer, &view, axis, type, op, again),
                  CLFOLD_SUCCESS);
    EXPECT(memcmp(first, again, results * size) == 0, "%s: two runs differ", what);
    if (!buffers_only)
        EXPECT_STATUS(ctx, clfold_reduce_axis_host(ctx, data, &view, axis, type, op, host),
                      CLFOLD_SUCCESS);
    for (size_t i = 0; i < results; i++) {
        for (size_t k = 0; k < length; k++) {
            size_t at = axis == 1 ? m->offset + i * m->pitch + k : m->offset + k * m->pitch + i;
            memcpy(gathered + k * element, data + at * element, element);
        }
        check_result(first + i * size, gathered, length, type, op, accuracy, what, i);
        if (!buffers_only)
            check_result(host + i * size, gathered, length, type, op, accuracy, what, i);
    }
    clReleaseMemObject(buffer);
    free(data);
    free(first);
    free(again);
    free(host);
    free(gathered);
}

static const clfold_type ALL_TYPES[] = {CLFOLD_INT8,  CLFOLD_UINT8,  CLFOLD_INT16, CLFOLD_UINT16,
                                        CLFOLD_INT32, CLFOLD_UINT32, CLFOLD_INT64, CLFOLD_UINT64,
                                        CLFOLD_HALF,  CLFOLD_FLOAT,  CLFOLD_DOUBLE};

static void run_matrix(void)
{
    static const struct matrix_case shapes[] = {{301, 7, 9, 5}, {3, 2001, 2003, 1}};
    test_rng rng = {1};
    for (size_t t = 0; t < sizeof ALL_TYPES / sizeof *ALL_TYPES; t++) {
        clfold_type type = ALL_TYPES[t];
        if (type == CLFOLD_DOUBLE && !fp64)
            continue;
        test_progress("test_axis --matrix", "%s", clfold_type_name(type));
        clfold_op_info info;
        for (int op = CLFOLD_SUM; clfold_op_describe((clfold_op)op, &info) == CLFOLD_SUCCESS;
             op++) {
            if (info.flags & CLFOLD_OP_INDEX)
                continue; /* argmin, argmax: test_arg */
            for (int a = CLFOLD_ACCURACY_DEFAULT; a <= CLFOLD_ACCURACY_EXACT; a++) {
                bool float_sum = type_is_float(type) && (op == CLFOLD_SUM || op == CLFOLD_SUMSQ);
                if ((a != CLFOLD_ACCURACY_DEFAULT && !float_sum) ||
                    (a == CLFOLD_ACCURACY_FP64 && !fp64) ||
                    (a == CLFOLD_ACCURACY_EXACT && op == CLFOLD_SUMSQ)) /* refused: --misuse */
                    continue;
                EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, (clfold_accuracy)a), CLFOLD_SUCCESS);
                for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                    for (int axis = 0; axis <= 1; axis++)
                        check_matrix(&shapes[s], axis, type, (clfold_op)op, (clfold_accuracy)a,
                                     &rng);
            }
            EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
        }
    }
}

/*
 * Every type and operator, both axes, on every matrix of 1 to SWEEP_ROWS
 * rows and 1 to SWEEP_COLS columns, rows packed (the pitch is the column
 * count, so that rows start at every alignment). The CPU shape's columns
 * fold a band of vectors whose last one is cut wherever the columns are not
 * a multiple of the lanes: CTest runs this with CLFOLD_CPU_LANES=8, AVX2's
 * width of floats, on any host.
 */
#define SWEEP_ROWS 20
#define SWEEP_COLS 70

static void sweep_one(clfold_type type, clfold_op op, test_rng *rng)
{
    size_t element = clfold_type_size(type);
    clfold_type result_type;
    if (clfold_result_type(type, op, &result_type) != CLFOLD_SUCCESS)
        return;
    size_t size = clfold_type_size(result_type);
    unsigned char *data = malloc(SWEEP_ROWS * SWEEP_COLS * element);
    unsigned char *results = malloc(SWEEP_COLS * size), *gathered = malloc(SWEEP_COLS * element);
    fill_for(data, SWEEP_ROWS * SWEEP_COLS, type, op, rng);
    cl_mem buffer = buffer_of(SWEEP_ROWS * SWEEP_COLS * element, data);
    char what[160];
    for (size_t rows = 1; rows <= SWEEP_ROWS; rows++)
        for (size_t cols = 1; cols <= SWEEP_COLS; cols++)
            for (int axis = 0; axis <= 1; axis++) {
                clfold_matrix view = {0, rows, cols, cols};
                size_t count = axis == 1 ? rows : cols, length = axis == 1 ? cols : rows;
                snprintf(what, sizeof what, "sweep %zux%zu axis %d %s %s", rows, cols, axis,
                         clfold_type_name(type), clfold_op_name(op));
                clfold_status status =
                    clfold_reduce_axis(ctx, buffer, &view, axis, type, op, results);
                EXPECT(status == CLFOLD_SUCCESS, "%s: %s", what, clfold_last_error(ctx));
                if (status != CLFOLD_SUCCESS)
                    continue;
                for (size_t i = 0; i < count; i++) {
                    for (size_t k = 0; k < length; k++) {
                        size_t at = axis == 1 ? i * cols + k : k * cols + i;
                        memcpy(gathered + k * element, data + at * element, element);
                    }
                    check_result(results + i * size, gathered, length, type, op,
                                 CLFOLD_ACCURACY_DEFAULT, what, i);
                }
            }
    clReleaseMemObject(buffer);
    free(data);
    free(results);
    free(gathered);
}

static void run_sweep(void)
{
    test_rng rng = {4};
    for (size_t t = 0; t < sizeof ALL_TYPES / sizeof *ALL_TYPES; t++) {
        if (ALL_TYPES[t] == CLFOLD_DOUBLE && !fp64)
            continue;
        test_progress("test_axis --sweep", "%s", clfold_type_name(ALL_TYPES[t]));
        clfold_op_info info;
        for (int op = CLFOLD_SUM; clfold_op_describe((clfold_op)op, &info) == CLFOLD_SUCCESS;
             op++)
            sweep_one(ALL_TYPES[t], (clfold_op)op, &rng);
    }
}

static void run_shapes(void)
{
    static const struct matrix_case shapes[] = {
        {1, 1000, 1000, 0},    {1000, 1, 3, 2},       {3000, 7, 9, 5},  {5, 40000, 40001, 1},
        {257, 300, 300, 0},    {0, 5, 5, 0},          {4, 0, 0, 0},     {2, 100003, 100003, 7},
        {20000, 3, 3, 0},      {70000, 2, 2, 0},      {1, 1, 1, 0},     {33, 65, 70, 3},
        {40, 66, 68, 4},       {4099, 32, 32, 0},     {2049, 64, 68, 8}, {5001, 8, 8, 4},
        {3001, 128, 128, 0}};
    static const struct {
        clfold_type type;
        clfold_op op;
        clfold_accuracy accuracy;
    } kinds[] = {{CLFOLD_INT32, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT},
                 {CLFOLD_DOUBLE, CLFOLD_MAX, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_FLOAT, CLFOLD_SUMSQ, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_INT16, CLFOLD_SUMSQ, CLFOLD_ACCURACY_DEFAULT}};
    test_rng rng = {2};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        if (kinds[k].type == CLFOLD_DOUBLE && !fp64)
            continue;
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, kinds[k].accuracy), CLFOLD_SUCCESS);
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (int axis = 0; axis <= 1; axis++)
                check_matrix(&shapes[s], axis, kinds[k].type, kinds[k].op, kinds[k].accuracy,
                             &rng);
    }
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
}

static void check_segments(const cl_ulong *bounds, size_t segments, size_t count, size_t offset,
                           clfold_type type, clfold_op op, clfold_accuracy accuracy,
                           const char *name, test_rng *rng);

/*
 * Shapes small enough for Oclgrind that still take every branch: a pitch and
 * an offset, rows cut into pieces and columns into slices on either shape.
 */
static void run_small(bool exact)
{
    static const struct matrix_case shapes[] = {
        {3, 5, 6, 1}, {1, 1, 1, 0}, {2, 33000, 33000, 0}, {8200, 3, 3, 0}, {70, 32, 36, 4}};
    static const struct {
        clfold_type type;
        clfold_op op;
        clfold_accuracy accuracy;
        size_t shapes; /* the first so many: exact sums run the tiny ones only, for time */
    } kinds[] = {{CLFOLD_INT32, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT, 5},
                 {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT, 5},
                 {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT, 2}};
    test_rng rng = {4};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        if ((kinds[k].accuracy == CLFOLD_ACCURACY_EXACT) != exact)
            continue;
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, kinds[k].accuracy), CLFOLD_SUCCESS);
        for (size_t s = 0; s < kinds[k].shapes; s++)
            for (int axis = 0; axis <= 1; axis++)
                check_matrix(&shapes[s], axis, kinds[k].type, kinds[k].op, kinds[k].accuracy,
                             &rng);
    }
    cl_ulong few[] = {0, 0, 1, 1, 5, 5, 5, 9, 10};
    check_segments(few, 8, 12, 3, CLFOLD_FLOAT, CLFOLD_SUM,
                   exact ? CLFOLD_ACCURACY_EXACT : CLFOLD_ACCURACY_DEFAULT, "short", &rng);
}

/* ---- --segments -------------------------------------------------------------- */

/* Reduces data[offset ..] over `segments` of `bounds` and checks each. */
static void check_segments(const cl_ulong *bounds, size_t segments, size_t count, size_t offset,
                           clfold_type type, clfold_op op, clfold_accuracy accuracy,
                           const char *name, test_rng *rng)
{
    size_t element = clfold_type_size(type);
    clfold_type result_type;
    clfold_result_type(type, op, &result_type);
    size_t size = clfold_type_size(result_type);
    unsigned char *data = malloc((offset + count) * element + 1);
    unsigned char *results = malloc(segments * size + 1), *again = malloc(segments * size + 1);
    unsigned char *host = malloc(segments * size + 1);
    char what[160];
    snprintf(what, sizeof what, "segments %s (%zu of %zu elements) %s %s %s", name, segments,
             count, clfold_type_name(type), clfold_op_name(op), clfold_accuracy_name(accuracy));
    fill_for(data, offset + count, type, op, rng);
    cl_mem buffer = buffer_of((offset + count) * element, data);
    cl_mem offsets = buffer_of((segments + 1) * sizeof *bounds, bounds);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, accuracy), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_segments(ctx, buffer, offset, count, offsets, segments, type,
                                              op, results),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_segments(ctx, buffer, offset, count, offsets, segments, type,
                                              op, again),
                  CLFOLD_SUCCESS);
    EXPECT(memcmp(results, again, segments * size) == 0, "%s: two runs differ", what);
    if (!buffers_only)
        EXPECT_STATUS(ctx, clfold_reduce_segments_host(ctx, data + offset * element, count,
                                                       bounds, segments, type, op, host),
                      CLFOLD_SUCCESS);
    for (size_t s = 0; s < segments; s++) {
        const unsigned char *first = data + (offset + bounds[s]) * element;
        size_t length = (size_t)(bounds[s + 1] - bounds[s]);
        check_result(results + s * size, first, length, type, op, accuracy, what, s);
        if (!buffers_only)
            check_result(host + s * size, first, length, type, op, accuracy, what, s);
    }
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
    clReleaseMemObject(buffer);
    clReleaseMemObject(offsets);
    free(data);
    free(results);
    free(again);
    free(host);
}

static void run_segments(void)
{
    test_rng rng = {3};
    cl_ulong few[] = {0, 0, 1, 1, 5, 5, 5, 9, 10};
    check_segments(few, 8, 12, 3, CLFOLD_INT32, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT,
                   "empty and short", &rng);
    check_segments(few, 8, 10, 0, CLFOLD_FLOAT, CLFOLD_MIN, CLFOLD_ACCURACY_DEFAULT,
                   "empty and short", &rng);
    cl_ulong huge[] = {2, 3, 200003, 200004, 200010};
    check_segments(huge, 4, 200010, 1, CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT,
                   "one huge", &rng);
    check_segments(huge, 4, 200010, 1, CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT,
                   "one huge", &rng);
    check_segments(huge, 4, 200010, 0, CLFOLD_INT64, CLFOLD_XOR, CLFOLD_ACCURACY_DEFAULT,
                   "one huge", &rng);
    enum { SEGMENTS = 300 };
    cl_ulong mixed[SEGMENTS + 1];
    size_t count = power_law(mixed, SEGMENTS, 0, &rng);
    check_segments(mixed, SEGMENTS, count, 0, CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT,
                   "power-law", &rng);
    check_segments(mixed, SEGMENTS, count, 0, CLFOLD_UINT8, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT,
                   "power-law", &rng);
    check_segments(mixed, SEGMENTS, count, 0, CLFOLD_FLOAT, CLFOLD_SUMSQ,
                   CLFOLD_ACCURACY_COMPENSATED, "power-law", &rng);
    check_segments(mixed, SEGMENTS, count, 0, CLFOLD_INT8, CLFOLD_SUMSQ, CLFOLD_ACCURACY_DEFAULT,
                   "power-law", &rng);
    if (fp64)
        check_segments(mixed, SEGMENTS, count, 0, CLFOLD_DOUBLE, CLFOLD_SUM,
                       CLFOLD_ACCURACY_EXACT, "power-law", &rng);
    count = power_law(mixed, SEGMENTS, 17, &rng);
    check_segments(mixed, SEGMENTS, count + 5, 2, CLFOLD_HALF, CLFOLD_MAX,
                   CLFOLD_ACCURACY_DEFAULT, "power-law from 17", &rng);
    cl_ulong tiny[4097];
    for (size_t s = 0; s <= 4096; s++)
        tiny[s] = s / 2;
    check_segments(tiny, 4096, 2048, 0, CLFOLD_INT16, CLFOLD_MAX, CLFOLD_ACCURACY_DEFAULT,
                   "lengths 0 and 1", &rng);

    /* Bad offsets: refused by the blocking form; clamped by the non-blocking one. */
    int data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    long long sums[3];
    cl_ulong decreasing[] = {0, 6, 4, 10}, past[] = {0, 4, 11, 12};
    cl_mem buffer = buffer_of(sizeof data, data);
    cl_mem down = buffer_of(sizeof decreasing, decreasing), beyond = buffer_of(sizeof past, past);
    EXPECT_STATUS(ctx, clfold_reduce_segments(ctx, buffer, 0, 10, down, 3, CLFOLD_INT32,
                                              CLFOLD_SUM, sums),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(clfold_last_error(ctx), "offsets[2]") != NULL, "message: %s",
           clfold_last_error(ctx));
    EXPECT_STATUS(ctx, clfold_reduce_segments(ctx, buffer, 0, 10, beyond, 3, CLFOLD_INT32,
                                              CLFOLD_SUM, sums),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(clfold_last_error(ctx), "offsets[2]") != NULL, "message: %s",
           clfold_last_error(ctx));
    /* Clamped: [0, 4) = 10, [4, 10) = 45, [10, 10) = 0 past the end; decreasing: [4, 4) = 0. */
    cl_mem out = buffer_of(sizeof sums, (long long[]){-1, -1, -1});
    cl_event done = NULL;
    EXPECT_STATUS(ctx, clfold_reduce_segments_async(ctx, buffer, 0, 10, beyond, 3, CLFOLD_INT32,
                                                    CLFOLD_SUM, out, 0, 0, NULL, &done),
                  CLFOLD_SUCCESS);
    clEnqueueReadBuffer(clfold_queue(ctx), out, CL_TRUE, 0, sizeof sums, sums, 1, &done, NULL);
    EXPECT(sums[0] == 10 && sums[1] == 45 && sums[2] == 0, "clamped past the end: %lld %lld %lld",
           sums[0], sums[1], sums[2]);
    clReleaseEvent(done);
    EXPECT_STATUS(ctx, clfold_reduce_segments_async(ctx, buffer, 0, 10, down, 3, CLFOLD_INT32,
                                                    CLFOLD_SUM, out, 0, 0, NULL, &done),
                  CLFOLD_SUCCESS);
    clEnqueueReadBuffer(clfold_queue(ctx), out, CL_TRUE, 0, sizeof sums, sums, 1, &done, NULL);
    EXPECT(sums[0] == 21 && sums[1] == 0 && sums[2] == 45,
           "clamped decreasing: %lld %lld %lld", sums[0], sums[1], sums[2]);
    clReleaseEvent(done);
    clReleaseMemObject(buffer);
    clReleaseMemObject(down);
    clReleaseMemObject(beyond);
    clReleaseMemObject(out);
}

/* ---- --misuse ------------------------------------------------------------------ */

/* Which entry a misuse case calls. */
enum misuse_call { AXIS, SEGMENTS, AXIS_HOST, SEGMENTS_HOST };

/*
 * One call with one bad argument, and the status it must return. What a case
 * leaves zero is the good argument: the context, the floats (a buffer for
 * AXIS and SEGMENTS, host memory for the host forms), the 8 x 8 view, axis 0,
 * CLFOLD_SUM (which is 0) and room for the results. A segments case gives its
 * count, offsets and segments itself.
 */
struct misuse_case {
    enum misuse_call call;
    bool no_context, no_data, no_matrix, no_results;
    const clfold_matrix *matrix; /* NULL: the 8 x 8 view */
    int axis;
    size_t count;
    cl_mem offsets;         /* SEGMENTS */
    const uint64_t *bounds; /* SEGMENTS_HOST */
    size_t segments;
    clfold_op op;
    clfold_status want;
    const char *message; /* in the last error, or NULL */
};

/* Makes each case's call on `on`, over `buffer` or `data`, into `results`. */
static void run_misuse_cases(clfold_context *on, cl_mem buffer, const void *data, void *results,
                             const struct misuse_case *cases, size_t n)
{
    static const char *const names[] = {"clfold_reduce_axis", "clfold_reduce_segments",
                                        "clfold_reduce_axis_host",
                                        "clfold_reduce_segments_host"};
    clfold_matrix view = {0, 8, 8, 8};
    for (size_t i = 0; i < n; i++) {
        const struct misuse_case *c = &cases[i];
        clfold_context *to = c->no_context ? NULL : on;
        cl_mem in = c->no_data ? NULL : buffer;
        const void *host = c->no_data ? NULL : data;
        const clfold_matrix *matrix = c->no_matrix ? NULL : c->matrix != NULL ? c->matrix : &view;
        void *out = c->no_results ? NULL : results;
        clfold_status got = CLFOLD_SUCCESS;
        switch (c->call) {
        case AXIS:
            got = clfold_reduce_axis(to, in, matrix, c->axis, CLFOLD_FLOAT, c->op, out);
            break;
        case SEGMENTS:
            got = clfold_reduce_segments(to, in, 0, c->count, c->offsets, c->segments,
                                         CLFOLD_FLOAT, c->op, out);
            break;
        case AXIS_HOST:
            got = clfold_reduce_axis_host(to, host, matrix, c->axis, CLFOLD_FLOAT, c->op, out);
            break;
        case SEGMENTS_HOST:
            got = clfold_reduce_segments_host(to, host, c->count, c->bounds, c->segments,
                                              CLFOLD_FLOAT, c->op, out);
            break;
        }
        EXPECT(got == c->want, "case %zu (%s) returned %s (%d), want %s; last error: \"%s\"", i,
               names[c->call], clfold_status_string(got), (int)got,
               clfold_status_string(c->want), clfold_last_error(to));
        if (c->message != NULL)
            EXPECT(strstr(clfold_last_error(to), c->message) != NULL,
                   "case %zu (%s): \"%s\" is not in the message: %s", i, names[c->call],
                   c->message, clfold_last_error(to));
    }
}

#define COUNT(cases) (sizeof(cases) / sizeof(cases)[0])

/* The host forms' refusals, on the 8 x 8 floats 0..63. */
static void run_host_misuse(const float *data, float *results)
{
    clfold_matrix narrow = {0, 8, 8, 7}, empty = {0, 0, 8, 8};
    uint64_t decreasing[] = {0, 6, 4, 10}, past[] = {0, 4, 65, 64}, fine[] = {0, 0, 64};
    const struct misuse_case cases[] = {
        {AXIS_HOST, .no_matrix = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS_HOST, .no_data = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT,
         .message = "data is NULL"},
        {AXIS_HOST, .axis = -1, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS_HOST, .matrix = &narrow, .axis = 1, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS_HOST, .axis = 1, .no_results = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS_HOST, .axis = 1, .op = CLFOLD_AND, .want = CLFOLD_ERROR_OP_NOT_FOR_TYPE},
        {AXIS_HOST, .no_data = true, .matrix = &empty, .axis = 1, .no_results = true,
         .want = CLFOLD_SUCCESS},
        {AXIS_HOST, .no_context = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {SEGMENTS_HOST, .count = 64, .bounds = decreasing, .segments = 3,
         .want = CLFOLD_ERROR_INVALID_ARGUMENT, .message = "offsets[2]"},
        {SEGMENTS_HOST, .count = 64, .bounds = past, .segments = 3,
         .want = CLFOLD_ERROR_INVALID_ARGUMENT, .message = "offsets[2]"},
        {SEGMENTS_HOST, .count = 64, .segments = 2, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {SEGMENTS_HOST, .no_data = true, .count = 64, .bounds = fine, .segments = 2,
         .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {SEGMENTS_HOST, .no_data = true, .no_results = true, .want = CLFOLD_SUCCESS},
    };
    run_misuse_cases(ctx, NULL, data, results, cases, COUNT(cases));

    /* Row 2 from a view at element 16 with a pitch of 16: rows 1, 3, 5, 7 of the 8 x 8. */
    clfold_matrix odd_rows = {8, 4, 8, 16};
    EXPECT_STATUS(ctx, clfold_reduce_axis_host(ctx, data, &odd_rows, 1, CLFOLD_FLOAT, CLFOLD_SUM,
                                               results),
                  CLFOLD_SUCCESS);
    for (int r = 0; r < 4; r++)
        EXPECT(results[r] == (float)(64 * (2 * r + 1) + 28), "odd row %d: %g", r, results[r]);

    long long where[2] = {7, 7};
    EXPECT_STATUS(ctx, clfold_reduce_segments_host(ctx, data, 64, fine, 2, CLFOLD_FLOAT,
                                                   CLFOLD_ARGMAX, where),
                  CLFOLD_SUCCESS);
    EXPECT(where[0] == -1 && where[1] == 63, "argmax of an empty and a full segment: %lld %lld",
           where[0], where[1]);

    /* Past the device's largest buffer, here made 4 KiB: refused, not cut. */
    setenv("CLFOLD_MAX_CHUNK_BYTES", "4096", 1);
    clfold_context *small = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    if (small == NULL)
        return;
    float *many = calloc(2048, sizeof *many);
    uint64_t whole[] = {0, 2048};
    /* 1023 x 2 + 1 elements span 8188 bytes; one column of them (`fits`) is not the span. */
    clfold_matrix tall = {0, 1024, 2, 2}, fits = {0, 1024, 1, 2}, over = {0, 513, 2, 2},
                  at_limit = {0, 512, 2, 2};
    const struct misuse_case too_large[] = {
        {AXIS_HOST, .matrix = &tall, .want = CLFOLD_ERROR_TOO_LARGE},
        {SEGMENTS_HOST, .count = 2048, .bounds = whole, .segments = 1,
         .want = CLFOLD_ERROR_TOO_LARGE},
        {AXIS_HOST, .matrix = &fits, .want = CLFOLD_ERROR_TOO_LARGE},
        {AXIS_HOST, .matrix = &over, .want = CLFOLD_ERROR_TOO_LARGE},
        {AXIS_HOST, .matrix = &at_limit, .want = CLFOLD_SUCCESS},
    };
    run_misuse_cases(small, NULL, many, results, too_large, COUNT(too_large));
    free(many);
    clfold_destroy(small);
}

static void run_misuse(void)
{
    float data[64];
    for (int i = 0; i < 64; i++)
        data[i] = (float)i;
    cl_mem buffer = buffer_of(sizeof data, data);
    float results[64];
    clfold_matrix view = {0, 8, 8, 8};
    cl_event event = (cl_event)&view; /* must become NULL */

    clfold_matrix narrow = {0, 8, 8, 7}, beyond = {1, 8, 8, 8}, huge = {0, SIZE_MAX / 2, 8, 8};
    const struct misuse_case cases[] = {
        {AXIS, .axis = 2, .want = CLFOLD_ERROR_INVALID_ARGUMENT, .message = "axis 2"},
        {AXIS, .matrix = &narrow, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS, .matrix = &beyond, .want = CLFOLD_ERROR_OUT_OF_BOUNDS},
        {AXIS, .matrix = &huge, .want = CLFOLD_ERROR_OUT_OF_BOUNDS},
        {AXIS, .no_matrix = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS, .no_data = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS, .no_results = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {AXIS, .op = CLFOLD_XOR, .want = CLFOLD_ERROR_OP_NOT_FOR_TYPE},
        {AXIS, .no_context = true, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        {SEGMENTS, .count = 64, .segments = 3, .want = CLFOLD_ERROR_INVALID_ARGUMENT},
        /* 41 offsets of 8 bytes exceed the buffer's 256 bytes. */
        {SEGMENTS, .count = 64, .offsets = buffer, .segments = 40,
         .want = CLFOLD_ERROR_OUT_OF_BOUNDS},
        {SEGMENTS, .no_results = true, .want = CLFOLD_SUCCESS},
    };
    run_misuse_cases(ctx, buffer, NULL, results, cases, COUNT(cases));

    /* The non-blocking form: a read-only result, one too small, a wrong wait list. */
    cl_int err;
    cl_mem read_only = clCreateBuffer(cl, CL_MEM_READ_ONLY, 64, NULL, &err);
    cl_mem small = clCreateBuffer(cl, CL_MEM_READ_WRITE, 31, NULL, &err);
    EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &view, 0, CLFOLD_FLOAT, CLFOLD_SUM,
                                                read_only, 0, 0, NULL, &event),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(event == NULL, "a failed call left *event set");
    event = (cl_event)&view;
    EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &view, 0, CLFOLD_FLOAT, CLFOLD_SUM,
                                                small, 0, 0, NULL, &event),
                  CLFOLD_ERROR_OUT_OF_BOUNDS);
    EXPECT(event == NULL, "a failed call left *event set");
    EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &view, 0, CLFOLD_FLOAT, CLFOLD_SUM,
                                                small, 0, 1, NULL, NULL),
                  CLFOLD_ERROR_INVALID_ARGUMENT);

    /* Results at byte 3 of a guarded buffer: column sums of the 8 x 8 matrix. */
    unsigned char bytes[3 + 32 + 5];
    memset(bytes, GUARD, sizeof bytes);
    cl_mem guarded = buffer_of(sizeof bytes, bytes);
    EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &view, 0, CLFOLD_FLOAT, CLFOLD_SUM,
                                                guarded, 3, 0, NULL, &event),
                  CLFOLD_SUCCESS);
    clEnqueueReadBuffer(clfold_queue(ctx), guarded, CL_TRUE, 0, sizeof bytes, bytes, 1, &event,
                        NULL);
    clReleaseEvent(event);
    for (int c = 0; c < 8; c++) {
        float got;
        memcpy(&got, bytes + 3 + 4 * c, 4);
        EXPECT(got == (float)(8 * c + 224), "column %d: %g", c, got); /* c*8 + 8*(0+..+7) */
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        if (i < 3 || i >= 35)
            EXPECT(bytes[i] == GUARD, "byte %zu outside the results changed", i);
    clfold_run_info info;
    EXPECT_STATUS(ctx, clfold_last_run(ctx, &info), CLFOLD_SUCCESS);
    EXPECT(strcmp(info.path, "columns") == 0 && info.bytes_read == 256, "run: %s, %llu bytes",
           info.path, (unsigned long long)info.bytes_read);

    /* No results: nothing runs, and the event still completes. */
    clfold_matrix empty = {0, 0, 8, 8};
    EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &empty, 1, CLFOLD_FLOAT, CLFOLD_SUM,
                                                guarded, 0, 0, NULL, &event),
                  CLFOLD_SUCCESS);
    EXPECT(event != NULL && clWaitForEvents(1, &event) == CL_SUCCESS, "no event to wait for");
    if (event != NULL)
        clReleaseEvent(event);
    clReleaseMemObject(read_only);
    clReleaseMemObject(small);
    clReleaseMemObject(guarded);
    clReleaseMemObject(buffer);
    run_host_misuse(data, results);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_axis --matrix|--shapes|--sweep|--segments|--misuse|--small|--small-exact\n");
        return 2;
    }
    ctx = test_context();
    if (ctx == NULL)
        return 1;
    cl = clfold_cl_context(ctx);
    fp64 = test_device_has_fp64(clfold_device(ctx));
    if (strcmp(argv[1], "--matrix") == 0)
        run_matrix();
    else if (strcmp(argv[1], "--shapes") == 0)
        run_shapes();
    else if (strcmp(argv[1], "--sweep") == 0)
        run_sweep();
    else if (strcmp(argv[1], "--segments") == 0)
        run_segments();
    else if (strcmp(argv[1], "--misuse") == 0)
        run_misuse();
    else if (strcmp(argv[1], "--small") == 0 || strcmp(argv[1], "--small-exact") == 0) {
        coarse_floats = true;
        buffers_only = true;
        run_small(strcmp(argv[1], "--small-exact") == 0);
    }
    else {
        fprintf(stderr, "test_axis: unknown mode %s\n", argv[1]);
        clfold_destroy(ctx);
        return 2;
    }
    clfold_destroy(ctx);
    return test_finish("test_axis");
}

/*
 * test_partial.c: partial results (clfold_partial). An array is cut into
 * random parts (empty ones among them); each part is reduced to a partial,
 * from host memory or from a range of a buffer, by one of two contexts (the
 * device's own shape and the other auto shape), copied as plain bytes, and
 * the partials merge in a random order and grouping. The merged partial's
 * result must be:
 *   - exact float sums: the whole array's bits, as clfold_reduce_host gives;
 *   - integers, min, max, bitwise, argmin and argmax: the whole's result;
 *   - other float sums and products: within the bound of a sequential sum
 *     of the parts' values, (n + 1) u A (reference_close, sequential).
 * Then float min and max across one merge of -0 and +0, or of a NaN and a
 * number, in both orders: of partials, and of a host array's chunks.
 * Then the refusals: partials of different kinds, bytes that are no
 * partial, an argmin of nothing finished, a rebase of a sum, NULLs; and the
 * non-blocking form's bytes against the blocking one's; and one reduction
 * on several contexts at once (clfold_reduce_host_multi).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define N 20011
#define MAX_PARTS 9

static clfold_context *contexts[2];
/*
 * contexts[1] has the CPU shape on a device without cl_khr_fp64 (llvmpipe):
 * its exact sums, which add in doubles, are refused, so contexts[0] takes them.
 */
static bool other_refuses_exact;

/* A part: elements [first, first + count) of the array. */
struct part {
    size_t first, count;
};

/* Cuts n elements into `parts` consecutive parts at random places (some empty). */
static void cut(size_t n, struct part *parts, size_t count, test_rng *rng)
{
    size_t cuts[MAX_PARTS + 1];
    cuts[0] = 0;
    cuts[count] = n;
    for (size_t i = 1; i < count; i++)
        cuts[i] = (size_t)rng_below(rng, n + 1);
    for (size_t i = 1; i < count; i++) /* insertion sort: a handful */
        for (size_t j = i; j > 1 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    for (size_t i = 0; i < count; i++)
        parts[i] = (struct part){cuts[i], cuts[i + 1] - cuts[i]};
}

/*
 * Part i's partial: every third from a range of the buffer (on the first
 * context, whose cl_context holds it), the others from host memory on
 * either context; rebased for arg ops.
 */
static void reduce_part(const void *data, cl_mem buffer, size_t i, const struct part *part,
                        clfold_type type, clfold_op op, bool exact, clfold_partial *partial)
{
    bool from_buffer = i % 3 == 0;
    clfold_context *ctx = contexts[from_buffer ? 0 : i % 2];
    if (exact && other_refuses_exact)
        ctx = contexts[0];
    size_t size = clfold_type_size(type);
    clfold_partial made;
    if (from_buffer)
        EXPECT_STATUS(ctx, clfold_reduce_partial(ctx, buffer, part->first, part->count, type, op,
                                                 &made),
                      CLFOLD_SUCCESS);
    else
        EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, (const char *)data + part->first * size,
                                                      part->count, type, op, &made),
                      CLFOLD_SUCCESS);
    memcpy(partial, &made, sizeof made); /* plain bytes: a copy is as good */
    if (op == CLFOLD_ARGMIN || op == CLFOLD_ARGMAX)
        EXPECT_STATUS(ctx, clfold_partial_rebase(partial, part->first), CLFOLD_SUCCESS);
}

/* Merges partials[0..count) into partials[0] in a random grouping: random pairs until one is left. */
static void merge_all(clfold_partial *partials, size_t count, test_rng *rng)
{
    while (count > 1) {
        size_t a = (size_t)rng_below(rng, count), b = (size_t)rng_below(rng, count - 1);
        b += b >= a;
        EXPECT_STATUS(NULL, clfold_partial_merge(&partials[a], &partials[b]), CLFOLD_SUCCESS);
        partials[b] = partials[--count];
    }
}

static void fill_for(void *data, size_t n, clfold_type type, clfold_op op, test_rng *rng)
{
    if (!type_is_float(type))
        fill_integers(data, n, type, op, rng);
    else if (op == CLFOLD_PROD)
        fill_product(data, n, type, rng);
    else
        fill_unit(data, n, type, rng);
}

static void check_case(clfold_type type, clfold_op op, clfold_accuracy accuracy, test_rng *rng)
{
    static unsigned char data[N * 8];
    clfold_partial partials[MAX_PARTS];
    struct part parts[MAX_PARTS];
    reference_value whole, merged, exact;
    long double sum_abs = 0;
    size_t count = 1 + (size_t)rng_below(rng, MAX_PARTS);
    cl_int err;

    fill_for(data, N, type, op, rng);
    for (int c = 0; c < 2; c++)
        EXPECT_STATUS(contexts[c], clfold_set_accuracy(contexts[c], accuracy), CLFOLD_SUCCESS);
    cl_mem buffer = clCreateBuffer(clfold_cl_context(contexts[0]),
                                   CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   N * clfold_type_size(type), data, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cut(N, parts, count, rng);
    for (size_t i = 0; i < count; i++)
        reduce_part(data, buffer, i, &parts[i], type, op,
                    accuracy == CLFOLD_ACCURACY_EXACT && op == CLFOLD_SUM, &partials[i]);
    merge_all(partials, count, rng);
    memset(&merged, 0, sizeof merged);
    memset(&whole, 0, sizeof whole);
    EXPECT_STATUS(NULL, clfold_partial_finish(&partials[0], &merged), CLFOLD_SUCCESS);
    EXPECT_STATUS(contexts[0], clfold_reduce_host(contexts[0], data, N, type, op, &whole),
                  CLFOLD_SUCCESS);
    reference_reduce(data, N, type, op, &exact, &sum_abs);
    clfold_type result;
    clfold_result_type(type, op, &result);
    bool loose = type_is_float(type) && (op == CLFOLD_SUM || op == CLFOLD_PROD) &&
                 accuracy != CLFOLD_ACCURACY_EXACT;
    if (loose)
        EXPECT(reference_close(&merged, &exact, result, op, accuracy, N, sum_abs, true),
               "%s %s %s in %zu parts: %.17Lg, exact %.17Lg", clfold_type_name(type),
               clfold_op_name(op), clfold_accuracy_name(accuracy), count,
               result_value(&merged, result), result_value(&exact, result));
    else
        EXPECT(reference_equal(&merged, &whole, result),
               "%s %s %s in %zu parts: %.17Lg, whole array %.17Lg", clfold_type_name(type),
               clfold_op_name(op), clfold_accuracy_name(accuracy), count,
               result_value(&merged, result), result_value(&whole, result));
    clReleaseMemObject(buffer);
}

static void run_merges(void)
{
    static const clfold_type types[] = {CLFOLD_INT8, CLFOLD_UINT16, CLFOLD_INT32, CLFOLD_UINT64,
                                        CLFOLD_HALF, CLFOLD_FLOAT, CLFOLD_DOUBLE};
    static const clfold_op ops[] = {CLFOLD_SUM, CLFOLD_PROD, CLFOLD_MIN, CLFOLD_MAX, CLFOLD_AND,
                                    CLFOLD_OR, CLFOLD_XOR, CLFOLD_ARGMIN, CLFOLD_ARGMAX};
    test_rng rng = {UINT64_C(0x7061727469616c)};
    bool fp64 = test_device_has_fp64(clfold_device(contexts[0]));
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        if (types[t] == CLFOLD_DOUBLE && !fp64)
            continue;
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            clfold_type result;
            if (clfold_result_type(types[t], ops[o], &result) != CLFOLD_SUCCESS)
                continue;
            for (int round = 0; round < 3; round++)
                check_case(types[t], ops[o], CLFOLD_ACCURACY_DEFAULT, &rng);
        }
        if (!type_is_float(types[t]))
            continue;
        /* Exact sums: the whole's bits from any parts; compensated and fp64 within bounds. */
        for (int round = 0; round < 4; round++)
            check_case(types[t], CLFOLD_SUM, CLFOLD_ACCURACY_EXACT, &rng);
        check_case(types[t], CLFOLD_SUM, CLFOLD_ACCURACY_COMPENSATED, &rng);
        if (fp64)
            check_case(types[t], CLFOLD_SUM, CLFOLD_ACCURACY_FP64, &rng);
    }
}

/*
 * min and max where one merge meets signed zeros or a NaN, in both orders:
 * -0 ranks below +0 (min gives -0, max +0) and a NaN on either side gives
 * NaN (docs/accuracy.md), whichever side of the merge holds it. Each
 * ordered pair goes through two host merges: partials of one element each,
 * `a` merged into `b` and `b` into `a`; and the host array {a, b} on a
 * context whose chunks hold one element each (CLFOLD_MAX_CHUNK_BYTES=1),
 * so that the host folds b's chunk into a's. The expected value is the
 * reference's fold of {a, b}.
 */
static void run_signs_and_nan(void)
{
    static const double values[] = {-0.0, 0.0, NAN, 1.0, -1.0};
    static const clfold_type types[] = {CLFOLD_FLOAT, CLFOLD_DOUBLE};
    static const clfold_op ops[] = {CLFOLD_MIN, CLFOLD_MAX};
    enum { VALUES = sizeof values / sizeof values[0] };
    setenv("CLFOLD_MAX_CHUNK_BYTES", "1", 1);
    clfold_context *chunked = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    EXPECT(chunked != NULL, "no context in chunks of one element");
    if (chunked == NULL)
        return;
    bool fp64 = test_device_has_fp64(clfold_device(chunked));
    for (size_t t = 0; t < 2; t++) {
        if (types[t] == CLFOLD_DOUBLE && !fp64)
            continue;
        for (size_t o = 0; o < 2; o++) {
            clfold_type type = types[t];
            clfold_op op = ops[o];
            unsigned char one[VALUES][8];
            clfold_partial partials[VALUES];
            for (size_t i = 0; i < VALUES; i++) {
                store_element(one[i], 0, type, 0, values[i]);
                EXPECT_STATUS(contexts[0], clfold_reduce_host_partial(contexts[0], one[i], 1, type,
                                                                      op, &partials[i]),
                              CLFOLD_SUCCESS);
            }
            for (size_t a = 0; a < VALUES; a++)
                for (size_t b = 0; b < VALUES; b++) {
                    unsigned char pair[16];
                    reference_value want, merged, folded;
                    long double sum_abs = 0;
                    store_element(pair, 0, type, 0, values[a]);
                    store_element(pair, 1, type, 0, values[b]);
                    reference_reduce(pair, 2, type, op, &want, &sum_abs);
                    clfold_partial into = partials[a];
                    memset(&merged, 0, sizeof merged);
                    memset(&folded, 0, sizeof folded);
                    EXPECT_STATUS(NULL, clfold_partial_merge(&into, &partials[b]), CLFOLD_SUCCESS);
                    EXPECT_STATUS(NULL, clfold_partial_finish(&into, &merged), CLFOLD_SUCCESS);
                    EXPECT(reference_equal(&merged, &want, type),
                           "%s %s: partial of %g merged with partial of %g gives %Lg, want %Lg",
                           clfold_type_name(type), clfold_op_name(op), values[a], values[b],
                           result_value(&merged, type), result_value(&want, type));
                    EXPECT_STATUS(chunked, clfold_reduce_host(chunked, pair, 2, type, op, &folded),
                                  CLFOLD_SUCCESS);
                    EXPECT(reference_equal(&folded, &want, type),
                           "%s %s of {%g, %g} in chunks of one element gives %Lg, want %Lg",
                           clfold_type_name(type), clfold_op_name(op), values[a], values[b],
                           result_value(&folded, type), result_value(&want, type));
                }
        }
    }
    clfold_destroy(chunked);
}

static void run_refusals(void)
{
    clfold_context *ctx = contexts[0];
    float x[4] = {1, 2, 3, 4};
    clfold_partial sum, exact, max, argmax, empty_arg, junk;
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 4, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 4, CLFOLD_FLOAT, CLFOLD_MAX, &max),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 4, CLFOLD_FLOAT, CLFOLD_ARGMAX, &argmax),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 0, CLFOLD_FLOAT, CLFOLD_ARGMAX,
                                                  &empty_arg),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 4, CLFOLD_FLOAT, CLFOLD_SUM, &exact),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);

    /* Different operators, or accuracies, do not merge; `into` is left alone. */
    clfold_partial before = sum;
    EXPECT_STATUS(NULL, clfold_partial_merge(&sum, &max), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_partial_merge(&sum, &exact), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(memcmp(&before, &sum, sizeof sum) == 0, "a refused merge changed its partial");
    /* A partial merged with itself doubles a sum. */
    float got = 0;
    EXPECT_STATUS(NULL, clfold_partial_merge(&sum, &sum), CLFOLD_SUCCESS);
    EXPECT_STATUS(NULL, clfold_partial_finish(&sum, &got), CLFOLD_SUCCESS);
    EXPECT(got == 20.0f, "sum merged with itself: %g", got);
    /* Bytes that are no partial: a wrong magic, version, type, size or accumulator. */
    const size_t spoil[] = {0, 4, 6, 7, 10, 11, 12};
    for (size_t i = 0; i < sizeof spoil / sizeof spoil[0]; i++) {
        junk = max;
        junk.bytes[spoil[i]] ^= 0x40;
        EXPECT(clfold_partial_finish(&junk, &got) == CLFOLD_ERROR_INVALID_ARGUMENT &&
                   clfold_partial_merge(&junk, &max) == CLFOLD_ERROR_INVALID_ARGUMENT,
               "a partial with byte %zu spoiled is taken", spoil[i]);
    }
    memset(&junk, 0, sizeof junk);
    EXPECT(clfold_partial_finish(&junk, &got) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "zero bytes are taken for a partial");
    /* Arg-reductions: rebase moves the index; no element has no index; sums do not rebase. */
    int64_t index = -5;
    EXPECT_STATUS(NULL, clfold_partial_rebase(&argmax, 1000), CLFOLD_SUCCESS);
    EXPECT_STATUS(NULL, clfold_partial_finish(&argmax, &index), CLFOLD_SUCCESS);
    EXPECT(index == 1003, "argmax rebased by 1000: %lld", (long long)index);
    EXPECT_STATUS(NULL, clfold_partial_finish(&empty_arg, &index), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_partial_rebase(&empty_arg, 7), CLFOLD_SUCCESS);
    EXPECT_STATUS(NULL, clfold_partial_merge(&empty_arg, &argmax), CLFOLD_SUCCESS);
    EXPECT_STATUS(NULL, clfold_partial_finish(&empty_arg, &index), CLFOLD_SUCCESS);
    EXPECT(index == 1003, "no element merged with argmax at 1003: %lld", (long long)index);
    EXPECT_STATUS(NULL, clfold_partial_rebase(&max, 1), CLFOLD_ERROR_INVALID_ARGUMENT);
    /* NULLs, and the reductions' own checks. */
    EXPECT_STATUS(NULL, clfold_partial_merge(NULL, &max), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_partial_merge(&max, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_partial_finish(&max, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_partial_rebase(NULL, 1), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 4, CLFOLD_FLOAT, CLFOLD_SUM, NULL),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, NULL, 4, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, x, 4, CLFOLD_FLOAT, CLFOLD_XOR, &sum),
                  CLFOLD_ERROR_OP_NOT_FOR_TYPE);
    EXPECT_STATUS(ctx, clfold_reduce_partial(ctx, NULL, 0, 4, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(clfold_reduce_host_partial(NULL, x, 4, CLFOLD_FLOAT, CLFOLD_SUM, &sum) ==
               CLFOLD_ERROR_INVALID_ARGUMENT,
           "a NULL context");
    cl_int err;
    cl_mem small = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY, 16, NULL, &err);
    EXPECT_STATUS(ctx, clfold_reduce_partial(ctx, small, 2, 3, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_OUT_OF_BOUNDS);
    clReleaseMemObject(small);
}

/*
 * The non-blocking partial: behind a user event, into a buffer at byte 32,
 * the same bytes as the blocking one's, no byte around them touched; a
 * misaligned offset or a result range out of bounds refused, event NULL.
 */
static void run_async(void)
{
    clfold_context *ctx = contexts[0];
    cl_context cl = clfold_cl_context(ctx);
    static const clfold_op ops[] = {CLFOLD_SUM, CLFOLD_ARGMAX};
    static const clfold_accuracy accuracies[] = {CLFOLD_ACCURACY_EXACT, CLFOLD_ACCURACY_DEFAULT};
    int32_t data[3001];
    unsigned char bytes[CLFOLD_PARTIAL_BYTES + 64];
    cl_int err;
    for (int i = 0; i < 3001; i++)
        data[i] = (i * 7919) % 2003 - 1000;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof bytes, NULL, &err);
    for (size_t k = 0; k < 2; k++) {
        clfold_type type = k == 0 ? CLFOLD_FLOAT : CLFOLD_INT32;
        float floats[3001];
        for (int i = 0; i < 3001; i++)
            floats[i] = (float)data[i] / 7.0f;
        cl_mem source = in;
        if (type == CLFOLD_FLOAT)
            source = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof floats,
                                    floats, &err);
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, accuracies[k]), CLFOLD_SUCCESS);
        clfold_partial blocking;
        EXPECT_STATUS(ctx, clfold_reduce_partial(ctx, source, 1, 3000, type, ops[k], &blocking),
                      CLFOLD_SUCCESS);
        memset(bytes, 0xa5, sizeof bytes);
        clEnqueueWriteBuffer(clfold_queue(ctx), out, CL_TRUE, 0, sizeof bytes, bytes, 0, NULL, NULL);
        cl_event gate = clCreateUserEvent(cl, &err), done = NULL;
        EXPECT_STATUS(ctx, clfold_reduce_partial_async(ctx, source, 1, 3000, type, ops[k], out, 32,
                                                       1, &gate, &done),
                      CLFOLD_SUCCESS);
        clSetUserEventStatus(gate, CL_COMPLETE);
        EXPECT(done != NULL && clWaitForEvents(1, &done) == CL_SUCCESS, "the partial's event");
        clEnqueueReadBuffer(clfold_queue(ctx), out, CL_TRUE, 0, sizeof bytes, bytes, 0, NULL, NULL);
        EXPECT(memcmp(bytes + 32, blocking.bytes, CLFOLD_PARTIAL_BYTES) == 0,
               "%s %s: the non-blocking partial's bytes differ from the blocking one's",
               clfold_type_name(type), clfold_op_name(ops[k]));
        bool around = true;
        for (size_t i = 0; i < sizeof bytes; i++)
            if ((i < 32 || i >= 32 + CLFOLD_PARTIAL_BYTES) && bytes[i] != 0xa5)
                around = false;
        EXPECT(around, "a byte around the non-blocking partial changed");
        if (done != NULL)
            clReleaseEvent(done);
        clReleaseEvent(gate);
        if (source != in)
            clReleaseMemObject(source);
    }
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
    cl_event event = (cl_event)&err; /* must come back NULL */
    EXPECT_STATUS(ctx, clfold_reduce_partial_async(ctx, in, 0, 10, CLFOLD_INT32, CLFOLD_SUM, out,
                                                   8, 0, NULL, &event),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(event == NULL, "a refused partial's event is not NULL");
    EXPECT_STATUS(ctx, clfold_reduce_partial_async(ctx, in, 0, 10, CLFOLD_INT32, CLFOLD_SUM, out,
                                                   sizeof bytes - CLFOLD_PARTIAL_BYTES + 16, 0,
                                                   NULL, NULL),
                  CLFOLD_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS(ctx, clfold_reduce_partial_async(ctx, in, 0, 10, CLFOLD_INT32, CLFOLD_SUM, out,
                                                   sizeof bytes - CLFOLD_PARTIAL_BYTES, 0, NULL,
                                                   NULL),
                  CLFOLD_SUCCESS);
    clFinish(clfold_queue(ctx));
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/*
 * clfold_reduce_host_multi on three contexts of the default device (both
 * auto shapes, one of them in chunks of 40000 bytes): the single context's
 * bits for exact sums, integers, min and arg-reductions; refusals.
 */
static void run_multi(void)
{
    static float floats[1000003];
    static int32_t ints[1000003];
    setenv("CLFOLD_MAX_CHUNK_BYTES", "40000", 1);
    clfold_context *chunked = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    EXPECT(chunked != NULL, "no context in chunks of 40000 bytes");
    if (chunked == NULL)
        return;
    clfold_context *three[3] = {contexts[0], contexts[1], chunked};
    clfold_context *exact_two[2] = {contexts[0], chunked}; /* other_refuses_exact */
    test_rng rng = {UINT64_C(0x6d756c7469)};
    fill_unit(floats, 1000003, CLFOLD_FLOAT, &rng);
    fill_integers(ints, 1000003, CLFOLD_INT32, CLFOLD_SUM, &rng);
    floats[999999] = 7.0f; /* argmax near the end, in the last context's part */
    static const struct {
        clfold_type type;
        clfold_op op;
        clfold_accuracy accuracy;
    } cases[] = {
        {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT},
        {CLFOLD_FLOAT, CLFOLD_ARGMAX, CLFOLD_ACCURACY_DEFAULT},
        {CLFOLD_FLOAT, CLFOLD_MIN, CLFOLD_ACCURACY_DEFAULT},
        {CLFOLD_INT32, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
        {CLFOLD_INT32, CLFOLD_XOR, CLFOLD_ACCURACY_DEFAULT},
        {CLFOLD_INT32, CLFOLD_ARGMIN, CLFOLD_ACCURACY_DEFAULT},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const void *data = cases[c].type == CLFOLD_FLOAT ? (const void *)floats : (const void *)ints;
        bool exact = cases[c].accuracy == CLFOLD_ACCURACY_EXACT;
        clfold_context *const *on = exact && other_refuses_exact ? exact_two : three;
        size_t most = on == three ? 3 : 2;
        for (size_t i = 0; i < most; i++)
            EXPECT_STATUS(on[i], clfold_set_accuracy(on[i], cases[c].accuracy), CLFOLD_SUCCESS);
        /* From the array's start, and from its second element: parts cut off 4096-byte lines. */
        for (size_t n = 1; n <= 6; n++) {
            size_t shift = n > 3, count = 1000003 - shift;
            if (n - 3 * shift > most)
                continue;
            const void *from = (const char *)data + shift * 4;
            reference_value got, want;
            memset(&got, 0, sizeof got);
            memset(&want, 0, sizeof want);
            EXPECT_STATUS(on[0], clfold_reduce_host_multi(on, n - 3 * shift, from, count,
                                                          cases[c].type, cases[c].op, &got),
                          CLFOLD_SUCCESS);
            EXPECT_STATUS(on[0], clfold_reduce_host(on[0], from, count, cases[c].type,
                                                    cases[c].op, &want),
                          CLFOLD_SUCCESS);
            clfold_type result;
            clfold_result_type(cases[c].type, cases[c].op, &result);
            EXPECT(reference_equal(&got, &want, result),
                   "%s %s on %zu contexts from element %zu: %.17Lg, one context %.17Lg",
                   clfold_type_name(cases[c].type), clfold_op_name(cases[c].op), n - 3 * shift,
                   shift, result_value(&got, result), result_value(&want, result));
        }
    }
    /* A default float sum across contexts stays within the bound. */
    reference_value got, exact;
    long double sum_abs = 0;
    for (size_t i = 0; i < 3; i++)
        EXPECT_STATUS(three[i], clfold_set_accuracy(three[i], CLFOLD_ACCURACY_DEFAULT),
                      CLFOLD_SUCCESS);
    EXPECT_STATUS(three[0], clfold_reduce_host_multi(three, 3, floats, 1000003, CLFOLD_FLOAT,
                                                     CLFOLD_SUM, &got),
                  CLFOLD_SUCCESS);
    reference_reduce(floats, 1000003, CLFOLD_FLOAT, CLFOLD_SUM, &exact, &sum_abs);
    EXPECT(reference_close(&got, &exact, CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT,
                           1000003, sum_abs, true),
           "default float sum on 3 contexts: %.9g, exact %.9Lg", got.f32,
           result_value(&exact, CLFOLD_FLOAT));
    /* Refusals: accuracies that differ, a context twice, NULLs, nothing, an argmax of nothing. */
    EXPECT_STATUS(three[2], clfold_set_accuracy(three[2], CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    EXPECT_STATUS(three[0], clfold_reduce_host_multi(three, 3, floats, 10, CLFOLD_FLOAT,
                                                     CLFOLD_SUM, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(clfold_last_error(three[0]), "accuracy") != NULL, "message: \"%s\"",
           clfold_last_error(three[0]));
    clfold_context *twice[2] = {contexts[0], contexts[0]};
    EXPECT_STATUS(contexts[0], clfold_reduce_host_multi(twice, 2, floats, 10, CLFOLD_FLOAT,
                                                        CLFOLD_SUM, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    clfold_context *with_null[2] = {contexts[0], NULL};
    EXPECT_STATUS(contexts[0], clfold_reduce_host_multi(with_null, 2, floats, 10, CLFOLD_FLOAT,
                                                        CLFOLD_SUM, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(clfold_reduce_host_multi(three, 0, floats, 10, CLFOLD_FLOAT, CLFOLD_SUM, &got) ==
               CLFOLD_ERROR_INVALID_ARGUMENT,
           "no contexts");
    EXPECT_STATUS(contexts[0], clfold_reduce_host_multi(three, 2, NULL, 10, CLFOLD_FLOAT,
                                                        CLFOLD_SUM, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(contexts[0], clfold_reduce_host_multi(three, 2, floats, 0, CLFOLD_FLOAT,
                                                        CLFOLD_ARGMAX, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    got.f32 = 5.0f;
    EXPECT_STATUS(contexts[0], clfold_reduce_host_multi(three, 2, NULL, 0, CLFOLD_FLOAT,
                                                        CLFOLD_SUM, &got),
                  CLFOLD_SUCCESS);
    EXPECT(got.f32 == 0.0f, "an empty sum on 2 contexts: %g", got.f32);
    clfold_destroy(chunked);
}

int main(void)
{
    contexts[0] = test_context();
    /* The other auto shape, so that partials made by different kernels merge. */
    const char *shape = getenv("CLFOLD_AUTO_SHAPE");
    bool own_is_cpu = shape != NULL && strcmp(shape, "cpu") == 0;
    setenv("CLFOLD_AUTO_SHAPE", own_is_cpu ? "gpu" : "cpu", 1);
    contexts[1] = test_context();
    if (shape != NULL)
        setenv("CLFOLD_AUTO_SHAPE", own_is_cpu ? "cpu" : "gpu", 1);
    else
        unsetenv("CLFOLD_AUTO_SHAPE");
    if (contexts[0] == NULL || contexts[1] == NULL)
        return 1;
    other_refuses_exact = !own_is_cpu && !test_device_has_fp64(clfold_device(contexts[0]));
    run_merges();
    run_signs_and_nan();
    run_refusals();
    run_async();
    run_multi();
    clfold_destroy(contexts[0]);
    clfold_destroy(contexts[1]);
    return test_finish("test_partial");
}

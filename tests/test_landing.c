/*
 * test_landing.c: a blocking reduction's value on its way to the host
 * (src/reduce/landing.c). Linked with the interposer of cl_shim.c, which
 * can make every clFinish fail: a value that arrives anyway came by the
 * watch over host memory, not by a wait.
 *
 *   --watched  the context's GPU path writes its values into host memory
 *              (CTest sets CLFOLD_AUTO_SHAPE=gpu and CLFOLD_HOST_RESULT=1,
 *              which on POCL is a mapped CL_MEM_ALLOC_HOST_PTR buffer and
 *              on NVIDIA its host-placed buffer). Checked:
 *              - with clFinish failing, float, double and int32 sums, a
 *                uint32 xor and a float max still come back, right, so the
 *                watch took them, at one group and at several;
 *              - 300 calls in a row, each value different from the one
 *                before, each right: no value is stale;
 *              - every value has the bits of a context that reads it
 *                (CLFOLD_HOST_RESULT=0), exact sums among them;
 *              - values that hold the sentinel word (landing.c's
 *                0x7FB5A3C1), whole or as either half of eight bytes, are
 *                waited for (with clFinish failing they fail) and right;
 *              - 1- and 2-byte results, offsets into the caller's buffer,
 *                and a non-blocking reduction enqueued right after a
 *                watched one (its kernel may still be ending) are right.
 *   --read     CLFOLD_HOST_RESULT=0: no value comes without clFinish. Then
 *              the same context with clfold_set_param's host_result 1 and
 *              the GPU shape: values come without clFinish; back to 0,
 *              none does again.
 */
#define _POSIX_C_SOURCE 200112L /* setenv */

#include "cl_shim.h"
#include "util.h"

#define SENTINEL_WORD UINT32_C(0x7FB5A3C1)

/* Element counts: one group, several groups of the GPU shape. */
static const size_t SIZES[] = {1, 1000, 65539, 1048581};

/* A context made with CLFOLD_HOST_RESULT as given (NULL: as the environment says). */
static clfold_context *context_with(const char *host_result)
{
    char *kept = getenv("CLFOLD_HOST_RESULT");
    char saved[16] = "";
    if (kept != NULL)
        snprintf(saved, sizeof saved, "%s", kept);
    if (host_result != NULL)
        setenv("CLFOLD_HOST_RESULT", host_result, 1);
    clfold_context *ctx = test_context();
    if (kept != NULL)
        setenv("CLFOLD_HOST_RESULT", saved, 1);
    else
        unsetenv("CLFOLD_HOST_RESULT");
    return ctx;
}

/* Every clFinish fails, or none: a blocking reduction that waits needs one. */
static void fail_waits(bool fail) { shim_fail_calls(fail ? "clFinish" : NULL, 0, 0); }

/* Host data of `n` elements of `type`: small integers, so that sums are exact in floats. */
static void *filled(clfold_type type, size_t n, test_rng *rng)
{
    void *data = malloc(n * clfold_type_size(type) + 1);
    if (data != NULL)
        fill_small(data, n, type, rng);
    return data;
}

/*
 * A blocking reduction with every clFinish failing. A call that then fails
 * may leave its kernel running over `data`: the queue is drained before
 * the caller frees it.
 */
static clfold_status reduce_without_waits(clfold_context *ctx, const void *data, size_t n,
                                          clfold_type type, clfold_op op, void *result)
{
    fail_waits(true);
    clfold_status status = clfold_reduce_host(ctx, data, n, type, op, result);
    fail_waits(false);
    if (status != CLFOLD_SUCCESS)
        clFinish(clfold_queue(ctx));
    return status;
}

/*
 * One reduction on `watched`, after a first one that builds its kernel
 * (POCL compiles a kernel at its first launch), with waits failing or not,
 * checked against the same on `reading`, bitwise. Returns its status.
 */
static clfold_status agree(clfold_context *watched, clfold_context *reading, const void *data,
                           size_t n, clfold_type type, clfold_op op, bool waits_fail)
{
    unsigned char got[8] = {0}, want[8] = {0};
    clfold_type result_type;
    clfold_result_type(type, op, &result_type);
    EXPECT_STATUS(watched, clfold_reduce_host(watched, data, n, type, op, got), CLFOLD_SUCCESS);
    clfold_status status = waits_fail ? reduce_without_waits(watched, data, n, type, op, got)
                                      : clfold_reduce_host(watched, data, n, type, op, got);
    if (status != CLFOLD_SUCCESS)
        return status;
    EXPECT_STATUS(reading, clfold_reduce_host(reading, data, n, type, op, want), CLFOLD_SUCCESS);
    EXPECT(memcmp(got, want, clfold_type_size(result_type)) == 0,
           "%s %s of %zu: the watched value differs from the read one", clfold_type_name(type),
           clfold_op_name(op), n);
    return status;
}

/* Values that arrive with every wait failing: the watch took them. */
static void watched_without_waits(clfold_context *watched, clfold_context *reading, bool fp64)
{
    static const struct {
        clfold_type type;
        clfold_op op;
    } CASES[] = {{CLFOLD_FLOAT, CLFOLD_SUM}, {CLFOLD_DOUBLE, CLFOLD_SUM},
                 {CLFOLD_INT32, CLFOLD_SUM}, {CLFOLD_UINT32, CLFOLD_XOR},
                 {CLFOLD_FLOAT, CLFOLD_MAX}};
    test_rng rng = {7};
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        if (CASES[c].type == CLFOLD_DOUBLE && !fp64)
            continue;
        for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
            void *data = filled(CASES[c].type, SIZES[s], &rng);
            EXPECT(data != NULL, "no memory");
            if (data == NULL)
                return;
            /*
             * A kernel may start late on a loaded machine (another process on
             * the GPU, POCL's threads on busy cores) and outlast the watch;
             * one of three calls must be watched.
             */
            clfold_status status = CLFOLD_ERROR_INVALID_ARGUMENT;
            for (int attempt = 0; attempt < 3 && status != CLFOLD_SUCCESS; attempt++)
                status = agree(watched, reading, data, SIZES[s], CASES[c].type, CASES[c].op,
                               true);
            EXPECT(status == CLFOLD_SUCCESS, "%s %s of %zu with waits failing, three times: %s (%s)",
                   clfold_type_name(CASES[c].type), clfold_op_name(CASES[c].op), SIZES[s],
                   clfold_status_string(status), clfold_last_error(watched));
            free(data);
        }
    }
}

/* 300 calls, each value differing from the last: a stale one would be the one before. */
static void fresh_values(clfold_context *watched)
{
    enum { N = 4099, CALLS = 300 };
    static int32_t data[N];
    for (size_t i = 0; i < N; i++)
        data[i] = (int32_t)(i % 13) - 6;
    int64_t base = 0;
    for (size_t i = 1; i < N; i++)
        base += data[i];
    unsigned long wrong = 0;
    for (int call = 0; call < CALLS; call++) {
        int64_t got = 0;
        data[0] = call * 1000 + 17;
        clfold_status status = clfold_reduce_host(watched, data, N, CLFOLD_INT32, CLFOLD_SUM, &got);
        wrong += status != CLFOLD_SUCCESS || got != base + data[0];
    }
    EXPECT(wrong == 0, "%lu of %d successive sums were wrong or stale", wrong, CALLS);
}

/* Exact sums go the same way: the bits of the read context. */
static void exact_sums(clfold_context *watched, clfold_context *reading, bool fp64)
{
    test_rng rng = {11};
    EXPECT_STATUS(watched, clfold_set_accuracy(watched, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    EXPECT_STATUS(reading, clfold_set_accuracy(reading, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++)
        for (int t = 0; t < 2; t++) {
            clfold_type type = t == 0 ? CLFOLD_FLOAT : CLFOLD_DOUBLE;
            if (type == CLFOLD_DOUBLE && !fp64)
                continue;
            void *data = malloc(SIZES[s] * clfold_type_size(type));
            EXPECT(data != NULL, "no memory");
            if (data == NULL)
                return;
            fill_unit(data, SIZES[s], type, &rng);
            EXPECT(agree(watched, reading, data, SIZES[s], type, CLFOLD_SUM, false) ==
                       CLFOLD_SUCCESS,
                   "exact %s sum of %zu: %s", clfold_type_name(type), SIZES[s],
                   clfold_last_error(watched));
            free(data);
        }
    clfold_set_accuracy(watched, CLFOLD_ACCURACY_DEFAULT);
    clfold_set_accuracy(reading, CLFOLD_ACCURACY_DEFAULT);
}

/*
 * Results holding the sentinel word: the watch cannot tell them from no
 * value, so they are waited for (with clFinish failing, the call fails)
 * and right.
 */
static void sentinel_values(clfold_context *watched)
{
    enum { N = 2053 };
    static int32_t ints[N];
    static int64_t low[N];
    static uint64_t high[N];
    for (size_t i = 0; i < N; i++) {
        ints[i] = (int32_t)i;
        low[i] = 0;
        high[i] = 0;
    }
    ints[N / 2] = (int32_t)SENTINEL_WORD;                     /* the max is the sentinel */
    low[7] = (int64_t)((UINT64_C(5) << 32) | SENTINEL_WORD);  /* the low word of a sum */
    high[9] = (uint64_t)SENTINEL_WORD << 32 | 3;              /* the high word of an or */

    int32_t max = 0;
    clfold_status status = reduce_without_waits(watched, ints, N, CLFOLD_INT32, CLFOLD_MAX, &max);
    EXPECT(status != CLFOLD_SUCCESS, "a max equal to the sentinel came back without a wait");
    EXPECT_STATUS(watched, clfold_reduce_host(watched, ints, N, CLFOLD_INT32, CLFOLD_MAX, &max),
                  CLFOLD_SUCCESS);
    EXPECT((uint32_t)max == SENTINEL_WORD, "max %x, want %x", (unsigned)max,
           (unsigned)SENTINEL_WORD);

    int64_t sum = 0;
    uint64_t or_bits = 0;
    EXPECT_STATUS(watched, clfold_reduce_host(watched, low, N, CLFOLD_INT64, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == low[7], "sum %llx, want %llx", (unsigned long long)sum,
           (unsigned long long)low[7]);
    EXPECT_STATUS(watched, clfold_reduce_host(watched, high, N, CLFOLD_UINT64, CLFOLD_OR, &or_bits),
                  CLFOLD_SUCCESS);
    EXPECT(or_bits == high[9], "or %llx, want %llx", (unsigned long long)or_bits,
           (unsigned long long)high[9]);
}

/* Small results, offsets, and a non-blocking reduction right after a watched one. */
static void around_the_watch(clfold_context *watched)
{
    enum { N = 70001 };
    static int8_t bytes[N];
    static uint16_t shorts[N];
    static float floats[N];
    for (size_t i = 0; i < N; i++) {
        bytes[i] = (int8_t)(i % 200 - 100);
        shorts[i] = (uint16_t)(i * 7);
        floats[i] = (float)(i % 5);
    }
    int8_t min = 0;
    uint16_t max = 0;
    EXPECT_STATUS(watched, clfold_reduce_host(watched, bytes, N, CLFOLD_INT8, CLFOLD_MIN, &min),
                  CLFOLD_SUCCESS);
    EXPECT(min == -100, "int8 min %d", min);
    EXPECT_STATUS(watched, clfold_reduce_host(watched, shorts, N, CLFOLD_UINT16, CLFOLD_MAX, &max),
                  CLFOLD_SUCCESS);
    uint16_t want_max = 0;
    for (size_t i = 0; i < N; i++)
        want_max = shorts[i] > want_max ? shorts[i] : want_max;
    EXPECT(max == want_max, "uint16 max %u, want %u", max, want_max);

    cl_int err;
    cl_mem in = clCreateBuffer(clfold_cl_context(watched), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof floats, floats, &err);
    cl_mem out = clCreateBuffer(clfold_cl_context(watched), CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT(in != NULL && out != NULL, "buffers: %d", err);
    if (in == NULL || out == NULL)
        return;
    for (size_t offset = 0; offset < 6; offset++) {
        float sum = -1, async_sum = -1;
        double want = 0;
        for (size_t i = offset; i < N; i++)
            want += floats[i];
        EXPECT_STATUS(watched,
                      clfold_reduce_buffer(watched, in, offset, N - offset, CLFOLD_FLOAT,
                                           CLFOLD_SUM, &sum),
                      CLFOLD_SUCCESS);
        /* Enqueued while the watched kernel may still be ending: it takes that scratch. */
        EXPECT_STATUS(watched,
                      clfold_reduce_buffer_async(watched, in, offset, N - offset, CLFOLD_FLOAT,
                                                 CLFOLD_SUM, out, 4, 0, NULL, NULL),
                      CLFOLD_SUCCESS);
        EXPECT(clEnqueueReadBuffer(clfold_queue(watched), out, CL_TRUE, 4, sizeof async_sum,
                                   &async_sum, 0, NULL, NULL) == CL_SUCCESS,
               "read");
        EXPECT(sum == (float)want && async_sum == (float)want,
               "offset %zu: blocking %g, non-blocking %g, want %g", offset, sum, async_sum, want);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

static int run_watched(void)
{
    clfold_context *watched = context_with(NULL), *reading = context_with("0");
    if (watched == NULL || reading == NULL)
        return 1;
    bool fp64 = test_device_has_fp64(clfold_device(watched));
    watched_without_waits(watched, reading, fp64);
    fresh_values(watched);
    exact_sums(watched, reading, fp64);
    sentinel_values(watched);
    around_the_watch(watched);
    clfold_destroy(watched);
    clfold_destroy(reading);
    return test_finish("landing --watched");
}

static int run_read(void)
{
    clfold_context *reading = context_with("0");
    float data[100] = {0}, sum = -1;
    if (reading == NULL)
        return 1;
    data[3] = 2;
    EXPECT_STATUS(reading, clfold_reduce_host(reading, data, 100, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    clfold_status status = reduce_without_waits(reading, data, 100, CLFOLD_FLOAT, CLFOLD_SUM, &sum);
    EXPECT(status != CLFOLD_SUCCESS, "a value came without a wait on a context that reads");
    EXPECT_STATUS(reading, clfold_reduce_host(reading, data, 100, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == 2, "sum %g", sum);
    /* The parameter, changed on a context that has landed values: the next call follows it. */
    const int64_t host_results[] = {1, 0, 1};
    EXPECT_STATUS(reading, clfold_set_param(reading, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_SHAPE_GPU),
                  CLFOLD_SUCCESS);
    for (int i = 0; i < 3; i++) {
        EXPECT_STATUS(reading, clfold_set_param(reading, CLFOLD_PARAM_HOST_RESULT, host_results[i]),
                      CLFOLD_SUCCESS);
        EXPECT_STATUS(reading, clfold_reduce_host(reading, data, 100, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                      CLFOLD_SUCCESS);
        sum = -1;
        status = reduce_without_waits(reading, data, 100, CLFOLD_FLOAT, CLFOLD_SUM, &sum);
        EXPECT((status == CLFOLD_SUCCESS) == (host_results[i] == 1) &&
                   (status != CLFOLD_SUCCESS || sum == 2),
               "host_result %lld: a value without a wait %s (%g)", (long long)host_results[i],
               status == CLFOLD_SUCCESS ? "came" : "failed", sum);
    }
    clfold_destroy(reading);
    return test_finish("landing --read");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--watched") == 0)
        return run_watched();
    if (argc == 2 && strcmp(argv[1], "--read") == 0)
        return run_read();
    fprintf(stderr, "usage: test_landing --watched|--read\n");
    return 2;
}

/*
 * test_api.c: the public API surface: context creation (selectors, a
 * caller's own queue), argument checking and its status codes, identities
 * of empty reductions, the type/name tables, status strings, run records,
 * build options, the CLFOLD_KERNEL_DIR override with a broken kernel, and
 * the environment's settings (each malformed one refused at create, read
 * once).
 * After every refused call the context must still reduce correctly.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv, unsetenv */

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#ifndef CLFOLD_SOURCE_DIR
#error "CLFOLD_SOURCE_DIR must name the source tree (for cl/core/defs.cl and cl/reduce/ladder.cl)"
#endif

/* A small int32 sum that must come out right: the context still works. */
static void expect_usable(clfold_context *ctx, const char *after)
{
    const int32_t data[5] = {1, -2, 300000, INT32_MAX, INT32_MIN};
    int64_t sum = 0;
    clfold_status status = clfold_reduce_host(ctx, data, 5, CLFOLD_INT32, CLFOLD_SUM, &sum);
    EXPECT(status == CLFOLD_SUCCESS && sum == 299998,
           "context unusable after %s: %s, sum %lld: %s", after, clfold_status_string(status),
           (long long)sum, clfold_last_error(ctx));
}

/* ---- creation ------------------------------------------------------------ */

/* A lowercase run of letters and digits of the device name, at least 3 long. */
static bool name_substring(const char *name, char *out, size_t cap)
{
    for (const char *p = name; *p != '\0'; p++) {
        size_t n = 0;
        while (isalnum((unsigned char)p[n]) && n + 1 < cap) {
            out[n] = (char)tolower((unsigned char)p[n]);
            n++;
        }
        out[n] = '\0';
        if (n >= 3)
            return true;
        if (n > 0)
            p += n - 1;
    }
    return false;
}

static void test_create(void)
{
    clfold_context *ctx = NULL;
    char name[256] = "", selector[64], upper[64];

    EXPECT_STATUS(NULL, clfold_create(&ctx, NULL), CLFOLD_SUCCESS);
    EXPECT(ctx != NULL && clfold_cl_context(ctx) != NULL && clfold_queue(ctx) != NULL &&
               clfold_device(ctx) != NULL,
           "default context incomplete");
    if (ctx == NULL)
        return;
    cl_device_id device = clfold_device(ctx);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    expect_usable(ctx, "clfold_create(NULL)");
    clfold_destroy(ctx);

    ctx = NULL;
    EXPECT_STATUS(NULL, clfold_create(&ctx, "0:0"), CLFOLD_SUCCESS);
    EXPECT(ctx != NULL, "\"0:0\" gave no context");
    if (ctx != NULL)
        expect_usable(ctx, "clfold_create(\"0:0\")");
    clfold_destroy(ctx);

    EXPECT(name_substring(name, selector, sizeof selector), "no usable part in \"%s\"", name);
    for (size_t i = 0; i <= strlen(selector); i++)
        upper[i] = (char)toupper((unsigned char)selector[i]);
    const char *selectors[] = {selector, upper};
    for (int i = 0; i < 2; i++) {
        ctx = NULL;
        EXPECT_STATUS(NULL, clfold_create(&ctx, selectors[i]), CLFOLD_SUCCESS);
        EXPECT(ctx != NULL && clfold_device(ctx) == device,
               "selector \"%s\" (of \"%s\") chose another device", selectors[i], name);
        clfold_destroy(ctx);
    }

    const char *missing[] = {"no-such-device-anywhere", "99:0", "0:99"};
    for (int i = 0; i < 3; i++) {
        ctx = (clfold_context *)&ctx; /* must be overwritten with NULL */
        EXPECT_STATUS(NULL, clfold_create(&ctx, missing[i]), CLFOLD_ERROR_DEVICE_NOT_FOUND);
        EXPECT(ctx == NULL, "failed clfold_create(\"%s\") left ctx non-NULL", missing[i]);
        /* With no context to ask, the thread's last create says why. */
        EXPECT(strstr(clfold_last_error(NULL), missing[i]) != NULL,
               "clfold_last_error(NULL) after clfold_create(\"%s\"): \"%s\"", missing[i],
               clfold_last_error(NULL));
    }
    EXPECT_STATUS(NULL, clfold_create(&ctx, NULL), CLFOLD_SUCCESS);
    EXPECT(clfold_last_error(NULL)[0] == '\0', "a successful create left \"%s\"",
           clfold_last_error(NULL));
    clfold_destroy(ctx);

    /* Nowhere to put the context: refused, not created and leaked. */
    EXPECT_STATUS(NULL, clfold_create(NULL, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(clfold_last_error(NULL), "NULL") != NULL, "clfold_create(NULL, NULL) said \"%s\"",
           clfold_last_error(NULL));
    clfold_destroy(NULL);
    EXPECT(strcmp(clfold_version_string(), "0.1.0") == 0 && CLFOLD_VERSION_MAJOR == 0 &&
               CLFOLD_VERSION_MINOR == 1 && CLFOLD_VERSION_PATCH == 0,
           "version string %s", clfold_version_string());
}

/* A caller's own cl_context and queue: used, retained, and left working. */
static void test_user_queue(cl_device_id device, cl_command_queue_properties props)
{
    cl_int err;
    clfold_context *ctx = NULL;
    cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    EXPECT(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_command_queue queue = clCreateCommandQueue(cl, device, props, &err);
    EXPECT(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    if (queue == NULL)
        return;

    EXPECT_STATUS(ctx, clfold_create_with_queue(&ctx, queue), CLFOLD_SUCCESS);
    if (ctx == NULL)
        return;
    EXPECT(clfold_cl_context(ctx) == cl && clfold_queue(ctx) == queue &&
               clfold_device(ctx) == device,
           "clfold_create_with_queue: the context does not hand back the caller's objects");
    expect_usable(ctx, "clfold_create_with_queue");
    clfold_run_info info;
    EXPECT_STATUS(ctx, clfold_last_run(ctx, &info), CLFOLD_SUCCESS);
    if (props & CL_QUEUE_PROFILING_ENABLE)
        EXPECT(info.device_ms >= 0, "device_ms %g with a profiling queue", info.device_ms);
    else
        EXPECT(info.device_ms < 0, "device_ms %g without profiling", info.device_ms);

    /* Refused without a place for the context: nothing retained. */
    cl_uint before = 0, after = 0;
    clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof before, &before, NULL);
    EXPECT_STATUS(ctx, clfold_create_with_queue(NULL, queue), CLFOLD_ERROR_INVALID_ARGUMENT);
    clfold_context *refused = NULL;
    EXPECT_STATUS(ctx, clfold_create_with_queue(&refused, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(refused == NULL && strstr(clfold_last_error(NULL), "queue") != NULL,
           "clfold_create_with_queue(&ctx, NULL) said \"%s\"", clfold_last_error(NULL));
    clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof after, &after, NULL);
    EXPECT(after == before, "refused clfold_create_with_queue(NULL, q) left the queue retained "
           "(%u -> %u references)", before, after);

    clfold_destroy(ctx);
    int32_t word = 7;
    cl_mem buffer = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof word, NULL, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer after clfold_destroy: %d", err);
    EXPECT(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, sizeof word, &word, 0, NULL, NULL) ==
               CL_SUCCESS,
           "the caller's queue no longer works after clfold_destroy");
    EXPECT(clFinish(queue) == CL_SUCCESS, "clFinish on the caller's queue failed");
    clReleaseMemObject(buffer);
    EXPECT(clReleaseCommandQueue(queue) == CL_SUCCESS, "the caller's clReleaseCommandQueue failed");
    EXPECT(clReleaseContext(cl) == CL_SUCCESS, "the caller's clReleaseContext failed");

    ctx = (clfold_context *)&ctx;
    EXPECT_STATUS(NULL, clfold_create_with_queue(&ctx, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(ctx == NULL, "failed clfold_create_with_queue left ctx non-NULL");
}

/* An out-of-order queue is refused: clfold's passes depend on each other. */
static void test_out_of_order_queue(cl_device_id device)
{
    cl_int err;
    clfold_context *ctx = (clfold_context *)&ctx;
    cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(
        cl, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, &err);
    if (queue == NULL) {
        printf("test_api: the device has no out-of-order queues (%d): not checked\n", err);
    } else {
        EXPECT_STATUS(NULL, clfold_create_with_queue(&ctx, queue), CLFOLD_ERROR_INVALID_ARGUMENT);
        EXPECT(ctx == NULL, "a refused clfold_create_with_queue left a context");
        clReleaseCommandQueue(queue);
    }
    clReleaseContext(cl);
}

/* ---- buffers and arguments ----------------------------------------------- */

static void test_buffers(clfold_context *ctx)
{
    enum { N = 1000 };
    int32_t data[N];
    test_rng rng = {42};
    cl_int err;
    fill_integers(data, N, CLFOLD_INT32, CLFOLD_SUM, &rng);
    cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof data, data, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);

    const size_t ranges[][2] = {{0, N}, {10, 100}, {1, N - 1}, {N - 100, 100}, {N, 0}, {N - 1, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        size_t offset = ranges[i][0], count = ranges[i][1];
        reference_value got = {.i64 = -1}, want;
        EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, offset, count, CLFOLD_INT32,
                                                CLFOLD_SUM, &got),
                      CLFOLD_SUCCESS);
        reference_reduce(data + offset, count, CLFOLD_INT32, CLFOLD_SUM, &want, NULL);
        EXPECT(got.i64 == want.i64, "offset %zu count %zu: got %lld, want %lld", offset, count,
               (long long)got.i64, (long long)want.i64);
    }

    const size_t beyond[][2] = {{N - 99, 100}, {0, N + 1}, {N + 1, 0}, {1, SIZE_MAX}, {SIZE_MAX, 2}};
    for (size_t i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
        int64_t sum;
        EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, beyond[i][0], beyond[i][1],
                                                CLFOLD_INT32, CLFOLD_SUM, &sum),
                      CLFOLD_ERROR_OUT_OF_BOUNDS);
        EXPECT(clfold_last_error(ctx)[0] != '\0', "out of bounds without a message");
        expect_usable(ctx, "CLFOLD_ERROR_OUT_OF_BOUNDS");
    }
    /* In elements of the type: 1000 int32 are 500 int64. */
    int64_t wide;
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, N / 2, CLFOLD_INT64, CLFOLD_XOR, &wide),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, N / 2 + 1, CLFOLD_INT64, CLFOLD_XOR,
                                            &wide),
                  CLFOLD_ERROR_OUT_OF_BOUNDS);

    clReleaseMemObject(buffer);
}

/* A buffer of another cl_context is refused. */
static void test_foreign_buffer(clfold_context *ctx)
{
    const int32_t data[4] = {1, 2, 3, 4};
    cl_int err;
    cl_device_id device = clfold_device(ctx);
    cl_context other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data,
                                    (void *)data, &err);
    int64_t sum;
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, foreign, 0, 4, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_WRONG_CONTEXT);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "wrong context without a message");
    expect_usable(ctx, "CLFOLD_ERROR_WRONG_CONTEXT");
    clReleaseMemObject(foreign);
    clReleaseContext(other);
}

/* NULL pointers are refused with a message; NULL contexts without a crash. */
static void test_null_pointers(clfold_context *ctx)
{
    const int32_t data[10] = {0};
    int64_t sum;
    cl_int err;
    cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof data, (void *)data, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, NULL, 0, 1, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "NULL buffer without a message");
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, 1, CLFOLD_INT32, CLFOLD_SUM, NULL),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "NULL result without a message");
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, NULL, 10, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "NULL data without a message");
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 10, CLFOLD_INT32, CLFOLD_SUM, NULL),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "NULL result without a message");
    expect_usable(ctx, "NULL pointers");
    /* Calls without a context are refused and leave the thread's create message alone. */
    char create_message[256];
    snprintf(create_message, sizeof create_message, "%s", clfold_last_error(NULL));
    EXPECT_STATUS(NULL, clfold_reduce_host(NULL, data, 10, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_reduce_buffer(NULL, buffer, 0, 10, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_set_kernel(NULL, CLFOLD_K3, 0), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strcmp(clfold_last_error(NULL), create_message) == 0 &&
               clfold_last_build_options(NULL)[0] == '\0',
           "NULL context: the create message must stay and the options be \"\"");
    EXPECT(clfold_cl_context(NULL) == NULL && clfold_queue(NULL) == NULL &&
               clfold_device(NULL) == NULL,
           "accessors of a NULL context must give NULL");

    /* A byte size that overflows size_t: refused before anything is read. */
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, SIZE_MAX / 2, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_ERROR_TOO_LARGE);
    expect_usable(ctx, "CLFOLD_ERROR_TOO_LARGE");
    clReleaseMemObject(buffer);
}

static void test_bad_values(clfold_context *ctx)
{
    const int32_t data[4] = {1, 2, 3, 4};
    int64_t out;
    const int bad[] = {99, -1};
    for (int i = 0; i < 2; i++) {
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 4, (clfold_type)bad[i], CLFOLD_SUM, &out),
                      CLFOLD_ERROR_INVALID_TYPE);
        EXPECT(clfold_last_error(ctx)[0] != '\0', "unknown type without a message");
        expect_usable(ctx, "CLFOLD_ERROR_INVALID_TYPE");
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 4, CLFOLD_INT32, (clfold_op)bad[i], &out),
                      CLFOLD_ERROR_INVALID_OP);
        expect_usable(ctx, "CLFOLD_ERROR_INVALID_OP");
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, (clfold_kernel)bad[i], 0),
                      CLFOLD_ERROR_INVALID_KERNEL);
        expect_usable(ctx, "CLFOLD_ERROR_INVALID_KERNEL");
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, (clfold_accuracy)bad[i]),
                      CLFOLD_ERROR_INVALID_ARGUMENT);
        EXPECT(strstr(clfold_last_error(ctx), "accuracy") != NULL,
               "unknown accuracy refused with the message \"%s\"", clfold_last_error(ctx));
        expect_usable(ctx, "an unknown accuracy");
    }
    EXPECT_STATUS(NULL, clfold_set_accuracy(NULL, CLFOLD_ACCURACY_DEFAULT),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    /* A refused accuracy leaves the one in force: compensated sums stay compensated. */
    const float tiny[3] = {1.0f, 0x1p-24f, 0x1p-24f};
    float compensated = 0;
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_COMPENSATED), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, (clfold_accuracy)99), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, tiny, 3, CLFOLD_FLOAT, CLFOLD_SUM, &compensated),
                  CLFOLD_SUCCESS);
    EXPECT(compensated == 1.0f + 0x1p-23f, "after a refused accuracy: %a, want the compensated %a",
           compensated, 1.0f + 0x1p-23f);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);

    /*
     * Every element size: the first count whose bytes overflow size_t is
     * too large (a device without fp64 refuses doubles first).
     */
    bool fp64 = test_device_has_fp64(clfold_device(ctx));
    for (int t = CLFOLD_INT32; t <= CLFOLD_DOUBLE; t++) {
        size_t size = clfold_type_size((clfold_type)t);
        clfold_op op = t == CLFOLD_HALF || t == CLFOLD_FLOAT || t == CLFOLD_DOUBLE ? CLFOLD_MAX
                                                                                   : CLFOLD_XOR;
        double result;
        if (size == 1)
            continue; /* no count of bytes overflows */
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, SIZE_MAX / size + 1, (clfold_type)t, op,
                                              &result),
                      t == CLFOLD_DOUBLE && !fp64 ? CLFOLD_ERROR_NO_FP64 : CLFOLD_ERROR_TOO_LARGE);
        EXPECT(clfold_last_error(ctx)[0] != '\0', "%s: too large without a message",
               clfold_type_name((clfold_type)t));
    }
    expect_usable(ctx, "CLFOLD_ERROR_TOO_LARGE");

    /* Bitwise operators on float types: refused, naming the operator. */
    const float floats[2] = {1.0f, 2.0f};
    const clfold_type float_types[] = {CLFOLD_FLOAT, CLFOLD_HALF, CLFOLD_DOUBLE};
    const clfold_op bitwise[] = {CLFOLD_AND, CLFOLD_OR, CLFOLD_XOR};
    for (int t = 0; t < 3; t++) {
        for (int o = 0; o < 3; o++) {
            double result;
            EXPECT_STATUS(ctx, clfold_reduce_host(ctx, floats, 1, float_types[t], bitwise[o], &result),
                          CLFOLD_ERROR_OP_NOT_FOR_TYPE);
            EXPECT(strstr(clfold_last_error(ctx), clfold_op_name(bitwise[o])) != NULL,
                   "message \"%s\" does not name the operator %s", clfold_last_error(ctx),
                   clfold_op_name(bitwise[o]));
        }
    }
    expect_usable(ctx, "CLFOLD_ERROR_OP_NOT_FOR_TYPE");

    /* Block sizes: 0 lets clfold choose; the largest power of two is fine. */
    size_t max_block = 0;
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_block,
                    &max_block, NULL);
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K3, 0), CLFOLD_SUCCESS);
    expect_usable(ctx, "block size 0");
    const size_t bad_blocks[] = {3, 96, max_block * 2, max_block + 1};
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++) {
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K3, bad_blocks[i]),
                      CLFOLD_ERROR_INVALID_BLOCK_SIZE);
        EXPECT(clfold_last_error(ctx)[0] != '\0', "block %zu refused without a message",
               bad_blocks[i]);
        expect_usable(ctx, "CLFOLD_ERROR_INVALID_BLOCK_SIZE");
    }
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K3, max_block), CLFOLD_SUCCESS);
    expect_usable(ctx, "the device's largest block");
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
}

/* ---- empty reductions ---------------------------------------------------- */

static void test_identities(clfold_context *ctx)
{
    const int32_t dummy[1] = {12345};
    cl_int err;
    cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof dummy, (void *)dummy, &err);
    const reference_value i_id[] = {{.i64 = 0}, {.i64 = 1}, {.i32 = INT32_MAX}, {.i32 = INT32_MIN},
                                    {.i32 = -1}, {.i32 = 0}, {.i32 = 0}};
    const reference_value u_id[] = {{.u64 = 0}, {.u64 = 1}, {.u32 = UINT32_MAX}, {.u32 = 0},
                                    {.u32 = UINT32_MAX}, {.u32 = 0}, {.u32 = 0}};
    const reference_value f_id[] = {{.f32 = 0.0f}, {.f32 = 1.0f}, {.f32 = INFINITY}, {.f32 = -INFINITY}};
    const struct {
        clfold_type type;
        const reference_value *ids;
        int n_ops;
    } cases[] = {{CLFOLD_INT32, i_id, 7}, {CLFOLD_UINT32, u_id, 7}, {CLFOLD_FLOAT, f_id, 4}};

    for (int c = 0; c < 3; c++) {
        for (clfold_op op = CLFOLD_SUM; (int)op < cases[c].n_ops; op++) {
            clfold_type result_type;
            reference_value host, device, ref;
            memset(&host, 0x5a, sizeof host);
            memset(&device, 0x5a, sizeof device);
            clfold_result_type(cases[c].type, op, &result_type);
            EXPECT_STATUS(ctx, clfold_reduce_host(ctx, dummy, 0, cases[c].type, op, &host),
                          CLFOLD_SUCCESS);
            EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 1, 0, cases[c].type, op, &device),
                          CLFOLD_SUCCESS);
            reference_reduce(dummy, 0, cases[c].type, op, &ref, NULL);
            const reference_value *want = &cases[c].ids[op];
            EXPECT(reference_equal(&host, want, result_type) &&
                       reference_equal(&device, want, result_type) &&
                       reference_equal(&ref, want, result_type),
                   "identity of %s over %s is wrong (host path, buffer path or reference)",
                   clfold_op_name(op), clfold_type_name(cases[c].type));
            if (!reference_equal(&host, want, result_type))
                print_mismatch("identity", CLFOLD_AUTO, 0, 0, cases[c].type, op, &host, want,
                               result_type);
        }
    }
    clReleaseMemObject(buffer);
}

/* ---- tables -------------------------------------------------------------- */

static void test_result_types(void)
{
    const struct {
        clfold_type type;
        clfold_op op;
        clfold_status status;
        clfold_type result;
    } table[] = {
        {CLFOLD_INT32, CLFOLD_SUM, CLFOLD_SUCCESS, CLFOLD_INT64},
        {CLFOLD_UINT32, CLFOLD_SUM, CLFOLD_SUCCESS, CLFOLD_UINT64},
        {CLFOLD_INT32, CLFOLD_MIN, CLFOLD_SUCCESS, CLFOLD_INT32},
        {CLFOLD_INT32, CLFOLD_PROD, CLFOLD_SUCCESS, CLFOLD_INT64},
        {CLFOLD_UINT32, CLFOLD_XOR, CLFOLD_SUCCESS, CLFOLD_UINT32},
        {CLFOLD_INT8, CLFOLD_SUM, CLFOLD_SUCCESS, CLFOLD_INT64},
        {CLFOLD_UINT8, CLFOLD_MAX, CLFOLD_SUCCESS, CLFOLD_UINT8},
        {CLFOLD_UINT16, CLFOLD_PROD, CLFOLD_SUCCESS, CLFOLD_UINT64},
        {CLFOLD_INT64, CLFOLD_AND, CLFOLD_SUCCESS, CLFOLD_INT64},
        {CLFOLD_HALF, CLFOLD_SUM, CLFOLD_SUCCESS, CLFOLD_FLOAT},
        {CLFOLD_HALF, CLFOLD_PROD, CLFOLD_SUCCESS, CLFOLD_FLOAT},
        {CLFOLD_HALF, CLFOLD_MIN, CLFOLD_SUCCESS, CLFOLD_FLOAT},
        {CLFOLD_HALF, CLFOLD_MAX, CLFOLD_SUCCESS, CLFOLD_FLOAT},
        {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_SUCCESS, CLFOLD_FLOAT},
        {CLFOLD_DOUBLE, CLFOLD_PROD, CLFOLD_SUCCESS, CLFOLD_DOUBLE},
        {CLFOLD_FLOAT, CLFOLD_AND, CLFOLD_ERROR_OP_NOT_FOR_TYPE, CLFOLD_INT32},
        {CLFOLD_HALF, CLFOLD_OR, CLFOLD_ERROR_OP_NOT_FOR_TYPE, CLFOLD_INT32},
        {CLFOLD_DOUBLE, CLFOLD_XOR, CLFOLD_ERROR_OP_NOT_FOR_TYPE, CLFOLD_INT32},
        {(clfold_type)99, CLFOLD_SUM, CLFOLD_ERROR_INVALID_TYPE, CLFOLD_INT32},
        {CLFOLD_INT32, (clfold_op)99, CLFOLD_ERROR_INVALID_OP, CLFOLD_INT32},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        clfold_type result = CLFOLD_INT32;
        clfold_status status = clfold_result_type(table[i].type, table[i].op, &result);
        EXPECT(status == table[i].status &&
                   (status != CLFOLD_SUCCESS || result == table[i].result),
               "clfold_result_type(%d, %d): %s, type %d; want %s, type %d", (int)table[i].type,
               (int)table[i].op, clfold_status_string(status), (int)result,
               clfold_status_string(table[i].status), (int)table[i].result);
    }
    EXPECT(clfold_result_type(CLFOLD_INT32, CLFOLD_SUM, NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "NULL result_type accepted");
    const size_t sizes[] = {4, 4, 4, 1, 1, 2, 2, 8, 8, 2, 8};
    for (int t = CLFOLD_INT32; t <= CLFOLD_DOUBLE; t++)
        EXPECT(clfold_type_size((clfold_type)t) == sizes[t], "size of %s: %zu",
               clfold_type_name((clfold_type)t), clfold_type_size((clfold_type)t));
    EXPECT(clfold_type_size((clfold_type)99) == 0, "size of an unknown type");
}

/* Copies `name` into buf with every letter's case flipped. */
static const char *flip_case(const char *name, char *buf)
{
    size_t i = 0;
    for (; name[i] != '\0'; i++)
        buf[i] = (char)(isupper((unsigned char)name[i]) ? tolower((unsigned char)name[i])
                                                        : toupper((unsigned char)name[i]));
    buf[i] = '\0';
    return buf;
}

static void test_names(void)
{
    char flipped[64];
    for (int t = CLFOLD_INT32; t <= CLFOLD_DOUBLE; t++) {
        const char *name = clfold_type_name((clfold_type)t);
        clfold_type back = (clfold_type)-1, back_flipped = (clfold_type)-1;
        EXPECT(name != NULL && clfold_type_from_name(name, &back) == CLFOLD_SUCCESS &&
                   clfold_type_from_name(flip_case(name, flipped), &back_flipped) == CLFOLD_SUCCESS &&
                   back == (clfold_type)t && back_flipped == (clfold_type)t,
               "type %d: name %s does not round-trip", t, name ? name : "(null)");
    }
    for (int o = CLFOLD_SUM; o <= CLFOLD_XOR; o++) {
        const char *name = clfold_op_name((clfold_op)o);
        clfold_op back = (clfold_op)-1, back_flipped = (clfold_op)-1;
        EXPECT(name != NULL && clfold_op_from_name(name, &back) == CLFOLD_SUCCESS &&
                   clfold_op_from_name(flip_case(name, flipped), &back_flipped) == CLFOLD_SUCCESS &&
                   back == (clfold_op)o && back_flipped == (clfold_op)o,
               "op %d: name %s does not round-trip", o, name ? name : "(null)");
    }
    for (int k = CLFOLD_AUTO; k <= CLFOLD_ATOMIC; k++) {
        const char *name = clfold_kernel_name((clfold_kernel)k);
        clfold_kernel back = (clfold_kernel)-1, back_flipped = (clfold_kernel)-1;
        EXPECT(name != NULL && clfold_kernel_from_name(name, &back) == CLFOLD_SUCCESS &&
                   clfold_kernel_from_name(flip_case(name, flipped), &back_flipped) == CLFOLD_SUCCESS &&
                   back == (clfold_kernel)k && back_flipped == (clfold_kernel)k,
               "kernel %d: name %s does not round-trip", k, name ? name : "(null)");
    }
    EXPECT(strcmp(clfold_type_name(CLFOLD_INT32), "int32") == 0 &&
               strcmp(clfold_op_name(CLFOLD_PROD), "prod") == 0 &&
               strcmp(clfold_kernel_name(CLFOLD_K3), "k3") == 0,
           "names are not spelled as the runner spells them");
    EXPECT(clfold_type_name((clfold_type)99) == NULL && clfold_op_name((clfold_op)99) == NULL &&
               clfold_kernel_name((clfold_kernel)99) == NULL &&
               clfold_type_name((clfold_type)-1) == NULL,
           "a name for an unknown value");

    for (int a = CLFOLD_ACCURACY_DEFAULT; a <= CLFOLD_ACCURACY_FP64; a++) {
        const char *name = clfold_accuracy_name((clfold_accuracy)a);
        clfold_accuracy back = (clfold_accuracy)-1, back_flipped = (clfold_accuracy)-1;
        EXPECT(name != NULL && clfold_accuracy_from_name(name, &back) == CLFOLD_SUCCESS &&
                   clfold_accuracy_from_name(flip_case(name, flipped), &back_flipped) == CLFOLD_SUCCESS &&
                   back == (clfold_accuracy)a && back_flipped == (clfold_accuracy)a,
               "accuracy %d: name %s does not round-trip", a, name ? name : "(null)");
    }
    clfold_accuracy accuracy;
    EXPECT(clfold_accuracy_name((clfold_accuracy)4) == NULL &&
               clfold_accuracy_name((clfold_accuracy)-1) == NULL,
           "a name for an unknown accuracy");
    EXPECT(clfold_accuracy_from_name("fast", &accuracy) == CLFOLD_ERROR_INVALID_ARGUMENT &&
               clfold_accuracy_from_name("", &accuracy) == CLFOLD_ERROR_INVALID_ARGUMENT &&
               clfold_accuracy_from_name(NULL, &accuracy) == CLFOLD_ERROR_INVALID_ARGUMENT &&
               clfold_accuracy_from_name("fp64", NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "an unknown accuracy name, or a NULL, accepted");

    clfold_type type;
    clfold_op op;
    clfold_kernel kernel;
    const char *bad_names[] = {"int33", "", "sum", "k8"};
    for (int i = 0; i < 4; i++)
        EXPECT(clfold_type_from_name(bad_names[i], &type) == CLFOLD_ERROR_INVALID_TYPE,
               "type \"%s\" accepted", bad_names[i]);
    EXPECT(clfold_type_from_name(NULL, &type) == CLFOLD_ERROR_INVALID_TYPE, "NULL type name");
    EXPECT(clfold_op_from_name("mean", &op) == CLFOLD_ERROR_INVALID_OP &&
               clfold_op_from_name("int32", &op) == CLFOLD_ERROR_INVALID_OP &&
               clfold_op_from_name(NULL, &op) == CLFOLD_ERROR_INVALID_OP,
           "an unknown operator name accepted");
    EXPECT(clfold_kernel_from_name("k8", &kernel) == CLFOLD_ERROR_INVALID_KERNEL &&
               clfold_kernel_from_name("k", &kernel) == CLFOLD_ERROR_INVALID_KERNEL &&
               clfold_kernel_from_name(NULL, &kernel) == CLFOLD_ERROR_INVALID_KERNEL,
           "an unknown kernel name accepted");
    EXPECT(clfold_type_from_name("int32", NULL) == CLFOLD_ERROR_INVALID_ARGUMENT &&
               clfold_op_from_name("sum", NULL) == CLFOLD_ERROR_INVALID_ARGUMENT &&
               clfold_kernel_from_name("k3", NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "a NULL output accepted");
}

/* The operator table as clfold_op_describe lists it, against what the other calls say. */
static void test_op_table(void)
{
    clfold_op_info info;
    int count = 0;
    while (clfold_op_describe((clfold_op)count, &info) == CLFOLD_SUCCESS) {
        clfold_op op = (clfold_op)count++;
        clfold_type of_int = CLFOLD_FLOAT, of_float = CLFOLD_INT8;
        clfold_status on_float = clfold_result_type(CLFOLD_FLOAT, op, &of_float);
        EXPECT(clfold_result_type(CLFOLD_INT32, op, &of_int) == CLFOLD_SUCCESS,
               "op %s refuses int32", info.name);
        EXPECT(info.name != NULL && strcmp(info.name, clfold_op_name(op)) == 0,
               "op %d: described as %s, named %s", (int)op, info.name ? info.name : "(null)",
               clfold_op_name(op));
        EXPECT(!(info.flags & CLFOLD_OP_INTEGERS_ONLY) == (on_float == CLFOLD_SUCCESS),
               "op %s: flags %#x, yet float data gives %s", info.name, info.flags,
               clfold_status_string(on_float));
        EXPECT(!(info.flags & CLFOLD_OP_INDEX) == (of_int != CLFOLD_INT64 || op == CLFOLD_SUM ||
                                                   op == CLFOLD_PROD || op == CLFOLD_SUMSQ),
               "op %s: flags %#x, an int32 reduction gives %s", info.name, info.flags,
               clfold_type_name(of_int));
        EXPECT(!(info.flags & CLFOLD_OP_INDEX) || !(info.flags & CLFOLD_OP_SCANS),
               "op %s gives an index and scans", info.name);
    }
    EXPECT(count == CLFOLD_SUMSQ + 1, "%d operators described, %d in clfold.h", count,
           CLFOLD_SUMSQ + 1);
    EXPECT(clfold_op_describe((clfold_op)-1, &info) == CLFOLD_ERROR_INVALID_OP &&
               clfold_op_describe(CLFOLD_SUM, NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "an unknown operator or a NULL output described");
    /* NumPy's names and rules, as the runner and Python use them. */
    static const struct {
        clfold_op op;
        const char *numpy_name;
        unsigned flags;
    } KNOWN[] = {{CLFOLD_SUM, "add", CLFOLD_OP_SCANS | CLFOLD_OP_ROUNDS},
                 {CLFOLD_MIN, "minimum", CLFOLD_OP_SCANS | CLFOLD_OP_NO_IDENTITY},
                 {CLFOLD_XOR, "bitwise_xor", CLFOLD_OP_SCANS | CLFOLD_OP_INTEGERS_ONLY},
                 {CLFOLD_ARGMAX, "argmax", CLFOLD_OP_INDEX | CLFOLD_OP_NO_IDENTITY},
                 {CLFOLD_SUMSQ, NULL, CLFOLD_OP_ROUNDS}}; /* NumPy has no one function for it */
    for (size_t k = 0; k < sizeof KNOWN / sizeof *KNOWN; k++) {
        bool described = clfold_op_describe(KNOWN[k].op, &info) == CLFOLD_SUCCESS;
        const char *got = described && info.numpy_name ? info.numpy_name : "(none)";
        const char *want = KNOWN[k].numpy_name ? KNOWN[k].numpy_name : "(none)";
        EXPECT(described && strcmp(got, want) == 0 && info.flags == KNOWN[k].flags,
               "%s: NumPy's %s, flags %#x; want %s, %#x", clfold_op_name(KNOWN[k].op), got,
               info.flags, want, KNOWN[k].flags);
    }
}

static void test_status_strings(void)
{
    const char *names[19];
    for (int code = 0; code >= CLFOLD_ERROR_INVALID_PARAM; code = code == 0 ? -2000 : code - 1) {
        const char *name = clfold_status_string((clfold_status)code);
        int index = code == 0 ? 0 : -1999 - code;
        names[index] = name;
        EXPECT(name != NULL && strncmp(name, "CLFOLD_", 7) == 0, "status %d named %s", code,
               name ? name : "(null)");
        for (int j = 0; j < index && name != NULL; j++)
            EXPECT(names[j] != NULL && strcmp(names[j], name) != 0, "two statuses named %s", name);
    }
    EXPECT(strcmp(clfold_status_string(CLFOLD_SUCCESS), "CLFOLD_SUCCESS") == 0 &&
               strcmp(clfold_status_string(CLFOLD_ERROR_BUILD_FAILED), "CLFOLD_ERROR_BUILD_FAILED") == 0,
           "clfold status names");
    EXPECT(strcmp(clfold_status_string((clfold_status)CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES") == 0 &&
               strcmp(clfold_status_string((clfold_status)CL_INVALID_VALUE), "CL_INVALID_VALUE") == 0 &&
               strcmp(clfold_status_string((clfold_status)CL_BUILD_PROGRAM_FAILURE),
                      "CL_BUILD_PROGRAM_FAILURE") == 0 &&
               strcmp(clfold_status_string((clfold_status)CL_INVALID_WORK_GROUP_SIZE),
                      "CL_INVALID_WORK_GROUP_SIZE") == 0,
           "OpenCL status names");
    const int unknown[] = {-123456, 12345, -999, -1999, -2018};
    for (int i = 0; i < 5; i++) {
        const char *name = clfold_status_string((clfold_status)unknown[i]);
        EXPECT(name != NULL && name[0] != '\0' && strncmp(name, "CLFOLD_", 7) != 0 &&
                   strncmp(name, "CL_", 3) != 0,
               "unknown status %d named %s", unknown[i], name ? name : "(null)");
    }
}

/* ---- run records ----------------------------------------------------------- */

static void test_run_info(void)
{
    clfold_context *ctx = NULL;
    clfold_run_info info;
    if (clfold_create(&ctx, NULL) != CLFOLD_SUCCESS)
        return;
    EXPECT(clfold_last_build_options(ctx) != NULL && clfold_last_build_options(ctx)[0] == '\0',
           "build options before any reduction: \"%s\"", clfold_last_build_options(ctx));
    EXPECT(clfold_last_run(ctx, &info) != CLFOLD_SUCCESS, "a run record before any reduction");
    EXPECT(clfold_last_run(ctx, NULL) == CLFOLD_ERROR_INVALID_ARGUMENT &&
               clfold_last_run(NULL, &info) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "clfold_last_run accepts NULL");

    enum { N = 10007 };
    static float data[N];
    float exact = 0.0f;
    for (int i = 0; i < N; i++) {
        data[i] = (float)(i % 7) - 3.0f;
        exact += data[i]; /* small integers: every partial sum is exact */
    }
    const clfold_kernel kernels[] = {CLFOLD_AUTO, CLFOLD_K1, CLFOLD_K4, CLFOLD_K6, CLFOLD_ATOMIC};
    for (int k = 0; k < 5; k++) {
        float sum = -1.0f;
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernels[k], 64), CLFOLD_SUCCESS);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, N, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                      CLFOLD_SUCCESS);
        EXPECT(sum == exact, "kernel %s: sum %g, want %g", clfold_kernel_name(kernels[k]), sum,
               exact);
        EXPECT_STATUS(ctx, clfold_last_run(ctx, &info), CLFOLD_SUCCESS);
        /*
         * auto reports itself and its shape; the CPU shape has no work-groups
         * to size. clfold_create's queue does not profile: no device time.
         */
        bool cpu_shape = info.path != NULL && strcmp(info.path, "cpu") == 0;
        EXPECT(info.kernel == kernels[k] && info.path != NULL &&
                   (info.block_size == 64 || (kernels[k] == CLFOLD_AUTO && cpu_shape)) &&
                   info.passes >= 1 && info.device_ms < 0 &&
                   info.bytes_read >= (uint64_t)N * sizeof(float) && info.bytes_written > 0,
               "kernel %s: last run: kernel %s, block %zu, %u passes, %g ms, %llu bytes read",
               clfold_kernel_name(kernels[k]), clfold_kernel_name(info.kernel), info.block_size,
               info.passes, info.device_ms, (unsigned long long)info.bytes_read);
        const char *options = clfold_last_build_options(ctx);
        EXPECT(strstr(options, "-DOP=") != NULL, "build options \"%s\" lack -DOP=", options);
    }
    /* A multi-pass tree reads more than its input, and still sums it. */
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K3, 32), CLFOLD_SUCCESS);
    float sum = -1.0f;
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, N, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == exact, "K3 at 32 over %d: sum %g, want %g", N, sum, exact);
    EXPECT(clfold_last_run(ctx, &info) == CLFOLD_SUCCESS && info.passes >= 3 &&
               info.bytes_read > (uint64_t)N * sizeof(float),
           "K3 at 32 over %d: %u passes, %llu bytes read", N, info.passes,
           (unsigned long long)info.bytes_read);
    clfold_destroy(ctx);
}

/* ---- CLFOLD_KERNEL_DIR with a broken kernel -------------------------------- */

static bool copy_file(const char *from, const char *to, const char *append)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    bool ok = in != NULL && out != NULL;
    char buf[4096];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (ok && append != NULL)
        ok = fputs(append, out) >= 0;
    if (in != NULL)
        fclose(in);
    if (out != NULL && fclose(out) != 0)
        ok = false;
    return ok;
}

static void test_kernel_dir(void)
{
    char dir[256], core[300], reduce[300], defs[320], exact[320], ladder[320];
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/clfold_test_api_XXXXXX", tmp);
    EXPECT(mkdtemp(dir) != NULL, "mkdtemp(%s) failed", dir);
    /* The folder mirrors cl/: core/exact.cl, core/defs.cl and reduce/ladder.cl. */
    snprintf(core, sizeof core, "%s/core", dir);
    snprintf(reduce, sizeof reduce, "%s/reduce", dir);
    EXPECT(mkdir(core, 0700) == 0 && mkdir(reduce, 0700) == 0, "mkdir in %s failed", dir);
    snprintf(defs, sizeof defs, "%s/defs.cl", core);
    snprintf(exact, sizeof exact, "%s/exact.cl", core);
    snprintf(ladder, sizeof ladder, "%s/ladder.cl", reduce);
    EXPECT(copy_file(CLFOLD_SOURCE_DIR "/cl/core/defs.cl", defs, NULL) &&
               copy_file(CLFOLD_SOURCE_DIR "/cl/core/exact.cl", exact, NULL) &&
               copy_file(CLFOLD_SOURCE_DIR "/cl/reduce/ladder.cl", ladder,
                         "\n__kernel void broken(void) { clfold_undeclared_name = 1; }\n"),
           "cannot copy the kernel sources into %s", dir);

    setenv("CLFOLD_KERNEL_DIR", dir, 1);
    clfold_context *ctx = NULL; /* fresh: programs are cached per context */
    EXPECT_STATUS(NULL, clfold_create(&ctx, NULL), CLFOLD_SUCCESS);
    const int32_t data[3] = {1, 2, 3};
    int64_t sum;
    if (ctx != NULL) {
        clfold_set_kernel(ctx, CLFOLD_K3, 0);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 3, CLFOLD_INT32, CLFOLD_SUM, &sum),
                      CLFOLD_ERROR_BUILD_FAILED);
        const char *log = clfold_last_error(ctx);
        EXPECT(strstr(log, "clfold_undeclared_name") != NULL && strstr(log, "error") != NULL,
               "the build log is not in last_error: \"%s\"", log);
        /* unrolled.cl is not in the folder: K6 cannot read its source. */
        clfold_set_kernel(ctx, CLFOLD_K6, 0);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 3, CLFOLD_INT32, CLFOLD_SUM, &sum),
                      CLFOLD_ERROR_KERNEL_SOURCE);
        EXPECT(strstr(clfold_last_error(ctx), "unrolled.cl") != NULL,
               "the missing file is not named: \"%s\"", clfold_last_error(ctx));
    }
    unsetenv("CLFOLD_KERNEL_DIR");
    if (ctx != NULL) {
        /* Settings are the context's, read at create: the override stays. */
        clfold_set_kernel(ctx, CLFOLD_K3, 0);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 3, CLFOLD_INT32, CLFOLD_SUM, &sum),
                      CLFOLD_ERROR_BUILD_FAILED);
    }
    clfold_destroy(ctx);
    ctx = NULL;
    EXPECT_STATUS(NULL, clfold_create(&ctx, NULL), CLFOLD_SUCCESS);
    if (ctx != NULL) {
        clfold_set_kernel(ctx, CLFOLD_K3, 0);
        expect_usable(ctx, "a failed build (new context)");
    }
    clfold_destroy(ctx);
    remove(defs);
    remove(exact);
    remove(ladder);
    rmdir(core);
    rmdir(reduce);
    rmdir(dir);
}

/* ---- settings: the environment, read and checked at create --------------------------- */

/* `name`=`value` must make clfold_create fail with a message that names the variable. */
static void expect_refused_setting(const char *name, const char *value)
{
    clfold_context *ctx = NULL;
    setenv(name, value, 1);
    EXPECT_STATUS(NULL, clfold_create(&ctx, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(ctx == NULL && strstr(clfold_last_error(NULL), name) != NULL,
           "%s=\"%s\": context %p, message \"%s\"", name, value, (void *)ctx,
           clfold_last_error(NULL));
    clfold_destroy(ctx);
    unsetenv(name);
}

/* A context made with `name`=`value`, which is unset again at once. */
static clfold_context *create_with(const char *name, const char *value)
{
    clfold_context *ctx = NULL;
    setenv(name, value, 1);
    EXPECT_STATUS(NULL, clfold_create(&ctx, NULL), CLFOLD_SUCCESS);
    unsetenv(name);
    return ctx;
}

/* The last run's path and block, after a 10-value int32 sum on the auto path. */
static void expect_auto_run(clfold_context *ctx, const char *path, size_t block, const char *why)
{
    const int32_t data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int64_t sum = 0;
    clfold_run_info info;
    if (ctx == NULL)
        return;
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 10, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == 55 && clfold_last_run(ctx, &info) == CLFOLD_SUCCESS &&
               strcmp(info.path, path) == 0 && (block == 0 || info.block_size == block),
           "%s: sum %lld, path %s, block %zu; want path %s, block %zu", why, (long long)sum,
           info.path, info.block_size, path, block);
}

/* A 10-value int32 running sum on the auto path gives 1, 3, 6, ..., 55. */
static void expect_scan_runs(clfold_context *ctx, const char *why)
{
    const int32_t data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int64_t sums[10] = {0};
    if (ctx == NULL)
        return;
    EXPECT_STATUS(ctx,
                  clfold_scan_host(ctx, data, 10, CLFOLD_INT32, CLFOLD_SUM, CLFOLD_INCLUSIVE, sums),
                  CLFOLD_SUCCESS);
    for (int i = 0; i < 10; i++)
        EXPECT(sums[i] == (int64_t)(i + 1) * (i + 2) / 2,
               "CLFOLD_SCAN_PREFETCH=%s: sum %d is %lld", why, i, (long long)sums[i]);
}

static void test_settings(void)
{
    const char *const bad[][2] = {
        {"CLFOLD_AUTO_SHAPE", "fpga"},       {"CLFOLD_AUTO_SHAPE", "GPU "},
        {"CLFOLD_GPU_SHAPE", "512"},         {"CLFOLD_GPU_SHAPE", "512:4:4"},
        {"CLFOLD_GPU_SHAPE", "500:4:4:256"}, {"CLFOLD_GPU_SHAPE", "512:0:4:256"},
        {"CLFOLD_GPU_SHAPE", "512:4:4:256:1"}, {"CLFOLD_GPU_SHAPE", "512:4:x:256"},
        {"CLFOLD_GPU_SHAPE", "-512:4:4:256"}, {"CLFOLD_GPU_ONE_LAUNCH", "no"},
        {"CLFOLD_NO_WARP_SHUFFLE", "yes"},   {"CLFOLD_MAX_CHUNK_BYTES", "4k"},
        {"CLFOLD_MAX_CHUNK_BYTES", "0"},     {"CLFOLD_MAX_CHUNK_BYTES", "99999999999999999999999"},
        {"CLFOLD_MAX_CHUNK_BYTES", "-1"},    {"CLFOLD_DENORMS_ARE_ZERO", "on"},
        {"CLFOLD_LOCAL_MEM_BYTES", "0"},     {"CLFOLD_LOCAL_MEM_BYTES", "48k"},
        {"CLFOLD_SCAN_GPU", "256"},          {"CLFOLD_SCAN_GPU", "1:8"},
        {"CLFOLD_SCAN_GPU", "100:8"},        {"CLFOLD_SCAN_GPU", "256:0"},
        {"CLFOLD_SCAN_GPU", "256:65"},       {"CLFOLD_SCAN_GPU", "256:8:1"},
        {"CLFOLD_SCAN_LOOKBACK", "yes"},     {"CLFOLD_HOST_RESULT", "2"},
        {"CLFOLD_SCAN_PREFETCH", "-1"},      {"CLFOLD_SCAN_PREFETCH", "1048577"},
        {"CLFOLD_SCAN_PREFETCH", "64 "},     {"CLFOLD_SCAN_PREFETCH", "half"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused_setting(bad[i][0], bad[i][1]);

    /* Read once: the variable is gone before the context reduces, and still counts. */
    clfold_context *gpu = create_with("CLFOLD_AUTO_SHAPE", "gpu");
    expect_auto_run(gpu, "gpu", 0, "CLFOLD_AUTO_SHAPE=gpu, unset after create");
    setenv("CLFOLD_AUTO_SHAPE", "cpu", 1); /* a change after create changes nothing */
    expect_auto_run(gpu, "gpu", 0, "CLFOLD_AUTO_SHAPE=cpu set after create");
    unsetenv("CLFOLD_AUTO_SHAPE");
    clfold_destroy(gpu);
    setenv("CLFOLD_AUTO_SHAPE", "gpu", 1);
    clfold_context *tuned = create_with("CLFOLD_GPU_SHAPE", "64:1:2:0");
    unsetenv("CLFOLD_AUTO_SHAPE");
    expect_auto_run(tuned, "gpu", 64, "CLFOLD_GPU_SHAPE=64:1:2:0");
    clfold_destroy(tuned);
    /* An empty value is no value. */
    clfold_context *plain = create_with("CLFOLD_AUTO_SHAPE", "");
    clfold_destroy(plain);
    /* The prefetch's bounds are values (a scan on POCL takes no prefetch, and still scans). */
    const char *const prefetch[] = {"0", "1048576"};
    for (size_t i = 0; i < 2; i++) {
        clfold_context *far = create_with("CLFOLD_SCAN_PREFETCH", prefetch[i]);
        expect_scan_runs(far, prefetch[i]);
        clfold_destroy(far);
    }
}

int main(void)
{
    test_result_types();
    test_names();
    test_op_table();
    test_status_strings();
    test_create();
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    test_user_queue(clfold_device(ctx), CL_QUEUE_PROFILING_ENABLE);
    test_user_queue(clfold_device(ctx), 0);
    test_out_of_order_queue(clfold_device(ctx));
    test_buffers(ctx);
    test_foreign_buffer(ctx);
    test_null_pointers(ctx);
    test_bad_values(ctx);
    test_identities(ctx);
    clfold_destroy(ctx);
    test_run_info();
    test_kernel_dir();
    test_settings();
    return test_finish("test_api");
}

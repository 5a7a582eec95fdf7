/*
 * test_async.c: clfold_reduce_buffer_async, the non-blocking reduction into
 * device memory. Linked with the interposer of cl_shim.c, which counts
 * every OpenCL object and can make calls fail. One mode per CTest entry:
 *
 *   --paths    every kernel and accuracy on a few types and operators, at
 *              sizes 0 (the identity), 1, 777 and 100003: the result, written
 *              at an odd byte offset of a buffer filled with a guard pattern,
 *              has the bits of the blocking reduction's, and no other byte
 *              changes. Integer sums are also checked against the host.
 *   --flight   a reduction gated by a user event does not run before the
 *              event completes; two in flight write their own results;
 *              reductions chain (sums written by async calls, then reduced
 *              by another, also with *event an element of its own wait list).
 *   --misuse   each bad argument is refused with its status and a message,
 *              *event is NULL, and nothing is enqueued (every launch is
 *              armed to fail, so that one would change the status);
 *              the result buffer is untouched and the context works on; a
 *              result may overwrite the very elements it sums, on every kernel.
 *   --growth   2000 reductions, waited for one by one, over two paths (the
 *              auto path and K4's passes) leave no more OpenCL objects than
 *              the first 100 did; eight in flight at once take at most
 *              eight scratches, which the 2000 after them reuse.
 */
#define _POSIX_C_SOURCE 199309L /* nanosleep */

#include <time.h>

#include "cl_shim.h"
#include "util.h"

#define GUARD 0xa5

/* The test's own OpenCL objects beside the context's. */
struct rig {
    clfold_context *ctx;
    cl_context cl;
    cl_command_queue queue;
    bool fp64;
    bool atomics64;              /* cl_khr_int64_base_atomics: llvmpipe lacks them */
};

static bool rig_open(struct rig *rig)
{
    rig->ctx = test_context();
    if (rig->ctx == NULL)
        return false;
    rig->cl = clfold_cl_context(rig->ctx);
    rig->queue = clfold_queue(rig->ctx);
    rig->fp64 = test_device_has_fp64(clfold_device(rig->ctx));
    rig->atomics64 = test_device_has_extension(clfold_device(rig->ctx), "cl_khr_int64_base_atomics");
    return true;
}

static cl_mem buffer_of(const struct rig *rig, cl_mem_flags flags, size_t bytes, const void *data)
{
    cl_int err;
    unsigned char one = 0;
    cl_mem buffer = clCreateBuffer(rig->cl, flags | CL_MEM_COPY_HOST_PTR, bytes > 0 ? bytes : 1,
                                   bytes > 0 ? (void *)data : &one, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer of %zu bytes: %d", bytes, err);
    return buffer;
}

/* A result buffer of `bytes` bytes, every one GUARD. */
static cl_mem guarded_buffer(const struct rig *rig, size_t bytes)
{
    unsigned char *fill = malloc(bytes);
    memset(fill, GUARD, bytes);
    cl_mem buffer = buffer_of(rig, CL_MEM_READ_WRITE, bytes, fill);
    free(fill);
    return buffer;
}

/* Reads the whole of `buffer` (`bytes` bytes) through `queue`. */
static void read_all(cl_command_queue queue, cl_mem buffer, size_t bytes, void *out)
{
    cl_int err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);
}

/* Bytes [at, at + size) of `bytes` hold `want`; every other byte is still GUARD. */
static void expect_result(const unsigned char *bytes, size_t total, size_t at, const void *want,
                          size_t size, const char *what)
{
    EXPECT(memcmp(bytes + at, want, size) == 0, "%s: the result's bytes differ", what);
    for (size_t i = 0; i < total; i++)
        if (i < at || i >= at + size) {
            EXPECT(bytes[i] == GUARD, "%s: byte %zu outside the result changed (0x%02x)", what,
                   i, bytes[i]);
            if (bytes[i] != GUARD)
                break;
        }
}

static void wait_and_release(cl_event event, const char *what)
{
    EXPECT(event != NULL, "%s: no event", what);
    if (event == NULL)
        return;
    cl_int err = clWaitForEvents(1, &event);
    EXPECT(err == CL_SUCCESS, "%s: clWaitForEvents: %d", what, err);
    clReleaseEvent(event);
}

static cl_int event_state(cl_event event)
{
    cl_int state = CL_COMPLETE;
    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    return state;
}

static void sleep_ms(long ms)
{
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* ---- --paths --------------------------------------------------------------- */

struct case_spec {
    clfold_type type;
    clfold_op op;
};

/* Elements i = 0 .. n-1: small integers, or a float's varied magnitudes and signs. */
static void fill(void *data, size_t n, clfold_type type, clfold_op op, test_rng *rng)
{
    if (type_is_float(type)) {
        for (size_t i = 0; i < n; i++) {
            double v = rng_unit(rng) * (double)(1 << (int)rng_below(rng, 12));
            if (type == CLFOLD_FLOAT) {
                float f = (float)v;
                memcpy((char *)data + 4 * i, &f, 4);
            } else {
                memcpy((char *)data + 8 * i, &v, 8);
            }
        }
    } else {
        fill_integers(data, n, type, op, rng);
    }
}

/*
 * The atomic baseline folds into a word of its accumulator's width: an
 * 8-byte one (integer sums, as int64) needs 64-bit atomics, and a device
 * without them refuses it (CLFOLD_ERROR_UNSUPPORTED) before enqueuing.
 */
static bool refused_here(const struct rig *rig, clfold_kernel kernel, size_t result_size)
{
    return kernel == CLFOLD_ATOMIC && result_size == 8 && !rig->atomics64;
}

static void one_path_case(struct rig *rig, clfold_kernel kernel, clfold_accuracy accuracy,
                          const struct case_spec *spec, size_t n, test_rng *rng)
{
    size_t element = clfold_type_size(spec->type), result_size;
    clfold_type result_type;
    clfold_result_type(spec->type, spec->op, &result_type);
    result_size = clfold_type_size(result_type);
    char what[160];
    snprintf(what, sizeof what, "kernel %s, accuracy %s, %s %s of %zu",
             clfold_kernel_name(kernel), clfold_accuracy_name(accuracy),
             clfold_type_name(spec->type), clfold_op_name(spec->op), n);

    void *data = malloc(n * element + 1);
    fill(data, n, spec->type, spec->op, rng);
    cl_mem input = buffer_of(rig, CL_MEM_READ_ONLY, n * element, data);
    const size_t total = 32, at = 3; /* an odd byte offset: no alignment assumed */
    cl_mem result = guarded_buffer(rig, total);
    unsigned char blocking[16] = {0}, bytes[32];
    cl_event done = NULL;

    if (refused_here(rig, kernel, result_size) && n > 0) {
        EXPECT_STATUS(rig->ctx, clfold_reduce_buffer(rig->ctx, input, 0, n, spec->type, spec->op,
                                                     blocking),
                      CLFOLD_ERROR_UNSUPPORTED);
        EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, input, 0, n, spec->type,
                                                           spec->op, result, at, 0, NULL, &done),
                      CLFOLD_ERROR_UNSUPPORTED);
        EXPECT(done == NULL, "%s: an event from a refused call", what);
        read_all(rig->queue, result, total, bytes);
        expect_result(bytes, total, 0, bytes, 0, what); /* every byte still GUARD */
        clReleaseMemObject(result);
        clReleaseMemObject(input);
        free(data);
        return;
    }
    EXPECT_STATUS(rig->ctx, clfold_reduce_buffer(rig->ctx, input, 0, n, spec->type, spec->op,
                                                 blocking),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, input, 0, n, spec->type, spec->op,
                                                       result, at, 0, NULL, &done),
                  CLFOLD_SUCCESS);
    wait_and_release(done, what);
    read_all(rig->queue, result, total, bytes);
    expect_result(bytes, total, at, blocking, result_size, what);

    if (spec->op == CLFOLD_SUM && !type_is_float(spec->type)) {
        reference_value want;
        long double unused;
        reference_reduce(data, n, spec->type, spec->op, &want, &unused);
        EXPECT(memcmp(bytes + at, &want, result_size) == 0, "%s: not the host's sum", what);
    }
    clReleaseMemObject(result);
    clReleaseMemObject(input);
    free(data);
}

static void test_paths(struct rig *rig)
{
    static const clfold_kernel KERNELS[] = {CLFOLD_AUTO, CLFOLD_K1, CLFOLD_K2, CLFOLD_K3,
                                            CLFOLD_K4, CLFOLD_K5, CLFOLD_K6, CLFOLD_K7,
                                            CLFOLD_ATOMIC};
    static const struct case_spec INTEGERS[] = {
        {CLFOLD_INT32, CLFOLD_SUM}, {CLFOLD_UINT8, CLFOLD_MAX}, {CLFOLD_INT16, CLFOLD_XOR}};
    static const size_t SIZES[] = {0, 1, 777, 100003};
    test_rng rng = {42};
    unsigned long before = CHECKS_SO_FAR();

    for (size_t k = 0; k < sizeof KERNELS / sizeof *KERNELS; k++) {
        EXPECT_STATUS(rig->ctx, clfold_set_kernel(rig->ctx, KERNELS[k], 0), CLFOLD_SUCCESS);
        for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
            EXPECT_STATUS(rig->ctx, clfold_set_accuracy(rig->ctx, CLFOLD_ACCURACY_DEFAULT),
                          CLFOLD_SUCCESS);
            for (size_t c = 0; c < sizeof INTEGERS / sizeof *INTEGERS; c++)
                one_path_case(rig, KERNELS[k], CLFOLD_ACCURACY_DEFAULT, &INTEGERS[c], SIZES[s],
                              &rng);
            /* The atomic baseline's float sums vary run to run: no bits to agree on. */
            for (int a = CLFOLD_ACCURACY_DEFAULT;
                 a <= CLFOLD_ACCURACY_EXACT && KERNELS[k] != CLFOLD_ATOMIC; a++) {
                if (a == CLFOLD_ACCURACY_FP64 && !rig->fp64)
                    continue;
                EXPECT_STATUS(rig->ctx, clfold_set_accuracy(rig->ctx, (clfold_accuracy)a),
                              CLFOLD_SUCCESS);
                const struct case_spec sum = {CLFOLD_FLOAT, CLFOLD_SUM};
                one_path_case(rig, KERNELS[k], (clfold_accuracy)a, &sum, SIZES[s], &rng);
                if (rig->fp64) {
                    const struct case_spec dsum = {CLFOLD_DOUBLE, CLFOLD_SUM};
                    one_path_case(rig, KERNELS[k], (clfold_accuracy)a, &dsum, SIZES[s], &rng);
                }
            }
            EXPECT_STATUS(rig->ctx, clfold_set_accuracy(rig->ctx, CLFOLD_ACCURACY_DEFAULT),
                          CLFOLD_SUCCESS);
            const struct case_spec min = {CLFOLD_FLOAT, CLFOLD_MIN};
            one_path_case(rig, KERNELS[k], CLFOLD_ACCURACY_DEFAULT, &min, SIZES[s], &rng);
        }
    }
    EXPECT_CHECKED(before, "--paths");
}

/* ---- --flight ---------------------------------------------------------------- */

static void test_flight(struct rig *rig)
{
    enum { N = 100003 };
    int32_t *ints = malloc(N * sizeof *ints);
    float *floats = malloc(N * sizeof *floats);
    int64_t int_sum = 0;
    float float_max = -1;
    for (int i = 0; i < N; i++) {
        ints[i] = i % 1000 - 400;
        int_sum += ints[i];
        floats[i] = (float)((i * 7919) % 100003);
        float_max = floats[i] > float_max ? floats[i] : float_max;
    }
    cl_mem a = buffer_of(rig, CL_MEM_READ_ONLY, N * sizeof *ints, ints);
    cl_mem b = buffer_of(rig, CL_MEM_READ_ONLY, N * sizeof *floats, floats);
    const size_t total = 24;
    cl_mem result = guarded_buffer(rig, total);
    cl_int err;
    cl_event gate = clCreateUserEvent(rig->cl, &err);
    EXPECT(err == CL_SUCCESS, "clCreateUserEvent: %d", err);

    /* Two reductions in flight, both behind the gate, each on a path with partial values. */
    cl_event first = NULL, second = NULL;
    EXPECT_STATUS(rig->ctx, clfold_set_kernel(rig->ctx, CLFOLD_K4, 64), CLFOLD_SUCCESS);
    EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, a, 0, N, CLFOLD_INT32, CLFOLD_SUM,
                                                       result, 0, 1, &gate, &first),
                  CLFOLD_SUCCESS);
    EXPECT_STATUS(rig->ctx, clfold_set_kernel(rig->ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
    EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, b, 0, N, CLFOLD_FLOAT, CLFOLD_MAX,
                                                       result, 13, 0, NULL, &second),
                  CLFOLD_SUCCESS);
    sleep_ms(100);
    EXPECT(first != NULL && event_state(first) != CL_COMPLETE,
           "a reduction behind an incomplete user event completed");
    EXPECT(second != NULL && event_state(second) != CL_COMPLETE,
           "a reduction queued behind a gated one completed");
    /* A second queue of the test's sees the result buffer untouched meanwhile. */
    cl_command_queue other = clCreateCommandQueue(rig->cl, clfold_device(rig->ctx), 0, &err);
    unsigned char bytes[24], guard[24];
    memset(guard, GUARD, sizeof guard);
    read_all(other, result, total, bytes);
    EXPECT(memcmp(bytes, guard, total) == 0, "the gated reductions wrote before their event");

    clSetUserEventStatus(gate, CL_COMPLETE);
    wait_and_release(first, "first in flight");
    wait_and_release(second, "second in flight");
    read_all(rig->queue, result, total, bytes);
    int64_t got_sum;
    float got_max;
    memcpy(&got_sum, bytes, 8);
    memcpy(&got_max, bytes + 13, 4);
    EXPECT(got_sum == int_sum, "first in flight: sum %lld, want %lld", (long long)got_sum,
           (long long)int_sum);
    EXPECT(got_max == float_max, "second in flight: max %g, want %g", got_max, float_max);
    for (size_t i = 0; i < total; i++)
        EXPECT(i < 8 || (i >= 13 && i < 17) || bytes[i] == GUARD, "byte %zu changed", i);

    /* Chained: three sums written by async calls, then their sum, without the host between. */
    cl_mem sums = guarded_buffer(rig, 3 * sizeof(int64_t));
    cl_event last = NULL;
    for (size_t part = 0; part < 3; part++) {
        size_t count = part < 2 ? N / 3 : N - 2 * (N / 3);
        EXPECT_STATUS(rig->ctx,
                      clfold_reduce_buffer_async(rig->ctx, a, part * (N / 3), count, CLFOLD_INT32,
                                                 CLFOLD_SUM, sums, part * 8, 0, NULL, NULL),
                      CLFOLD_SUCCESS);
    }
    EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, sums, 0, 3, CLFOLD_INT64,
                                                       CLFOLD_SUM, result, 16, 0, NULL, &last),
                  CLFOLD_SUCCESS);
    /* *event may be the wait list's own element: it is written as the call returns. */
    cl_event previous = last, chained = last;
    EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, sums, 0, 3, CLFOLD_INT64,
                                                       CLFOLD_SUM, result, 8, 1, &chained,
                                                       &chained),
                  CLFOLD_SUCCESS);
    EXPECT(chained != NULL && chained != previous, "the chained call's event is not a new one");
    wait_and_release(previous, "chained");
    wait_and_release(chained, "chained on its own wait list");
    read_all(rig->queue, result, total, bytes);
    memcpy(&got_sum, bytes + 16, 8);
    EXPECT(got_sum == int_sum, "chained: sum %lld, want %lld", (long long)got_sum,
           (long long)int_sum);
    memcpy(&got_sum, bytes + 8, 8);
    EXPECT(got_sum == int_sum, "chained on its own event: sum %lld, want %lld",
           (long long)got_sum, (long long)int_sum);

    clReleaseCommandQueue(other);
    clReleaseEvent(gate);
    clReleaseMemObject(sums);
    clReleaseMemObject(result);
    clReleaseMemObject(b);
    clReleaseMemObject(a);
    free(floats);
    free(ints);
}

/* ---- --misuse ---------------------------------------------------------------- */

/* One refused call: its status, a message, no event, and (with every enqueue failing) nothing enqueued. */
static void expect_refused(struct rig *rig, clfold_status got, clfold_status want, cl_event event,
                           const char *what)
{
    EXPECT(got == want, "%s: %s, want %s (%s)", what, clfold_status_string(got),
           clfold_status_string(want), clfold_last_error(rig->ctx));
    EXPECT(clfold_last_error(rig->ctx)[0] != '\0' || got == CLFOLD_SUCCESS,
           "%s: no message", what);
    EXPECT(event == NULL, "%s: *event is not NULL", what);
}

static void test_misuse(struct rig *rig)
{
    const int32_t data[5] = {1, 2, 3, 4, 5};
    cl_mem input = buffer_of(rig, CL_MEM_READ_ONLY, sizeof data, data);
    const size_t total = 16;
    cl_mem result = guarded_buffer(rig, total);
    cl_mem read_only = buffer_of(rig, CL_MEM_READ_ONLY, 16, data);
    cl_int err;
    /* Made with no access flags, it inherits its parent's CL_MEM_READ_ONLY. */
    const cl_buffer_region whole = {0, 16};
    cl_mem read_only_sub = clCreateSubBuffer(read_only, 0, CL_BUFFER_CREATE_TYPE_REGION, &whole,
                                             &err);
    EXPECT(err == CL_SUCCESS, "clCreateSubBuffer: %d", err);
    cl_device_id device = clfold_device(rig->ctx);
    cl_context foreign_cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    EXPECT(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_mem foreign = clCreateBuffer(foreign_cl, CL_MEM_READ_WRITE, 16, NULL, &err);
    cl_event some = clCreateUserEvent(rig->cl, &err);
    cl_event event;
    clfold_context *ctx = rig->ctx;

    /* With every launch failing, a call that enqueued anything would report that. */
    shim_fail_calls("clEnqueueNDRangeKernel", 0, 0);
#define REFUSED(want, what, ...)                                                    \
    do {                                                                            \
        event = (cl_event)&event; /* anything but NULL */                           \
        clfold_status got_ = clfold_reduce_buffer_async(__VA_ARGS__, &event);       \
        expect_refused(rig, got_, (want), event, (what));                           \
    } while (0)
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "NULL buffer",
            ctx, NULL, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "NULL result",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, NULL, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "events counted, no list",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, 0, 1, NULL);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "a list of no events",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, 0, 0, &some);
    REFUSED(CLFOLD_ERROR_INVALID_TYPE, "unknown type",
            ctx, input, 0, 5, (clfold_type)999, CLFOLD_SUM, result, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_INVALID_OP, "unknown operator",
            ctx, input, 0, 5, CLFOLD_INT32, (clfold_op)999, result, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_OP_NOT_FOR_TYPE, "xor of floats",
            ctx, input, 0, 4, CLFOLD_FLOAT, CLFOLD_XOR, result, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "input past its buffer",
            ctx, input, 1, 5, CLFOLD_INT32, CLFOLD_SUM, result, 0, 0, NULL);
    /* An int32 sum is an 8-byte int64: it fits at byte 8 of 16 and no later. */
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "result straddling the end",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, 9, 0, NULL);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "result at the end",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, 16, 0, NULL);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "result offset SIZE_MAX",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, SIZE_MAX, 0, NULL);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "result offset SIZE_MAX - 3",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, SIZE_MAX - 3, 0, NULL);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "read-only result",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, read_only, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "a sub-buffer of a read-only result",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, read_only_sub, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_WRONG_CONTEXT, "result of another cl_context",
            ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, foreign, 0, 0, NULL);
    REFUSED(CLFOLD_ERROR_WRONG_CONTEXT, "input of another cl_context",
            ctx, foreign, 0, 2, CLFOLD_INT32, CLFOLD_SUM, result, 0, 0, NULL);
#undef REFUSED
    EXPECT(clfold_reduce_buffer_async(NULL, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result, 0, 0,
                                      NULL, NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "a NULL context is not refused");
    /* The failing launch itself is reported, not hidden. */
    event = NULL;
    clfold_status status = clfold_reduce_buffer_async(ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM,
                                                      result, 0, 0, NULL, &event);
    EXPECT(status != CLFOLD_SUCCESS && event == NULL,
           "a reduction whose launch fails: %s, event %p", clfold_status_string(status),
           (void *)event);
    shim_fail_calls(NULL, 0, 0);

    unsigned char bytes[16], guard[16];
    memset(guard, GUARD, sizeof guard);
    read_all(rig->queue, result, total, bytes);
    EXPECT(memcmp(bytes, guard, total) == 0, "a refused call wrote into the result buffer");

    /* The last 8 bytes are a valid place; the context works after all of the above. */
    event = NULL;
    EXPECT_STATUS(ctx, clfold_reduce_buffer_async(ctx, input, 0, 5, CLFOLD_INT32, CLFOLD_SUM, result,
                                                  8, 0, NULL, &event),
                  CLFOLD_SUCCESS);
    wait_and_release(event, "after misuse");
    read_all(rig->queue, result, total, bytes);
    int64_t sum = 0;
    memcpy(&sum, bytes + 8, 8);
    EXPECT(sum == 15, "after misuse: sum %lld, want 15", (long long)sum);

    /* The result may overwrite the elements it sums: it is written after they are read. */
    int32_t values[1000];
    for (int i = 0; i < 1000; i++)
        values[i] = i + 1;
    cl_mem both = buffer_of(rig, CL_MEM_READ_WRITE, sizeof values, values);
    for (int kernel = CLFOLD_AUTO; kernel <= CLFOLD_ATOMIC; kernel++) {
        int32_t written[1000];
        if (refused_here(rig, (clfold_kernel)kernel, 8))
            continue; /* --paths checks the refusal */
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, (clfold_kernel)kernel, 0), CLFOLD_SUCCESS);
        clEnqueueWriteBuffer(rig->queue, both, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL);
        event = NULL;
        EXPECT_STATUS(ctx, clfold_reduce_buffer_async(ctx, both, 0, 1000, CLFOLD_INT32, CLFOLD_SUM,
                                                      both, 4, 0, NULL, &event),
                      CLFOLD_SUCCESS);
        wait_and_release(event, "in place");
        read_all(rig->queue, both, sizeof written, written);
        memcpy(&sum, (const char *)written + 4, 8);
        EXPECT(sum == 500500 && written[0] == 1 && written[3] == 4,
               "kernel %s: the sum written over its own elements: %lld, want 500500",
               clfold_kernel_name((clfold_kernel)kernel), (long long)sum);
    }
    clReleaseMemObject(both);

    /* Set before its release: NVIDIA's driver 580 then hangs in a later clFinish otherwise. */
    clSetUserEventStatus(some, CL_COMPLETE);
    clReleaseEvent(some);
    clReleaseMemObject(foreign);
    clReleaseContext(foreign_cl);
    clReleaseMemObject(read_only_sub);
    clReleaseMemObject(read_only);
    clReleaseMemObject(result);
    clReleaseMemObject(input);
}

/* ---- --growth ---------------------------------------------------------------- */

/* `rounds` reductions, each waited for, alternating the auto path and K4's passes. */
static void rounds_of(struct rig *rig, unsigned rounds, cl_mem input, size_t n, cl_mem result,
                      int64_t want)
{
    for (unsigned r = 0; r < rounds && *test_failure_counter() < 10; r++) {
        cl_event event = NULL;
        clfold_set_kernel(rig->ctx, r % 2 ? CLFOLD_K4 : CLFOLD_AUTO, r % 2 ? 64 : 0);
        clfold_status status = clfold_reduce_buffer_async(
            rig->ctx, input, 0, n - r % 7, CLFOLD_INT32, CLFOLD_SUM, result, 8 * (r % 4), 0, NULL,
            &event);
        EXPECT(status == CLFOLD_SUCCESS, "round %u: %s", r, clfold_last_error(rig->ctx));
        if (event != NULL) {
            clWaitForEvents(1, &event);
            clReleaseEvent(event);
        }
    }
    int64_t sums[4];
    read_all(rig->queue, result, sizeof sums, sums);
    /* Rounds r = rounds-4 .. rounds-1 wrote slots r % 4, over n - r % 7 elements of 1. */
    for (unsigned r = rounds - 4; r < rounds; r++)
        EXPECT(sums[r % 4] == want - (int64_t)(r % 7), "round %u: sum %lld, want %lld", r,
               (long long)sums[r % 4], (long long)(want - (int64_t)(r % 7)));
}

static void test_growth(struct rig *rig)
{
    enum { N = 50000 };
    int32_t *ones = malloc(N * sizeof *ones);
    for (int i = 0; i < N; i++)
        ones[i] = 1;
    cl_mem input = buffer_of(rig, CL_MEM_READ_ONLY, N * sizeof *ones, ones);
    cl_mem result = guarded_buffer(rig, 32);

    rounds_of(rig, 100, input, N, result, N);
    struct shim_balances warm = shim_balances_now();
    rounds_of(rig, 2000, input, N, result, N);
    struct shim_balances after = shim_balances_now();
    for (int k = 0; k < SHIM_KINDS; k++)
        EXPECT(after.of[k] == warm.of[k], "2000 reductions: %ld more %s objects than after 100",
               after.of[k] - warm.of[k], shim_kind_name((enum shim_kind)k));

    /* Eight in flight behind one gate: at most eight scratches, then reused. */
    cl_int err;
    cl_event gate = clCreateUserEvent(rig->cl, &err), events[8];
    clfold_set_kernel(rig->ctx, CLFOLD_K4, 64);
    for (int i = 0; i < 8; i++)
        EXPECT_STATUS(rig->ctx, clfold_reduce_buffer_async(rig->ctx, input, 0, N, CLFOLD_INT32,
                                                           CLFOLD_SUM, result, 0, 1, &gate,
                                                           &events[i]),
                      CLFOLD_SUCCESS);
    clSetUserEventStatus(gate, CL_COMPLETE);
    clWaitForEvents(8, events);
    for (int i = 0; i < 8; i++)
        clReleaseEvent(events[i]);
    clReleaseEvent(gate);
    struct shim_balances eight = shim_balances_now();
    /* Each scratch: two partial-value buffers at most (K4 at 50000 takes two passes). */
    EXPECT(eight.of[SHIM_MEM] - warm.of[SHIM_MEM] <= 16,
           "eight reductions in flight made %ld buffers", eight.of[SHIM_MEM] - warm.of[SHIM_MEM]);
    rounds_of(rig, 2000, input, N, result, N);
    struct shim_balances last = shim_balances_now();
    for (int k = 0; k < SHIM_KINDS; k++)
        EXPECT(last.of[k] == eight.of[k], "2000 more reductions: %ld more %s objects",
               last.of[k] - eight.of[k], shim_kind_name((enum shim_kind)k));

    clReleaseMemObject(result);
    clReleaseMemObject(input);
    free(ones);
}

int main(int argc, char **argv)
{
    struct rig rig;
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "--paths") != 0 && strcmp(mode, "--flight") != 0 &&
        strcmp(mode, "--misuse") != 0 && strcmp(mode, "--growth") != 0) {
        fprintf(stderr, "usage: test_async --paths | --flight | --misuse | --growth\n");
        return 2;
    }
    if (!rig_open(&rig))
        return 1;
    if (strcmp(mode, "--paths") == 0)
        test_paths(&rig);
    else if (strcmp(mode, "--flight") == 0)
        test_flight(&rig);
    else if (strcmp(mode, "--misuse") == 0)
        test_misuse(&rig);
    else
        test_growth(&rig);
    clfold_destroy(rig.ctx);
    EXPECT(shim_balance(SHIM_MEM) == 0 && shim_balance(SHIM_EVENT) == 0,
           "after clfold_destroy: %ld buffers and %ld events left", shim_balance(SHIM_MEM),
           shim_balance(SHIM_EVENT));
    return test_finish(mode);
}

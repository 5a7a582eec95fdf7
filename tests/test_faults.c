/*
 * test_faults.c: what clfold does when the OpenCL driver fails it. Linked
 * with the interposer of cl_shim.c, which counts every OpenCL object and
 * makes chosen calls fail. One mode per CTest entry:
 *
 *   --sweep-own    for N = 1, 2, 3, ...: the Nth OpenCL call of a session
 *                  (clfold_create, four reductions that build three
 *                  programs and grow the scratch buffers, clfold_destroy)
 *                  fails. Each time: the call that saw the fault returns a
 *                  named error status with a message in clfold_last_error
 *                  (a refused clfold_create leaves NULL), never a wrong
 *                  result; the context then reduces correctly once the
 *                  driver works again; and once everything is destroyed,
 *                  no cl_context, queue, buffer, program, kernel or event
 *                  is left. Ends when a session runs with no fault left.
 *   --sweep-queue  the same through clfold_create_with_queue,
 *                  clfold_reduce_buffer and clfold_reduce_buffer_async, on
 *                  the caller's own queue and buffers:
 *                  clfold must let go of exactly what it retained, and the
 *                  caller's queue must still work.
 *   --out-of-memory  the device is full: clCreateBuffer fails with
 *                  CL_MEM_OBJECT_ALLOCATION_FAILURE, launches with that or
 *                  CL_OUT_OF_RESOURCES, the read of the result with
 *                  CL_OUT_OF_RESOURCES (on a context that reads its values,
 *                  CLFOLD_HOST_RESULT=0), as on a GPU whose memory other
 *                  programs hold. Each is reported, and the context works
 *                  again once memory is back; a reduction of the caller's
 *                  buffer, which needs no new memory, works throughout. POCL
 *                  cannot be filled for real: it over-commits (64 buffers of
 *                  256 MiB are accepted with POCL_MEMORY_LIMIT=1) and
 *                  refuses only single buffers over
 *                  CL_DEVICE_MAX_MEM_ALLOC_SIZE, which clfold never asks for.
 *   --beyond-global-memory  an array larger than the device's whole global
 *                  memory (CTest runs this with POCL_MEMORY_LIMIT=1: 1 GiB)
 *                  still reduces exactly through clfold_reduce_host's
 *                  chunks. The array is 1.5 GiB of untouched anonymous
 *                  memory (the kernel maps the zero page) with a value
 *                  planted every MiB, so that it costs no RAM.
 *   --no-fp64      POCL has doubles; the shim hides cl_khr_fp64 from
 *                  CL_DEVICE_EXTENSIONS, so that clfold sees a device without
 *                  them, as a device lacking fp64 reports itself. Doubles and
 *                  fp64 accuracy are then refused with CLFOLD_ERROR_NO_FP64
 *                  before anything is built, and everything else works; a
 *                  context made with the shim off reduces doubles again.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */

#include <sys/mman.h>

#include "cl_shim.h"
#include "util.h"

/* ---- shared checks ------------------------------------------------------------ */

/* Every OpenCL object created or retained since `before` has been released. */
static void expect_nothing_left(const struct shim_balances *before, const char *after)
{
    for (int k = 0; k < SHIM_KINDS; k++) {
        long left = shim_balance((enum shim_kind)k) - before->of[k];
        EXPECT(left == 0, "after %s: %ld %s object(s) %s", after, left < 0 ? -left : left,
               shim_kind_name((enum shim_kind)k), left > 0 ? "left unreleased" : "released too often");
    }
}

/* No object at all: what the process must be back to when it has destroyed everything. */
static const struct shim_balances NOTHING = {{0}};

/* A small int32 sum must come out right: the context works. */
static void expect_works(clfold_context *ctx, const char *after)
{
    const int32_t data[5] = {1, -2, 300000, INT32_MAX, INT32_MIN};
    int64_t sum = 0;
    clfold_status status = clfold_reduce_host(ctx, data, 5, CLFOLD_INT32, CLFOLD_SUM, &sum);
    EXPECT(status == CLFOLD_SUCCESS && sum == 299998, "context unusable after %s: %s, sum %lld: %s",
           after, clfold_status_string(status), (long long)sum, clfold_last_error(ctx));
}

/*
 * The calls whose failure clfold survives by design, answering the request
 * all the same: the event timings of clfold_last_run (which then reports no
 * device time), and the queries of device selection, where a platform or
 * device that does not answer is passed over while another one serves
 * (clGetDeviceIDs of one platform among several, clGetPlatformInfo and
 * clGetDeviceInfo for a selector's name or the default's CL_DEVICE_TYPE).
 * Any other fault that fires must fail the call.
 */
static bool survivable(const char *call)
{
    static const char *const SURVIVABLE[] = {"clGetEventProfilingInfo", "clGetDeviceIDs",
                                             "clGetPlatformInfo", "clGetDeviceInfo"};
    for (size_t i = 0; i < sizeof SURVIVABLE / sizeof *SURVIVABLE; i++)
        if (strcmp(call, SURVIVABLE[i]) == 0)
            return true;
    return false;
}

/*
 * Judges one call made while a fault was armed: a failure must come from
 * the fault and be reported; a success must be right, and a fault that
 * fired under it must be one clfold survives by design. True on success.
 */
static bool judge(clfold_context *ctx, clfold_status status, bool correct, const char *what,
                  unsigned long at)
{
    if (status == CLFOLD_SUCCESS) {
        EXPECT(correct, "%s: success with a wrong result (fault at call %lu in %s)", what, at,
               shim_fired() ? shim_fired() : "nothing");
        EXPECT(shim_fired() == NULL || survivable(shim_fired()),
               "%s: success although call %lu (%s) failed", what, at, shim_fired());
        return true;
    }
    EXPECT(shim_fired() != NULL, "%s failed with no fault injected: %s: %s", what,
           clfold_status_string(status), clfold_last_error(ctx));
    EXPECT(strcmp(clfold_status_string(status), "unknown status") != 0,
           "%s: fault in %s gave an unnamed status %d", what, shim_fired(), (int)status);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "%s: fault in %s gave %s without a message", what,
           shim_fired(), clfold_status_string(status));
    return false;
}

/* ---- data of the sessions --------------------------------------------------------- */

enum { N_INT = 5000, N_FLOAT = 3000, N_SMALL = 700 };

struct data {
    int32_t ints[N_INT];
    float floats[N_FLOAT];
    uint32_t uints[N_SMALL];
    int64_t int_sum, int_sum_window; /* all of ints; ints[7 .. 7 + 900) */
    float float_sum;
    uint32_t uint_max;
};

static void make_data(struct data *d)
{
    test_rng rng = {2024};
    reference_value v;
    fill_integers(d->ints, N_INT, CLFOLD_INT32, CLFOLD_SUM, &rng);
    fill_small(d->floats, N_FLOAT, CLFOLD_FLOAT, &rng); /* exact in any order */
    fill_integers(d->uints, N_SMALL, CLFOLD_UINT32, CLFOLD_MAX, &rng);
    reference_reduce(d->ints, N_INT, CLFOLD_INT32, CLFOLD_SUM, &v, NULL);
    d->int_sum = v.i64;
    reference_reduce(d->ints + 7, 900, CLFOLD_INT32, CLFOLD_SUM, &v, NULL);
    d->int_sum_window = v.i64;
    reference_reduce(d->floats, N_FLOAT, CLFOLD_FLOAT, CLFOLD_SUM, &v, NULL);
    d->float_sum = v.f32;
    reference_reduce(d->uints, N_SMALL, CLFOLD_UINT32, CLFOLD_MAX, &v, NULL);
    d->uint_max = v.u32;
}

/*
 * The reductions of a session, armed: auto on 1000 values, then K3 at block
 * 32 on 5000 (three passes, larger scratch buffers: released and made
 * again), the atomic baseline (a write of its identity), and a float sum.
 * Stops at the first failure. True when all succeeded.
 */
static bool reductions(clfold_context *ctx, const struct data *d, unsigned long at)
{
    int64_t i64 = 0;
    float f32 = 0;
    uint32_t u32 = 0;
    reference_value want;
    clfold_status status;
    reference_reduce(d->ints, 1000, CLFOLD_INT32, CLFOLD_SUM, &want, NULL);
    status = clfold_reduce_host(ctx, d->ints, 1000, CLFOLD_INT32, CLFOLD_SUM, &i64);
    if (!judge(ctx, status, i64 == want.i64, "auto int32 sum", at))
        return false;
    clfold_set_kernel(ctx, CLFOLD_K3, 32);
    status = clfold_reduce_host(ctx, d->ints, N_INT, CLFOLD_INT32, CLFOLD_SUM, &i64);
    if (!judge(ctx, status, i64 == d->int_sum, "K3 int32 sum", at))
        return false;
    clfold_set_kernel(ctx, CLFOLD_ATOMIC, 64);
    status = clfold_reduce_host(ctx, d->uints, N_SMALL, CLFOLD_UINT32, CLFOLD_MAX, &u32);
    if (!judge(ctx, status, u32 == d->uint_max, "atomic uint32 max", at))
        return false;
    clfold_set_kernel(ctx, CLFOLD_AUTO, 0);
    status = clfold_reduce_host(ctx, d->floats, N_FLOAT, CLFOLD_FLOAT, CLFOLD_SUM, &f32);
    return judge(ctx, status, f32 == d->float_sum, "auto float sum", at);
}

/* ---- --sweep-own ----------------------------------------------------------------------- */

/* One session with the at-th call failing; true once no fault was left to inject. */
static bool session_own(const struct data *d, unsigned long at)
{
    clfold_context *ctx = NULL;
    const char *fault = NULL;
    struct shim_balances before = shim_balances_now();
    shim_arm(at);
    clfold_status status = clfold_create(&ctx, NULL);
    if (status != CLFOLD_SUCCESS) {
        fault = shim_fired();
        EXPECT(fault != NULL, "clfold_create failed with no fault: %s", clfold_status_string(status));
        EXPECT(ctx == NULL, "a refused clfold_create left a context (fault in %s)", fault);
        ctx = NULL;
    } else if (!reductions(ctx, d, at)) {
        fault = shim_fired();
        shim_arm(0);
        clfold_set_kernel(ctx, CLFOLD_AUTO, 0);
        expect_works(ctx, fault);
    }
    clfold_destroy(ctx); /* armed still when all went well: a fault in clFinish */
    if (fault == NULL)
        fault = shim_fired();
    shim_arm(0);
    char after[128];
    snprintf(after, sizeof after, "a session with call %lu (%s) failing", at,
             fault ? fault : "none");
    expect_nothing_left(&before, after);
    return fault == NULL;
}

/* ---- --sweep-queue --------------------------------------------------------------------- */

struct own_objects {
    cl_context cl;
    cl_command_queue queue;
    cl_mem buffer;
    cl_mem result;               /* where the non-blocking reduction writes */
};

static bool make_own(cl_device_id device, const struct data *d, struct own_objects *own)
{
    cl_int err, err2, err3;
    own->cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    own->queue = own->cl ? clCreateCommandQueue(own->cl, device, CL_QUEUE_PROFILING_ENABLE, &err2)
                         : NULL;
    own->buffer = own->cl ? clCreateBuffer(own->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                           sizeof d->ints, (void *)d->ints, &err3)
                          : NULL;
    own->result = own->cl ? clCreateBuffer(own->cl, CL_MEM_READ_WRITE, 16, NULL, &err3) : NULL;
    EXPECT(own->cl != NULL && own->queue != NULL && own->buffer != NULL && own->result != NULL,
           "the test's own OpenCL objects: %d", err);
    return own->cl != NULL && own->queue != NULL && own->buffer != NULL && own->result != NULL;
}

/*
 * The caller's queue still works. (Whether clfold let go of it, the shim's
 * balance says: CL_QUEUE_REFERENCE_COUNT is no help, as POCL's own
 * references to the queue outlive the commands for a while.)
 */
static void check_own(const struct own_objects *own, unsigned long at)
{
    int32_t word = 0;
    EXPECT(clEnqueueReadBuffer(own->queue, own->buffer, CL_TRUE, 0, sizeof word, &word, 0, NULL,
                               NULL) == CL_SUCCESS,
           "fault at call %lu: the caller's queue no longer works", at);
}

static void release_own(struct own_objects *own)
{
    if (own->result != NULL)
        clReleaseMemObject(own->result);
    if (own->buffer != NULL)
        clReleaseMemObject(own->buffer);
    if (own->queue != NULL)
        clReleaseCommandQueue(own->queue);
    if (own->cl != NULL)
        clReleaseContext(own->cl);
}

/*
 * A window of the caller's buffer, then host data through the caller's
 * queue, then the window again without blocking, into the caller's result
 * buffer: a refused one hands back no event.
 */
static bool queue_reductions(clfold_context *ctx, const struct own_objects *own,
                             const struct data *d, unsigned long at)
{
    int64_t sum = 0;
    clfold_status status = clfold_reduce_buffer(ctx, own->buffer, 7, 900, CLFOLD_INT32, CLFOLD_SUM,
                                                &sum);
    if (!judge(ctx, status, sum == d->int_sum_window, "reduce_buffer at offset 7", at))
        return false;
    status = clfold_reduce_host(ctx, d->ints, N_INT, CLFOLD_INT32, CLFOLD_SUM, &sum);
    if (!judge(ctx, status, sum == d->int_sum, "reduce_host", at))
        return false;
    cl_event done = NULL;
    status = clfold_reduce_buffer_async(ctx, own->buffer, 7, 900, CLFOLD_INT32, CLFOLD_SUM,
                                        own->result, 8, 0, NULL, &done);
    if (status != CLFOLD_SUCCESS) {
        EXPECT(done == NULL, "a refused reduce_buffer_async handed back an event (fault at %lu)",
               at);
        return judge(ctx, status, false, "reduce_buffer_async", at);
    }
    sum = 0;
    bool read = clWaitForEvents(1, &done) == CL_SUCCESS &&
                clEnqueueReadBuffer(own->queue, own->result, CL_TRUE, 8, sizeof sum, &sum, 0, NULL,
                                    NULL) == CL_SUCCESS;
    clReleaseEvent(done);
    if (!read)
        return true; /* the fault hit the test's own wait or read */
    return judge(ctx, status, sum == d->int_sum_window, "reduce_buffer_async", at);
}

static bool session_queue(cl_device_id device, const struct data *d, unsigned long at)
{
    struct own_objects own;
    clfold_context *ctx = NULL;
    const char *fault = NULL;
    struct shim_balances before = shim_balances_now();
    if (!make_own(device, d, &own)) {
        release_own(&own);
        return true;
    }
    shim_arm(at);
    clfold_status status = clfold_create_with_queue(&ctx, own.queue);
    if (status != CLFOLD_SUCCESS) {
        fault = shim_fired();
        EXPECT(fault != NULL, "clfold_create_with_queue failed with no fault: %s",
               clfold_status_string(status));
        EXPECT(ctx == NULL, "a refused clfold_create_with_queue left a context (fault in %s)", fault);
        ctx = NULL;
    } else if (!queue_reductions(ctx, &own, d, at)) {
        fault = shim_fired();
        shim_arm(0);
        expect_works(ctx, fault);
    }
    clfold_destroy(ctx);
    if (fault == NULL)
        fault = shim_fired();
    shim_arm(0);
    check_own(&own, at);
    release_own(&own);
    char after[128];
    snprintf(after, sizeof after, "a session on the caller's queue with call %lu (%s) failing", at,
             fault ? fault : "none");
    expect_nothing_left(&before, after);
    return fault == NULL;
}

/* Runs sessions with call 1, 2, 3, ... failing until one has no fault left. */
static void sweep(bool own_queue)
{
    static struct data d;
    make_data(&d);
    clfold_context *probe = test_context();
    if (probe == NULL) {
        EXPECT(false, "no context");
        return;
    }
    cl_device_id device = clfold_device(probe);
    clfold_destroy(probe);
    unsigned long at = 1;
    while (!(own_queue ? session_queue(device, &d, at) : session_own(&d, at)) && at < 100000)
        at++;
    printf("sweep%s: %lu sessions, each with one OpenCL call failing\n",
           own_queue ? " (caller's queue)" : "", at - 1);
    EXPECT(at > 20 && at < 100000, "the sweep made %lu sessions: the shim is not in the path", at);
}

/* ---- --out-of-memory ---------------------------------------------------------------- */

/* A refusal for want of device memory, with a message naming the call. */
static void expect_memory_error(clfold_context *ctx, clfold_status status, const char *what,
                                const char *call)
{
    const char *message = clfold_last_error(ctx);
    EXPECT(status == (clfold_status)CL_MEM_OBJECT_ALLOCATION_FAILURE ||
               status == (clfold_status)CL_OUT_OF_RESOURCES ||
               (status == CLFOLD_ERROR_INVALID_BLOCK_SIZE && strstr(message, "CL_OUT_OF_RESOURCES")),
           "%s on a full device: %s: %s", what, clfold_status_string(status), message);
    EXPECT(strstr(message, call) != NULL || strstr(message, "CL_OUT_OF_RESOURCES") != NULL,
           "%s on a full device: the message does not say what failed: \"%s\"", what, message);
    printf("  %s: %s: %s\n", what, clfold_status_string(status), message);
}

/* Every call of `call` fails with `code` while `run` reduces on ctx. */
static void while_full(clfold_context *ctx, const struct data *d, const char *call, cl_int code,
                       const char *what)
{
    int64_t sum = 0;
    shim_arm(0);
    shim_fail_calls(call, 0, code);
    clfold_status status = clfold_reduce_host(ctx, d->ints, N_INT, CLFOLD_INT32, CLFOLD_SUM, &sum);
    shim_fail_calls(NULL, 0, 0);
    expect_memory_error(ctx, status, what, call);
    expect_works(ctx, what); /* the memory is back */
}

static void out_of_memory(void)
{
    static struct data d;
    make_data(&d);
    clfold_context *ctx = test_context(), *fresh = NULL;
    if (ctx == NULL) {
        EXPECT(false, "no context");
        return;
    }
    expect_works(ctx, "creation"); /* its scratch buffers exist now */

    /* A new context needs scratch buffers; creating it needs none. */
    EXPECT_STATUS(NULL, clfold_create(&fresh, NULL), CLFOLD_SUCCESS);
    if (fresh != NULL)
        while_full(fresh, &d, "clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE,
                   "the first reduction of a new context (clCreateBuffer)");
    /* A warm context still needs a buffer for the input. */
    while_full(ctx, &d, "clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE,
               "a reduction on a warm context (clCreateBuffer)");
    /* Drivers that allocate lazily say so when the command runs. */
    while_full(ctx, &d, "clEnqueueNDRangeKernel", CL_MEM_OBJECT_ALLOCATION_FAILURE,
               "a launch (CL_MEM_OBJECT_ALLOCATION_FAILURE)");
    while_full(ctx, &d, "clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES,
               "a launch (CL_OUT_OF_RESOURCES)");
    /* A value watched for in host memory is not read (src/reduce/landing.c): a context that reads. */
    setenv("CLFOLD_HOST_RESULT", "0", 1);
    clfold_context *reading = test_context();
    unsetenv("CLFOLD_HOST_RESULT");
    if (reading != NULL) {
        expect_works(reading, "a context that reads its values");
        while_full(reading, &d, "clEnqueueReadBuffer", CL_OUT_OF_RESOURCES,
                   "reading the result (CL_OUT_OF_RESOURCES)");
        clfold_destroy(reading);
    }
    EXPECT(reading != NULL, "no context with CLFOLD_HOST_RESULT=0");

    /* What needs no new memory still works on a full device: a caller's buffer. */
    cl_int err;
    cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof d.ints, d.ints, &err);
    int64_t sum = 0;
    shim_fail_calls("clCreateBuffer", 0, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, N_INT, CLFOLD_INT32, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == d.int_sum, "a caller's buffer on a full device: %lld, want %lld", (long long)sum,
           (long long)d.int_sum);
    shim_fail_calls(NULL, 0, 0);
    clReleaseMemObject(buffer);

    clfold_destroy(fresh);
    clfold_destroy(ctx);
    expect_nothing_left(&NOTHING, "the out-of-memory checks");
}

/* ---- --beyond-global-memory ------------------------------------------------------- */

static int beyond_global_memory(void)
{
    clfold_context *ctx = test_context();
    cl_ulong global = 0, largest = 0;
    if (ctx == NULL) {
        EXPECT(false, "no context");
        return 1;
    }
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof largest, &largest,
                    NULL);
    if (global == 0 || global > ((cl_ulong)4 << 30)) {
        printf("beyond-global-memory: the device has %llu bytes of global memory; this test wants "
               "at most 4 GiB (POCL_MEMORY_LIMIT=1): skipped\n", (unsigned long long)global);
        clfold_destroy(ctx);
        return TEST_SKIP;
    }
    size_t bytes = (size_t)(global + global / 2), step = (size_t)1 << 20;
    uint8_t *data = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (data == MAP_FAILED) {
        printf("beyond-global-memory: cannot map %zu bytes: skipped\n", bytes);
        clfold_destroy(ctx);
        return TEST_SKIP;
    }
    uint64_t want_sum = 0;
    for (size_t at = 0, i = 0; at < bytes; at += step, i++) {
        data[at] = (uint8_t)(1 + i % 251);
        want_sum += data[at];
    }
    data[bytes - 1] = 255;
    want_sum += 255;
    printf("beyond-global-memory: %zu uint8 values; the device has %llu bytes of global memory and "
           "buffers of at most %llu\n", bytes, (unsigned long long)global,
           (unsigned long long)largest);

    uint64_t sum = 0;
    uint8_t max = 0;
    clfold_run_info info = {0};
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, bytes, CLFOLD_UINT8, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == want_sum, "sum %llu, want %llu", (unsigned long long)sum,
           (unsigned long long)want_sum);
    clfold_last_run(ctx, &info);
    EXPECT(info.bytes_read >= bytes && info.passes >= (bytes + largest - 1) / largest,
           "%u passes read %llu bytes: not one pass per chunk of at most %llu", info.passes,
           (unsigned long long)info.bytes_read, (unsigned long long)largest);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, bytes, CLFOLD_UINT8, CLFOLD_MAX, &max),
                  CLFOLD_SUCCESS);
    EXPECT(max == 255, "max %u, want 255 (the last byte)", max);
    munmap(data, bytes);
    clfold_destroy(ctx);
    expect_nothing_left(&NOTHING, "reductions beyond the global memory");
    return 0;
}

/* ---- --no-fp64 ---------------------------------------------------------------------- */

static void no_fp64(void)
{
    const double doubles[4] = {1.5, -2.25, 4.0, 0.125};
    const float floats[4] = {1.5f, -2.25f, 4.0f, 0.125f};
    const uint16_t halves[4] = {0x3e00, 0xc080, 0x4400, 0x3000}; /* the same values */
    double dbl = 0;
    float flt = 0;
    cl_int err;

    shim_hide_fp64(true);
    clfold_context *ctx = test_context();
    if (ctx == NULL) {
        EXPECT(false, "no context");
        return;
    }
    char extensions[4096] = "";
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL);
    EXPECT(strstr(extensions, "cl_khr_fp64") == NULL, "the shim did not hide cl_khr_fp64: %s",
           extensions);

    const clfold_op ops[] = {CLFOLD_SUM, CLFOLD_PROD, CLFOLD_MIN, CLFOLD_MAX};
    for (int o = 0; o < 4; o++) {
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, doubles, 4, CLFOLD_DOUBLE, ops[o], &dbl),
                      CLFOLD_ERROR_NO_FP64);
        EXPECT(strstr(clfold_last_error(ctx), "cl_khr_fp64") != NULL,
               "the message does not name cl_khr_fp64: \"%s\"", clfold_last_error(ctx));
    }
    cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof doubles, (void *)doubles, &err);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, 4, CLFOLD_DOUBLE, CLFOLD_SUM, &dbl),
                  CLFOLD_ERROR_NO_FP64);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, doubles, 0, CLFOLD_DOUBLE, CLFOLD_SUM, &dbl),
                  CLFOLD_ERROR_NO_FP64); /* even for no elements: the type is refused */
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_FP64), CLFOLD_ERROR_NO_FP64);
    EXPECT(strstr(clfold_last_error(ctx), "cl_khr_fp64") != NULL, "fp64 accuracy: \"%s\"",
           clfold_last_error(ctx));
    EXPECT(clfold_last_build_options(ctx)[0] == '\0',
           "something was built for a refused request: \"%s\"", clfold_last_build_options(ctx));

    /* Everything else works, at the accuracy that stayed in force. */
    for (int a = CLFOLD_ACCURACY_DEFAULT; a <= CLFOLD_ACCURACY_COMPENSATED; a++) {
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, (clfold_accuracy)a), CLFOLD_SUCCESS);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, floats, 4, CLFOLD_FLOAT, CLFOLD_SUM, &flt),
                      CLFOLD_SUCCESS);
        EXPECT(flt == 3.375f, "float sum %g, want 3.375", flt);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, halves, 4, CLFOLD_HALF, CLFOLD_SUM, &flt),
                      CLFOLD_SUCCESS);
        EXPECT(flt == 3.375f, "half sum %g, want 3.375", flt);
        EXPECT(strstr(clfold_last_build_options(ctx), "double") == NULL,
               "a kernel with doubles was built: %s", clfold_last_build_options(ctx));
    }
    expect_works(ctx, "refused doubles");
    clReleaseMemObject(buffer);
    clfold_destroy(ctx);

    /* The control: the same device with its doubles shown. */
    shim_hide_fp64(false);
    ctx = test_context();
    if (ctx != NULL) {
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, doubles, 4, CLFOLD_DOUBLE, CLFOLD_SUM, &dbl),
                      CLFOLD_SUCCESS);
        EXPECT(dbl == 3.375, "double sum %g, want 3.375", dbl);
    }
    clfold_destroy(ctx);
    expect_nothing_left(&NOTHING, "the fp64 checks");
}

int main(int argc, char **argv)
{
    const char *mode = argc == 2 ? argv[1] : "";
    int status = 0;
    if (strcmp(mode, "--sweep-own") == 0)
        sweep(false);
    else if (strcmp(mode, "--sweep-queue") == 0)
        sweep(true);
    else if (strcmp(mode, "--out-of-memory") == 0)
        out_of_memory();
    else if (strcmp(mode, "--beyond-global-memory") == 0)
        status = beyond_global_memory();
    else if (strcmp(mode, "--no-fp64") == 0)
        no_fp64();
    else {
        fprintf(stderr, "usage: test_faults --sweep-own | --sweep-queue | --out-of-memory | "
                        "--beyond-global-memory | --no-fp64\n");
        return 2;
    }
    if (status == TEST_SKIP)
        return status;
    return test_finish(mode + 2) | status;
}

/*
 * latency_probe: where a small reduction's wall time goes on an OpenCL
 * device, command by command. One work-group folds 1024 zeros and adds a
 * stamp, so every call's value is fresh and checked; each way of getting
 * that value to the host is timed (median of 400 calls, microseconds), on
 * a queue with profiling and on one without, with the launch asked for an
 * event and not:
 *
 *   kernel+finish       the floor: a launch and clFinish, no value
 *   read-blocking       a launch, then a blocking 4-byte read
 *   read-pinned+finish  a non-blocking read into a mapped CL_MEM_ALLOC_HOST_PTR
 *                       buffer, then clFinish
 *   map-device          a blocking map of the device buffer the kernel wrote
 *   map-host-buffer     the kernel writes a CL_MEM_ALLOC_HOST_PTR buffer, which
 *                       the host maps
 * A way whose values come back stale (the stamp of an earlier call) is no
 * way at all. Then the host cost of the calls clfold makes around a launch,
 * and how each way of waiting fares as the kernel runs longer, including,
 * where the driver has cl_nv_create_buffer, a kernel that writes a buffer
 * placed in host memory (CL_MEM_LOCATION_HOST_NV) while the host spins on it.
 *
 *   cc -O2 -o latency_probe bench/latency_probe.c -lOpenCL
 *   latency_probe [device-substring]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "find_device.h"

#define CALLS 400
#define N 1024

static const char *SOURCE =
    "__kernel void fold(__global const float *in, uint n, __global float *out, float stamp,\n"
    "                   uint spin)\n"
    "{\n"
    "    __local float s[256];\n"
    "    const uint t = get_local_id(0);\n"
    "    float acc = 0;\n"
    "    for (uint r = 0; r <= spin; r++)\n"
    "        for (uint i = t; i < n; i += 256) acc += in[i + r % 2];\n"
    "    s[t] = acc;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint w = 128; w > 0; w >>= 1) {\n"
    "        if (t < w) s[t] += s[t + w];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (t == 0) out[0] = s[0] + stamp;\n"
    "}\n";

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void die(const char *what, cl_int err)
{
    fprintf(stderr, "latency_probe: %s failed (%d)\n", what, err);
    exit(1);
}
#define OK(call, what)                  \
    do {                                \
        cl_int e_ = (call);             \
        if (e_ != CL_SUCCESS)           \
            die(what, e_);              \
    } while (0)

enum way { FINISH_ONLY, READ_BLOCKING, READ_PINNED_FINISH, MAP_BLOCKING, MAP_PINNED, WAYS };
static const char *NAMES[WAYS] = {"kernel+finish", "read-blocking", "read-pinned+finish",
                                  "map-device", "map-host-buffer"};

struct rig {
    cl_context cl;
    cl_command_queue queue[2];   /* with profiling, without */
    cl_kernel kernel;
    cl_mem in, out, pinned, host_side, host_ptr_buffer;
    cl_mem nv_mapped_buffer, nv_host_ptr_buffer; /* CL_MEM_LOCATION_HOST_NV, or NULL */
    float *mapped;
    float *host_ptr;             /* page-aligned host memory behind host_ptr_buffer */
    float *nv_mapped;            /* nv_mapped_buffer, mapped once and left mapped */
    float *nv_host_ptr;          /* page-aligned host memory behind nv_host_ptr_buffer */
    double landed_us;            /* when a spin on memory saw the value */
};

/* One call of `way` on queue `q`, asking the launch for an event or not; returns the value. */
static float call(struct rig *rig, enum way way, int q, int with_event, float stamp)
{
    cl_command_queue queue = rig->queue[q];
    cl_mem out = way == MAP_PINNED ? rig->host_side : rig->out;
    cl_uint n = N;
    float value = -1;
    cl_event event = NULL;
    size_t global = 256, local = 256;
    cl_int err;
    OK(clSetKernelArg(rig->kernel, 0, sizeof rig->in, &rig->in), "arg 0");
    OK(clSetKernelArg(rig->kernel, 1, sizeof n, &n), "arg 1");
    OK(clSetKernelArg(rig->kernel, 2, sizeof out, &out), "arg 2");
    OK(clSetKernelArg(rig->kernel, 3, sizeof stamp, &stamp), "arg 3");
    OK(clSetKernelArg(rig->kernel, 4, sizeof(cl_uint), &(cl_uint){0}), "arg 4");
    OK(clEnqueueNDRangeKernel(queue, rig->kernel, 1, NULL, &global, &local, 0, NULL,
                              with_event ? &event : NULL),
       "launch");
    switch (way) {
    case FINISH_ONLY:
        OK(clFinish(queue), "clFinish");
        value = stamp;
        break;
    case READ_BLOCKING:
        OK(clEnqueueReadBuffer(queue, rig->out, CL_TRUE, 0, 4, &value, 0, NULL, NULL), "read");
        break;
    case READ_PINNED_FINISH:
        OK(clEnqueueReadBuffer(queue, rig->out, CL_FALSE, 0, 4, rig->mapped, 0, NULL, NULL),
           "read");
        OK(clFinish(queue), "clFinish");
        value = *(volatile float *)rig->mapped;
        break;
    case MAP_BLOCKING:
    case MAP_PINNED: {
        float *p = clEnqueueMapBuffer(queue, out, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err);
        OK(err, "map");
        value = *p;
        OK(clEnqueueUnmapMemObject(queue, out, p, 0, NULL, NULL), "unmap");
        break;
    }
    default:
        break;
    }
    if (event != NULL)
        clReleaseEvent(event);
    return value;
}

/*
 * How the host waits, as the kernel grows longer: a launch, a non-blocking
 * read into pinned memory, then clFinish; the same read with an event,
 * waited for by clWaitForEvents or by spinning on its status; or a blocking
 * read; and, against those, when the bytes land in host memory: spinning on
 * the pinned memory the read writes (memory-spin), or on the memory of a
 * CL_MEM_USE_HOST_PTR buffer the kernel writes (host-ptr-spin). Those two
 * are probes, not ways to wait: OpenCL promises nothing about the bytes
 * before the command completes. On the plain queue; the kernel's device
 * time from the profiling one.
 */
/* Spins on the event's status until its command completes. */
static void spin(cl_event event)
{
    cl_int state = CL_QUEUED;
    while (state != CL_COMPLETE) {
        OK(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL),
           "clGetEventInfo");
        if (state < 0)
            die("command", state);
    }
}

enum wait { WAIT_FINISH, WAIT_EVENTS, WAIT_SPIN, WAIT_BLOCKING, WAIT_MEMORY, WAIT_HOST_PTR,
            WAIT_NV_MAPPED, WAIT_NV_HOST_PTR, WAITS };
static const char *WAIT_NAMES[WAITS] = {"finish", "wait-events", "spin", "blocking-read",
                                        "memory-spin", "host-ptr-spin", "nv-mapped-spin",
                                        "nv-hostptr-spin"};

static bool spins_on_memory(enum wait wait)
{
    return wait == WAIT_MEMORY || wait == WAIT_HOST_PTR || wait == WAIT_NV_MAPPED ||
           wait == WAIT_NV_HOST_PTR;
}

static float wait_call(struct rig *rig, enum wait wait, cl_uint spin_rounds, float stamp)
{
    cl_command_queue queue = rig->queue[1];
    cl_uint n = N;
    size_t global = 256, local = 256;
    cl_event event = NULL;
    float value = -1;
    OK(clSetKernelArg(rig->kernel, 0, sizeof rig->in, &rig->in), "arg 0");
    OK(clSetKernelArg(rig->kernel, 1, sizeof n, &n), "arg 1");
    cl_mem out = wait == WAIT_HOST_PTR      ? rig->host_ptr_buffer
                 : wait == WAIT_NV_MAPPED   ? rig->nv_mapped_buffer
                 : wait == WAIT_NV_HOST_PTR ? rig->nv_host_ptr_buffer
                                            : rig->out;
    if (out == NULL) /* the driver lacks cl_nv_create_buffer */
        return -1;
    OK(clSetKernelArg(rig->kernel, 2, sizeof out, &out), "arg 2");
    OK(clSetKernelArg(rig->kernel, 3, sizeof stamp, &stamp), "arg 3");
    OK(clSetKernelArg(rig->kernel, 4, sizeof spin_rounds, &spin_rounds), "arg 4");
    OK(clEnqueueNDRangeKernel(queue, rig->kernel, 1, NULL, &global, &local, 0, NULL, NULL),
       "launch");
    if (spins_on_memory(wait)) {
        /*
         * The value is the stamp: spin on host memory until it shows (the
         * caller's time stops there), then clFinish, so that calls do not
         * overlap.
         */
        volatile float *seen = wait == WAIT_HOST_PTR      ? rig->host_ptr
                               : wait == WAIT_NV_MAPPED   ? rig->nv_mapped
                               : wait == WAIT_NV_HOST_PTR ? rig->nv_host_ptr
                                                          : rig->mapped;
        if (wait == WAIT_MEMORY)
            OK(clEnqueueReadBuffer(queue, rig->out, CL_FALSE, 0, 4, rig->mapped, 0, NULL, NULL),
               "read");
        OK(clFlush(queue), "clFlush");
        double give_up = now_us() + 2000; /* where the bytes never land: stale */
        while (*seen != stamp && now_us() < give_up)
            ;
        value = *seen;
        rig->landed_us = now_us();
        OK(clFinish(queue), "clFinish");
        return value;
    }
    if (wait == WAIT_BLOCKING) {
        OK(clEnqueueReadBuffer(queue, rig->out, CL_TRUE, 0, 4, &value, 0, NULL, NULL), "read");
        return value;
    }
    OK(clEnqueueReadBuffer(queue, rig->out, CL_FALSE, 0, 4, rig->mapped, 0, NULL,
                           wait == WAIT_FINISH ? NULL : &event),
       "read");
    if (wait == WAIT_FINISH) {
        OK(clFinish(queue), "clFinish");
    } else if (wait == WAIT_EVENTS) {
        OK(clWaitForEvents(1, &event), "clWaitForEvents");
    } else {
        OK(clFlush(queue), "clFlush");
        spin(event);
    }
    if (event != NULL)
        clReleaseEvent(event);
    return *(volatile float *)rig->mapped;
}

static double kernel_us(struct rig *rig, cl_uint spin_rounds)
{
    cl_uint n = N;
    float stamp = 0;
    size_t global = 256, local = 256;
    double best = 1e9;
    for (int i = 0; i < 50; i++) {
        cl_event event;
        cl_ulong start, end;
        OK(clSetKernelArg(rig->kernel, 0, sizeof rig->in, &rig->in), "arg 0");
        OK(clSetKernelArg(rig->kernel, 1, sizeof n, &n), "arg 1");
        OK(clSetKernelArg(rig->kernel, 2, sizeof rig->out, &rig->out), "arg 2");
        OK(clSetKernelArg(rig->kernel, 3, sizeof stamp, &stamp), "arg 3");
        OK(clSetKernelArg(rig->kernel, 4, sizeof spin_rounds, &spin_rounds), "arg 4");
        OK(clEnqueueNDRangeKernel(rig->queue[0], rig->kernel, 1, NULL, &global, &local, 0, NULL,
                                  &event),
           "launch");
        OK(clWaitForEvents(1, &event), "wait");
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        clReleaseEvent(event);
        best = (end - start) * 1e-3 < best ? (end - start) * 1e-3 : best;
    }
    return best;
}

static void waits(struct rig *rig)
{
    static const cl_uint SPINS[] = {0, 4, 8, 16, 32, 64, 128};
    enum { ROUNDS = 200 };
    printf("\nwaiting on a plain queue, median of %d calls (us)\n%-10s %9s", ROUNDS, "rounds",
           "kernel");
    for (int w = 0; w < WAITS; w++)
        printf(" %14s", WAIT_NAMES[w]);
    printf("\n");
    for (size_t k = 0; k < sizeof SPINS / sizeof *SPINS; k++) {
        static double times[WAITS][ROUNDS];
        int stale = 0;
        float stamp = 1;
        for (int round = 0; round < ROUNDS + 10; round++)
            for (int w = 0; w < WAITS; w++) {
                double t0 = now_us();
                stale += wait_call(rig, (enum wait)w, SPINS[k], stamp) != stamp;
                double t = (spins_on_memory((enum wait)w) ? rig->landed_us : now_us()) - t0;
                stamp += 1;
                if (round >= 10)
                    times[w][round - 10] = t;
            }
        printf("%-10u %9.2f", SPINS[k], kernel_us(rig, SPINS[k]));
        for (int w = 0; w < WAITS; w++) {
            qsort(times[w], ROUNDS, sizeof times[w][0], compare);
            printf(" %14.2f", times[w][ROUNDS / 2]);
        }
        printf("%s\n", stale ? "  (stale values!)" : "");
    }
}

/* Host microseconds of the calls clfold makes per launch, best of 400. */
static void host_costs(struct rig *rig)
{
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    cl_uint n = N;
    float stamp = 0;
    size_t global = 256, local = 256;
    for (int i = 0; i < CALLS; i++) {
        cl_event event;
        cl_ulong t;
        double t0 = now_us();
        OK(clSetKernelArg(rig->kernel, 0, sizeof rig->in, &rig->in), "arg 0");
        OK(clSetKernelArg(rig->kernel, 1, sizeof n, &n), "arg 1");
        OK(clSetKernelArg(rig->kernel, 2, sizeof rig->out, &rig->out), "arg 2");
        OK(clSetKernelArg(rig->kernel, 3, sizeof stamp, &stamp), "arg 3");
        OK(clSetKernelArg(rig->kernel, 4, sizeof(cl_uint), &(cl_uint){0}), "arg 4");
        double t1 = now_us();
        OK(clEnqueueNDRangeKernel(rig->queue[0], rig->kernel, 1, NULL, &global, &local, 0, NULL,
                                  &event),
           "launch");
        double t2 = now_us();
        OK(clFinish(rig->queue[0]), "clFinish");
        double t3 = now_us();
        OK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL), "start");
        OK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), "end");
        clReleaseEvent(event);
        double t4 = now_us();
        double parts[4] = {t1 - t0, t2 - t1, t4 - t3, t3 - t2};
        for (int k = 0; k < 4; k++)
            best[k] = parts[k] < best[k] ? parts[k] : best[k];
    }
    printf("host cost, best of %d (us): 4 x clSetKernelArg %.2f, clEnqueueNDRangeKernel %.2f, "
           "2 profiling queries + release %.2f, clFinish after launch %.2f\n",
           CALLS, best[0], best[1], best[2], best[3]);
}

typedef cl_mem (*create_buffer_nv_fn)(cl_context, cl_mem_flags, cl_bitfield, size_t, void *,
                                      cl_int *);
#define CL_MEM_LOCATION_HOST_NV (1 << 0)
#define CL_MEM_PINNED_NV (1 << 1)

/*
 * NVIDIA's cl_nv_create_buffer places a buffer in host memory: one
 * allocated and mapped once, one over the probe's own pinned page. Left
 * NULL where the driver lacks the extension.
 */
static void make_nv_buffers(struct rig *rig, cl_device_id device)
{
    cl_platform_id platform;
    cl_int err;
    rig->nv_mapped_buffer = rig->nv_host_ptr_buffer = NULL;
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    create_buffer_nv_fn create =
        (create_buffer_nv_fn)clGetExtensionFunctionAddressForPlatform(platform, "clCreateBufferNV");
    printf("clCreateBufferNV: %s\n", create ? "present" : "absent");
    if (create == NULL)
        return;
    rig->nv_mapped_buffer = create(rig->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                   CL_MEM_LOCATION_HOST_NV, 64, NULL, &err);
    OK(err, "clCreateBufferNV (ALLOC_HOST_PTR, LOCATION_HOST)");
    rig->nv_mapped = clEnqueueMapBuffer(rig->queue[1], rig->nv_mapped_buffer, CL_TRUE,
                                        CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    OK(err, "map the host-located buffer");
    rig->nv_host_ptr = aligned_alloc(4096, 4096);
    memset(rig->nv_host_ptr, 0, 4096);
    /* The driver refuses CL_MEM_PINNED_NV with CL_MEM_USE_HOST_PTR (-30). */
    rig->nv_host_ptr_buffer = create(rig->cl, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                     CL_MEM_LOCATION_HOST_NV, 4096, rig->nv_host_ptr, &err);
    printf("clCreateBufferNV (USE_HOST_PTR, LOCATION_HOST): %d\n", err);
}

int main(int argc, char **argv)
{
    cl_device_id device = find_device(argc > 1 ? argv[1] : "");
    struct rig rig;
    cl_int err;
    if (device == NULL) {
        fprintf(stderr, "latency_probe: no device matches\n");
        return 1;
    }
    char name[256];
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    rig.cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    OK(err, "clCreateContext");
    rig.queue[0] = clCreateCommandQueue(rig.cl, device, CL_QUEUE_PROFILING_ENABLE, &err);
    OK(err, "queue");
    rig.queue[1] = clCreateCommandQueue(rig.cl, device, 0, &err);
    OK(err, "queue");
    cl_program program = clCreateProgramWithSource(rig.cl, 1, &SOURCE, NULL, &err);
    OK(err, "program");
    OK(clBuildProgram(program, 1, &device, "", NULL, NULL), "build");
    rig.kernel = clCreateKernel(program, "fold", &err);
    OK(err, "kernel");
    float *zeros = calloc(N + 1, sizeof *zeros);
    rig.in = clCreateBuffer(rig.cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (N + 1) * sizeof *zeros,
                            zeros, &err);
    OK(err, "in");
    rig.out = clCreateBuffer(rig.cl, CL_MEM_READ_WRITE, 64, NULL, &err);
    OK(err, "out");
    rig.pinned = clCreateBuffer(rig.cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    OK(err, "pinned");
    rig.host_side = clCreateBuffer(rig.cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL,
                                   &err);
    OK(err, "host-side buffer");
    rig.host_ptr = aligned_alloc(4096, 4096);
    memset(rig.host_ptr, 0, 4096);
    rig.host_ptr_buffer = clCreateBuffer(rig.cl, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 4096,
                                         rig.host_ptr, &err);
    OK(err, "host-pointer buffer");
    rig.mapped = clEnqueueMapBuffer(rig.queue[0], rig.pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                    0, 64, 0, NULL, NULL, &err);
    OK(err, "map");
    make_nv_buffers(&rig, device);

    printf("device: %s; one group folds %d floats; median of %d calls (us)\n", name, N, CALLS);
    printf("%-20s %-9s %-6s %8s %8s %8s %s\n", "way", "queue", "event", "median", "p10", "p90",
           "stale");
    enum { CASES = WAYS * 4 };
    static double times[CASES][CALLS];
    int wrong[CASES] = {0};
    float stamp = 1;
    for (int round = 0; round < CALLS + 20; round++) /* interleaved, so drift hits every way alike */
        for (int c = 0; c < CASES; c++) {
            double t0 = now_us();
            float got = call(&rig, (enum way)(c / 4), c % 2, c / 2 % 2, stamp);
            double t = now_us() - t0;
            wrong[c] += got != stamp;
            stamp += 1;
            if (round >= 20)
                times[c][round - 20] = t;
        }
    for (int c = 0; c < CASES; c++) {
        qsort(times[c], CALLS, sizeof times[c][0], compare);
        printf("%-20s %-9s %-6s %8.2f %8.2f %8.2f %d\n", NAMES[c / 4],
               c % 2 ? "plain" : "profiling", c / 2 % 2 ? "yes" : "no", times[c][CALLS / 2],
               times[c][CALLS / 10], times[c][CALLS * 9 / 10], wrong[c]);
    }
    host_costs(&rig);
    waits(&rig);
    return 0;
}

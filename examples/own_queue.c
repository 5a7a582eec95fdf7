/*
 * own_queue.c: clfold on OpenCL objects that the program owns. It creates
 * its own cl_context, an in-order queue with profiling and a cl_mem, fills
 * the buffer, and hands the queue and the buffer to clfold, which reduces a
 * range that starts at an element offset. It checks the results against a
 * plain loop, prints them, releases everything in order, and exits 1 on any
 * mismatch or error.
 *
 * The device is the first GPU, else the first device of any platform.
 * It calls OpenCL itself, so it links OpenCL as well as clfold:
 *   cc own_queue.c $(pkg-config --cflags --libs clfold OpenCL)
 *   cmake: find_package(clfold) + target_link_libraries(own_queue PRIVATE clfold::clfold)
 */
/* OpenCL 1.2's clCreateCommandQueue, which every driver has; a 2.0 program would use ...WithProperties. */
#define CL_TARGET_OPENCL_VERSION 120
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clfold.h>

#define OFFSET 1000u          /* elements before the range that is reduced */
#define COUNT 1000003u        /* elements reduced: a prime */
#define TAIL 77u              /* elements after it */
#define TOTAL (OFFSET + COUNT + TAIL)

/* The first GPU of any platform, else the first device of any platform. */
static cl_int pick_device(cl_device_id *device)
{
    cl_platform_id platforms[16];
    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(16, platforms, &count);
    if (err != CL_SUCCESS)
        return err;
    if (count > 16)
        count = 16;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, device, NULL) == CL_SUCCESS)
            return CL_SUCCESS;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, device, NULL) == CL_SUCCESS)
            return CL_SUCCESS;
    return CL_DEVICE_NOT_FOUND;
}

/* One error flow for OpenCL and clfold calls: say what failed and jump. */
#define CHECK(call, what)                                                             \
    do {                                                                              \
        cl_int err_ = (cl_int)(call);                                                 \
        if (err_ != CL_SUCCESS) {                                                     \
            fprintf(stderr, "own_queue: %s: %s %s\n", (what),                         \
                    clfold_status_string((clfold_status)err_), clfold_last_error(fold)); \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)

int main(void)
{
    int rc = 1;
    cl_int err = CL_SUCCESS;
    cl_device_id device = NULL;
    cl_context context = NULL;
    cl_command_queue queue = NULL;
    cl_mem buffer = NULL;
    clfold_context *fold = NULL;
    int32_t *host = malloc(TOTAL * sizeof *host);
    int64_t sum = 0, expected_sum = 0;
    int32_t min = 0, expected_min = INT32_MAX;
    clfold_run_info run;
    char name[256] = "";

    if (host == NULL) {
        fprintf(stderr, "own_queue: out of memory\n");
        goto cleanup;
    }
    /* The range holds values in [-500, 500); around it lie values that would
     * spoil both results if clfold read outside [OFFSET, OFFSET + COUNT). */
    for (uint32_t i = 0; i < TOTAL; i++) {
        if (i < OFFSET || i >= OFFSET + COUNT) {
            host[i] = INT32_MIN;
            continue;
        }
        host[i] = (int32_t)((i * 2654435761u) % 1000u) - 500;
        expected_sum += host[i];
        if (host[i] < expected_min)
            expected_min = host[i];
    }

    /* The program's own OpenCL objects. */
    CHECK(pick_device(&device), "no OpenCL device");
    CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL), "CL_DEVICE_NAME");
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err, "clCreateContext");
    /* Profiling lets clfold report device times (clfold_last_run). */
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err, "clCreateCommandQueue");
    buffer = clCreateBuffer(context, CL_MEM_READ_ONLY, TOTAL * sizeof *host, NULL, &err);
    CHECK(err, "clCreateBuffer");
    CHECK(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, TOTAL * sizeof *host, host, 0, NULL, NULL),
          "clEnqueueWriteBuffer");

    /* clfold retains the queue (and its context) until clfold_destroy. */
    CHECK(clfold_create_with_queue(&fold, queue), "clfold_create_with_queue");
    /* The offset counts elements, not bytes. */
    CHECK(clfold_reduce_buffer(fold, buffer, OFFSET, COUNT, CLFOLD_INT32, CLFOLD_SUM, &sum), "sum");
    CHECK(clfold_reduce_buffer(fold, buffer, OFFSET, COUNT, CLFOLD_INT32, CLFOLD_MIN, &min), "min");
    CHECK(clfold_last_run(fold, &run), "clfold_last_run");

    printf("device: %s\n", name);
    printf("elements %u to %u of %u int32 values\n", OFFSET, OFFSET + COUNT - 1, TOTAL);
    printf("sum = %" PRId64 " (host loop: %" PRId64 ")\n", sum, expected_sum);
    printf("min = %" PRId32 " (host loop: %" PRId32 ")\n", min, expected_min);
    printf("min ran %s, %u pass(es), %.3f ms on the device\n", clfold_kernel_name(run.kernel),
           run.passes, run.device_ms);
    if (sum != expected_sum || min != expected_min) {
        fprintf(stderr, "own_queue: MISMATCH between clfold and the host loop\n");
        goto cleanup;
    }
    if (run.device_ms < 0) {
        fprintf(stderr, "own_queue: no device time, yet the queue has profiling enabled\n");
        goto cleanup;
    }
    printf("OK\n");
    rc = 0;
cleanup:
    /* clfold first: its kernels and scratch buffers live in our context. */
    clfold_destroy(fold);
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    if (queue != NULL)
        clReleaseCommandQueue(queue);
    if (context != NULL)
        clReleaseContext(context);
    free(host);
    return rc;
}

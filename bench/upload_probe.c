/*
 * upload_probe: how fast a host array reaches an OpenCL device's memory,
 * each way a library can move it, on one pageable (malloc'ed, written)
 * array. GB/s of the best of 5 rounds, each from the call to the data being
 * on the device (clFinish):
 *
 *   copy-host-ptr      clCreateBuffer(CL_MEM_COPY_HOST_PTR): what
 *                      clfold_reduce_host did on a GPU
 *   write-whole        one blocking clEnqueueWriteBuffer of the whole array
 *   write-chunks       non-blocking writes of CHUNK bytes each, then clFinish
 *   pinned-staging     memcpy into one of two mapped CL_MEM_ALLOC_HOST_PTR
 *                      buffers of CHUNK bytes, then a non-blocking write from
 *                      it, the next memcpy overlapping the last write
 *
 *   cc -O2 -o upload_probe bench/upload_probe.c -lOpenCL
 *   upload_probe [device-substring [MiB [CHUNK-MiB]]]   (default: first GPU, 1024, 64)
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _POSIX_C_SOURCE 200809L
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "find_device.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CHECK(call)                                                             \
    do {                                                                        \
        cl_int e_ = (call);                                                     \
        if (e_ != CL_SUCCESS) {                                                 \
            fprintf(stderr, "upload_probe: %s failed: %d\n", #call, e_);       \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    size_t bytes = (size_t)(argc > 2 ? atoi(argv[2]) : 1024) << 20;
    size_t chunk = (size_t)(argc > 3 ? atoi(argv[3]) : 64) << 20;
    cl_device_id device = find_device(argc > 1 ? argv[1] : NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
    CHECK(err);
    unsigned char *data = malloc(bytes);
    if (data == NULL)
        return 1;
    memset(data, 7, bytes);
    cl_mem target = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
    CHECK(err);
    cl_mem staging[2];
    unsigned char *mapped[2];
    for (int i = 0; i < 2; i++) {
        staging[i] = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, chunk, NULL, &err);
        CHECK(err);
        mapped[i] = clEnqueueMapBuffer(queue, staging[i], CL_TRUE, CL_MAP_WRITE, 0, chunk, 0, NULL,
                                       NULL, &err);
        CHECK(err);
    }
    const char *ways[] = {"copy-host-ptr", "write-whole", "write-chunks", "pinned-staging"};
    char name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    printf("# %s: %zu MiB of pageable host memory, chunks of %zu MiB; GB/s, best of 5\n", name,
           bytes >> 20, chunk >> 20);
    for (int way = 0; way < 4; way++) {
        double best = 1e30;
        for (int round = 0; round < 6; round++) {
            CHECK(clFinish(queue));
            double start = now();
            if (way == 0) {
                cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, data, &err);
                CHECK(err);
                CHECK(clFinish(queue));
                clReleaseMemObject(b);
            } else if (way == 1) {
                CHECK(clEnqueueWriteBuffer(queue, target, CL_TRUE, 0, bytes, data, 0, NULL, NULL));
            } else if (way == 2) {
                for (size_t at = 0; at < bytes; at += chunk)
                    CHECK(clEnqueueWriteBuffer(queue, target, CL_FALSE, at,
                                               bytes - at < chunk ? bytes - at : chunk, data + at, 0,
                                               NULL, NULL));
                CHECK(clFinish(queue));
            } else {
                cl_event done[2] = {NULL, NULL};
                int k = 0;
                for (size_t at = 0; at < bytes; at += chunk, k ^= 1) {
                    size_t n = bytes - at < chunk ? bytes - at : chunk;
                    if (done[k] != NULL) {
                        CHECK(clWaitForEvents(1, &done[k]));
                        clReleaseEvent(done[k]);
                    }
                    memcpy(mapped[k], data + at, n);
                    CHECK(clEnqueueWriteBuffer(queue, target, CL_FALSE, at, n, mapped[k], 0, NULL,
                                               &done[k]));
                    CHECK(clFlush(queue));
                }
                CHECK(clFinish(queue));
                for (int i = 0; i < 2; i++)
                    if (done[i] != NULL)
                        clReleaseEvent(done[i]);
            }
            double t = now() - start;
            if (round > 0 && t < best) /* round 0 warms up */
                best = t;
        }
        printf("%-16s %8.2f GB/s  (%.2f ms)\n", ways[way], (double)bytes / best * 1e-9, best * 1e3);
    }
    return 0;
}

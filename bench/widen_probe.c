/*
 * widen_probe: the roofline of a scan whose results are wider than its
 * elements (8-, 16- and 32-bit integer sums into int64), on any OpenCL
 * device. A scan of n elements reads n * IN bytes and writes n * 8; the
 * bench's roofline, a device-to-device copy of as many bytes, reads and
 * writes half of them each. This times, on 2^LOG2N elements, best of 20 by
 * the queue's profiling:
 *   copy    clEnqueueCopyBuffer of (IN + 8) * n / 2 bytes (the bench's copy);
 *   widen   a kernel that writes each element as an int64 and does nothing
 *           else: two elements a work-item, loaded whole and stored as one
 *           16-byte vector, as the one-launch scan's rows are
 *           (cl/scan/tiles.cl);
 *   tile    the same in the one-launch scan's tiles: groups of 512, each
 *           work-item loading its 16 rows of 2 elements, then storing them
 *           (the scan without its scans and its look-back);
 * with the outputs of both kernels checked, and prints each one's time
 * over the copy's: how close to the copy a widening scan can come at all.
 *
 *   gcc -O2 -o widen_probe bench/widen_probe.c -lOpenCL
 *   . bench/nvidia-icd.sh; ./widen_probe 28 NVIDIA
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

static const char *SOURCE =
    "__kernel void widen(__global const IN2 *in, __global long2 *out)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    out[i] = convert_long2(in[i]);\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(512, 1, 1)))\n"
    "void widen_tile(__global const IN2 *in, __global long2 *out)\n"
    "{\n"
    "    const size_t lane = get_local_id(0) % 32, warp = get_local_id(0) / 32;\n"
    "    const size_t first = get_group_id(0) * 8192 + warp * 512 + lane;\n"
    "    IN2 rows[16];\n"
    "    for (int r = 0; r < 16; r++)\n"
    "        rows[r] = in[first + r * 32];\n"
    "    for (int r = 0; r < 16; r++)\n"
    "        out[first + r * 32] = convert_long2(rows[r]);\n"
    "}\n";

static double best_ms(cl_command_queue queue, cl_kernel kernel, size_t items, size_t group,
                      cl_mem from, cl_mem to, size_t copy_bytes)
{
    double best = 1e30;
    for (int run = 0; run < 21; run++) {
        cl_event event;
        if (kernel != NULL)
            CK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &items, group ? &group : NULL, 0,
                                          NULL, &event));
        else
            CK(clEnqueueCopyBuffer(queue, from, to, 0, 0, copy_bytes, 0, NULL, &event));
        CK(clWaitForEvents(1, &event));
        cl_ulong start, end;
        CK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
        CK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
        CK(clReleaseEvent(event));
        double ms = (double)(end - start) * 1e-6;
        if (run > 0 && ms < best) /* the first run warms up */
            best = ms;
    }
    return best;
}

/* The outputs that are not their elements as int64 (then zeroes them for the next kernel). */
static size_t count_wrong(cl_command_queue queue, cl_mem out, const unsigned char *host, size_t size,
                          size_t n)
{
    long long *check = malloc(n * 8);
    size_t wrong = 0;
    CK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, n * 8, check, 0, NULL, NULL));
    for (size_t i = 0; i < n; i++) {
        long long v = size == 1 ? (long long)((const signed char *)host)[i]
                    : size == 2 ? (long long)((const short *)host)[i]
                                : (long long)((const int *)host)[i];
        wrong += check[i] != v;
    }
    memset(check, 0, n * 8);
    CK(clEnqueueWriteBuffer(queue, out, CL_TRUE, 0, n * 8, check, 0, NULL, NULL));
    free(check);
    return wrong;
}

int main(int argc, char **argv)
{
    int log2n = argc > 1 ? atoi(argv[1]) : 24; /* at least 14: a tile */
    const char *want = argc > 2 ? argv[2] : "";
    size_t n = (size_t)1 << log2n;
    cl_device_id device = probe_device(want, CL_DEVICE_TYPE_ALL);
    char name[256];
    if (device == NULL) {
        fprintf(stderr, "no platform named like \"%s\"\n", want);
        return 2;
    }
    CK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CK(err);
    cl_command_queue queue = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    CK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 8, NULL, &err);
    CK(err);
    cl_mem spare = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 6, NULL, &err); /* the copy's target */
    CK(err);
    printf("%s, 2^%d elements into int64\n", name, log2n);
    static const struct { const char *type; size_t size; } TYPES[] = {
        {"char", 1}, {"short", 2}, {"int", 4}};
    for (int t = 0; t < 3; t++) {
        size_t size = TYPES[t].size;
        unsigned char *host = malloc(n * size);
        for (size_t i = 0; i < n * size; i++)
            host[i] = (unsigned char)(i * 2654435761u >> 13);
        CK(clEnqueueWriteBuffer(queue, in, CL_TRUE, 0, n * size, host, 0, NULL, NULL));
        char options[64];
        snprintf(options, sizeof options, "-DIN2=%s2", TYPES[t].type);
        cl_program program = clCreateProgramWithSource(ctx, 1, &SOURCE, NULL, &err);
        CK(err);
        CK(clBuildProgram(program, 1, &device, options, NULL, NULL));
        cl_kernel kernel = clCreateKernel(program, "widen", &err), tile;
        CK(err);
        tile = clCreateKernel(program, "widen_tile", &err);
        CK(err);
        CK(clSetKernelArg(kernel, 0, sizeof in, &in));
        CK(clSetKernelArg(kernel, 1, sizeof out, &out));
        CK(clSetKernelArg(tile, 0, sizeof in, &in));
        CK(clSetKernelArg(tile, 1, sizeof out, &out));
        size_t copy_bytes = (size + 8) * n / 2;
        double copy = best_ms(queue, NULL, 0, 0, out, spare, copy_bytes);
        double tiled = best_ms(queue, tile, n / 32, 512, NULL, NULL, 0);
        size_t wrong_tiled = count_wrong(queue, out, host, size, n);
        double widen = best_ms(queue, kernel, n / 2, 0, NULL, NULL, 0);
        size_t wrong = count_wrong(queue, out, host, size, n);
        printf("%-6s copy of the same bytes %.4f ms; widen %.4f ms, %.3fx the copy%s; "
               "tile %.4f ms, %.3fx%s\n", TYPES[t].type, copy, widen, widen / copy,
               wrong ? " (WRONG OUTPUTS)" : "", tiled, tiled / copy,
               wrong_tiled ? " (WRONG OUTPUTS)" : "");
        free(host);
        clReleaseKernel(tile);
        clReleaseKernel(kernel);
        clReleaseProgram(program);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(spare);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return 0;
}

/*
 * compact.c: stream compaction, the seeds' worklist pattern. Of 1M floats,
 * keep those above 0.5, in order, packed at the front of another buffer:
 *
 *   1. a kernel of ours flags each element (1 kept, 0 not), as uint8;
 *   2. clfold's exclusive scan of the flags gives each kept element its
 *      place: the number of kept elements before it (uint64);
 *   3. a kernel of ours writes each kept element to its place, and the
 *      last work-item writes how many were kept.
 *
 * Nothing waits in between: each step waits for the last one's event, and
 * the program waits once, for the read. It checks the result against a
 * host loop and exits 1 on any mismatch or error.
 *
 * It builds OpenCL kernels of its own, so it links OpenCL as well as clfold:
 *   cc compact.c $(pkg-config --cflags --libs clfold OpenCL)
 *   cmake: find_package(clfold) + target_link_libraries(compact PRIVATE clfold::clfold)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clfold.h>

#define COUNT (1u << 20)

static const char *SOURCE =
    "__kernel void flag(__global const float *x, float above, __global uchar *flags)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    flags[i] = x[i] > above;\n"
    "}\n"
    "__kernel void scatter(__global const float *x, __global const uchar *flags,\n"
    "                      __global const ulong *places, __global float *kept,\n"
    "                      __global ulong *count)\n"
    "{\n"
    "    const size_t i = get_global_id(0), n = get_global_size(0);\n"
    "    if (flags[i])\n"
    "        kept[places[i]] = x[i];\n"
    "    if (i == n - 1)\n"
    "        *count = places[i] + flags[i];\n"
    "}\n";

/*
 * One error flow for OpenCL and clfold calls: say what failed and jump.
 * Before a context exists, clfold_last_error(NULL) gives the create's message.
 */
#define CHECK(call, what)                                                            \
    do {                                                                             \
        cl_int err_ = (cl_int)(call);                                                \
        if (err_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "compact: %s: %s %s\n", (what),                          \
                    clfold_status_string((clfold_status)err_), clfold_last_error(ctx)); \
            goto cleanup;                                                            \
        }                                                                            \
    } while (0)

/* The host's compaction, to check against: how many it kept, into `kept`. */
static size_t compact_on_host(const float *x, size_t n, float above, float *kept)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > above)
            kept[count++] = x[i];
    return count;
}

int main(void)
{
    int rc = 1;
    cl_int err = CL_SUCCESS;
    clfold_context *ctx = NULL;
    cl_program program = NULL;
    cl_kernel flag = NULL, scatter = NULL;
    cl_mem x = NULL, flags = NULL, places = NULL, kept = NULL, count = NULL;
    cl_event flagged = NULL, scanned = NULL, scattered = NULL;
    const float above = 0.5f;
    const size_t n = COUNT;
    float *data = malloc(n * sizeof *data), *got = malloc(n * sizeof *got);
    float *expected = malloc(n * sizeof *expected);
    uint64_t got_count = 0;
    uint32_t state = 12345;

    if (data == NULL || got == NULL || expected == NULL) {
        fprintf(stderr, "compact: out of memory\n");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        data[i] = (float)(state >> 8) / (float)(1u << 24); /* in [0, 1) */
    }

    CHECK(clfold_create(&ctx, NULL), "clfold_create");
    cl_context cl = clfold_cl_context(ctx);
    cl_command_queue queue = clfold_queue(ctx);
    cl_device_id device = clfold_device(ctx);
    program = clCreateProgramWithSource(cl, 1, &SOURCE, NULL, &err);
    CHECK(err, "clCreateProgramWithSource");
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
    flag = clCreateKernel(program, "flag", &err);
    CHECK(err, "clCreateKernel (flag)");
    scatter = clCreateKernel(program, "scatter", &err);
    CHECK(err, "clCreateKernel (scatter)");
    x = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *data, data, &err);
    CHECK(err, "clCreateBuffer (x)");
    flags = clCreateBuffer(cl, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err, "clCreateBuffer (flags)");
    /* The exclusive scan of uint8 flags has clfold_result_type's uint64 results. */
    places = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof(uint64_t), NULL, &err);
    CHECK(err, "clCreateBuffer (places)");
    kept = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * sizeof *data, NULL, &err);
    CHECK(err, "clCreateBuffer (kept)");
    count = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof got_count, NULL, &err);
    CHECK(err, "clCreateBuffer (count)");

    /* 1. Flags. */
    CHECK(clSetKernelArg(flag, 0, sizeof x, &x), "clSetKernelArg");
    CHECK(clSetKernelArg(flag, 1, sizeof above, &above), "clSetKernelArg");
    CHECK(clSetKernelArg(flag, 2, sizeof flags, &flags), "clSetKernelArg");
    CHECK(clEnqueueNDRangeKernel(queue, flag, 1, NULL, &n, NULL, 0, NULL, &flagged),
          "clEnqueueNDRangeKernel (flag)");
    /* 2. Places: after the flags, by its wait list (the queue is in order anyway). */
    CHECK(clfold_scan_buffer_async(ctx, flags, 0, n, CLFOLD_UINT8, CLFOLD_SUM, CLFOLD_EXCLUSIVE,
                                   places, 0, 1, &flagged, &scanned),
          "clfold_scan_buffer_async");
    /* 3. The kept elements and their count, after the scan. */
    CHECK(clSetKernelArg(scatter, 0, sizeof x, &x), "clSetKernelArg");
    CHECK(clSetKernelArg(scatter, 1, sizeof flags, &flags), "clSetKernelArg");
    CHECK(clSetKernelArg(scatter, 2, sizeof places, &places), "clSetKernelArg");
    CHECK(clSetKernelArg(scatter, 3, sizeof kept, &kept), "clSetKernelArg");
    CHECK(clSetKernelArg(scatter, 4, sizeof count, &count), "clSetKernelArg");
    CHECK(clEnqueueNDRangeKernel(queue, scatter, 1, NULL, &n, NULL, 1, &scanned, &scattered),
          "clEnqueueNDRangeKernel (scatter)");
    CHECK(clEnqueueReadBuffer(queue, count, CL_TRUE, 0, sizeof got_count, &got_count, 1,
                              &scattered, NULL),
          "clEnqueueReadBuffer (count)");
    if (got_count > n) {
        fprintf(stderr, "compact: MISMATCH: kept %llu of %zu\n", (unsigned long long)got_count, n);
        goto cleanup;
    }
    if (got_count > 0)
        CHECK(clEnqueueReadBuffer(queue, kept, CL_TRUE, 0, got_count * sizeof *got, got, 0, NULL,
                                  NULL),
              "clEnqueueReadBuffer (kept)");

    size_t expected_count = compact_on_host(data, n, above, expected);
    printf("%zu floats: %llu above %.1f (host loop: %zu)\n", n, (unsigned long long)got_count,
           above, expected_count);
    if (got_count != expected_count) {
        fprintf(stderr, "compact: MISMATCH: kept %llu, host loop %zu\n",
                (unsigned long long)got_count, expected_count);
        goto cleanup;
    }
    for (size_t i = 0; i < expected_count; i++)
        if (got[i] != expected[i]) {
            fprintf(stderr, "compact: MISMATCH at kept element %zu: %g, host loop %g\n", i,
                    got[i], expected[i]);
            goto cleanup;
        }
    rc = 0;
cleanup:
    /* Events, kernels and buffers belong to clfold's cl_context: release them first. */
    if (scattered != NULL)
        clReleaseEvent(scattered);
    if (scanned != NULL)
        clReleaseEvent(scanned);
    if (flagged != NULL)
        clReleaseEvent(flagged);
    cl_mem buffers[] = {count, kept, places, flags, x};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i] != NULL)
            clReleaseMemObject(buffers[i]);
    if (scatter != NULL)
        clReleaseKernel(scatter);
    if (flag != NULL)
        clReleaseKernel(flag);
    if (program != NULL)
        clReleaseProgram(program);
    clfold_destroy(ctx);
    free(expected);
    free(got);
    free(data);
    return rc;
}

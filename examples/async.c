/*
 * async.c: reductions that do not wait. Three non-blocking sums, one for
 * each third of 1M int32 values, write their int64 results at bytes 0, 8
 * and 16 of a device buffer. A fourth sums those three into byte 24. It
 * needs no wait list, because the context's queue is in order and so runs
 * it after the three. The program waits once, on the fourth's event, reads
 * the four values, checks them against a plain loop, and exits 1 on any
 * mismatch or error.
 *
 * It calls OpenCL itself (the buffers, the wait and the read), so it links
 * OpenCL as well as clfold:
 *   cc async.c $(pkg-config --cflags --libs clfold OpenCL)
 *   cmake: find_package(clfold) + target_link_libraries(async PRIVATE clfold::clfold)
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clfold.h>

#define COUNT (1u << 20)
#define PARTS 3

/*
 * One error flow for OpenCL and clfold calls: say what failed and jump.
 * Before a context exists, clfold_last_error(NULL) gives the create's message.
 */
#define CHECK(call, what)                                                            \
    do {                                                                             \
        cl_int err_ = (cl_int)(call);                                                \
        if (err_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "async: %s: %s %s\n", (what),                            \
                    clfold_status_string((clfold_status)err_), clfold_last_error(ctx)); \
            goto cleanup;                                                            \
        }                                                                            \
    } while (0)

int main(void)
{
    int rc = 1;
    cl_int err = CL_SUCCESS;
    clfold_context *ctx = NULL;
    cl_context cl = NULL;
    cl_command_queue queue = NULL;
    cl_mem input = NULL, sums = NULL;
    cl_event done = NULL;
    int32_t *data = malloc(COUNT * sizeof *data);
    size_t first[PARTS], count[PARTS];
    /* The three thirds' sums, then their total: bytes 0, 8, 16 and 24. */
    int64_t got[PARTS + 1] = {0}, expected[PARTS + 1] = {0};
    uint32_t state = 12345;

    if (data == NULL) {
        fprintf(stderr, "async: out of memory\n");
        goto cleanup;
    }
    /* Values in [-2^30, 2^30), the same on every run; and the host's sums. */
    for (uint32_t i = 0; i < COUNT; i++) {
        state = state * 1664525u + 1013904223u;
        data[i] = (int32_t)(state >> 1) - (int32_t)(1 << 30);
    }
    for (int part = 0; part < PARTS; part++) {
        first[part] = (size_t)part * (COUNT / PARTS);
        count[part] = part < PARTS - 1 ? COUNT / PARTS : COUNT - first[part];
        for (size_t i = first[part]; i < first[part] + count[part]; i++)
            expected[part] += data[i];
        expected[PARTS] += expected[part];
    }

    CHECK(clfold_create(&ctx, NULL), "clfold_create");
    cl = clfold_cl_context(ctx);
    queue = clfold_queue(ctx);
    input = clCreateBuffer(cl, CL_MEM_READ_ONLY, COUNT * sizeof *data, NULL, &err);
    CHECK(err, "clCreateBuffer (input)");
    /* Kernels write the results, so this buffer must not be CL_MEM_READ_ONLY. */
    sums = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof got, NULL, &err);
    CHECK(err, "clCreateBuffer (sums)");

    /*
     * Nothing waits until the end. The upload, the four reductions and the
     * read run in the order of the context's queue, so `data` must outlive
     * them all.
     */
    CHECK(clEnqueueWriteBuffer(queue, input, CL_FALSE, 0, COUNT * sizeof *data, data, 0, NULL,
                               NULL),
          "clEnqueueWriteBuffer");
    /* Offsets: the input's in elements, the result's in bytes. No event wanted: NULL. */
    for (int part = 0; part < PARTS; part++)
        CHECK(clfold_reduce_buffer_async(ctx, input, first[part], count[part], CLFOLD_INT32,
                                         CLFOLD_SUM, sums, (size_t)part * sizeof(int64_t), 0,
                                         NULL, NULL),
              "sum of a third");
    /* Reads bytes 0..23 of `sums` and writes bytes 24..31; the event is ours to release. */
    CHECK(clfold_reduce_buffer_async(ctx, sums, 0, PARTS, CLFOLD_INT64, CLFOLD_SUM, sums,
                                     PARTS * sizeof(int64_t), 0, NULL, &done),
          "sum of the sums");
    CHECK(clWaitForEvents(1, &done), "clWaitForEvents");
    CHECK(clEnqueueReadBuffer(queue, sums, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL),
          "clEnqueueReadBuffer");

    printf("%u int32 values: %" PRId64 " + %" PRId64 " + %" PRId64 " = %" PRId64
           " (host loop: %" PRId64 ")\n",
           COUNT, got[0], got[1], got[2], got[3], expected[PARTS]);
    for (int i = 0; i <= PARTS; i++)
        if (got[i] != expected[i]) {
            fprintf(stderr, "async: MISMATCH at byte %d: %" PRId64 ", host loop %" PRId64 "\n",
                    i * 8, got[i], expected[i]);
            goto cleanup;
        }
    rc = 0;
cleanup:
    /* The event and buffers belong to clfold's cl_context: release them first. */
    if (done != NULL)
        clReleaseEvent(done);
    if (sums != NULL)
        clReleaseMemObject(sums);
    if (input != NULL)
        clReleaseMemObject(input);
    /* clfold_destroy waits for its queue: after it, nothing reads `data`. */
    clfold_destroy(ctx);
    free(data);
    return rc;
}

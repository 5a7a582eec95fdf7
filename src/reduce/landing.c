/*
 * landing.c: where a blocking reduction's value reaches the host.
 *
 * Everywhere, the path writes the value into a small device buffer, which
 * is read into pinned host memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer:
 * on NVIDIA faster than a read into pageable memory), and the host waits
 * for the read with clFinish.
 *
 * Where NVIDIA's driver can place a buffer in host memory
 * (cl_nv_create_buffer's CL_MEM_LOCATION_HOST_NV), the GPU path writes the
 * value there itself, and the host watches that memory instead of waiting
 * for the driver to report the command complete, which it does 4 to 10 us
 * after the value is there (H100; bench/results/kernel-choices-nvidia.txt). The host
 * fills the slot with a sentinel word first and takes the value once every
 * 32-bit word of it differs from the sentinel; the GPU path stores it in
 * one aligned store (ALIGNED_RESULTS), so no word is seen half-written.
 *
 * A value that holds the sentinel word, a kernel that runs longer than
 * the watch (DIRECT_SPIN_S_*), and one that fails are waited for with
 * clFinish and read as a buffer: slower, never wrong. That read also
 * checks that the kernel's store is what the host sees; where it is not (a
 * driver whose buffer in host memory is a copy after all), the context
 * stops watching.
 * Only the GPU path, whose one store is the value, lands this way, and
 * only where the queue does not profile: profiling needs the command's end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "landing.h"

/* cl_nv_create_buffer's flags_NV. */
#define CL_MEM_LOCATION_HOST_NV (1 << 0)

/*
 * What the host writes into each 32-bit word of the slot before the
 * launch: a signalling NaN as a float, which no arithmetic produces.
 */
#define SENTINEL_WORD UINT32_C(0x7FB5A3C1)

/*
 * A context's landing, made at its first blocking reduction: a device
 * buffer read into pinned memory, or a buffer in host memory that the
 * kernel writes itself.
 */
struct landing {
    cl_mem device;               /* the value on the device ... */
    cl_mem pinned;               /* ... read into this buffer's mapped host memory */
    void *pinned_host;
    cl_mem direct;               /* a buffer in host memory the GPU path writes; NULL: none */
    void *direct_host;           /* its memory, mapped once */
    bool direct_tried;           /* made, or found not to be possible: not tried again ... */
    int64_t direct_for;          /* ... while host_result keeps this value */
};

/*
 * How long the host watches before it waits with clFinish. On NVIDIA: far
 * past the microseconds a small reduction takes, even one that waits for
 * another process's kernels, while a value that holds the sentinel costs
 * no more than a few milliseconds (a 1 ms watch is too short for a
 * 2^16-element sum under ctest -j8 on the H100;
 * bench/results/kernel-choices-nvidia.txt). Elsewhere (the test switch)
 * long enough that POCL on a loaded 2-core machine lands every reduction
 * the tests watch for.
 */
#define DIRECT_SPIN_S_NVIDIA 0.01
#define DIRECT_SPIN_S_ELSEWHERE 1.0

/*
 * Unmaps and releases a buffer mapped once. A mapped buffer stays alive in
 * the driver until it is unmapped (POCL keeps it, and its memory, for
 * good): a failed unmap gets a second try once the queue has drained.
 * Nothing can be reported from here.
 */
static void release_mapped(clfold_context *ctx, cl_mem *buffer, void **host)
{
    for (int attempt = 0; attempt < 2 && *host != NULL; attempt++) {
        if (clEnqueueUnmapMemObject(ctx->queue, *buffer, *host, 0, NULL, NULL) == CL_SUCCESS)
            *host = NULL;
        clFinish(ctx->queue);
    }
    if (*buffer != NULL)
        clReleaseMemObject(*buffer);
    *buffer = NULL;
}

/* The landing's buffers and itself (clfold_destroy, after its clFinish; context_on_release). */
static void landing_release(clfold_context *ctx)
{
    struct landing *landing = ctx->landing;
    if (landing == NULL)
        return;
    release_mapped(ctx, &landing->direct, &landing->direct_host);
    release_mapped(ctx, &landing->pinned, &landing->pinned_host);
    if (landing->device != NULL)
        clReleaseMemObject(landing->device);
    free(landing);
    ctx->landing = NULL;
}

/*
 * The buffer in host memory, where the settings and the device allow one:
 * NVIDIA's CL_MEM_LOCATION_HOST_NV; with host_result 1 (CLFOLD_HOST_RESULT)
 * elsewhere a CL_MEM_ALLOC_HOST_PTR buffer. Mapped once and left mapped. A driver that
 * refuses the flags (CL_INVALID_VALUE) leaves the values to the device
 * buffer for good; any other failure is the call's, and the next call tries
 * again.
 */
static clfold_status make_direct(clfold_context *ctx)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct landing *landing = ctx->landing;
    cl_mem_flags flags = CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR;
    cl_int err = CL_SUCCESS;
    bool nvidia = ctx->caps.create_buffer_nv != NULL;
    landing->direct_for = ctx->settings.host_result;
    landing->direct_tried = true; /* decided, unless this call fails (cleanup) */
    if (ctx->settings.host_result == 0 || (!nvidia && ctx->settings.host_result != 1))
        goto cleanup; /* not asked for */
    if (nvidia)
        landing->direct = ctx->caps.create_buffer_nv(ctx->cl, flags, CL_MEM_LOCATION_HOST_NV,
                                                     ACCUMULATOR_MAX_BYTES, NULL, &err);
    else
        landing->direct = clCreateBuffer(ctx->cl, flags, ACCUMULATOR_MAX_BYTES, NULL, &err);
    if (err == CL_INVALID_VALUE)
        goto cleanup; /* the driver refuses the flags */
    CHECK_CL(err, nvidia ? "clCreateBufferNV (result in host memory)"
                         : "clCreateBuffer (result in host memory)");
    landing->direct_host = clEnqueueMapBuffer(ctx->queue, landing->direct, CL_TRUE,
                                              CL_MAP_READ | CL_MAP_WRITE, 0, ACCUMULATOR_MAX_BYTES,
                                              0, NULL, NULL, &err);
    CHECK_CL(err, "clEnqueueMapBuffer (result in host memory)");
cleanup:
    if (status != CLFOLD_SUCCESS) {
        release_mapped(ctx, &landing->direct, &landing->direct_host);
        landing->direct_tried = false; /* the next call tries again */
    }
    return status;
}

/* The device buffer that kernels write the value to, and the mapped pinned buffer it is read into. */
static clfold_status make_pinned(clfold_context *ctx)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct landing *landing = ctx->landing;
    cl_int err;
    if (landing->device == NULL) {
        landing->device = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, ACCUMULATOR_MAX_BYTES, NULL,
                                         &err);
        CHECK_CL(err, "clCreateBuffer (result)");
    }
    if (landing->pinned == NULL) {
        landing->pinned = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                         ACCUMULATOR_MAX_BYTES, NULL, &err);
        CHECK_CL(err, "clCreateBuffer (pinned result)");
    }
    landing->pinned_host = clEnqueueMapBuffer(ctx->queue, landing->pinned, CL_TRUE,
                                              CL_MAP_READ | CL_MAP_WRITE, 0,
                                              ACCUMULATOR_MAX_BYTES, 0, NULL, NULL, &err);
    CHECK_CL(err, "clEnqueueMapBuffer (pinned result)");
cleanup:
    return status;
}

clfold_status landing_prepare(clfold_context *ctx)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct landing *landing = ctx->landing;
    if (landing == NULL) {
        /* Registered before the landing is made: its release takes a context with none. */
        CHECK(context_on_release(ctx, landing_release));
        landing = ctx->landing = calloc(1, sizeof *landing);
        if (landing == NULL)
            FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the result's landing");
    }
    /* A changed host_result decides again: the buffer goes, or another is tried. */
    if (landing->direct_tried && landing->direct_for != ctx->settings.host_result) {
        release_mapped(ctx, &landing->direct, &landing->direct_host);
        landing->direct_tried = false;
    }
    if (!landing->direct_tried)
        CHECK(make_direct(ctx));
    if (landing->pinned_host == NULL)
        CHECK(make_pinned(ctx));
cleanup:
    return status;
}

bool landing_is_direct(const clfold_context *ctx, const struct job *job, size_t count,
                       bool finish)
{
    size_t bytes = type_info(job->config.acc.result)->size;
    return ctx->landing->direct != NULL && !ctx->caps.profiling && finish && count != 0 &&
           job->path->stores_result_whole && (bytes == 4 || bytes == 8);
}

cl_mem landing_target(const clfold_context *ctx, bool direct)
{
    return direct ? ctx->landing->direct : ctx->landing->device;
}

void landing_arm(clfold_context *ctx, size_t bytes)
{
    volatile uint32_t *words = ctx->landing->direct_host;
    for (size_t w = 0; w < bytes / 4; w++)
        words[w] = SENTINEL_WORD;
}

/* Whether every word of the slot has left the sentinel. */
static bool landed(const volatile uint32_t *words, size_t count)
{
    for (size_t w = 0; w < count; w++)
        if (words[w] == SENTINEL_WORD)
            return false;
    return true;
}

/*
 * The value of a direct landing: watched for, else waited for and read.
 * What the watch sees is the kernel's one store: the memory held the
 * sentinel before the launch and nothing else writes it.
 */
static clfold_status wait_direct(clfold_context *ctx, size_t bytes, void *value)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct landing *landing = ctx->landing;
    const volatile uint32_t *words = landing->direct_host;
    uint32_t seen[ACCUMULATOR_MAX_BYTES / 4], read[ACCUMULATOR_MAX_BYTES / 4];
    size_t count = bytes / 4;

    double spin_s = ctx->caps.create_buffer_nv != NULL ? DIRECT_SPIN_S_NVIDIA
                                                       : DIRECT_SPIN_S_ELSEWHERE;
    CHECK_CL(clFlush(ctx->queue), "clFlush");
    for (double give_up = monotonic_seconds() + spin_s; monotonic_seconds() < give_up;) {
        if (landed(words, count)) {
#if defined(__GNUC__)
            __atomic_thread_fence(__ATOMIC_ACQUIRE); /* no read of the value before the watch's */
#endif
            for (size_t w = 0; w < count; w++)
                seen[w] = words[w];
            memcpy(value, seen, bytes);
            goto cleanup; /* landed */
        }
    }
    CHECK_CL(clFinish(ctx->queue), "clFinish");
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, landing->direct, CL_TRUE, 0, bytes, read, 0, NULL,
                                 NULL),
             "clEnqueueReadBuffer (result)");
    memcpy(value, read, bytes);
    for (size_t w = 0; w < count; w++)
        seen[w] = words[w];
    /* Where the host does not see the kernel's store, this memory is no landing. */
    if (memcmp(seen, read, bytes) != 0)
        release_mapped(ctx, &landing->direct, &landing->direct_host);
cleanup:
    return status;
}

/* The value of a landing in the device buffer: read into the pinned buffer. */
static clfold_status wait_device(clfold_context *ctx, size_t bytes, void *value)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct landing *landing = ctx->landing;
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, landing->device, CL_FALSE, 0, bytes,
                                 landing->pinned_host, 0, NULL, NULL),
             "clEnqueueReadBuffer (result)");
    CHECK_CL(clFinish(ctx->queue), "clFinish");
    memcpy(value, landing->pinned_host, bytes);
cleanup:
    return status;
}

clfold_status landing_wait(clfold_context *ctx, bool direct, size_t bytes, void *value)
{
    return direct ? wait_direct(ctx, bytes, value) : wait_device(ctx, bytes, value);
}

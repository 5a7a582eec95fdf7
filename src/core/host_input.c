/*
 * host_input.c: a host array as a reduction's or scan's input: a device
 * buffer over one chunk of it, and the chunk's elements.
 */
#include <stdint.h>

#include "host_input.h"

/*
 * A device buffer over a chunk of host memory: wrapped in place on a CPU,
 * copied to a GPU. Kernels take a buffer's start to lie on the device's
 * base alignment, or 16 bytes where that is more (the GPU shape aligns its
 * 16-byte loads from it), which memory wrapped in place need not: POCL
 * crashes on the GPU shape's loads from a float array 4 bytes off. So such
 * a chunk is copied.
 *
 * A copy is a plain buffer and a blocking write into it, not
 * CL_MEM_COPY_HOST_PTR, which NVIDIA's driver moves 5 to 9 times slower
 * (H200, 1 GiB of pageable memory: 1.3 against 7 to 9 GB/s;
 * bench/results/kernel-choices-nvidia.txt).
 */
clfold_status host_input_buffer(clfold_context *ctx, const void *data, size_t bytes,
                                cl_mem *buffer)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t alignment = ctx->caps.base_align_bytes < 16 ? ctx->caps.base_align_bytes : 16;
    bool wrap = ctx->caps.is_cpu && (uintptr_t)data % alignment == 0;
    cl_int err;
    *buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | (wrap ? CL_MEM_USE_HOST_PTR : 0), bytes,
                             wrap ? (void *)data : NULL, &err);
    CHECK_CL(err, "clCreateBuffer (input)");
    if (!wrap)
        CHECK_CL(clEnqueueWriteBuffer(ctx->queue, *buffer, CL_TRUE, 0, bytes, data, 0, NULL, NULL),
                 "clEnqueueWriteBuffer (input)");
cleanup:
    if (status != CLFOLD_SUCCESS && *buffer != NULL) {
        clReleaseMemObject(*buffer);
        *buffer = NULL;
    }
    return status;
}

/*
 * Elements per chunk: the device's largest buffer, or the developer's
 * max_chunk_bytes (CLFOLD_MAX_CHUNK_BYTES, which tests use to exercise
 * chunking on small arrays), whole elements.
 */
size_t host_chunk_elements(const clfold_context *ctx, size_t element)
{
    size_t bytes = ctx->caps.max_alloc_size > SIZE_MAX ? SIZE_MAX : (size_t)ctx->caps.max_alloc_size;
    if (ctx->settings.max_chunk_bytes != CLFOLD_PARAM_AUTO &&
        (uint64_t)ctx->settings.max_chunk_bytes < bytes)
        bytes = (size_t)ctx->settings.max_chunk_bytes;
    return bytes / element > 0 ? bytes / element : 1;
}

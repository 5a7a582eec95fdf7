/*
 * NVIDIA's OpenCL (driver 580.159.04, H200) never finishes a
 * clEnqueueFillBuffer of 2^31 bytes with a 1-byte pattern.
 *
 *     gcc -O2 tests/known-bugs/nvidia_fill_2gib.c -lOpenCL -o /tmp/fill
 *     for b in 2147483136 2147483648; do for p in 1 4; do timeout 10 /tmp/fill $b $p; done; done
 *
 * Each run fills `bytes` of a buffer with a pattern of 1 or 4 bytes on the
 * first GPU and prints "finished" with the last byte filled, or is killed
 * by timeout (exit 124). Measured there (2026-11-27): 2^31 - 512 bytes
 * finish with either pattern, and 2^31 bytes with a 4-byte pattern; 2^31
 * bytes with a 1-byte pattern never do (killed after 10 s). The library
 * fills only small buffers (scan boards, partial headers); the bench's
 * poisoning of a scan's outputs (src/cli/bench/scan_check.c, scan_poison) fills
 * at most 1 GiB at a time because of this: `clfold bench --scan` of 2^28
 * int32 or int8 sums (2 GiB of int64 outputs) hung there. Not part of
 * ctest: it needs the GPU.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                   \
    do {                                                            \
        cl_int err_ = (call);                                       \
        if (err_ != CL_SUCCESS) {                                   \
            fprintf(stderr, "%s: error %d\n", #call, (int)err_);    \
            return 1;                                               \
        }                                                           \
    } while (0)

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 31;
    size_t pattern_size = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    cl_platform_id platforms[8];
    cl_uint n_platforms = 0;
    cl_device_id device = NULL;
    TRY(clGetPlatformIDs(8, platforms, &n_platforms));
    for (cl_uint p = 0; p < n_platforms && device == NULL; p++)
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, NULL) != CL_SUCCESS)
            device = NULL;
    if (device == NULL) {
        fprintf(stderr, "no GPU\n");
        return 1;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    TRY(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    TRY(err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    TRY(err);
    const cl_uint pattern = 0xffffffffu;
    unsigned char last = 0;
    TRY(clEnqueueFillBuffer(queue, buffer, &pattern, pattern_size, 0, bytes, 0, NULL, NULL));
    TRY(clEnqueueReadBuffer(queue, buffer, CL_TRUE, bytes - 1, 1, &last, 0, NULL, NULL));
    printf("%zu bytes, pattern of %zu: finished, last byte 0x%02x\n", bytes, pattern_size, last);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return 0;
}

/*
 * opencl3_consumer.c: a program built for OpenCL 3.0 that includes clfold.h
 * before CL/cl.h and creates its queue with OpenCL 2.0's
 * clCreateCommandQueueWithProperties: clfold.h must leave the program's
 * CL_TARGET_OPENCL_VERSION as it is (no redefinition, nothing undeclared).
 * It defines the version itself, or with -DTAKE_CL_DEFAULT takes CL/cl.h's
 * default (3.0). It reduces 1..1000 as int32 on that queue and exits 1
 * unless the sum is 500500. .ci/packaging.sh builds both with -Werror
 * through find_package and pkg-config, and runs them.
 */
#ifndef TAKE_CL_DEFAULT
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <clfold.h>
#include <CL/cl.h>

#include <stdint.h>
#include <stdio.h>

#define COUNT 1000

static int fail(const char *what, cl_int err)
{
    fprintf(stderr, "opencl3_consumer: %s failed: %d\n", what, err);
    return 1;
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err != CL_SUCCESS)
        return fail("clGetPlatformIDs", err);
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS)
        return fail("clGetDeviceIDs", err);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return fail("clCreateContext", err);
    const cl_queue_properties properties[] = {0};
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, properties, &err);
    if (err != CL_SUCCESS)
        return fail("clCreateCommandQueueWithProperties", err);
    int32_t data[COUNT];
    for (int i = 0; i < COUNT; i++)
        data[i] = i + 1;
    clfold_context *ctx = NULL;
    int64_t sum = 0;
    clfold_status status = clfold_create_with_queue(&ctx, queue);
    if (status == CLFOLD_SUCCESS)
        status = clfold_reduce_host(ctx, data, COUNT, CLFOLD_INT32, CLFOLD_SUM, &sum);
    if (status != CLFOLD_SUCCESS)
        fprintf(stderr, "opencl3_consumer: %s: %s\n", clfold_status_string(status),
                clfold_last_error(ctx));
    clfold_destroy(ctx);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    printf("opencl3_consumer: sum of 1..%d is %lld\n", COUNT, (long long)sum);
    return status == CLFOLD_SUCCESS && sum == 500500 ? 0 : 1;
}

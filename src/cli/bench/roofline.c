/*
 * roofline.c: the read bandwidth a device really gives, measured by the
 * plainest kernel that reads every byte of a buffer once (the roofline of
 * the performance seed). `clfold bench` reports its reductions as a
 * percentage of it. The kernel has the two shapes of clfold's auto path: a
 * grid stride of 16-byte loads for GPUs, four in flight per work-item as
 * cl/reduce/gpu.cl keeps them, and one contiguous chunk per work-item for CPUs, read
 * as four streams as cl/reduce/cpu.cl reads it. It xors what it reads and writes only if the xor hits a value
 * that no input produces, so the compiler keeps every load.
 *
 * Scans read and write: their roofline is the driver's own device-to-device
 * copy (clEnqueueCopyBuffer) of as many bytes in all.
 *
 * May call (below it in src/cli/bench/): none.
 */
#include "roofline.h"

#include <stdlib.h>
#include <string.h>

#include "timing.h"

static const char SOURCE[] =
    "__kernel void read_gpu(__global const uint4 *in, ulong vectors, __global uint *out)\n"
    "{\n"
    "    const size_t stride = get_global_size(0);\n"
    "    uint4 a = (uint4)(0), b = (uint4)(0), c = (uint4)(0), d = (uint4)(0);\n"
    "    size_t i = get_global_id(0);\n"
    "    for (; i + 3 * stride < vectors; i += 4 * stride) {\n"
    "        a ^= in[i];\n"
    "        b ^= in[i + stride];\n"
    "        c ^= in[i + 2 * stride];\n"
    "        d ^= in[i + 3 * stride];\n"
    "    }\n"
    "    for (; i < vectors; i += stride)\n"
    "        a ^= in[i];\n"
    "    a ^= b ^ c ^ d;\n"
    "    if ((a.x ^ a.y ^ a.z ^ a.w) == 0x9e3779b9u)\n"
    "        out[0] = 1;\n"
    "}\n"
    "__kernel void read_cpu(__global const uint16 *in, ulong vectors, __global uint *out)\n"
    "{\n"
    "    const size_t chunk = (vectors + get_global_size(0) - 1) / get_global_size(0);\n"
    "    const size_t begin = get_global_id(0) * chunk;\n"
    "    const size_t end = min((size_t)vectors, begin + chunk);\n"
    "    const size_t part = end > begin ? (end - begin) / 4 : 0;\n"
    "    uint16 a = (uint16)(0), b = (uint16)(0), c = (uint16)(0), d = (uint16)(0);\n"
    "    for (size_t i = begin; i < begin + part; i++) {\n"
    "        a ^= in[i];\n"
    "        b ^= in[i + part];\n"
    "        c ^= in[i + 2 * part];\n"
    "        d ^= in[i + 3 * part];\n"
    "    }\n"
    "    for (size_t i = begin + 4 * part; i < end; i++)\n"
    "        a ^= in[i];\n"
    "    a ^= b ^ c ^ d;\n"
    "    if ((a.s0 ^ a.s5 ^ a.sa ^ a.sf) == 0x9e3779b9u)\n"
    "        out[0] = 1;\n"
    "}\n";

struct roofline {
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem sink;
    size_t work_items;
    size_t vector_bytes;
};

static void roofline_release(struct roofline *r)
{
    if (r->kernel)
        clReleaseKernel(r->kernel);
    if (r->program)
        clReleaseProgram(r->program);
    if (r->sink)
        clReleaseMemObject(r->sink);
    free(r);
}

struct roofline *roofline_create(clfold_context *ctx, bool cpu_shape)
{
    cl_context cl = clfold_cl_context(ctx);
    cl_device_id device = clfold_device(ctx);
    const char *text = SOURCE;
    cl_uint units = 1;
    cl_int err;
    struct roofline *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->queue = clfold_queue(ctx);
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    r->work_items = cpu_shape ? 4 * (size_t)units : (size_t)units * 2048;
    r->vector_bytes = cpu_shape ? 64 : 16;
    r->program = clCreateProgramWithSource(cl, 1, &text, NULL, &err);
    if (err == CL_SUCCESS)
        err = clBuildProgram(r->program, 1, &device, "", NULL, NULL);
    if (err == CL_SUCCESS)
        r->kernel = clCreateKernel(r->program, cpu_shape ? "read_cpu" : "read_gpu", &err);
    if (err == CL_SUCCESS)
        r->sink = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) {
        roofline_release(r);
        return NULL;
    }
    return r;
}

void roofline_destroy(struct roofline *r)
{
    if (r != NULL)
        roofline_release(r);
}

/*
 * A profiled command's time, start to end, once it completes (-1 if
 * unknown); releases the event. Where the device's timestamps do not
 * advance (Mesa's rusticl), the wall time from `enqueued_s` to its
 * completion, as the bench takes for its own calls there.
 */
static double event_ms(cl_event event, double enqueued_s)
{
    cl_ulong start = 0, end = 0;
    double ms = -1;
    if (clWaitForEvents(1, &event) == CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS)
        ms = (double)(end - start) * 1e-6;
    if (ms >= 0 && ms < NO_DEVICE_TIME_MS)
        ms = (now_seconds() - enqueued_s) * 1e3;
    clReleaseEvent(event);
    return ms;
}

double roofline_read_ms(struct roofline *r, cl_mem buffer, size_t bytes)
{
    cl_ulong vectors = bytes / r->vector_bytes;
    size_t global = r->work_items, local = r->vector_bytes == 16 ? 256 : 1;
    cl_event event = NULL;
    if (vectors == 0)
        return -1;
    if (r->vector_bytes == 16 && global > (vectors + local - 1) / local * local)
        global = (vectors + local - 1) / local * local;
    double enqueued = now_seconds();
    if (clSetKernelArg(r->kernel, 0, sizeof buffer, &buffer) != CL_SUCCESS ||
        clSetKernelArg(r->kernel, 1, sizeof vectors, &vectors) != CL_SUCCESS ||
        clSetKernelArg(r->kernel, 2, sizeof r->sink, &r->sink) != CL_SUCCESS ||
        clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &global, &local, 0, NULL, &event) !=
            CL_SUCCESS)
        return -1;
    return event_ms(event, enqueued);
}

double roofline_copy_ms(clfold_context *ctx, cl_mem src, cl_mem dst, size_t bytes)
{
    cl_event event = NULL;
    double enqueued = now_seconds();
    if (bytes == 0 || clEnqueueCopyBuffer(clfold_queue(ctx), src, dst, 0, 0, bytes, 0, NULL,
                                          &event) != CL_SUCCESS)
        return -1;
    return event_ms(event, enqueued);
}

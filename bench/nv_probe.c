/*
 * nv_probe: what limits a kernel's work-group size on a device. Builds a
 * trivial kernel two ways (plain, and with reqd_work_group_size(1024)),
 * prints CL_KERNEL_WORK_GROUP_SIZE, the private memory, the build log of
 * -cl-nv-verbose (NVIDIA: registers per thread), and tries a launch with
 * 1024 work-items per group.
 *
 *   nv_probe [device-substring [OPTIONS]]
 * With OPTIONS, also builds cl/core/defs.cl + cl/reduce/ladder.cl (run from the source
 * tree) with OPTIONS and reports the same for reduce_k1..reduce_k5.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

#include "find_device.h"

static const char *SOURCES[] = {
    "__kernel void plain(__global int *a) { a[get_global_id(0)] = (int)get_local_id(0); }",
    "__kernel __attribute__((reqd_work_group_size(1024, 1, 1)))\n"
    "void fixed(__global int *a) { a[get_global_id(0)] = (int)get_local_id(0); }",
};
static const char *NAMES[] = {"plain", "fixed"};

static char *read_file(const char *path)
{
    static char text[2][1 << 16];
    static int which;
    FILE *file = fopen(path, "rb");
    size_t n = file ? fread(text[which], 1, sizeof text[0] - 1, file) : 0;
    if (file)
        fclose(file);
    text[which][n] = '\0';
    return text[which++];
}

static void probe_ladder(cl_context ctx, cl_device_id device, const char *options, int nvidia)
{
    const char *texts[2] = {read_file("cl/core/defs.cl"), read_file("cl/reduce/ladder.cl")};
    char all[2048], log[16384] = "";
    cl_int err;
    snprintf(all, sizeof all, "%s%s", options, nvidia ? " -cl-nv-verbose" : "");
    cl_program program = clCreateProgramWithSource(ctx, 2, texts, NULL, &err);
    err = clBuildProgram(program, 1, &device, all, NULL, NULL);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    printf("ladder.cl with %s: build %d\n%s\n", all, err, log);
    for (int k = 1; k <= 5; k++) {
        char name[32];
        size_t wg = 0;
        snprintf(name, sizeof name, "reduce_k%d", k);
        cl_kernel kernel = clCreateKernel(program, name, &err);
        clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        printf("%s: CL_KERNEL_WORK_GROUP_SIZE=%zu\n", name, wg);
        clReleaseKernel(kernel);
    }
    clReleaseProgram(program);
}

int main(int argc, char **argv)
{
    cl_device_id device = find_device(argc > 1 ? argv[1] : "NVIDIA");
    cl_int err;
    if (device == NULL)
        return printf("no device\n"), 1;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
    cl_mem buffer = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 << 20, NULL, &err);
    char vendor[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    /* -cl-nv-verbose is NVIDIA's; POCL 3.1 crashes on the unknown option. */
    int verbose_runs = strstr(vendor, "NVIDIA") != NULL ? 2 : 1;
    for (int i = 0; i < 2; i++) {
        for (int verbose = 0; verbose < verbose_runs; verbose++) {
            char log[8192] = "";
            size_t wg = 0, global = 1 << 20, local = 1024;
            cl_ulong priv = 0;
            cl_program program = clCreateProgramWithSource(ctx, 1, &SOURCES[i], NULL, &err);
            err = clBuildProgram(program, 1, &device, verbose ? "-cl-nv-verbose" : "", NULL, NULL);
            clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            cl_kernel kernel = clCreateKernel(program, NAMES[i], &err);
            clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
            clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL);
            clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
            cl_int launch = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
            cl_int finish = clFinish(queue);
            printf("%s%s: CL_KERNEL_WORK_GROUP_SIZE=%zu private=%llu launch(1024)=%d finish=%d\n%s\n",
                   NAMES[i], verbose ? " -cl-nv-verbose" : "", wg, (unsigned long long)priv, launch,
                   finish, log);
            clReleaseKernel(kernel);
            clReleaseProgram(program);
        }
    }
    if (argc > 2)
        probe_ladder(ctx, device, argv[2], verbose_runs == 2);
    return 0;
}

/*
 * probe.h: what the standalone OpenCL probes of bench/ (scan_probe.c,
 * widen_probe.c) share: a check that exits on any OpenCL error, and the
 * first device of a platform by name. Each probe still builds with one gcc
 * line: the header sits beside them.
 */
#ifndef CLFOLD_BENCH_PROBE_H
#define CLFOLD_BENCH_PROBE_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                 \
    do {                                                                      \
        cl_int e_ = (x);                                                      \
        if (e_ != CL_SUCCESS) {                                               \
            fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, e_); \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* The first device of `type` on the first platform whose name holds `platform`; NULL if none. */
static inline cl_device_id probe_device(const char *platform, cl_device_type type)
{
    cl_platform_id platforms[8];
    cl_uint count = 0;
    cl_device_id device = NULL;
    CK(clGetPlatformIDs(8, platforms, &count));
    for (cl_uint p = 0; p < count && device == NULL; p++) {
        char name[256];
        CK(clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL));
        if (strstr(name, platform) != NULL)
            CK(clGetDeviceIDs(platforms[p], type, 1, &device, NULL));
    }
    return device;
}

#endif /* CLFOLD_BENCH_PROBE_H */

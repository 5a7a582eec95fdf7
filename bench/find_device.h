/*
 * find_device.h: the probes' (nv_probe.c, latency_probe.c) way to a device:
 * the first whose name contains `want` ("" takes the first device). Each
 * probe compiles on its own (cc bench/PROBE.c -lOpenCL); this header is
 * their one copy.
 */
#ifndef CLFOLD_BENCH_FIND_DEVICE_H
#define CLFOLD_BENCH_FIND_DEVICE_H

#include <CL/cl.h>
#include <string.h>

static cl_device_id find_device(const char *want)
{
    cl_platform_id platforms[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, platforms, &np);
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devices[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 8, devices, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd; d++) {
            char name[256];
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name, name, NULL);
            if (strstr(name, want) != NULL)
                return devices[d];
        }
    }
    return NULL;
}

#endif /* CLFOLD_BENCH_FIND_DEVICE_H */

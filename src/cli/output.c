/*
 * output.c: JSON and CSV strings and device descriptions for the runner.
 */
#include "output.h"

#include <string.h>

void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void csv_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc((unsigned char)*c < 0x20 ? ' ' : *c, out);
    }
    fputc('"', out);
}

/* A device info string; "" when the query fails. */
static void device_string(cl_device_id device, cl_device_info param, char *buf, size_t cap)
{
    if (clGetDeviceInfo(device, param, cap, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[cap - 1] = '\0';
}

static int has_extension(cl_device_id device, const char *name)
{
    char extensions[8192];
    device_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
    return strstr(extensions, name) != NULL;
}

void describe_device(cl_device_id device, struct device_summary *s)
{
    cl_device_type type = 0;
    cl_platform_id platform = NULL;
    memset(s, 0, sizeof *s);
    device_string(device, CL_DEVICE_NAME, s->name, sizeof s->name);
    device_string(device, CL_DEVICE_VENDOR, s->vendor, sizeof s->vendor);
    device_string(device, CL_DRIVER_VERSION, s->driver, sizeof s->driver);
    device_string(device, CL_DEVICE_OPENCL_C_VERSION, s->c_version, sizeof s->c_version);
    device_string(device, CL_DEVICE_VERSION, s->device_version, sizeof s->device_version);
    clGetDeviceInfo(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof s->max_clock_mhz, &s->max_clock_mhz, NULL);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof s->compute_units, &s->compute_units, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof s->global_mem, &s->global_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof s->local_mem, &s->local_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof s->max_work_group, &s->max_work_group, NULL);
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) == CL_SUCCESS) {
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof s->platform, s->platform, NULL);
        clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof s->version, s->version, NULL);
    }
    s->type = (type & CL_DEVICE_TYPE_GPU)           ? "GPU"
            : (type & CL_DEVICE_TYPE_CPU)           ? "CPU"
            : (type & CL_DEVICE_TYPE_ACCELERATOR)   ? "accelerator"
                                                    : "other";
    s->fp64 = has_extension(device, "cl_khr_fp64");
    s->fp16 = has_extension(device, "cl_khr_fp16");
}

void json_device(FILE *out, const struct device_summary *s)
{
    fputs("{\"name\": ", out);
    json_string(out, s->name);
    fputs(", \"vendor\": ", out);
    json_string(out, s->vendor);
    fputs(", \"driver\": ", out);
    json_string(out, s->driver);
    fputs(", \"platform\": ", out);
    json_string(out, s->platform);
    fprintf(out, ", \"type\": \"%s\", \"compute_units\": %u}", s->type, s->compute_units);
}

/*
 * devices.c: `clfold devices`: every platform and device, numbered "P:D"
 * in the order OpenCL lists them, the numbering that -d P:D selects. The
 * last two columns say what a user can reduce there: double data (and the
 * fp64 accuracy) where the device has cl_khr_fp64; half data everywhere,
 * as storage that clfold converts, or with arithmetic (cl_khr_fp16).
 */
#include <stdio.h>

#include "commands.h"
#include "common.h"
#include "output.h"

/* cl_khr_icd: the ICD loader found no platform (not in every cl.h). */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

static void print_table_row(const char *index, const struct device_summary *s)
{
    printf("%-5s %-40.40s %-24.24s %-4s %4u %9.1f %9.1f %6zu  %-18.18s %-6s %s\n", index, s->name,
           s->vendor, s->type, s->compute_units, (double)s->global_mem / (1 << 30),
           (double)s->local_mem / 1024, s->max_work_group, s->c_version, s->fp64 ? "yes" : "no",
           half_support(s));
}

static void print_json_entry(const char *index, const struct device_summary *s, int first)
{
    printf("%s\n  {\"index\": \"%s\", ", first ? "" : ",", index);
    json_device_members(stdout, s);
    printf("}");
}

int command_devices(const struct cli_args *args)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint n_platforms = 0;
    int listed = 0, exit_status = EXIT_OK;

    /* No ICD or no platform is an empty list; a driver that fails is said. */
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &n_platforms);
    if (err != CL_SUCCESS && err != CL_PLATFORM_NOT_FOUND_KHR) {
        cli_error("clGetPlatformIDs failed: %s", clfold_status_string((clfold_status)err));
        return EXIT_CHECK_FAILED;
    }
    if (err != CL_SUCCESS)
        n_platforms = 0;
    if (args->format == FORMAT_JSON)
        printf("{\"format_version\": 1, \"devices\": [");
    else
        printf("%-5s %-40s %-24s %-4s %4s %9s %9s %6s  %-18s %-6s %s\n", "P:D", "Name", "Vendor",
               "Type", "CUs", "Mem(GiB)", "Local(KiB)", "MaxWG", "OpenCL C", "double", "half");
    for (cl_uint p = 0; p < n_platforms && p < MAX_PLATFORMS; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint n_devices = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &n_devices);
        if (err == CL_DEVICE_NOT_FOUND)
            continue; /* a platform without devices */
        if (err != CL_SUCCESS) {
            /* The other platforms are still listed; the exit status says one failed. */
            cli_error("platform %u: clGetDeviceIDs failed: %s", p,
                      clfold_status_string((clfold_status)err));
            exit_status = EXIT_CHECK_FAILED;
            continue;
        }
        for (cl_uint d = 0; d < n_devices && d < MAX_DEVICES; d++) {
            struct device_summary summary;
            char index[32];
            describe_device(devices[d], &summary);
            snprintf(index, sizeof index, "%u:%u", p, d);
            if (args->format == FORMAT_JSON)
                print_json_entry(index, &summary, listed == 0);
            else
                print_table_row(index, &summary);
            listed++;
        }
    }
    if (args->format == FORMAT_JSON)
        printf("\n]}\n");
    else if (listed == 0)
        printf("(no OpenCL device found)\n");
    return exit_status;
}

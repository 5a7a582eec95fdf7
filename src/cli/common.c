/*
 * common.c: what the runner's commands share: the one-line error on
 * stderr, the exit status a library failure deserves, an -O that is not
 * an input, and opening the
 * context that -d names, as users get it or with device times.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "whole_file.h"

/* The library's description of `op` (flags 0 for an op it does not know). */
static clfold_op_info describe(clfold_op op)
{
    clfold_op_info info = {"?", "?", 0};
    clfold_op_describe(op, &info);
    return info;
}

bool cli_op_is_arg(clfold_op op) { return describe(op).flags & CLFOLD_OP_INDEX; }

int cli_check_identity(clfold_op op, size_t length)
{
    clfold_op_info info = describe(op);
    if (length == 0 && (info.flags & CLFOLD_OP_NO_IDENTITY) && !(info.flags & CLFOLD_OP_INDEX)) {
        cli_error("zero-size array to reduction operation %s which has no identity",
                  info.numpy_name);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int cli_check_scans(clfold_op op)
{
    if (!(describe(op).flags & CLFOLD_OP_SCANS)) {
        char names[256];
        cli_op_list(CLFOLD_OP_SCANS, ", ", names, sizeof names);
        cli_error("%s has no scan (%s)", clfold_op_name(op), names);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* Where cli_error writes while a capture is on (cli_capture_errors); NULL: stderr. */
static char *captured;
static size_t captured_cap;

void cli_capture_errors(char *buf, size_t cap)
{
    captured = cap > 0 ? buf : NULL;
    captured_cap = cap;
    if (captured != NULL)
        captured[0] = '\0';
}

void cli_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (captured != NULL) {
        if (captured[0] == '\0') /* the first says why; what follows is its consequence */
            vsnprintf(captured, captured_cap, format, args);
    } else {
        fputs("clfold: ", stderr);
        vfprintf(stderr, format, args);
        fputc('\n', stderr);
    }
    va_end(args);
}

int check_output_apart(const struct cli_args *args)
{
    const char *inputs[] = {args->file, args->segments};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        if (args->output != NULL && same_file(args->output, inputs[i])) {
            cli_error("-O %s is the input %s: write the result to another file", args->output,
                      inputs[i]);
            return EXIT_BAD_INPUT;
        }
    }
    return EXIT_OK;
}

int describe_failure(const clfold_context *ctx, clfold_status status, const char *doing, char *buf,
                     size_t cap)
{
    const char *detail = clfold_last_error(ctx);
    snprintf(buf, cap, "%s: %s", doing, detail[0] != '\0' ? detail : clfold_status_string(status));
    return exit_status_of(status);
}

clfold_status status_for_exit(int exit_status)
{
    return exit_status == EXIT_BAD_INPUT ? CLFOLD_ERROR_INVALID_ARGUMENT
                                         : CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
}

int exit_status_of(clfold_status status)
{
    switch (status) {
    case CLFOLD_ERROR_INVALID_ARGUMENT: case CLFOLD_ERROR_INVALID_TYPE:
    case CLFOLD_ERROR_INVALID_OP: case CLFOLD_ERROR_INVALID_KERNEL:
    case CLFOLD_ERROR_OP_NOT_FOR_TYPE: case CLFOLD_ERROR_INVALID_BLOCK_SIZE:
    case CLFOLD_ERROR_DEVICE_NOT_FOUND: case CLFOLD_ERROR_NO_FP64:
    case CLFOLD_ERROR_TOO_LARGE: case CLFOLD_ERROR_OUT_OF_BOUNDS:
    case CLFOLD_ERROR_UNSUPPORTED: /* asked of a device or kernel that cannot */
        return EXIT_BAD_INPUT;
    case CLFOLD_SUCCESS:
        return EXIT_OK;
    default:
        return EXIT_CHECK_FAILED;
    }
}

int report_failure(const clfold_context *ctx, clfold_status status, const char *doing)
{
    char reason[1024];
    int exit_status = describe_failure(ctx, status, doing, reason, sizeof reason);
    cli_error("%s", reason);
    return exit_status;
}

int cli_device_indices(char (*indices)[16], size_t cap, cl_device_type type)
{
    cl_platform_id platforms[16];
    cl_uint n_platforms = 0;
    size_t count = 0;
    if (clGetPlatformIDs(16, platforms, &n_platforms) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < n_platforms && p < 16; p++) {
        cl_device_id devices[64];
        cl_uint n_devices = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &n_devices) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < n_devices && d < 64 && count < cap; d++) {
            cl_device_type its = 0;
            if (type == CL_DEVICE_TYPE_ALL ||
                (clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof its, &its, NULL) == CL_SUCCESS &&
                 (its & type)))
                snprintf(indices[count++], sizeof indices[0], "%u:%u", p, d);
        }
    }
    return (int)count;
}

void cli_device_index_of(cl_device_id device, char *buf, size_t cap)
{
    cl_platform_id platforms[16];
    cl_uint n_platforms = 0;
    snprintf(buf, cap, "%s", "");
    if (clGetPlatformIDs(16, platforms, &n_platforms) != CL_SUCCESS)
        return;
    for (cl_uint p = 0; p < n_platforms && p < 16; p++) {
        cl_device_id devices[64];
        cl_uint n_devices = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &n_devices) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < n_devices && d < 64; d++)
            if (devices[d] == device)
                snprintf(buf, cap, "%u:%u", p, d);
    }
}

cl_mem cli_upload(const clfold_context *ctx, const void *data, size_t bytes, cl_int *err)
{
    unsigned char none = 0;
    return clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          bytes > 0 ? bytes : 1, bytes > 0 ? (void *)data : &none, err);
}

int open_context(const struct cli_args *args, clfold_context **ctx)
{
    return open_selected(args->device, ctx);
}

int open_selected(const char *selector, clfold_context **ctx)
{
    return open_selected_or_advise(selector, ctx, "");
}

int open_selected_or_advise(const char *selector, clfold_context **ctx, const char *advice)
{
    const bool from_environment = selector == NULL;
    clfold_status status = clfold_create(ctx, selector);
    if (status == CLFOLD_SUCCESS)
        return EXIT_OK;
    if (status != CLFOLD_ERROR_DEVICE_NOT_FOUND)
        return report_failure(NULL, status, "creating the OpenCL context");
    /* The library's words (which selector, from -d or CLFOLD_DEVICE), on one line. */
    char said[256];
    const char *message = clfold_last_error(NULL);
    size_t n = 0;
    for (; message[n] != '\0' && n + 1 < sizeof said; n++)
        said[n] = (unsigned char)message[n] < 0x20 || message[n] == 0x7f ? '?' : message[n];
    said[n] = '\0';
    if (selector == NULL)
        selector = getenv("CLFOLD_DEVICE");
    if (selector != NULL && selector[0] != '\0')
        cli_error("%s%s (see clfold devices)%s", said,
                  from_environment ? ", the selector in CLFOLD_DEVICE" : "", advice);
    else
        cli_error("%s (is an OpenCL driver such as POCL installed, and can it start? POCL needs a "
                  "writable cache: $POCL_CACHE_DIR or ~/.cache/pocl)", said);
    return EXIT_BAD_INPUT;
}

int open_timed_beside(const clfold_context *plain, clfold_context **timed)
{
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(clfold_cl_context(plain), clfold_device(plain),
                                                  CL_QUEUE_PROFILING_ENABLE, &err);
    if (queue == NULL) {
        cli_error("creating a profiling queue: %s", clfold_status_string((clfold_status)err));
        return EXIT_CHECK_FAILED;
    }
    clfold_status status = clfold_create_with_queue(timed, queue);
    clReleaseCommandQueue(queue); /* the context holds it now, or failed */
    if (status != CLFOLD_SUCCESS)
        return report_failure(NULL, status, "creating the OpenCL context");
    return EXIT_OK;
}

int open_timed_context(const struct cli_args *args, clfold_context **ctx)
{
    clfold_context *plain = NULL;
    int exit_status = open_context(args, &plain);
    if (exit_status == EXIT_OK)
        exit_status = open_timed_beside(plain, ctx);
    clfold_destroy(plain);
    return exit_status;
}

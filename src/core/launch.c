/*
 * launch.c: what the launches of every reduction and scan share: their
 * arguments bound by name, the log of one operation's commands (its wait
 * list, the events it keeps) and the run that clfold_last_run reports from
 * it.
 */
#include "launch.h"

#include <string.h>

size_t divide_up(size_t a, size_t b) { return a / b + (a % b != 0); }

clfold_status kernel_arg(clfold_context *ctx, cl_kernel kernel, const char *const *params,
                         const char *name, size_t size, const void *value)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_uint index = 0;
    while (params[index] != NULL && strcmp(params[index], name) != 0)
        index++;
    if (params[index] == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "a kernel whose parameters start with %s has no %s",
             params[0], name);
    cl_int err = clSetKernelArg(kernel, index, size, value);
    if (err != CL_SUCCESS)
        FAIL((clfold_status)err, "clSetKernelArg(%s) failed: %s", name,
             clfold_status_string((clfold_status)err));
cleanup:
    return status;
}

void take_waits(struct pass_log *log, cl_uint *waits, const cl_event **wait_list)
{
    *waits = log->waits;
    *wait_list = log->waits != 0 ? log->wait_list : NULL;
    log->waits = 0;
    log->wait_list = NULL;
}

void pass_log_release(struct pass_log *log)
{
    for (unsigned i = 0; i < log->count; i++)
        clReleaseEvent(log->events[i]);
    log->count = 0;
}

/*
 * The device time of the logged launches: from the start of the first to
 * the end of the last, gaps between passes included, as CUDA events around
 * a peer library's call measure it. -1 without profiling.
 */
static double device_milliseconds(const clfold_context *ctx, const struct pass_log *log)
{
    cl_ulong start = 0, end = 0;
    if (!ctx->caps.profiling || log->count == 0)
        return -1.0;
    if (clGetEventProfilingInfo(log->events[0], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(log->events[log->count - 1], CL_PROFILING_COMMAND_END, sizeof end,
                                &end, NULL) != CL_SUCCESS)
        return -1.0;
    return (double)(end - start) * 1e-6;
}

void add_run(clfold_run_info *info, const clfold_context *ctx, const struct pass_log *log)
{
    double ms = device_milliseconds(ctx, log);
    info->device_ms = ms < 0 || info->device_ms < 0 ? -1.0 : info->device_ms + ms;
    info->passes += log->passes;
    info->bytes_read += log->bytes_read;
    info->bytes_written += log->bytes_written;
}

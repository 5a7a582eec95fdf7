/*
 * status.c: the names of every status, clfold's and OpenCL's, and the
 * context's record of what went wrong last.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"


#define NAME(code) case code: return #code

static const char *opencl_status_string(cl_int code)
{
    switch (code) {
    NAME(CL_DEVICE_NOT_FOUND); NAME(CL_DEVICE_NOT_AVAILABLE); NAME(CL_COMPILER_NOT_AVAILABLE);
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE); NAME(CL_OUT_OF_RESOURCES); NAME(CL_OUT_OF_HOST_MEMORY);
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE); NAME(CL_MEM_COPY_OVERLAP); NAME(CL_IMAGE_FORMAT_MISMATCH);
    NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED); NAME(CL_BUILD_PROGRAM_FAILURE); NAME(CL_MAP_FAILURE);
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET); NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    NAME(CL_COMPILE_PROGRAM_FAILURE); NAME(CL_LINKER_NOT_AVAILABLE); NAME(CL_LINK_PROGRAM_FAILURE);
    NAME(CL_DEVICE_PARTITION_FAILED); NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    NAME(CL_INVALID_VALUE); NAME(CL_INVALID_DEVICE_TYPE); NAME(CL_INVALID_PLATFORM);
    NAME(CL_INVALID_DEVICE); NAME(CL_INVALID_CONTEXT); NAME(CL_INVALID_QUEUE_PROPERTIES);
    NAME(CL_INVALID_COMMAND_QUEUE); NAME(CL_INVALID_HOST_PTR); NAME(CL_INVALID_MEM_OBJECT);
    NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR); NAME(CL_INVALID_IMAGE_SIZE); NAME(CL_INVALID_SAMPLER);
    NAME(CL_INVALID_BINARY); NAME(CL_INVALID_BUILD_OPTIONS); NAME(CL_INVALID_PROGRAM);
    NAME(CL_INVALID_PROGRAM_EXECUTABLE); NAME(CL_INVALID_KERNEL_NAME);
    NAME(CL_INVALID_KERNEL_DEFINITION); NAME(CL_INVALID_KERNEL); NAME(CL_INVALID_ARG_INDEX);
    NAME(CL_INVALID_ARG_VALUE); NAME(CL_INVALID_ARG_SIZE); NAME(CL_INVALID_KERNEL_ARGS);
    NAME(CL_INVALID_WORK_DIMENSION); NAME(CL_INVALID_WORK_GROUP_SIZE);
    NAME(CL_INVALID_WORK_ITEM_SIZE); NAME(CL_INVALID_GLOBAL_OFFSET); NAME(CL_INVALID_EVENT_WAIT_LIST);
    NAME(CL_INVALID_EVENT); NAME(CL_INVALID_OPERATION); NAME(CL_INVALID_GL_OBJECT);
    NAME(CL_INVALID_BUFFER_SIZE); NAME(CL_INVALID_MIP_LEVEL); NAME(CL_INVALID_GLOBAL_WORK_SIZE);
    NAME(CL_INVALID_PROPERTY); NAME(CL_INVALID_IMAGE_DESCRIPTOR); NAME(CL_INVALID_COMPILER_OPTIONS);
    NAME(CL_INVALID_LINKER_OPTIONS); NAME(CL_INVALID_DEVICE_PARTITION_COUNT);
    NAME(CL_PLATFORM_NOT_FOUND_KHR);
    default: return NULL;
    }
}

const char *clfold_status_string(clfold_status status)
{
    switch (status) {
    case CLFOLD_SUCCESS: return "CLFOLD_SUCCESS";
    NAME(CLFOLD_ERROR_INVALID_ARGUMENT); NAME(CLFOLD_ERROR_INVALID_TYPE);
    NAME(CLFOLD_ERROR_INVALID_OP); NAME(CLFOLD_ERROR_INVALID_KERNEL);
    NAME(CLFOLD_ERROR_OP_NOT_FOR_TYPE); NAME(CLFOLD_ERROR_INVALID_BLOCK_SIZE);
    NAME(CLFOLD_ERROR_OUT_OF_BOUNDS); NAME(CLFOLD_ERROR_DEVICE_NOT_FOUND);
    NAME(CLFOLD_ERROR_NO_FP64); NAME(CLFOLD_ERROR_BUILD_FAILED);
    NAME(CLFOLD_ERROR_OUT_OF_HOST_MEMORY); NAME(CLFOLD_ERROR_UNSUPPORTED);
    NAME(CLFOLD_ERROR_NO_PROFILING); NAME(CLFOLD_ERROR_KERNEL_SOURCE);
    NAME(CLFOLD_ERROR_WRONG_CONTEXT); NAME(CLFOLD_ERROR_TOO_LARGE);
    NAME(CLFOLD_ERROR_MPI); NAME(CLFOLD_ERROR_INVALID_PARAM);
    default: break;
    }
    const char *opencl = opencl_status_string((cl_int)status);
    return opencl != NULL ? opencl : "unknown status";
}

clfold_status fail(clfold_context *ctx, clfold_status status, const char *format, ...)
{
    va_list args;
    if (ctx == NULL)
        return status;
    free(ctx->last_error);
    ctx->last_error = NULL;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (length < 0 || (ctx->last_error = malloc((size_t)length + 1)) == NULL)
        return status; /* the status still says what failed */
    va_start(args, format);
    vsnprintf(ctx->last_error, (size_t)length + 1, format, args);
    va_end(args);
    return status;
}

void clear_error(clfold_context *ctx)
{
    if (ctx == NULL)
        return;
    free(ctx->last_error);
    ctx->last_error = NULL;
}

/*
 * What the calling thread's last clfold_create* said: a failed one has no
 * context to keep it in. Per thread, so threads creating contexts at once
 * read their own; cut at CREATE_ERROR_BYTES - 1 bytes.
 */
#define CREATE_ERROR_BYTES 1024
static _Thread_local char create_error[CREATE_ERROR_BYTES];

void keep_create_error(const char *message)
{
    snprintf(create_error, sizeof create_error, "%s", message);
}

const char *clfold_last_error(const clfold_context *ctx)
{
    if (ctx == NULL)
        return create_error;
    return ctx->last_error != NULL ? ctx->last_error : "";
}

/*
 * context.c: creating and destroying contexts, and the small accessors. A
 * context owns (or retains) its cl_context and queue, the program cache and
 * its reductions' buffers; destroying it releases all of them, and what the
 * layers above core keep in it through the functions they register.
 */
#include <stdint.h>
#include <stdlib.h>

#include "device.h"
#include "scratch.h"

/* A new context, with the environment's settings read: the only place they are. */
static clfold_status context_alloc(clfold_context **ctx)
{
    *ctx = calloc(1, sizeof **ctx);
    if (*ctx == NULL)
        return CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
    return settings_read(*ctx, &(*ctx)->settings);
}

/*
 * The end of both clfold_create*: a failed context is released and its
 * message kept for clfold_last_error(NULL).
 */
static clfold_status finish_create(clfold_context **out, clfold_context *ctx, clfold_status status)
{
    if (status == CLFOLD_SUCCESS) {
        keep_create_error("");
    } else {
        keep_create_error(ctx != NULL && ctx->last_error != NULL ? ctx->last_error
                                                                   : clfold_status_string(status));
        clfold_destroy(ctx);
        ctx = NULL;
    }
    *out = ctx;
    return status;
}

clfold_status clfold_create(clfold_context **out, const char *selector)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_context *ctx = NULL;
    cl_int err;

    if (out == NULL) {
        keep_create_error("the context pointer is NULL");
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    }
    CHECK(context_alloc(&ctx));
    CHECK(device_select(ctx, selector != NULL && selector[0] != '\0' ? selector
                                                                      : ctx->settings.device,
                        &ctx->device));
    ctx->cl = clCreateContext(NULL, 1, &ctx->device, NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext");
    /* No profiling: on NVIDIA it costs every call about 7 us
       (bench/results/kernel-choices-nvidia.txt). */
    ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
    CHECK_CL(err, "clCreateCommandQueue");
    CHECK(device_read_caps(ctx));
cleanup:
    return finish_create(out, ctx, status);
}

clfold_status clfold_create_with_queue(clfold_context **out, cl_command_queue queue)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_context *ctx = NULL;
    cl_context cl = NULL;
    cl_command_queue_properties properties = 0;

    if (out == NULL) {
        keep_create_error("the context pointer is NULL");
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    }
    CHECK(context_alloc(&ctx));
    if (queue == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "queue is NULL");
    CHECK_CL(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL),
             "CL_QUEUE_CONTEXT");
    CHECK_CL(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL),
             "CL_QUEUE_DEVICE");
    /* Each pass reads what the one before wrote: commands must run in order. */
    CHECK_CL(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL),
             "CL_QUEUE_PROPERTIES");
    if (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "the queue runs commands out of order; clfold needs an "
                                            "in-order queue");
    /* ctx->cl and ctx->queue hold only what is retained: clfold_destroy releases them. */
    CHECK_CL(clRetainContext(cl), "clRetainContext");
    ctx->cl = cl;
    CHECK_CL(clRetainCommandQueue(queue), "clRetainCommandQueue");
    ctx->queue = queue;
    CHECK(device_read_caps(ctx));
cleanup:
    return finish_create(out, ctx, status);
}

void clfold_destroy(clfold_context *ctx)
{
    if (ctx == NULL)
        return;
    if (ctx->queue != NULL)
        clFinish(ctx->queue);
    program_cache_release(&ctx->programs);
    scratch_release_all(ctx);
    while (ctx->release_count > 0)
        ctx->releases[--ctx->release_count](ctx);
    if (ctx->queue != NULL)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl != NULL)
        clReleaseContext(ctx->cl);
    settings_release(&ctx->settings);
    free(ctx->last_error);
    free(ctx);
}

clfold_status context_on_release(clfold_context *ctx, context_release_fn release)
{
    for (unsigned i = 0; i < ctx->release_count; i++)
        if (ctx->releases[i] == release)
            return CLFOLD_SUCCESS;
    if (ctx->release_count == CONTEXT_RELEASES)
        return fail(ctx, CLFOLD_ERROR_UNSUPPORTED, "a context holds at most %d release functions",
                    CONTEXT_RELEASES);
    ctx->releases[ctx->release_count++] = release;
    return CLFOLD_SUCCESS;
}

cl_context clfold_cl_context(const clfold_context *ctx) { return ctx ? ctx->cl : NULL; }
cl_command_queue clfold_queue(const clfold_context *ctx) { return ctx ? ctx->queue : NULL; }
cl_device_id clfold_device(const clfold_context *ctx) { return ctx ? ctx->device : NULL; }

clfold_status clfold_set_kernel(clfold_context *ctx, clfold_kernel kernel, size_t block_size)
{
    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if (clfold_kernel_name(kernel) == NULL)
        return fail(ctx, CLFOLD_ERROR_INVALID_KERNEL, "unknown kernel %d", (int)kernel);
    if (block_size != 0) {
        clfold_status status = device_check_block(ctx, block_size);
        if (status != CLFOLD_SUCCESS)
            return status;
    }
    ctx->kernel = kernel;
    ctx->block_size = block_size;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_set_scan_kernel(clfold_context *ctx, clfold_scan_kernel kernel,
                                     size_t block_size)
{
    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if (clfold_scan_kernel_name(kernel) == NULL)
        return fail(ctx, CLFOLD_ERROR_INVALID_KERNEL, "unknown scan kernel %d", (int)kernel);
    if (block_size != 0) {
        clfold_status status = device_check_block(ctx, block_size);
        if (status != CLFOLD_SUCCESS)
            return status;
    }
    /* Tiles of one element would never shrink a level. */
    if (kernel == CLFOLD_SCAN_KOGGE_STONE && block_size == 1)
        return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                    "kogge-stone scans a tile of one element a work-item: it needs blocks of 2 "
                    "or more");
    ctx->scan_kernel = kernel;
    ctx->scan_block = block_size;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_set_accuracy(clfold_context *ctx, clfold_accuracy accuracy)
{
    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if (clfold_accuracy_name(accuracy) == NULL)
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT, "unknown accuracy %d", (int)accuracy);
    if (accuracy == CLFOLD_ACCURACY_FP64 && !ctx->caps.has_fp64)
        return fail(ctx, CLFOLD_ERROR_NO_FP64,
                    "device %s has no double precision (cl_khr_fp64) to accumulate in",
                    ctx->caps.name);
    ctx->accuracy = accuracy;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_last_run(const clfold_context *ctx, clfold_run_info *info)
{
    if (ctx == NULL || info == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (!ctx->has_last_run)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    *info = ctx->last_run;
    return CLFOLD_SUCCESS;
}

const char *clfold_last_build_options(const clfold_context *ctx)
{
    return ctx != NULL ? ctx->programs.last_options : "";
}

const char *clfold_version_string(void)
{
#define STR_(x) #x
#define STR(x) STR_(x)
    return STR(CLFOLD_VERSION_MAJOR) "." STR(CLFOLD_VERSION_MINOR) "." STR(CLFOLD_VERSION_PATCH);
}

/*
 * reduce.c: the public reductions. Checks a request, runs the passes that
 * the plan describes over ping-pong scratch buffers, reads the one value
 * back, and records what ran and how long it took on the device.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* Enough passes for 2^64 values halved each pass, with room to spare. */
#define MAX_PASSES 80

/* The launches of one reduction, for timing and traffic. */
struct pass_log {
    cl_event events[MAX_PASSES];
    unsigned count;
    uint64_t bytes_read;
    uint64_t bytes_written;
};

static void pass_log_release(struct pass_log *log)
{
    for (unsigned i = 0; i < log->count; i++)
        clReleaseEvent(log->events[i]);
    log->count = 0;
}

/* Checks type, operator and device support; gives the accumulator type. */
static clfold_status check_request(clfold_context *ctx, clfold_type type, clfold_op op,
                                   clfold_type *acc)
{
    clfold_status status = accumulator_type(type, op, acc);
    if (status == CLFOLD_ERROR_INVALID_TYPE)
        return fail(ctx, status, "unknown element type %d", (int)type);
    if (status == CLFOLD_ERROR_INVALID_OP)
        return fail(ctx, status, "unknown operator %d", (int)op);
    if (status == CLFOLD_ERROR_OP_NOT_FOR_TYPE)
        return fail(ctx, status, "operator %s does not apply to %s values", clfold_op_name(op),
                    clfold_type_name(type));
    if ((type == CLFOLD_DOUBLE || *acc == CLFOLD_DOUBLE) && !ctx->caps.has_fp64)
        return fail(ctx, CLFOLD_ERROR_NO_FP64, "device %s has no double precision (cl_khr_fp64)",
                    ctx->caps.name);
    return CLFOLD_SUCCESS;
}

/* Makes scratch buffer `which` hold at least `bytes`. */
static clfold_status ensure_scratch(clfold_context *ctx, int which, size_t bytes)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_int err;
    if (ctx->scratch_bytes[which] >= bytes)
        return CLFOLD_SUCCESS;
    if (ctx->scratch[which] != NULL)
        clReleaseMemObject(ctx->scratch[which]);
    ctx->scratch_bytes[which] = 0;
    ctx->scratch[which] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_CL(err, "clCreateBuffer (partial results)");
    ctx->scratch_bytes[which] = bytes;
cleanup:
    return status;
}

/*
 * A launch the driver refused for its work-group size, said in clfold's
 * terms. The kernel's CL_KERNEL_WORK_GROUP_SIZE is no authority: NVIDIA's
 * driver 580 reports 256 for a 10-register kernel that runs 1024 per group
 * (measured on an H200 with bench/nv_probe.c), so clfold tries the launch
 * and lets the driver decide.
 */
static clfold_status refused_block(clfold_context *ctx, cl_kernel kernel, const struct plan *plan,
                                   cl_int err)
{
    size_t reported = 0;
    clGetKernelWorkGroupInfo(kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof reported,
                             &reported, NULL);
    return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                "%s cannot run %zu work-items per group on %s (%s; the driver reports at most %zu)",
                plan->entry, plan->block, ctx->caps.name, clfold_status_string((clfold_status)err),
                reported);
}

/* One launch: `groups` work-groups fold in[offset .. offset+count) into out[0 .. groups). */
static clfold_status launch(clfold_context *ctx, const struct plan *plan,
                            const struct build_config *config, cl_mem in, size_t offset,
                            size_t count, cl_mem out, size_t groups, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_kernel kernel = NULL;
    cl_ulong offset_arg = offset, count_arg = count;
    size_t global = groups * plan->block;
    size_t acc_size = type_info(config->acc)->size;

    if (log->count == MAX_PASSES)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "reduction needs more than %d passes", MAX_PASSES);
    CHECK(program_kernel(ctx, config, plan->entry, &kernel));
    CHECK_CL(clSetKernelArg(kernel, 0, sizeof in, &in), "clSetKernelArg(in)");
    CHECK_CL(clSetKernelArg(kernel, 1, sizeof offset_arg, &offset_arg), "clSetKernelArg(offset)");
    CHECK_CL(clSetKernelArg(kernel, 2, sizeof count_arg, &count_arg), "clSetKernelArg(n)");
    CHECK_CL(clSetKernelArg(kernel, 3, sizeof out, &out), "clSetKernelArg(out)");
    if (plan->local_arg)
        CHECK_CL(clSetKernelArg(kernel, 4, plan->block * acc_size, NULL), "clSetKernelArg(local)");
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &plan->block, 0,
                                        NULL, &log->events[log->count]);
    if (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) {
        status = refused_block(ctx, kernel, plan, err);
        goto cleanup;
    }
    CHECK_CL(err, "clEnqueueNDRangeKernel");
    log->count++;
    log->bytes_read += (uint64_t)count * type_info(config->in)->size;
    log->bytes_written += (uint64_t)groups * acc_size;
cleanup:
    return status;
}

/*
 * The tree kernels: the first pass reads the caller's elements, every later
 * pass the partial values of the one before, until one value is left.
 */
static clfold_status run_tree(clfold_context *ctx, const struct plan *plan, cl_mem input,
                              size_t offset, size_t count, clfold_type type, clfold_op op,
                              clfold_type acc, void *result, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc_size = type_info(acc)->size;
    struct build_config config = {plan->source, type, acc, op,
                                  plan->block_is_constant ? plan->block : 0, false};
    int out = 0;

    do {
        size_t groups = plan_groups(plan, count);
        CHECK(ensure_scratch(ctx, out, groups * acc_size));
        CHECK(launch(ctx, plan, &config, input, offset, count, ctx->scratch[out], groups, log));
        input = ctx->scratch[out];
        offset = 0;
        count = groups;
        config.in = acc;
        out ^= 1;
    } while (count > 1);
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, input, CL_TRUE, 0, acc_size, result, 0, NULL, NULL),
             "clEnqueueReadBuffer (result)");
cleanup:
    return status;
}

/* The atomic baseline keeps its value in 32 bits at least: widen the identity. */
static void widened_identity(clfold_type acc, clfold_op op, void *out, size_t *size)
{
    const struct type_info *info = type_info(acc);
    unsigned char narrow[8];
    identity_value(acc, op, narrow);
    if (info->size >= 4) {
        memcpy(out, narrow, info->size);
        *size = info->size;
        return;
    }
    int32_t wide;
    if (info->size == 1) {
        wide = info->is_signed ? (int32_t)(int8_t)narrow[0] : (int32_t)narrow[0];
    } else {
        uint16_t half;
        memcpy(&half, narrow, 2);
        wide = info->is_signed ? (int32_t)(int16_t)half : (int32_t)half;
    }
    memcpy(out, &wide, 4);
    *size = 4;
}

/* Narrows the atomic baseline's 32-bit value back to the accumulator type. */
static void narrow_result(clfold_type acc, const void *wide, void *result)
{
    const struct type_info *info = type_info(acc);
    uint32_t bits;
    if (info->size >= 4) {
        memcpy(result, wide, info->size);
        return;
    }
    memcpy(&bits, wide, 4);
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    memcpy(result, info->size == 1 ? (void *)&b8 : (void *)&b16, info->size);
}

static clfold_status run_atomic(clfold_context *ctx, const struct plan *plan, cl_mem input,
                                size_t offset, size_t count, clfold_type type, clfold_op op,
                                clfold_type acc, void *result, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct build_config config = {plan->source, type, acc, op, 0, true};
    unsigned char value[8];
    size_t value_size = 0;

    if (type_info(acc)->size == 8 && !ctx->caps.has_int64_base_atomics)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "the atomic kernel needs 64-bit atomics, which %s lacks",
             ctx->caps.name);
    widened_identity(acc, op, value, &value_size);
    CHECK(ensure_scratch(ctx, 0, value_size));
    CHECK_CL(clEnqueueWriteBuffer(ctx->queue, ctx->scratch[0], CL_FALSE, 0, value_size, value, 0,
                                  NULL, NULL),
             "clEnqueueWriteBuffer (identity)");
    CHECK(launch(ctx, plan, &config, input, offset, count, ctx->scratch[0],
                 (count + plan->block - 1) / plan->block, log));
    log->bytes_written = type_info(acc)->size; /* one value, however many updates */
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, ctx->scratch[0], CL_TRUE, 0, value_size, value, 0,
                                 NULL, NULL),
             "clEnqueueReadBuffer (result)");
    narrow_result(acc, value, result);
cleanup:
    return status;
}

/* Sums the device time of the logged launches; -1 without profiling. */
static double device_milliseconds(const clfold_context *ctx, const struct pass_log *log)
{
    cl_ulong total = 0;
    if (!ctx->caps.profiling)
        return -1.0;
    for (unsigned i = 0; i < log->count; i++) {
        cl_ulong start = 0, end = 0;
        if (clGetEventProfilingInfo(log->events[i], CL_PROFILING_COMMAND_START, sizeof start,
                                    &start, NULL) != CL_SUCCESS ||
            clGetEventProfilingInfo(log->events[i], CL_PROFILING_COMMAND_END, sizeof end, &end,
                                    NULL) != CL_SUCCESS)
            return -1.0;
        total += end - start;
    }
    return (double)total * 1e-6;
}

/* Checks that elements [offset, offset + count) of `type` lie inside `buffer`. */
static clfold_status check_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                  size_t element)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_context owner = NULL;
    size_t bytes = 0;
    CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL),
             "clGetMemObjectInfo(CL_MEM_CONTEXT)");
    if (owner != ctx->cl)
        FAIL(CLFOLD_ERROR_WRONG_CONTEXT, "the buffer belongs to another cl_context");
    CHECK_CL(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof bytes, &bytes, NULL),
             "clGetMemObjectInfo(CL_MEM_SIZE)");
    if (offset > bytes / element || count > bytes / element - offset)
        FAIL(CLFOLD_ERROR_OUT_OF_BOUNDS,
             "elements %zu..%zu+%zu lie beyond the buffer's %zu bytes (%zu elements)", offset,
             offset, count, bytes, bytes / element);
cleanup:
    return status;
}

/* Reduces a checked request and records what ran. */
static clfold_status reduce(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                            clfold_type type, clfold_op op, clfold_type acc, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct pass_log log = {.count = 0};
    struct plan plan;

    ctx->has_last_run = false;
    if (count == 0) {
        identity_value(acc, op, result);
        return CLFOLD_SUCCESS;
    }
    CHECK(plan_make(ctx, acc, &plan));
    if (plan.kernel == CLFOLD_ATOMIC)
        CHECK(run_atomic(ctx, &plan, buffer, offset, count, type, op, acc, result, &log));
    else
        CHECK(run_tree(ctx, &plan, buffer, offset, count, type, op, acc, result, &log));
    ctx->last_run = (clfold_run_info){plan.kernel, plan.block, log.count,
                                      device_milliseconds(ctx, &log), log.bytes_read,
                                      log.bytes_written};
    ctx->has_last_run = true;
cleanup:
    if (status != CLFOLD_SUCCESS)
        clFinish(ctx->queue); /* nothing of ours may still be running */
    pass_log_release(&log);
    return status;
}

clfold_status clfold_reduce_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                   clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_type acc;
    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if (buffer == NULL || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", buffer == NULL ? "buffer" : "result");
    CHECK(check_request(ctx, type, op, &acc));
    CHECK(check_buffer(ctx, buffer, offset, count, type_info(type)->size));
    CHECK(reduce(ctx, buffer, offset, count, type, op, acc, result));
cleanup:
    return status;
}

clfold_status clfold_reduce_host(clfold_context *ctx, const void *data, size_t count,
                                 clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_mem buffer = NULL;
    clfold_type acc;
    cl_int err;

    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if ((data == NULL && count != 0) || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", result == NULL ? "result" : "data");
    CHECK(check_request(ctx, type, op, &acc));
    size_t element = type_info(type)->size;
    if (count > SIZE_MAX / element || count * element > ctx->caps.max_alloc_size)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu elements exceed the device's largest buffer (%llu bytes)",
             count, (unsigned long long)ctx->caps.max_alloc_size);
    if (count != 0) {
        /* A CPU device reads host memory in place; a GPU gets a copy. */
        cl_mem_flags flags = CL_MEM_READ_ONLY |
                             (ctx->caps.is_cpu ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR);
        buffer = clCreateBuffer(ctx->cl, flags, count * element, (void *)data, &err);
        CHECK_CL(err, "clCreateBuffer (input)");
    }
    CHECK(reduce(ctx, buffer, 0, count, type, op, acc, result));
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    return status;
}

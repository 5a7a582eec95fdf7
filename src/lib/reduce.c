/*
 * reduce.c: the public reductions. Checks a request, runs the passes that
 * the plan describes over ping-pong scratch buffers, reads the one value
 * back, and records what ran and how long it took on the device.
 */
#include <stdlib.h>
#include <string.h>

#include "accumulator.h"
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

/* Checks type, operator and device support. */
static clfold_status check_request(clfold_context *ctx, clfold_type type, clfold_op op)
{
    clfold_type acc;
    clfold_status status = accumulator_type(type, op, &acc);
    if (status == CLFOLD_ERROR_INVALID_TYPE)
        return fail(ctx, status, "unknown element type %d", (int)type);
    if (status == CLFOLD_ERROR_INVALID_OP)
        return fail(ctx, status, "unknown operator %d", (int)op);
    if (status == CLFOLD_ERROR_OP_NOT_FOR_TYPE)
        return fail(ctx, status, "operator %s does not apply to %s values", clfold_op_name(op),
                    clfold_type_name(type));
    if ((type == CLFOLD_DOUBLE || acc == CLFOLD_DOUBLE) && !ctx->caps.has_fp64)
        return fail(ctx, CLFOLD_ERROR_NO_FP64, "device %s has no double precision (cl_khr_fp64)",
                    ctx->caps.name);
    return CLFOLD_SUCCESS;
}

/*
 * Scratch buffers start at 64 KiB: partial values rarely need more, so
 * they are seldom released and re-created (which also spares Oclgrind 21.10
 * a false report on a buffer that takes a released one's place).
 */
#define SCRATCH_MIN_BYTES ((size_t)64 * 1024)

/* Makes scratch buffer `which` hold at least `bytes`. */
static clfold_status ensure_scratch(clfold_context *ctx, int which, size_t bytes)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_int err;
    bytes = bytes > SCRATCH_MIN_BYTES ? bytes : SCRATCH_MIN_BYTES;
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
/* The work-group limit the driver reports for `kernel` (SIZE_MAX if it says nothing). */
static size_t reported_limit(const clfold_context *ctx, cl_kernel kernel)
{
    size_t reported = 0;
    if (clGetKernelWorkGroupInfo(kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof reported,
                                 &reported, NULL) != CL_SUCCESS)
        return SIZE_MAX;
    return reported;
}

static clfold_status refused_block(clfold_context *ctx, cl_kernel kernel, const struct plan *plan,
                                   cl_int err)
{
    size_t reported = reported_limit(ctx, kernel);
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
    cl_ulong head = 0;
    clfold_status status = CLFOLD_SUCCESS;
    cl_kernel kernel = NULL;
    cl_ulong offset_arg = offset, count_arg = count;
    size_t global = groups * plan->block;
    size_t acc_size = accumulator_size(&config->acc);
    size_t in_size = config->in_partials ? acc_size : type_info(config->in)->size;

    if (log->count == MAX_PASSES)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "reduction needs more than %d passes", MAX_PASSES);
    CHECK(program_kernel(ctx, config, plan->entry, &kernel));
    CHECK_CL(clSetKernelArg(kernel, 0, sizeof in, &in), "clSetKernelArg(in)");
    CHECK_CL(clSetKernelArg(kernel, 1, sizeof offset_arg, &offset_arg), "clSetKernelArg(offset)");
    CHECK_CL(clSetKernelArg(kernel, 2, sizeof count_arg, &count_arg), "clSetKernelArg(n)");
    CHECK_CL(clSetKernelArg(kernel, 3, sizeof out, &out), "clSetKernelArg(out)");
    if (plan->local_arg)
        CHECK_CL(clSetKernelArg(kernel, 4, plan->block * acc_size, NULL), "clSetKernelArg(local)");
    if (plan->gpu_once) {
        CHECK_CL(clSetKernelArg(kernel, 5, sizeof ctx->scratch[1], &ctx->scratch[1]),
                 "clSetKernelArg(partials)");
        CHECK_CL(clSetKernelArg(kernel, 6, sizeof ctx->tickets, &ctx->tickets),
                 "clSetKernelArg(tickets)");
    }
    if (plan->gpu_shape) {
        /* Elements before the first one aligned for VEC-wide loads. */
        head = (config->vec - offset % config->vec) % config->vec;
        head = head < count ? head : count;
        CHECK_CL(clSetKernelArg(kernel, 4, sizeof head, &head), "clSetKernelArg(head)");
    }
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &plan->block, 0,
                                        NULL, &log->events[log->count]);
    if (err == CL_INVALID_WORK_GROUP_SIZE ||
        (err == CL_OUT_OF_RESOURCES && plan->block > reported_limit(ctx, kernel))) {
        status = refused_block(ctx, kernel, plan, err);
        goto cleanup;
    }
    CHECK_CL(err, "clEnqueueNDRangeKernel");
    log->count++;
    log->bytes_read += (uint64_t)count * in_size;
    log->bytes_written += (uint64_t)groups * acc_size;
cleanup:
    return status;
}

/* The one-launch GPU path's counter: created zeroed once, kept at 0 by the kernel. */
static clfold_status ensure_tickets(clfold_context *ctx)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_uint zero = 0;
    cl_int err;
    if (ctx->tickets != NULL)
        return CLFOLD_SUCCESS;
    ctx->tickets = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                                  &zero, &err);
    CHECK_CL(err, "clCreateBuffer (tickets)");
cleanup:
    return status;
}

/*
 * The GPU shape loads 16 bytes at a time where the device's buffers start
 * on a 16-byte boundary (the kernel aligns the rest itself); else singly.
 */
static unsigned gpu_vector(const clfold_context *ctx, const struct build_config *config)
{
    size_t size = type_info(config->in)->size;
    if (ctx->caps.base_align_bytes < 16 || size >= 16)
        return 1;
    return (unsigned)(16 / size);
}

/*
 * The tree kernels: the first pass reads the caller's elements, every later
 * pass the accumulator values of the one before, until one value is left.
 */
static clfold_status run_tree(clfold_context *ctx, const struct plan *plan, cl_mem input,
                              size_t offset, size_t count, const struct build_config *first,
                              void *value, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc_size = accumulator_size(&first->acc);
    struct build_config config = *first;
    int out = 0;

    if (plan->gpu_once) {
        /* The partial values go to scratch[1]; the one result to scratch[0]. */
        CHECK(ensure_scratch(ctx, 1, plan->max_groups * acc_size));
        CHECK(ensure_tickets(ctx));
    }
    config.vec = plan->gpu_shape ? gpu_vector(ctx, first) : 0;
    config.unroll = plan->gpu_shape ? plan->unroll : 0;
    do {
        size_t groups = plan_groups(plan, count, config.vec);
        if (plan->gpu_shape && !config.in_partials &&
            count * type_info(config.in)->size <= plan->single_launch_bytes)
            groups = 1; /* one launch: the group reads it all */
        CHECK(ensure_scratch(ctx, out, groups * acc_size));
        CHECK(launch(ctx, plan, &config, input, offset, count, ctx->scratch[out], groups, log));
        input = ctx->scratch[out];
        offset = 0;
        count = plan->gpu_once ? 1 : groups;
        config.in_partials = true;
        config.vec = plan->gpu_shape ? 1 : 0; /* partial values: one at a time */
        out ^= 1;
    } while (count > 1);
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, input, CL_TRUE, 0, acc_size, value, 0, NULL, NULL),
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
                                size_t offset, size_t count, const struct build_config *config,
                                void *result, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_type acc = config->acc.scalar;
    clfold_op op = config->op;
    unsigned char value[8];
    size_t value_size = 0;

    if (type_info(acc)->size == 8 && !ctx->caps.has_int64_base_atomics)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "the atomic kernel needs 64-bit atomics, which %s lacks",
             ctx->caps.name);
    widened_identity(acc, op, value, &value_size);
    CHECK(ensure_scratch(ctx, 0, value_size));
    /* Blocking: `value` lives on this stack frame, which a failure below would leave. */
    CHECK_CL(clEnqueueWriteBuffer(ctx->queue, ctx->scratch[0], CL_TRUE, 0, value_size, value, 0,
                                  NULL, NULL),
             "clEnqueueWriteBuffer (identity)");
    CHECK(launch(ctx, plan, config, input, offset, count, ctx->scratch[0],
                 (count + plan->block - 1) / plan->block, log));
    log->bytes_written = type_info(acc)->size; /* one value, however many updates */
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, ctx->scratch[0], CL_TRUE, 0, value_size, value, 0,
                                 NULL, NULL),
             "clEnqueueReadBuffer (result)");
    narrow_result(acc, value, result);
cleanup:
    return status;
}

/*
 * The CPU shape: one launch of work-items that each fold a contiguous chunk
 * (cl/cpu.cl), then the host folds their few values pairwise.
 */
static clfold_status run_cpu(clfold_context *ctx, const struct plan *plan, cl_mem input,
                             size_t offset, size_t count, const struct build_config *first,
                             void *value, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc_size = accumulator_size(&first->acc);
    const struct type_info *in = type_info(first->in);
    bool small_int_sum = first->op == CLFOLD_SUM && in->float_bits == 0 && in->size <= 2;
    struct cpu_launch shape =
        plan_cpu_launch(ctx, count, type_info(small_int_sum ? CLFOLD_INT32 : first->acc.scalar));
    struct build_config config = *first;
    unsigned char *values = NULL;
    cl_kernel kernel = NULL;
    cl_ulong offset_arg = offset, count_arg = count, chunk_arg = shape.chunk;
    size_t one = 1;

    config.vec = shape.vec;
    config.accs = shape.accs;
    values = malloc(shape.work_items * acc_size);
    if (values == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for %zu partial values", shape.work_items);
    CHECK(ensure_scratch(ctx, 0, shape.work_items * acc_size));
    CHECK(program_kernel(ctx, &config, plan->entry, &kernel));
    CHECK_CL(clSetKernelArg(kernel, 0, sizeof input, &input), "clSetKernelArg(in)");
    CHECK_CL(clSetKernelArg(kernel, 1, sizeof offset_arg, &offset_arg), "clSetKernelArg(offset)");
    CHECK_CL(clSetKernelArg(kernel, 2, sizeof count_arg, &count_arg), "clSetKernelArg(n)");
    CHECK_CL(clSetKernelArg(kernel, 3, sizeof ctx->scratch[0], &ctx->scratch[0]), "clSetKernelArg(out)");
    CHECK_CL(clSetKernelArg(kernel, 4, sizeof chunk_arg, &chunk_arg), "clSetKernelArg(chunk)");
    CHECK_CL(clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &shape.work_items, &one, 0, NULL,
                                    &log->events[log->count]),
             "clEnqueueNDRangeKernel");
    log->count++;
    log->bytes_read += (uint64_t)count * type_info(config.in)->size;
    log->bytes_written += (uint64_t)shape.work_items * acc_size;
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, ctx->scratch[0], CL_TRUE, 0,
                                 shape.work_items * acc_size, values, 0, NULL, NULL),
             "clEnqueueReadBuffer (partial values)");
    /* Pairwise, in a fixed order: the same tree as the kernels' own. */
    for (size_t stride = 1; stride < shape.work_items; stride *= 2)
        for (size_t j = 0; j + stride < shape.work_items; j += 2 * stride)
            accumulator_fold(&first->acc, first->op, values + j * acc_size,
                             values + (j + stride) * acc_size);
    memcpy(value, values, acc_size);
cleanup:
    free(values);
    return status;
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

/* A checked request: what to reduce, and how. */
struct request {
    clfold_type type;
    clfold_op op;
    struct plan plan;
    struct build_config config;
};

static clfold_status make_request(clfold_context *ctx, clfold_type type, clfold_op op,
                                  struct request *request)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct accumulator acc;
    CHECK(plan_make(ctx, &request->plan));
    CHECK(accumulator_choose(ctx, type, op, request->plan.kernel, &acc));
    CHECK(plan_check_local_memory(ctx, &request->plan, accumulator_size(&acc)));
    request->type = type;
    request->op = op;
    request->config = (struct build_config){
        .source = request->plan.source, .in = type, .in_partials = false, .acc = acc, .op = op,
        .block_size = request->plan.block_is_constant ? request->plan.block : 0,
        .atomic = request->plan.kernel == CLFOLD_ATOMIC};
cleanup:
    return status;
}

/* Folds elements [offset, offset + count) of `buffer` into one accumulator value. */
static clfold_status fold_buffer(clfold_context *ctx, const struct request *request, cl_mem buffer,
                                 size_t offset, size_t count, void *value, clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct pass_log log = {.count = 0};
    if (request->plan.kernel == CLFOLD_ATOMIC)
        CHECK(run_atomic(ctx, &request->plan, buffer, offset, count, &request->config, value, &log));
    else if (request->plan.cpu_shape)
        CHECK(run_cpu(ctx, &request->plan, buffer, offset, count, &request->config, value, &log));
    else
        CHECK(run_tree(ctx, &request->plan, buffer, offset, count, &request->config, value, &log));
    double ms = device_milliseconds(ctx, &log);
    info->device_ms = ms < 0 || info->device_ms < 0 ? -1.0 : info->device_ms + ms;
    info->passes += log.count;
    info->bytes_read += log.bytes_read;
    info->bytes_written += log.bytes_written;
cleanup:
    if (status != CLFOLD_SUCCESS)
        clFinish(ctx->queue); /* nothing of ours may still be running */
    pass_log_release(&log);
    return status;
}

static clfold_run_info empty_run(const struct request *request)
{
    return (clfold_run_info){request->plan.kernel, request->plan.path, request->plan.block, 0, 0.0,
                             0, 0};
}

clfold_status clfold_reduce_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                   clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    unsigned char value[ACCUMULATOR_MAX_BYTES];
    clfold_run_info info;

    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    ctx->has_last_run = false;
    if (buffer == NULL || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", buffer == NULL ? "buffer" : "result");
    CHECK(check_request(ctx, type, op));
    CHECK(check_buffer(ctx, buffer, offset, count, type_info(type)->size));
    CHECK(make_request(ctx, type, op, &request));
    info = empty_run(&request);
    if (count == 0)
        accumulator_identity(&request.config.acc, op, value);
    else
        CHECK(fold_buffer(ctx, &request, buffer, offset, count, value, &info));
    accumulator_finish(&request.config.acc, value, result);
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

/* Folds one chunk of host memory: wrapped in place on a CPU, copied to a GPU. */
static clfold_status fold_host_chunk(clfold_context *ctx, const struct request *request,
                                     const void *data, size_t count, void *value,
                                     clfold_run_info *info)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_ONLY |
                         (ctx->caps.is_cpu ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR);
    cl_int err;
    cl_mem buffer = clCreateBuffer(ctx->cl, flags, count * type_info(request->type)->size,
                                   (void *)data, &err);
    CHECK_CL(err, "clCreateBuffer (input)");
    CHECK(fold_buffer(ctx, request, buffer, 0, count, value, info));
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    return status;
}

/*
 * Elements per chunk: the device's largest buffer, or the developer's
 * CLFOLD_MAX_CHUNK_BYTES (which tests use to exercise chunking on small
 * arrays), whole elements.
 */
static size_t chunk_elements(const clfold_context *ctx, size_t element)
{
    size_t bytes = ctx->caps.max_alloc_size > SIZE_MAX ? SIZE_MAX : (size_t)ctx->caps.max_alloc_size;
    if (ctx->max_chunk_bytes != 0 && ctx->max_chunk_bytes < bytes)
        bytes = ctx->max_chunk_bytes;
    return bytes / element > 0 ? bytes / element : 1;
}

clfold_status clfold_reduce_host(clfold_context *ctx, const void *data, size_t count,
                                 clfold_type type, clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct request request;
    unsigned char total[ACCUMULATOR_MAX_BYTES], part[ACCUMULATOR_MAX_BYTES];
    clfold_run_info info;

    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    ctx->has_last_run = false;
    if ((data == NULL && count != 0) || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", result == NULL ? "result" : "data");
    CHECK(check_request(ctx, type, op));
    size_t element = type_info(type)->size, chunk = chunk_elements(ctx, element);
    if (count > SIZE_MAX / element)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu elements of %zu bytes exceed the address space", count,
             element);
    CHECK(make_request(ctx, type, op, &request));
    info = empty_run(&request);
    accumulator_identity(&request.config.acc, op, total);
    for (size_t done = 0; done < count; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        /* The first chunk's value stands as it is: 0 + (-0) would lose a sign. */
        CHECK(fold_host_chunk(ctx, &request, (const char *)data + done * element, n,
                              done == 0 ? total : part, &info));
        if (done != 0)
            accumulator_fold(&request.config.acc, op, total, part);
    }
    accumulator_finish(&request.config.acc, total, result);
    ctx->last_run = info;
    ctx->has_last_run = count != 0;
cleanup:
    return status;
}

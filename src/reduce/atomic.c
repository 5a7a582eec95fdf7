/*
 * atomic.c: the naive baseline (cl/atomic.cl): one launch, a work-item per
 * value, every one folding its value into a single global word. OpenCL has
 * no 8- or 16-bit atomics, so the word holds the accumulator widened to 32
 * bits at least, and the host narrows it afterwards.
 */
#include <string.h>

#include "path.h"

/* The ladder's block choice; the kernel compiles the atomic operations in. */
clfold_status atomic_shape(clfold_context *ctx, size_t block, struct job *job)
{
    job->config.atomic = true;
    return tree_shape(ctx, block, job);
}

/* The identity of the accumulator, widened to the atomic word's 32 bits at least. */
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

/* Narrows the atomic word back to the accumulator type. */
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

clfold_status atomic_run(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                         size_t count, void *value, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_type acc = job->config.acc.scalar;
    unsigned char word[8];
    size_t word_size = 0;

    if (type_info(acc)->size == 8 && !ctx->caps.has_int64_base_atomics)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "the atomic kernel needs 64-bit atomics, which %s lacks",
             ctx->caps.name);
    widened_identity(acc, job->config.op, word, &word_size);
    CHECK(scratch_ensure(ctx, 0, word_size));
    /* Blocking: `word` lives on this stack frame, which a failure below would leave. */
    CHECK_CL(clEnqueueWriteBuffer(ctx->queue, ctx->scratch[0], CL_TRUE, 0, word_size, word, 0,
                                  NULL, NULL),
             "clEnqueueWriteBuffer (identity)");
    size_t groups = job->path->groups(job, &job->config, count);
    struct pass pass = {&job->config, in, offset, count, ctx->scratch[0], groups, 0};
    CHECK(pass_launch(ctx, job, &pass, groups * job->block, job->block, log));
    log->bytes_written = type_info(acc)->size; /* one value, however many updates */
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, ctx->scratch[0], CL_TRUE, 0, word_size, word, 0,
                                 NULL, NULL),
             "clEnqueueReadBuffer (result)");
    narrow_result(acc, word, value);
cleanup:
    return status;
}

/*
 * atomic.c: the naive baseline (cl/reduce/atomic.cl): one launch, a work-item per
 * value, every one folding its value into a single global word. OpenCL has
 * no 8- or 16-bit atomics, so the word holds the accumulator widened to 32
 * bits at least, and narrow_word narrows it afterwards.
 */
#include <string.h>

#include "path.h"

/*
 * The ladder's block choice; the kernel compiles the atomic operations in,
 * on NVIDIA a float add in PTX.
 */
clfold_status atomic_shape(clfold_context *ctx, size_t block, struct job *job)
{
    job->config.atomic = true;
    job->config.inline_ptx = true;
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

/*
 * The word, filled with the identity, takes every work-item's value; then
 * narrow_word (cl/reduce/atomic.cl) makes it the reduction's value. The fill copies
 * its pattern when it is enqueued: nothing of this stack frame outlives the
 * call.
 */
clfold_status atomic_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                         struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_type acc = job->config.acc.scalar;
    unsigned char word[8];
    size_t word_size = 0;
    cl_kernel narrow = NULL;
    const cl_event *wait_list;
    cl_uint waits;

    if (type_info(acc)->size == 8 && !ctx->caps.has_int64_base_atomics)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "the atomic kernel needs 64-bit atomics, which %s lacks",
             ctx->caps.name);
    widened_identity(acc, job->config.op, word, &word_size);
    CHECK(scratch_partials(ctx, fold->scratch, 0, word_size));
    cl_mem target = fold->scratch->partials[0];
    take_waits(log, &waits, &wait_list);
    CHECK_CL(clEnqueueFillBuffer(ctx->queue, target, word, word_size, 0, word_size, waits,
                                 wait_list, NULL),
             "clEnqueueFillBuffer (identity)");
    size_t groups = job->path->groups(job, &job->config, fold->count);
    struct pass all = {&job->config, fold->in, fold->offset, fold->count, target, groups, 0,
                       false, 0};
    CHECK(pass_launch(ctx, job, fold, &all, groups * job->block, job->block, log));
    CHECK(program_kernel(ctx, &job->config, "narrow_word", &narrow));
    struct pass last = {&job->config, target, 0, 1, NULL, 1, 0, true, 0};
    CHECK(launch_kernel(ctx, narrow, "narrow_word", FOLD_KERNEL, fold, &last, 1, 1, log));
    /* One value read and written, however many updates. */
    log->bytes_read = (uint64_t)fold->count * type_info(job->config.in)->size;
    log->bytes_written = type_info(acc)->size;
cleanup:
    return status;
}

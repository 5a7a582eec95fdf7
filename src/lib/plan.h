/*
 * plan.h: which kernel runs, with which work-group size, and how many
 * work-groups each pass of the multi-kernel decomposition launches.
 */
#ifndef CLFOLD_PLAN_H
#define CLFOLD_PLAN_H

#include "namespace.h"
#include "internal.h"

struct plan {
    clfold_kernel kernel;    /* what runs: never CLFOLD_AUTO */
    size_t block;            /* work-group size */
    const char *source;      /* file of cl/ */
    const char *entry;       /* kernel function name */
    bool block_is_constant;  /* BLOCK_SIZE is compiled in (K6, K7) */
    bool local_arg;          /* the local array is a kernel argument (K1-K5) */
    size_t max_groups;       /* K7's fixed grid; 0 = one group per slice */
};

/* Resolves the context's kernel and block size. */
clfold_status plan_make(clfold_context *ctx, struct plan *plan);

/* Whether a work-group's local array of `acc_size`-byte values fits the device. */
clfold_status plan_check_local_memory(clfold_context *ctx, const struct plan *plan, size_t acc_size);

/* Work-groups a pass over `count` values launches. */
size_t plan_groups(const struct plan *plan, size_t count);

/* Whether `block` is acceptable as a work-group size on this device. */
clfold_status plan_check_block(clfold_context *ctx, size_t block);

#endif /* CLFOLD_PLAN_H */

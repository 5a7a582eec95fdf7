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
    bool cpu_shape;          /* auto on a CPU: contiguous chunks, see cl/cpu.cl */
    bool gpu_shape;          /* auto on a GPU: vector loads in flight, see cl/gpu.cl */
    unsigned unroll;         /* the GPU shape's loads in flight per work-item */
    size_t single_launch_bytes; /* the GPU shape folds arrays this small in one group */
    bool gpu_once;           /* NVIDIA: one launch, the last group folds the partials */
    const char *path;        /* what clfold_run_info calls it: "ladder", "cpu" */
};

/* The CPU shape's launch: work-items, each folding `chunk` elements. */
struct cpu_launch {
    unsigned vec;            /* lanes per accumulator vector */
    unsigned accs;           /* accumulators per work-item */
    size_t work_items;
    size_t chunk;
};

/*
 * How the CPU shape splits `count` values that its kernel adds in lanes of
 * `lane`: the accumulator's scalar (a pair's too), or int for the 32-bit
 * blocks of 8- and 16-bit sums.
 */
struct cpu_launch plan_cpu_launch(const clfold_context *ctx, size_t count,
                                  const struct type_info *lane);

/* Resolves the context's kernel and block size. */
clfold_status plan_make(clfold_context *ctx, struct plan *plan);

/* Whether a work-group's local array of `acc_size`-byte values fits the device. */
clfold_status plan_check_local_memory(clfold_context *ctx, const struct plan *plan, size_t acc_size);

/* Work-groups a pass over `count` values launches (`vec` values per load for the GPU shape). */
size_t plan_groups(const struct plan *plan, size_t count, unsigned vec);



/* Whether `block` is acceptable as a work-group size on this device. */
clfold_status plan_check_block(clfold_context *ctx, size_t block);

#endif /* CLFOLD_PLAN_H */

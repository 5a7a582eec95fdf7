/*
 * path.h: a reduction path, one entry of the table in paths.c: the kernel
 * source and entry it runs, its launch geometry, how it binds a pass's
 * arguments, and the function that enqueues it. reduce.c checks a request,
 * splits host arrays into chunks and waits where the caller does; the path
 * enqueues the rest. Adding a path means an entry in paths.c and a file
 * beside it, and no switch elsewhere.
 *
 * What the paths share, the passes of a multi-kernel decomposition over
 * ping-pong partial values, is passes.c. Each reduction's own buffers for
 * those (scratch.h) and the log of its commands (launch.h) are core's,
 * which scans share.
 */
#ifndef CLFOLD_PATH_H
#define CLFOLD_PATH_H

#include "device.h"
#include "internal.h"
#include "launch.h"
#include "scratch.h"

/*
 * Every reduction kernel's first parameters: it folds in[offset .. offset
 * + n) and writes through write_value (cl/core/defs.cl) to out, from byte
 * `at`, finished where `finish`. A kernel's list (kernel_params) starts
 * with them; its path's own follow. FOLD_KERNEL is a kernel with no more.
 */
#define FOLD_PARAMS "in", "offset", "n", "out", "at", "finish"
extern kernel_params FOLD_KERNEL;

/* One reduction as enqueued: its values, where its value goes, its scratch. */
struct fold {
    cl_mem in;
    size_t offset;
    size_t count;                /* at least 1: an empty reduction runs values.cl alone */
    cl_mem out;
    size_t at;                   /* bytes into out */
    bool finish;                 /* out gets the result (clfold_result_type); else the accumulator value */
    struct scratch *scratch;
};

struct reduce_path;

/* A request resolved on a path: its geometry and its first pass's program. */
struct job {
    const struct reduce_path *path;
    const char *entry;           /* the path's kernel function, or its variant (the GPU shape's one launch) */
    const char *const *params;   /* the entry's parameters (kernel_params) */
    size_t block;                /* work-group size (1 for the CPU shape) */
    size_t local_values;         /* accumulator values a work-group keeps in local memory */
    size_t max_groups;           /* a fixed grid (K7, the GPU shape); 0: one group a slice */
    size_t single_launch_bytes;  /* the GPU shape folds arrays this small in one group */
    bool once;                   /* the GPU shape on NVIDIA: one launch, the last group folds */
    unsigned vec;                /* the GPU shape: the caller's elements a load (VEC); else 0 */
    unsigned unroll;             /* the GPU shape: loads in flight a work-item (UNROLL); else 0 */
    struct build_config config;  /* the first pass's program */
};

/*
 * One launch: `groups` work-groups fold in[offset .. offset + count) into
 * out[0 .. groups), or, in the last pass, into the fold's out.
 */
struct pass {
    const struct build_config *config;
    cl_mem in;
    size_t offset;
    size_t count;
    cl_mem out;                  /* partial values; unused in the last pass */
    size_t groups;
    cl_ulong extra;              /* the path's own argument: the CPU shape's chunk */
    bool last;                   /* its value is the reduction's: it goes to the fold's out */
    size_t values_written;       /* axis.c's passes: the values they write; 0: the rule for one result */
};

struct reduce_path {
    const char *name;            /* clfold_run_info's path: "ladder" (K1..K7, atomic), "gpu", "cpu" */
    clfold_kernel kernel;        /* what clfold_run_info reports: CLFOLD_AUTO for the shapes */
    const char *source;          /* its file of cl/ */
    const char *entry;           /* its kernel function */
    const char *const *params;   /* the entry's parameters (kernel_params) */
    bool block_is_constant;      /* BLOCK_SIZE is compiled in (K6, K7, the GPU shape) */
    /* Launch geometry: the job's block and grid, from the block asked for (0: choose). */
    clfold_status (*shape)(clfold_context *ctx, size_t block, struct job *job);
    /* Work-groups of a pass of `config` over `count` values (what passes_run calls;
       NULL for a path whose run function sizes its own launch, the CPU shape). */
    size_t (*groups)(const struct job *job, const struct build_config *config, size_t count);
    /* The kernel's arguments past FOLD_PARAMS; NULL: none. */
    clfold_status (*bind)(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                          const struct fold *fold, const struct pass *pass);
    /* Enqueues the fold of the fold's values into its out; returns without waiting. */
    clfold_status (*run)(clfold_context *ctx, const struct job *job, const struct fold *fold,
                         struct pass_log *log);
    /* A finished result is its one write to the fold's out, in one store where `at` is a
       multiple of its size (ALIGNED_RESULTS): the host may watch for it (landing.c). */
    bool stores_result_whole;
};

/* paths.c: the path that the context's kernel, and for auto its device, choose. */
const struct reduce_path *path_choose(const clfold_context *ctx);

/* paths.c: the ladder's entry for `kernel` (K1..K7, atomic). */
const struct reduce_path *path_of_kernel(clfold_kernel kernel);

/* The paths' own parts, each in its file, for paths.c's table. */
clfold_status tree_shape(clfold_context *ctx, size_t block, struct job *job);
clfold_status k7_shape(clfold_context *ctx, size_t block, struct job *job);
size_t tree_groups_one(const struct job *job, const struct build_config *config, size_t count);
size_t tree_groups_two(const struct job *job, const struct build_config *config, size_t count);
clfold_status tree_bind_local(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                              const struct fold *fold, const struct pass *pass);
clfold_status atomic_shape(clfold_context *ctx, size_t block, struct job *job);
clfold_status atomic_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                         struct pass_log *log);
clfold_status gpu_shape(clfold_context *ctx, size_t block, struct job *job);
size_t gpu_groups(const struct job *job, const struct build_config *config, size_t count);
clfold_status gpu_bind(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                       const struct fold *fold, const struct pass *pass);
clfold_status gpu_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                      struct pass_log *log);
clfold_status cpu_shape(clfold_context *ctx, size_t block, struct job *job);
clfold_status cpu_bind(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                       const struct fold *fold, const struct pass *pass);
clfold_status cpu_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                      struct pass_log *log);
/* The knobs of cpu.cl's kernels (and cpu_arg.cl's): the CPU shape's, and axis.c's on CPUs. */
struct cpu_knobs {
    unsigned vec;                /* VEC: lanes of an accumulator vector */
    unsigned accs;               /* ACCS: streams a work-item folds a run in */
    unsigned prefetch;           /* PREFETCH: bytes ahead that a stream asks for; 0: none */
    bool small_int_sum;          /* SMALL_INT_SUM: 8- and 16-bit sums add in 32-bit lanes first */
    bool segmented;              /* SEGMENTED: rows' bounds come from an offsets array */
    unsigned col_vectors;        /* COL_VECTORS: a band's vectors (columns); 0 elsewhere */
};

/* cpu.cl's defines for `knobs`, into `defines`. */
void cpu_defines(const struct cpu_knobs *knobs, struct path_defines *defines);
/* The CPU shape's kernels for `config`: cpu.cl, or cpu_arg.cl for argmin and argmax. */
const char *cpu_source(const struct build_config *config);
/* The lanes of the CPU shape's vectors for `config` (what cpu.cl's VEC is). */
unsigned cpu_lanes(const clfold_context *ctx, const struct build_config *config,
                   bool small_int_sum);
/* The streams a CPU work-item folds a long chunk in for `config` (what cpu.cl's ACCS is). */
unsigned cpu_streams(const struct build_config *config);

/* passes.c: what the paths share. */

/*
 * Binds FOLD_PARAMS of `kernel` (named `entry`, its parameters `params`) for `pass` and enqueues
 * it, after the log's wait list if it is the first command. Its event is
 * kept where the queue profiles, or where it is the last launch and the
 * caller wants that one: on NVIDIA asking for an event costs microseconds
 * (bench/results/kernel-choices-nvidia.txt).
 */
clfold_status launch_kernel(clfold_context *ctx, cl_kernel kernel, const char *entry,
                            const char *const *params, const struct fold *fold,
                            const struct pass *pass, size_t global, size_t local,
                            struct pass_log *log);

/* Builds (or finds) the pass's kernel, binds the path's arguments too, and launches it. */
clfold_status pass_launch(clfold_context *ctx, const struct job *job, const struct fold *fold,
                          const struct pass *pass, size_t global, size_t local,
                          struct pass_log *log);

/*
 * The multi-kernel decomposition: a pass of the path's kernel, built as
 * `first`, over the caller's values, then passes built as `partials` over
 * each pass's partial values until one is left, which the last pass writes
 * to the fold's out. Every path with work-groups runs this.
 */
clfold_status passes_run_programs(clfold_context *ctx, const struct job *job,
                                  const struct build_config *first,
                                  const struct build_config *partials, const struct fold *fold,
                                  struct pass_log *log);

/* passes_run_programs of the job's program; its passes over partial values differ only in that. */
clfold_status passes_run(clfold_context *ctx, const struct job *job, const struct fold *fold,
                         struct pass_log *log);

/*
 * cl/reduce/values.cl: one work-item folds `count` accumulator values of `in` from
 * `offset` pairwise, as the last pass of `fold` (count 0: the identity).
 */
clfold_status values_launch(clfold_context *ctx, const struct job *job, const struct fold *fold,
                            cl_mem in, size_t offset, size_t count, struct pass_log *log);

/*
 * The largest power of two up to `block` whose work-group's values (`block /
 * per_value` of the job's accumulator values, at least one) take at most
 * `bytes`; at least 1, which may not fit either (block_values_bytes says).
 */
size_t block_fitting(const struct job *job, size_t block, size_t per_value, size_t bytes);

/* The bytes of a work-group's values at `block`, as block_fitting counts them. */
size_t block_values_bytes(const struct job *job, size_t block, size_t per_value);

/* block_fitting within the device's local memory. */
size_t block_fitting_local(const clfold_context *ctx, const struct job *job, size_t block,
                           size_t per_value);

#endif /* CLFOLD_PATH_H */

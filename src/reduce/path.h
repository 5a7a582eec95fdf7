/*
 * path.h: a reduction path, one entry of the table in paths.c: the kernel
 * source and entry it runs, its launch geometry, how it binds a pass's
 * arguments, and the function that runs it. reduce.c checks a request and
 * splits host arrays into chunks; the path does the rest. Adding a path
 * means an entry in paths.c and a file beside it, and no switch elsewhere.
 *
 * What the paths share, the passes of a multi-kernel decomposition over
 * ping-pong scratch buffers, is passes.c.
 */
#ifndef CLFOLD_PATH_H
#define CLFOLD_PATH_H

#include "namespace.h"
#include "device.h"
#include "internal.h"

/* Enough passes for 2^64 values halved each pass, with room to spare. */
#define MAX_PASSES 80

/* The launches of one reduction, for timing and traffic. */
struct pass_log {
    cl_event events[MAX_PASSES];
    unsigned count;
    uint64_t bytes_read;
    uint64_t bytes_written;
};

struct reduce_path;

/* A request resolved on a path: its geometry and its first pass's program. */
struct job {
    const struct reduce_path *path;
    const char *entry;           /* the path's kernel function, or its variant (the GPU shape's one launch) */
    size_t block;                /* work-group size (1 for the CPU shape) */
    size_t max_groups;           /* a fixed grid (K7, the GPU shape); 0: one group a slice */
    size_t single_launch_bytes;  /* the GPU shape folds arrays this small in one group */
    bool once;                   /* the GPU shape on NVIDIA: one launch, the last group folds */
    struct build_config config;  /* the first pass's program */
};

/* One launch: `groups` work-groups fold in[offset .. offset + count) into out[0 .. groups). */
struct pass {
    const struct build_config *config;
    cl_mem in;
    size_t offset;
    size_t count;
    cl_mem out;
    size_t groups;
    cl_ulong extra;              /* the path's own argument: the CPU shape's chunk */
};

struct reduce_path {
    const char *name;            /* clfold_run_info's path: "ladder" (K1..K7, atomic), "gpu", "cpu" */
    clfold_kernel kernel;        /* what clfold_run_info reports: CLFOLD_AUTO for the shapes */
    const char *source;          /* its file of cl/ */
    const char *entry;           /* its kernel function */
    bool block_is_constant;      /* BLOCK_SIZE is compiled in (K6, K7, the GPU shape) */
    bool local_values;           /* a work-group keeps `block` accumulator values in local memory */
    /* Launch geometry: the job's block and grid, from the block asked for (0: choose). */
    clfold_status (*shape)(clfold_context *ctx, size_t block, struct job *job);
    /* Work-groups of a pass of `config` over `count` values (what passes_run calls;
       NULL for a path whose run function sizes its own launch, the CPU shape). */
    size_t (*groups)(const struct job *job, const struct build_config *config, size_t count);
    /* The kernel's arguments after (in, offset, n, out); NULL: none. */
    clfold_status (*bind)(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                          const struct pass *pass);
    /* Folds in[offset .. offset + count) into one accumulator value in host memory. */
    clfold_status (*run)(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                         size_t count, void *value, struct pass_log *log);
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
                              const struct pass *pass);
clfold_status atomic_shape(clfold_context *ctx, size_t block, struct job *job);
clfold_status atomic_run(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                         size_t count, void *value, struct pass_log *log);
clfold_status gpu_shape(clfold_context *ctx, size_t block, struct job *job);
size_t gpu_groups(const struct job *job, const struct build_config *config, size_t count);
clfold_status gpu_bind(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                       const struct pass *pass);
clfold_status gpu_run(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                      size_t count, void *value, struct pass_log *log);
clfold_status cpu_shape(clfold_context *ctx, size_t block, struct job *job);
clfold_status cpu_bind(clfold_context *ctx, cl_kernel kernel, const struct job *job,
                       const struct pass *pass);
clfold_status cpu_run(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                      size_t count, void *value, struct pass_log *log);

/* passes.c: what the paths share. */

/* Makes scratch buffer `which` (0 or 1) hold at least `bytes`. */
clfold_status scratch_ensure(clfold_context *ctx, int which, size_t bytes);

/* Builds (or finds) the pass's kernel, binds its arguments, enqueues it and logs it. */
clfold_status pass_launch(clfold_context *ctx, const struct job *job, const struct pass *pass,
                          size_t global, size_t local, struct pass_log *log);

/*
 * The multi-kernel decomposition: a pass of the path's kernel over the
 * caller's values, then over each pass's partial values until one is left,
 * read back into `value`. Every path with work-groups runs this.
 */
clfold_status passes_run(clfold_context *ctx, const struct job *job, cl_mem in, size_t offset,
                         size_t count, void *value, struct pass_log *log);

size_t divide_up(size_t a, size_t b);

/* Whether a pass sums 8- or 16-bit integers of the caller's: the shapes add those in 32-bit lanes first. */
bool sums_small_integers(const struct build_config *config);

#endif /* CLFOLD_PATH_H */

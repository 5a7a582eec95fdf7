/*
 * program.h: building kernels from the embedded sources, and the per-context
 * cache that makes every program build once.
 */
#ifndef CLFOLD_PROGRAM_H
#define CLFOLD_PROGRAM_H

#include <stdbool.h>

#include "accumulator.h"
#include "clfold.h"

/*
 * The defines a path adds to the common ones. The path's own file formats
 * them from its knobs (path_define); build_options appends them verbatim,
 * `head` after the common accumulator, input, block and atomic defines and
 * `tail` after the common SPLIT_HALF_LOADS, before INLINE_PTX, the
 * denormals flag and -w. Within a part they come in one order:
 *   head: VEC, ACCS, PREFETCH, UNROLL, SMALL_INT_SUM, LOCAL_SHARE, TEAM,
 *         ROW_VECTORS and ROUND_ROWS, SEGMENTED, COL_VECTORS (how a
 *         work-item reads and folds its elements);
 *   tail: RUN_ITEMS, LOOKBACK_ROUNDS, LOCAL_ROWS, PREFETCH_TILES,
 *         CHUNK_WAYS, STRIDED, ALIGNED_RESULTS, WIDTH and COLS_PER_ITEM
 *         (tiles, chunks, strides and stores).
 * The option string is both the cache key and the compiler's input, so the
 * order is part of a kernel's identity: a define moved elsewhere rebuilds
 * the kernel, and on NVIDIA may change its PTX.
 */
#define PATH_DEFINES_MAX 192

enum define_part { DEFINE_HEAD, DEFINE_TAIL };

struct path_defines {
    char head[PATH_DEFINES_MAX];
    char tail[PATH_DEFINES_MAX];
    bool overflow;           /* a define did not fit: program_kernel refuses the build */
};

/* Appends formatted text, " -DNAME=value", to one part of `defines`. */
void path_define(struct path_defines *defines, enum define_part part, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/*
 * Everything that changes the text a kernel is compiled from: what every
 * kernel has (its types, operator and block), then the path's own defines.
 */
struct build_config {
    const char *source;      /* a file of cl/: "reduce/ladder.cl" */
    clfold_type in;          /* the caller's element type */
    bool in_partials;        /* the input holds accumulator values of an earlier pass */
    struct accumulator acc;  /* what the kernels accumulate in and write */
    clfold_op op;
    size_t block_size;       /* compile-time BLOCK_SIZE; 0 when the source reads it at run time */
    bool atomic;             /* the atomic baseline's extra flags */
    bool inline_ptx;         /* the source has PTX branches: INLINE_PTX where the device takes PTX */
    unsigned groups_per_unit; /* NVIDIA: PTX's .minnctapersm for the program (program.c); 0: none */
    struct path_defines defines; /* the path's own: VEC, TEAM, RUN_ITEMS, ... */
};

/* Whether a pass sums 8- or 16-bit integers of the caller's: the shapes add those in 32-bit lanes first. */
bool sums_small_integers(const struct build_config *config);

#define PROGRAM_MAX_KERNELS 8

struct program_entry {
    char *key;               /* source name, a space, then the build options */
    cl_program program;
    const char *kernel_names[PROGRAM_MAX_KERNELS];
    cl_kernel kernels[PROGRAM_MAX_KERNELS];
};

struct program_cache {
    struct program_entry *entries;
    size_t count;
    size_t capacity;
    char last_options[1024]; /* of the last kernel handed out, for clfold_last_build_options */
};

struct clfold_context;

/*
 * The kernel `name` of the program that `config` describes, built on first
 * use. The kernel belongs to the cache: callers never release it.
 */
clfold_status program_kernel(struct clfold_context *ctx, const struct build_config *config,
                             const char *name, cl_kernel *kernel);

void program_cache_release(struct program_cache *cache);

/* The embedded text of a file of cl/; NULL if there is none. */
const char *embedded_source(const char *name);

#endif /* CLFOLD_PROGRAM_H */

/*
 * settings.h: the library's environment variables, read and checked once,
 * in clfold_create*, into the context; nothing reads the environment while
 * reducing. A malformed value fails the create with a message that names
 * the variable. docs/environment.md lists them all.
 */
#ifndef CLFOLD_SETTINGS_H
#define CLFOLD_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "clfold.h"

/* CLFOLD_AUTO_SHAPE: which shape the auto path takes. */
enum auto_shape { AUTO_SHAPE_OF_DEVICE, AUTO_SHAPE_CPU, AUTO_SHAPE_GPU };

/* CLFOLD_GPU_SHAPE=BLOCK:GROUPS_PER_UNIT:UNROLL:SINGLE_KIB, the GPU shape's geometry (gpu_shape.c). */
struct gpu_tuning {
    unsigned block;            /* work-items a group, a power of two */
    unsigned groups_per_unit;  /* work-groups a compute unit */
    unsigned unroll;           /* 16-byte loads in flight a work-item */
    unsigned single_kib;       /* arrays of at most this many KiB take one group */
};

/* CLFOLD_SCAN_GPU=BLOCK:RUN_ITEMS, the GPU scan tiles' geometry (src/scan/paths.c); 0: its own. */
struct scan_tuning {
    unsigned block;
    unsigned run_items;
};

/*
 * CLFOLD_HOST_RESULT: unset, where NVIDIA's driver places buffers in host
 * memory; 0, nowhere; 1, also elsewhere, in a mapped CL_MEM_ALLOC_HOST_PTR
 * buffer (a test switch: on POCL that memory is the kernel's).
 */
enum host_result { HOST_RESULT_NVIDIA, HOST_RESULT_OFF, HOST_RESULT_ANY };

struct settings {
    char *device;              /* CLFOLD_DEVICE: the default selector; NULL if unset or "" */
    size_t max_chunk_bytes;    /* CLFOLD_MAX_CHUNK_BYTES: 0, the device's largest buffer */
    size_t local_mem_bytes;    /* CLFOLD_LOCAL_MEM_BYTES: take the device's local memory as at
                                  most this (a test switch: NVIDIA's 48 KiB on POCL); 0: as reported */
    enum auto_shape shape;     /* CLFOLD_AUTO_SHAPE=cpu|gpu */
    unsigned cpu_lanes;        /* CLFOLD_CPU_LANES=2|4|8|16: the CPU shapes' vectors this wide, in
                                  place of the device's preferred width (a test switch); 0: its own */
    bool gpu_tuned;            /* CLFOLD_GPU_SHAPE is set: `gpu` replaces the shape's own choice */
    struct gpu_tuning gpu;     /* CLFOLD_GPU_SHAPE */
    bool gpu_one_launch;       /* CLFOLD_GPU_ONE_LAUNCH=0|1 (default 1; only NVIDIA can) */
    struct scan_tuning scan;   /* CLFOLD_SCAN_GPU */
    bool scan_lookback;        /* CLFOLD_SCAN_LOOKBACK=0|1 (default 1; only NVIDIA can: the
                                  one-launch scan; 0 takes three launches) */
    bool scan_prefetch_set;    /* CLFOLD_SCAN_PREFETCH is set: `scan_prefetch` replaces the
                                  one-launch scan's own distance (src/scan/paths.c) */
    unsigned scan_prefetch;    /* CLFOLD_SCAN_PREFETCH=TILES: how far ahead it asks L2 for tiles */
    bool warp_shuffle;         /* CLFOLD_NO_WARP_SHUFFLE set: false (default true; only NVIDIA can) */
    enum host_result host_result; /* CLFOLD_HOST_RESULT=0|1: may the kernel write a blocking
                                     reduction's value into host memory (reduce/landing.c) */
    char *kernel_dir;          /* CLFOLD_KERNEL_DIR: kernels from this folder; NULL if unset or "" */
    bool denorms_are_zero;     /* CLFOLD_DENORMS_ARE_ZERO=0|1: build with -cl-denorms-are-zero and
                                  take the device as flushing float subnormals (a test switch) */
};

struct clfold_context;

/* Reads and checks every variable into `settings`; on a bad value, fails naming it. */
clfold_status settings_read(struct clfold_context *ctx, struct settings *settings);

void settings_release(struct settings *settings);

#endif /* CLFOLD_SETTINGS_H */

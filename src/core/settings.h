/*
 * settings.h: what a context is set to beyond its kernel and accuracy: the
 * device selector and kernel folder it was created with, and its
 * parameters (clfold_param). One table in settings.c describes every
 * parameter: its name, its environment variable, its values, its default
 * and the field below that holds it. clfold_create* read the variables
 * through that table, and clfold_set_param checks values through it, so
 * both take the same values and refuse the others in the same words.
 * docs/environment.md lists the variables.
 */
#ifndef CLFOLD_SETTINGS_H
#define CLFOLD_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clfold.h"

/*
 * Every parameter is an int64_t, CLFOLD_PARAM_AUTO where clfold chooses;
 * the fields are named as the parameters.
 */
struct settings {
    char *device;              /* CLFOLD_DEVICE: the default selector; NULL if unset or "" */
    char *kernel_dir;          /* CLFOLD_KERNEL_DIR: kernels from this folder; NULL if unset or "" */

    int64_t auto_shape;        /* CLFOLD_SHAPE_CPU or _GPU: the auto paths' shape on any device */
    int64_t cpu_lanes;         /* the CPU shapes' vectors this wide, in place of the device's
                                  preferred width (a test switch) */
    int64_t gpu_block;         /* the GPU shape's geometry (gpu_shape.c), each field in place */
    int64_t gpu_groups_per_unit; /* of the shape's own choice */
    int64_t gpu_unroll;
    int64_t gpu_single_kib;
    int64_t gpu_one_launch;    /* 1: NVIDIA's GPU shape in one launch */
    int64_t host_result;       /* may the kernel write a blocking reduction's value into host
                                  memory (reduce/landing.c): auto, where NVIDIA's driver places
                                  buffers there; 0, nowhere; 1, also elsewhere, in a mapped
                                  CL_MEM_ALLOC_HOST_PTR buffer (a test switch) */
    int64_t scan_gpu_block;    /* the GPU scan tiles' geometry (src/scan/paths.c) */
    int64_t scan_gpu_run_items;
    int64_t scan_prefetch;     /* how far ahead the one-launch scan asks L2 for tiles */
    int64_t scan_lookback;     /* 1: the one-launch scan where it can run (NVIDIA) */
    int64_t no_warp_shuffle;   /* 1: no shfl.sync, even on NVIDIA */
    int64_t denorms_are_zero;  /* 1: build with -cl-denorms-are-zero and take the device as
                                  flushing float subnormals (a test switch) */
    int64_t max_chunk_bytes;   /* clfold_reduce_host's chunks; auto: the device's largest buffer */
    int64_t local_mem_bytes;   /* take the device's local memory as at most this (a test switch:
                                  NVIDIA's 48 KiB on POCL); auto: as reported */
};

struct clfold_context;

/*
 * Reads CLFOLD_DEVICE, CLFOLD_KERNEL_DIR and every parameter's variable
 * into `settings`, the parameters' defaults where a variable is unset or
 * empty; on a bad value, fails naming the variable and the parameter.
 */
clfold_status settings_read(struct clfold_context *ctx, struct settings *settings);

void settings_release(struct settings *settings);

#endif /* CLFOLD_SETTINGS_H */

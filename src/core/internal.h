/*
 * internal.h: what the library's modules share and users never see: the
 * context, the device capabilities it caches, and the error-flow macros.
 */
#ifndef CLFOLD_INTERNAL_H
#define CLFOLD_INTERNAL_H

#include <stdbool.h>

#include "clfold.h"
#include "program.h"
#include "settings.h"
#include "ops.h"
#include "types.h"

/* cl_khr_icd: the ICD loader found no platform (not in every cl.h). */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* cl_nv_create_buffer's clCreateBufferNV: a buffer placed by flags_NV (CL_MEM_LOCATION_HOST_NV). */
typedef cl_mem(CL_API_CALL *create_buffer_nv_fn)(cl_context context, cl_mem_flags flags,
                                                 cl_bitfield flags_nv, size_t size, void *host_ptr,
                                                 cl_int *errcode_ret);

/* What clfold needs to know about a device, read once at context creation. */
struct device_caps {
    char name[256];
    bool is_cpu;
    bool cpu_shape;              /* the auto path takes the CPU shape (device.c: not on llvmpipe) */
    bool prefetch_hints;         /* POCL: kernels' __builtin_prefetch becomes a prefetch */
    bool split_half_loads;       /* POCL: vload_half8 off 16 bytes crashes (defs.cl's load_halves) */
    bool has_fp64;
    bool float_denormals;        /* float arithmetic keeps subnormals: CL_FP_DENORM, unless
                                    the context's denorms_are_zero says otherwise */
    bool has_int64_base_atomics;
    bool has_int64_extended_atomics;
    bool inline_ptx;             /* NVIDIA: asm("...") in kernels is PTX */
    bool warp_shuffle;           /* NVIDIA: shfl.sync over 32-lane warps, unless no_warp_shuffle */
    bool profiling;              /* the queue records event times */
    create_buffer_nv_fn create_buffer_nv; /* NVIDIA's clCreateBufferNV, or NULL */
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong local_mem_size;     /* the device's, or the context's local_mem_bytes if smaller */
    /* What the device itself reports, before the context's parameters (device_apply_settings). */
    bool device_float_denormals, device_warp_shuffle;
    cl_ulong device_local_mem_size;
    cl_ulong max_alloc_size;
    cl_uint base_align_bytes;    /* every buffer starts on such a boundary */
    /* CL_DEVICE_PREFERRED_VECTOR_WIDTH_*: lanes of char, short, int, long, then float, double */
    cl_uint preferred_int_lanes[4];
    cl_uint preferred_float_lanes, preferred_double_lanes;
};

/*
 * A release function that a layer above core registers for what it keeps in
 * a context (context_on_release): clfold_destroy calls it, after its
 * clFinish and before the queue and cl_context go.
 */
typedef void (*context_release_fn)(clfold_context *ctx);

/* The release functions a context holds at most. */
#define CONTEXT_RELEASES 4

struct landing;

struct clfold_context {
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
    struct device_caps caps;

    clfold_kernel kernel;        /* as set by clfold_set_kernel */
    size_t block_size;           /* 0 = choose */
    clfold_accuracy accuracy;    /* as set by clfold_set_accuracy */
    clfold_scan_kernel scan_kernel; /* as set by clfold_set_scan_kernel */
    size_t scan_block;           /* 0 = choose */
    struct settings settings;    /* the environment's at create, then clfold_set_param's */

    struct program_cache programs;
    struct scratch **scratch;    /* scratch.c: one per reduction or scan in flight, at most */
    size_t scratch_count;
    struct landing *landing;     /* reduce/landing.c's: where a blocking reduction's value arrives */
    context_release_fn releases[CONTEXT_RELEASES]; /* context_on_release's, called last first */
    unsigned release_count;

    double read_bandwidth;       /* bytes/s a reduction of host memory read, once measured (reduce/multi.c); 0 before */

    clfold_run_info last_run;
    bool has_last_run;
    char *last_error;            /* malloc'ed; may hold a whole build log */
};

/*
 * Records what went wrong in ctx->last_error (ctx may be NULL) and returns
 * `status`, so that callers can write `return fail(ctx, status, ...)` or use
 * the macros below.
 */
clfold_status fail(clfold_context *ctx, clfold_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* What clfold_last_error(NULL) returns on this thread from now on ("" after a success). */
void keep_create_error(const char *message);

/* clock.c: seconds on the monotonic clock. */
double monotonic_seconds(void);

/*
 * context.c: has clfold_destroy call `release` (once, however often it is
 * registered): a layer above core registers it before it first keeps
 * something in the context, so that core calls nothing of that layer by
 * name. Release functions run last registered first.
 */
clfold_status context_on_release(clfold_context *ctx, context_release_fn release);

/* Forgets the last error: called at the start of every public entry point. */
void clear_error(clfold_context *ctx);

/*
 * Error flow: each function has one `clfold_status status` and one `cleanup:`
 * label; these set the status, say why, and jump.
 */
#define FAIL(code, ...)                                   \
    do {                                                  \
        status = fail(ctx, (code), __VA_ARGS__);          \
        goto cleanup;                                     \
    } while (0)

#define CHECK_CL(call, what)                                                        \
    do {                                                                            \
        cl_int err_ = (call);                                                       \
        if (err_ != CL_SUCCESS)                                                     \
            FAIL((clfold_status)err_, "%s failed: %s", (what),                      \
                 clfold_status_string((clfold_status)err_));                        \
    } while (0)

#define CHECK(call)                                       \
    do {                                                  \
        status = (call);                                  \
        if (status != CLFOLD_SUCCESS)                     \
            goto cleanup;                                 \
    } while (0)

#endif /* CLFOLD_INTERNAL_H */

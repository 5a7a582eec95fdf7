/*
 * clfold: portable OpenCL reductions.
 *
 * Reduce an array to one value (sum, product, min, max, bitwise and/or/xor)
 * on any OpenCL device. Kernels are compiled at run time from sources
 * embedded in the library; built programs are cached in the context.
 *
 * Threading: a context may be used by one thread at a time. Different
 * contexts, even on the same device, may be used from different threads at
 * once. The library keeps no global mutable state.
 *
 * The library never prints, exits or aborts. Every call returns a status;
 * clfold_last_error() says what went wrong in words (a build log, which
 * argument was bad).
 */
#ifndef CLFOLD_H
#define CLFOLD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Only OpenCL's types, which every version of CL/cl.h declares: the
 * includer's CL_TARGET_OPENCL_VERSION, or CL/cl.h's own default, stands.
 */
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the public API: the only symbols the shared library exports. */
#if defined(CLFOLD_BUILDING) && defined(__GNUC__)
#define CLFOLD_API __attribute__((visibility("default")))
#else
#define CLFOLD_API
#endif

#define CLFOLD_VERSION_MAJOR 0
#define CLFOLD_VERSION_MINOR 1
#define CLFOLD_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" of the library actually linked. */
CLFOLD_API const char *clfold_version_string(void);

typedef struct clfold_context clfold_context;

/*
 * 0 is success. OpenCL's own error codes pass through unchanged: the core
 * codes (0 to -72) and the extensions' (-1000 to about -1200). The
 * library's own codes are -2000 and below, clear of both.
 */
typedef enum {
    CLFOLD_SUCCESS = 0,
    CLFOLD_ERROR_INVALID_ARGUMENT = -2000,   /* NULL pointer, bad value */
    CLFOLD_ERROR_INVALID_TYPE = -2001,       /* not a clfold_type */
    CLFOLD_ERROR_INVALID_OP = -2002,         /* not a clfold_op */
    CLFOLD_ERROR_INVALID_KERNEL = -2003,     /* not a clfold_kernel */
    CLFOLD_ERROR_OP_NOT_FOR_TYPE = -2004,    /* e.g. bitwise and on float */
    CLFOLD_ERROR_INVALID_BLOCK_SIZE = -2005, /* not a power of two, or too large */
    CLFOLD_ERROR_OUT_OF_BOUNDS = -2006,      /* offset + count beyond the buffer */
    CLFOLD_ERROR_DEVICE_NOT_FOUND = -2007,   /* no device matches the selector */
    CLFOLD_ERROR_NO_FP64 = -2008,            /* double asked of a device without it */
    CLFOLD_ERROR_BUILD_FAILED = -2009,       /* kernel build failed; log in last_error */
    CLFOLD_ERROR_OUT_OF_HOST_MEMORY = -2010,
    CLFOLD_ERROR_UNSUPPORTED = -2011,        /* the device lacks what this needs */
    CLFOLD_ERROR_NO_PROFILING = -2012,       /* the queue has no profiling */
    CLFOLD_ERROR_KERNEL_SOURCE = -2013,      /* CLFOLD_KERNEL_DIR file unreadable */
    CLFOLD_ERROR_WRONG_CONTEXT = -2014,      /* buffer from another cl_context */
    CLFOLD_ERROR_TOO_LARGE = -2015,          /* more than the device can hold */
    CLFOLD_ERROR_MPI = -2016,                /* an MPI call failed (clfold_mpi.h) */
    CLFOLD_ERROR_INVALID_PARAM = -2017       /* not a clfold_param */
} clfold_status;

typedef enum {
    CLFOLD_SUM,
    CLFOLD_PROD,
    CLFOLD_MIN,
    CLFOLD_MAX,
    CLFOLD_AND,
    CLFOLD_OR,
    CLFOLD_XOR,
    CLFOLD_ARGMIN, /* where the least element is: see below */
    CLFOLD_ARGMAX,
    CLFOLD_SUMSQ   /* the sum of the elements' squares: see below */
} clfold_op;

/*
 * Element types. The result of a reduction has the type that
 * clfold_result_type() gives (see the table in docs/accuracy.md):
 *   sum, product, sumsq of an integer type -> 64-bit integer of the same
 *     signedness (as numpy.sum does); overflow wraps modulo 2^64
 *   min, max, and, or, xor          -> the element type
 *   half                            -> float, for every operator
 *   float, double sum/product/min/max/sumsq -> the element type
 *   argmin, argmax                  -> 64-bit signed integer, an index
 * Bitwise operators apply to integer types only.
 *
 * CLFOLD_SUMSQ adds the squares of the elements, each squared in the
 * result's type (integers widened first, so that an int32's square is exact;
 * halves squared in float), as numpy.sum(numpy.square(x.astype(result)))
 * does. It has no scan, and the exact accuracy refuses it
 * (CLFOLD_ERROR_UNSUPPORTED): a square can lie below the least unit of the
 * exact state. Its float error bound is docs/accuracy.md's.
 *
 * CLFOLD_ARGMIN and CLFOLD_ARGMAX give the index of the least or greatest
 * element, as numpy.argmin and numpy.argmax do: counted from `offset` for a
 * whole array, along the axis for clfold_reduce_axis, from the segment's
 * start for clfold_reduce_segments. Of equal elements the first wins; -0
 * and +0 are equal; a NaN counts as both the least and the greatest
 * element, so the first NaN wins. An array with no elements, or an empty
 * axis with results to give, has no such index: CLFOLD_ERROR_INVALID_ARGUMENT.
 * An empty segment gives -1. The accuracy setting does not apply (every
 * result is exact), and the atomic baseline refuses them
 * (CLFOLD_ERROR_UNSUPPORTED): one atomic word cannot hold a value and its
 * index.
 */
typedef enum {
    CLFOLD_INT32,
    CLFOLD_UINT32,
    CLFOLD_FLOAT,
    CLFOLD_INT8,
    CLFOLD_UINT8,
    CLFOLD_INT16,
    CLFOLD_UINT16,
    CLFOLD_INT64,
    CLFOLD_UINT64,
    CLFOLD_HALF,
    CLFOLD_DOUBLE
} clfold_type;

/*
 * Which kernel reduces. CLFOLD_AUTO lets clfold choose for the device;
 * K1..K7 are the steps of Mark Harris's ladder; CLFOLD_ATOMIC is the naive
 * baseline that folds every element into one global value with atomics (its
 * order, and so a float result, varies from run to run).
 */
typedef enum {
    CLFOLD_AUTO = 0,
    CLFOLD_K1, /* interleaved addressing, divergent branching */
    CLFOLD_K2, /* interleaved addressing, strided index, bank conflicts */
    CLFOLD_K3, /* sequential addressing */
    CLFOLD_K4, /* first add during the global load */
    CLFOLD_K5, /* unroll the last warp */
    CLFOLD_K6, /* complete unroll, block size known at compile time */
    CLFOLD_K7, /* many elements per work-item, grid-size stride */
    CLFOLD_ATOMIC
} clfold_kernel;

/*
 * Creates a context on the device that `device` selects: "P:D" (platform and
 * device index, as `clfold devices` lists them), or a case-insensitive
 * substring of the device or platform name. NULL selects the device named by
 * the environment variable CLFOLD_DEVICE, else the first GPU, else the first
 * device. The context owns its cl_context and an in-order queue. The queue
 * does not profile, since on NVIDIA a profiling queue adds about 7 us to
 * every call (bench/results/kernel-choices-nvidia.txt): clfold_run_info's
 * device_ms is then -1. For device times, make
 * the context with clfold_create_with_queue over a profiling queue.
 *
 * Both clfold_create* read clfold's environment variables (docs/environment.md)
 * once, into the context; nothing reads them later. They give the context's
 * parameters their first values (clfold_set_param changes them later). A
 * malformed value fails the create with CLFOLD_ERROR_INVALID_ARGUMENT, and
 * clfold_last_error(NULL) names the variable and the parameter.
 */
CLFOLD_API clfold_status clfold_create(clfold_context **ctx, const char *device);

/*
 * Creates a context that works on a queue the caller owns (it is retained,
 * and released by clfold_destroy). Device timings need a queue created with
 * CL_QUEUE_PROFILING_ENABLE.
 */
CLFOLD_API clfold_status clfold_create_with_queue(clfold_context **ctx, cl_command_queue queue);

/*
 * Releases everything the context holds. NULL is fine. It first waits for
 * everything on the context's queue (clFinish), non-blocking reductions
 * included: one behind a user event that never completes keeps it waiting.
 */
CLFOLD_API void clfold_destroy(clfold_context *ctx);

CLFOLD_API cl_context clfold_cl_context(const clfold_context *ctx);
CLFOLD_API cl_command_queue clfold_queue(const clfold_context *ctx);
CLFOLD_API cl_device_id clfold_device(const clfold_context *ctx);

/*
 * Chooses the kernel and work-group size for later reductions on this
 * context. block_size 0 lets clfold choose; otherwise it must be a power of
 * two no larger than the device's maximum work-group size.
 */
CLFOLD_API clfold_status clfold_set_kernel(clfold_context *ctx, clfold_kernel kernel, size_t block_size);

/*
 * How floating-point sums accumulate (other operators and integers are
 * exact or unaffected). The error bounds are in docs/accuracy.md.
 *   DEFAULT      float accumulators; each work-item's sequential run is
 *                compensated (Neumaier), the trees are pairwise
 *   COMPENSATED  (sum, carry) pairs all the way: Kahan-Babuska-Neumaier per
 *                work-item and compensated merges between levels
 *   FP64         half and float accumulate in double (needs cl_khr_fp64);
 *                the result is rounded once to float
 *   EXACT        the correctly rounded sum: the exact sum of the elements,
 *                rounded once to nearest-even in the result type, so the
 *                same bits on every device, kernel, block size and chunking.
 *                NaN, or both infinities, give NaN; an exact sum beyond the
 *                type's range gives an infinity. Products of half, float and
 *                double are refused (CLFOLD_ERROR_UNSUPPORTED; see
 *                docs/accuracy.md), as is the atomic baseline.
 * The atomic baseline ignores the other settings: it is the naive method.
 */
typedef enum {
    CLFOLD_ACCURACY_DEFAULT = 0,
    CLFOLD_ACCURACY_COMPENSATED,
    CLFOLD_ACCURACY_FP64,
    CLFOLD_ACCURACY_EXACT
} clfold_accuracy;

/* CLFOLD_ERROR_NO_FP64 for CLFOLD_ACCURACY_FP64 on a device without doubles. */
CLFOLD_API clfold_status clfold_set_accuracy(clfold_context *ctx, clfold_accuracy accuracy);

/*
 * A context's tuning parameters: the auto paths' shapes and geometry, the
 * scans', where a blocking reduction's value lands, and developers' test
 * switches. Each takes its first value at create from the environment
 * variable docs/environment.md lists for it (CLFOLD_GPU_SHAPE gives four,
 * one a colon-separated field), else its default; clfold_set_param changes
 * it for later calls on the context. Kernels built before a change stay
 * cached for their own values: a changed parameter builds, or takes from
 * the cache, the kernels of the new value. clfold_describe_param gives
 * each one's name, variable, values and default, so that programs can list
 * them. The values are fixed; new parameters come after the last.
 */
typedef enum {
    CLFOLD_PARAM_AUTO_SHAPE = 0,          /* CLFOLD_SHAPE_CPU or _GPU on any device; auto: the device's */
    CLFOLD_PARAM_CPU_LANES = 1,           /* the CPU shapes' vector width: 2, 4, 8 or 16 lanes */
    CLFOLD_PARAM_GPU_BLOCK = 2,           /* the GPU shape's work-group size, a power of two */
    CLFOLD_PARAM_GPU_GROUPS_PER_UNIT = 3, /* its work-groups a compute unit */
    CLFOLD_PARAM_GPU_UNROLL = 4,          /* its 16-byte loads in flight a work-item */
    CLFOLD_PARAM_GPU_SINGLE_KIB = 5,      /* arrays of at most this many KiB take one work-group */
    CLFOLD_PARAM_GPU_ONE_LAUNCH = 6,      /* 1: NVIDIA's GPU shape in one launch; 0: two */
    CLFOLD_PARAM_HOST_RESULT = 7,         /* 1: a blocking value lands in host memory on any device; 0: never */
    CLFOLD_PARAM_SCAN_GPU_BLOCK = 8,      /* the GPU scan tiles' work-group size, a power of two */
    CLFOLD_PARAM_SCAN_GPU_RUN_ITEMS = 9,  /* their elements a work-item, 1 to 64 */
    CLFOLD_PARAM_SCAN_PREFETCH = 10,      /* tiles ahead NVIDIA's one-launch scan asks L2 for; 0: none */
    CLFOLD_PARAM_SCAN_LOOKBACK = 11,      /* 1: NVIDIA's scans in one launch; 0: three */
    CLFOLD_PARAM_NO_WARP_SHUFFLE = 12,    /* 1: barriers in place of NVIDIA's shfl.sync */
    CLFOLD_PARAM_DENORMS_ARE_ZERO = 13,   /* 1: kernels built with -cl-denorms-are-zero */
    CLFOLD_PARAM_MAX_CHUNK_BYTES = 14,    /* clfold_reduce_host's chunks at most this large */
    CLFOLD_PARAM_LOCAL_MEM_BYTES = 15     /* the device's local memory taken as at most this */
} clfold_param;

/* The value that lets clfold choose, for the parameters that take it (docs/environment.md: auto). */
#define CLFOLD_PARAM_AUTO (-1)

/* CLFOLD_PARAM_AUTO_SHAPE's values. */
typedef enum { CLFOLD_SHAPE_CPU = 0, CLFOLD_SHAPE_GPU = 1 } clfold_shape;

/*
 * Sets a parameter for the context's later calls. A value outside the
 * parameter's range is refused with CLFOLD_ERROR_INVALID_ARGUMENT, and
 * clfold_last_error names the parameter and its values; an unknown
 * parameter with CLFOLD_ERROR_INVALID_PARAM. Refused, the parameter keeps
 * its value. Reductions already enqueued run as they were built.
 */
CLFOLD_API clfold_status clfold_set_param(clfold_context *ctx, clfold_param param, int64_t value);

/* The parameter's value on this context (CLFOLD_PARAM_AUTO where clfold chooses). */
CLFOLD_API clfold_status clfold_get_param(const clfold_context *ctx, clfold_param param,
                                          int64_t *value);

/* What a parameter is: its names, its values, what it does. */
typedef struct {
    const char *name;          /* "gpu_block", as clfold_param_name gives it */
    const char *env;           /* the variable that gives its first value: "CLFOLD_GPU_SHAPE" */
    unsigned env_field;        /* its field of that variable's colon-separated value, from 0 */
    int64_t min, max;          /* its values are whole numbers from min to max ... */
    int powers_of_two;         /* ... powers of two only, where this is 1 */
    int takes_auto;            /* 1: CLFOLD_PARAM_AUTO is a value too ("auto" in the variable) */
    const char *words;         /* the values min.. as the variable spells them, "|" between
                                  ("cpu|gpu"); NULL: the variable spells numbers */
    int64_t default_value;     /* its value where the variable is unset */
    const char *doc;           /* what it does, in a line */
} clfold_param_info;

/* How many parameters there are: they are 0 .. clfold_param_count() - 1. */
CLFOLD_API int clfold_param_count(void);

/* CLFOLD_ERROR_INVALID_PARAM for an unknown parameter. */
CLFOLD_API clfold_status clfold_describe_param(clfold_param param, clfold_param_info *info);

/*
 * Reduces `count` elements of `type` starting at element `offset` of
 * `buffer`, which must belong to this context's cl_context. Blocking: when
 * it returns, `result` (host memory) holds a value of clfold_result_type().
 * count == 0 gives the operator's identity (an argmin or argmax refuses
 * it). When it returns, everything enqueued on the context's queue before
 * it has completed, earlier non-blocking reductions included; where the
 * value is watched for in host memory (NVIDIA, CLFOLD_HOST_RESULT), the
 * call's own kernel may still be ending, and later commands on the queue
 * run after it.
 */
CLFOLD_API clfold_status clfold_reduce_buffer(clfold_context *ctx, cl_mem buffer, size_t offset, size_t count,
                                   clfold_type type, clfold_op op, void *result);

/*
 * The same reduction, non-blocking: it enqueues the work on the context's
 * queue and returns. The work starts after the events of the wait list (as
 * OpenCL's clEnqueue* calls take them) and writes the result, the
 * clfold_result_type() bytes of the value (at any alignment), at byte
 * `result_offset` of `result`, touching no other byte of it. `result` must
 * belong to this context's cl_context and be writable by kernels (not
 * CL_MEM_READ_ONLY). If `event` is not NULL, *event receives an event that
 * completes when the result is there; the caller releases it. *event is
 * written as the call returns, so it may be an element of the wait list
 * (keep a copy of that event: on a failure *event becomes NULL). Until then
 * the reduction may read `buffer` and write `result`. `result` may be
 * `buffer` itself, even over the elements reduced: the result is written
 * after every element has been read.
 *
 * Several reductions may be in flight at once: each holds its own scratch
 * until it completes, and later calls reuse it. Every kernel and accuracy
 * works so; clfold_last_run reports what was enqueued, with device_ms -1.
 *
 * A bad argument, a range outside `buffer` or a result range outside
 * `result` fails before anything is enqueued, and *event is then NULL.
 */
CLFOLD_API clfold_status clfold_reduce_buffer_async(clfold_context *ctx, cl_mem buffer, size_t offset,
                                                 size_t count, clfold_type type, clfold_op op,
                                                 cl_mem result, size_t result_offset /* bytes */,
                                                 cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list,
                                                 cl_event *event /* may be NULL */);

/*
 * As clfold_reduce_buffer, on `count` elements in host memory. An array
 * larger than the device's largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is
 * reduced in chunks whose results are combined on the host.
 */
CLFOLD_API clfold_status clfold_reduce_host(clfold_context *ctx, const void *data, size_t count,
                                 clfold_type type, clfold_op op, void *result);

/*
 * Reductions along an axis of a matrix: `rows` x `cols` elements of `type`
 * in a buffer, element (r, c) at element offset + r * row_pitch + c
 * (row_pitch >= cols; rows of a larger matrix, or every other row, are views
 * like any other). N-d arrays reduce through such a view: the runner folds
 * their axes into one (docs/shapes.md).
 */
typedef struct {
    size_t offset;     /* element (0, 0), counted in elements from the buffer's start */
    size_t rows;
    size_t cols;
    size_t row_pitch;  /* elements from a row's start to the next row's; at least cols */
} clfold_matrix;

/*
 * Reduces every row (axis 1: `rows` results) or every column (axis 0:
 * `cols` results) of `matrix`, by the operator, with the context's
 * accuracy and the error bounds of docs/accuracy.md. Blocking: `results`
 * (host memory) receives the results, consecutive values of
 * clfold_result_type(). An empty axis gives the operator's identity for
 * every result (an argmin or argmax refuses it). These reductions always
 * run the device's own shape: clfold_set_kernel's choice applies to
 * whole-array reductions only. The results are run-to-run deterministic;
 * exact sums are correctly rounded.
 */
CLFOLD_API clfold_status clfold_reduce_axis(clfold_context *ctx, cl_mem buffer,
                                            const clfold_matrix *matrix, int axis,
                                            clfold_type type, clfold_op op, void *results);

/*
 * The same, non-blocking, with clfold_reduce_buffer_async's rules for the
 * wait list, the event, and the result buffer: the results go to bytes
 * result_offset .. result_offset + count * size of `result`.
 */
CLFOLD_API clfold_status clfold_reduce_axis_async(clfold_context *ctx, cl_mem buffer,
                                                  const clfold_matrix *matrix, int axis,
                                                  clfold_type type, clfold_op op, cl_mem result,
                                                  size_t result_offset /* bytes */,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event /* may be NULL */);

/*
 * As clfold_reduce_axis, on a matrix in host memory: element (r, c) at
 * element offset + r * row_pitch + c of `data`. Only the elements from
 * (0, 0) to the last row's end go to the device, wrapped in place on a CPU
 * and copied to a GPU, as clfold_reduce_host does. A matrix spanning more
 * than the device's largest buffer is refused (CLFOLD_ERROR_TOO_LARGE):
 * reduce it a band of rows or columns at a time.
 */
CLFOLD_API clfold_status clfold_reduce_axis_host(clfold_context *ctx, const void *data,
                                                 const clfold_matrix *matrix, int axis,
                                                 clfold_type type, clfold_op op, void *results);

/*
 * Segmented reductions: `num_segments` results, segment s being elements
 * [offsets[s], offsets[s + 1]) of the `count` elements that start at
 * element `offset` of `buffer`. `offsets` is a buffer of num_segments + 1
 * uint64 values (CSR style, as CUB's begin and end offsets), non-decreasing
 * and at most `count`. An empty segment gives the operator's identity
 * (-1 for an argmin or argmax).
 * The blocking form reads the offsets first and refuses bad ones with
 * CLFOLD_ERROR_INVALID_ARGUMENT, naming the first; the non-blocking form
 * cannot look at them before they are used, so there the kernels clamp:
 * a segment reads only elements below `count`, and an end before its start
 * makes it empty.
 */
CLFOLD_API clfold_status clfold_reduce_segments(clfold_context *ctx, cl_mem buffer, size_t offset,
                                                size_t count, cl_mem offsets, size_t num_segments,
                                                clfold_type type, clfold_op op, void *results);

CLFOLD_API clfold_status clfold_reduce_segments_async(clfold_context *ctx, cl_mem buffer,
                                                      size_t offset, size_t count, cl_mem offsets,
                                                      size_t num_segments, clfold_type type,
                                                      clfold_op op, cl_mem result,
                                                      size_t result_offset /* bytes */,
                                                      cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list,
                                                      cl_event *event /* may be NULL */);

/*
 * As clfold_reduce_segments, on `count` elements and num_segments + 1
 * offsets in host memory, both checked before anything runs. Arrays past
 * the device's largest buffer are refused, as clfold_reduce_axis_host's.
 */
CLFOLD_API clfold_status clfold_reduce_segments_host(clfold_context *ctx, const void *data,
                                                     size_t count, const uint64_t *offsets,
                                                     size_t num_segments, clfold_type type,
                                                     clfold_op op, void *results);

/*
 * Scans: prefix reductions. An inclusive scan gives
 *     out[i] = in[0] op in[1] op ... op in[i],
 * an exclusive scan the same of the elements before i, so out[0] is the
 * operator's identity (0 for a sum, 1 for a product, the type's greatest
 * value for min, its least for max, all ones for and, 0 for or and xor).
 * Sums, products, min, max and the bitwise operators scan, with the result
 * types of reductions (clfold_result_type): integer sums and products in
 * 64 bits, as numpy.cumsum does; half in float. Argmin and argmax have no
 * scan (CLFOLD_ERROR_UNSUPPORTED).
 *
 * Float sums follow the context's accuracy, with the bounds per output of
 * docs/scans.md; the exact accuracy is refused (CLFOLD_ERROR_UNSUPPORTED):
 * a correctly rounded prefix would need an exact state per output. Float
 * products keep their exponent apart, as reductions do, so every output is
 * rounded once; min and max follow the reductions' NaN and signed-zero
 * rules. Every result is run-to-run deterministic, and integer results are
 * exact (sums and products wrap modulo 2^64).
 */
typedef enum {
    CLFOLD_INCLUSIVE = 0,
    CLFOLD_EXCLUSIVE
} clfold_scan_mode;

/*
 * Which scan runs. CLFOLD_SCAN_AUTO is the device's fastest; the others are
 * the steps of the scan ladder (docs/scans.md), each a work-group's scan of
 * a tile in local memory, composed over many tiles by the same multi-block
 * decomposition: the tiles' totals, their scan, then each tile scanned
 * from its prefix.
 */
typedef enum {
    CLFOLD_SCAN_AUTO = 0,
    CLFOLD_SCAN_KOGGE_STONE,     /* Hillis-Steele: one element a work-item, n log n work,
                                    double-buffered in local memory */
    CLFOLD_SCAN_BLELLOCH,        /* work-efficient up-sweep and down-sweep, two elements
                                    a work-item */
    CLFOLD_SCAN_BLELLOCH_PADDED  /* the same, local indices padded against bank conflicts */
} clfold_scan_kernel;

/*
 * Chooses the scan kernel and work-group size for later scans on this
 * context, as clfold_set_kernel does for reductions (block_size 0: clfold
 * chooses; else a power of two the device allows).
 */
CLFOLD_API clfold_status clfold_set_scan_kernel(clfold_context *ctx, clfold_scan_kernel kernel,
                                                size_t block_size);

/*
 * Scans `count` elements of `type` from element `in_offset` of `in` into
 * `count` values of clfold_result_type() from element `out_offset` of
 * `out` (counted in result elements). Both buffers belong to this
 * context's cl_context; `out` is writable by kernels. The scan may run in
 * place: `out` may be `in` at the same first byte where the result type is
 * as large as the element type. Any other overlap of the two ranges is
 * refused (CLFOLD_ERROR_INVALID_ARGUMENT). Blocking: it returns when `out`
 * holds the result, after everything on the context's queue.
 */
CLFOLD_API clfold_status clfold_scan_buffer(clfold_context *ctx, cl_mem in, size_t in_offset,
                                            size_t count, clfold_type type, clfold_op op,
                                            clfold_scan_mode mode, cl_mem out, size_t out_offset);

/*
 * The same scan, non-blocking, with clfold_reduce_buffer_async's rules for
 * the wait list and the event: `in` is read and `out` written until *event
 * completes.
 */
CLFOLD_API clfold_status clfold_scan_buffer_async(clfold_context *ctx, cl_mem in,
                                                  size_t in_offset, size_t count,
                                                  clfold_type type, clfold_op op,
                                                  clfold_scan_mode mode, cl_mem out,
                                                  size_t out_offset,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event /* may be NULL */);

/*
 * The scan of `count` elements in host memory into `out`, `count` values of
 * clfold_result_type(). `out` may be `in` where the result type is as large
 * as the element type; it must not otherwise overlap it. Arrays larger than
 * the device's largest buffer go in chunks, each scanned from the last one's
 * total.
 */
CLFOLD_API clfold_status clfold_scan_host(clfold_context *ctx, const void *in, size_t count,
                                          clfold_type type, clfold_op op, clfold_scan_mode mode,
                                          void *out);

/*
 * Partial results: the reduction of one part of an array, kept as the
 * accumulator value the kernels work in (an exact state, a compensated
 * pair, an index and its key) rather than finished, so that the parts'
 * partials, reduced anywhere (other contexts, devices, processes, machines),
 * merge into the whole's. A partial is CLFOLD_PARTIAL_BYTES plain bytes
 * (layout version CLFOLD_PARTIAL_VERSION, docs/partials.md) that may be
 * copied, stored or sent as they are, between machines of one byte order.
 *
 * Merged in any order and grouping, partials give: exact float sums the
 * same bits, correctly rounded; integers the exact result (wrapping modulo
 * 2^64 as reductions do); min, max, the bitwise operators and arg-reductions
 * the same result; other float sums and products a result within their
 * documented bounds (each merge adds at most one rounding, as a host
 * array's chunks do). Partials merge only with partials of the same type,
 * operator and accumulator (the same accuracy): CLFOLD_ERROR_INVALID_ARGUMENT
 * otherwise, or for bytes that are not a partial.
 */
#define CLFOLD_PARTIAL_BYTES 320
#define CLFOLD_PARTIAL_VERSION 1

typedef struct {
    unsigned char bytes[CLFOLD_PARTIAL_BYTES];
} clfold_partial;

/*
 * As clfold_reduce_buffer and clfold_reduce_host, into a partial. An empty
 * part gives the operator's identity (for an argmin or argmax, "no element
 * yet", which any element's partial replaces). An argmin's or argmax's
 * index counts from the part's first element: clfold_partial_rebase moves it
 * to count from the whole array's.
 */
CLFOLD_API clfold_status clfold_reduce_partial(clfold_context *ctx, cl_mem buffer, size_t offset,
                                               size_t count, clfold_type type, clfold_op op,
                                               clfold_partial *partial);
CLFOLD_API clfold_status clfold_reduce_host_partial(clfold_context *ctx, const void *data,
                                                    size_t count, clfold_type type, clfold_op op,
                                                    clfold_partial *partial);

/*
 * The same partial, non-blocking, with clfold_reduce_buffer_async's rules for
 * the wait list, the event and the result buffer: the partial's
 * CLFOLD_PARTIAL_BYTES go to bytes result_offset .. of `result`, where
 * result_offset is a multiple of 16.
 */
CLFOLD_API clfold_status clfold_reduce_partial_async(clfold_context *ctx, cl_mem buffer,
                                                     size_t offset, size_t count,
                                                     clfold_type type, clfold_op op,
                                                     cl_mem result,
                                                     size_t result_offset /* bytes */,
                                                     cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list,
                                                     cl_event *event /* may be NULL */);

/*
 * One reduction of a host array on several contexts at once (devices of one
 * host, or several contexts of one device): the array is cut into one part
 * a context, in proportion to the bandwidth each context showed reading
 * host memory (measured once per context, at its first such call, by
 * reducing 32 MiB of host memory: a GPU's copy over its bus, a CPU's
 * read), each part is reduced to partials without waiting, on
 * every device at the same time, and the partials merge into `result`, a
 * value of clfold_result_type(). Every context must have the same accuracy
 * (CLFOLD_ERROR_INVALID_ARGUMENT otherwise); each keeps its own kernel.
 * Exact sums give the bits of a single context's reduction, integers and
 * arg-reductions its result, other float reductions a result within the
 * bound of a host array's chunks. A failure is reported on contexts[0]
 * (clfold_last_error), naming the context that failed. Blocking; each
 * context must be free of other threads for the call.
 */
CLFOLD_API clfold_status clfold_reduce_host_multi(clfold_context *const *contexts,
                                                  size_t num_contexts, const void *data,
                                                  size_t count, clfold_type type, clfold_op op,
                                                  void *result);

/* into = into (op) part. */
CLFOLD_API clfold_status clfold_partial_merge(clfold_partial *into, const clfold_partial *part);

/*
 * The result the partial stands for, a value of clfold_result_type() (an
 * argmin or argmax of no element: CLFOLD_ERROR_INVALID_ARGUMENT, as for an
 * empty array).
 */
CLFOLD_API clfold_status clfold_partial_finish(const clfold_partial *partial, void *result);

/* An argmin's or argmax's partial of a part that starts at element `first` of the whole. */
CLFOLD_API clfold_status clfold_partial_rebase(clfold_partial *partial, uint64_t first);

/* The type a reduction of `type` by `op` returns, and its size in bytes. */
CLFOLD_API clfold_status clfold_result_type(clfold_type type, clfold_op op, clfold_type *result_type);
CLFOLD_API size_t clfold_type_size(clfold_type type); /* 0 for an unknown type */

/* Names as the runner spells them ("int32", "sum", "k3", "compensated"); NULL if unknown. */
CLFOLD_API const char *clfold_type_name(clfold_type type);
CLFOLD_API const char *clfold_accuracy_name(clfold_accuracy accuracy);
CLFOLD_API clfold_status clfold_accuracy_from_name(const char *name, clfold_accuracy *accuracy);
CLFOLD_API const char *clfold_op_name(clfold_op op);
CLFOLD_API const char *clfold_kernel_name(clfold_kernel kernel);
CLFOLD_API const char *clfold_scan_kernel_name(clfold_scan_kernel kernel); /* "kogge-stone" */
CLFOLD_API const char *clfold_param_name(clfold_param param); /* "gpu_block" */

/*
 * What an operator is, from the library's one table of operators: a caller
 * lists them all by describing op 0, 1, 2, ... until CLFOLD_ERROR_INVALID_OP.
 */
typedef struct {
    const char *name;       /* as the runner, Python and JSON spell it: "sum" */
    const char *numpy_name; /* NumPy's function or ufunc: "add", "minimum", "argmax"; NULL: none */
    unsigned flags;         /* CLFOLD_OP_* below */
} clfold_op_info;

#define CLFOLD_OP_INTEGERS_ONLY 0x1u /* bitwise: integer types only */
#define CLFOLD_OP_INDEX 0x2u         /* the result is an int64 index (argmin, argmax): one axis, no atomic */
#define CLFOLD_OP_NO_IDENTITY 0x4u   /* NumPy refuses it over no elements (the runner and Python do too) */
#define CLFOLD_OP_SCANS 0x8u         /* clfold_scan* takes it */
#define CLFOLD_OP_ROUNDS 0x10u       /* on floats each step rounds: the result depends on the order */

CLFOLD_API clfold_status clfold_op_describe(clfold_op op, clfold_op_info *info);

/* The reverse, case-insensitive; CLFOLD_ERROR_INVALID_{TYPE,OP,KERNEL,PARAM} if unknown. */
CLFOLD_API clfold_status clfold_type_from_name(const char *name, clfold_type *type);
CLFOLD_API clfold_status clfold_op_from_name(const char *name, clfold_op *op);
CLFOLD_API clfold_status clfold_kernel_from_name(const char *name, clfold_kernel *kernel);
CLFOLD_API clfold_status clfold_scan_kernel_from_name(const char *name, clfold_scan_kernel *kernel);
CLFOLD_API clfold_status clfold_param_from_name(const char *name, clfold_param *param);

/* What the last successful reduction or scan on a context did on the device. */
typedef struct {
    clfold_kernel kernel;    /* the kernel that ran: AUTO for the device-shaped paths */
    const char *path;        /* "ladder" (K1..K7, atomic), or auto's shape: "cpu", "gpu";
                                "rows", "columns", "segments" for axis and segmented reductions;
                                a scan's kernel ("kogge-stone", ...) or auto's "scan-gpu",
                                "scan-cpu" (its kernel is then CLFOLD_AUTO) */
    size_t block_size;       /* its work-group size */
    unsigned passes;         /* kernel launches */
    double device_ms;        /* first launch's start to last launch's end; < 0 without profiling */
    uint64_t bytes_read;     /* global memory the kernels read */
    uint64_t bytes_written;  /* global memory the kernels wrote */
} clfold_run_info;

CLFOLD_API clfold_status clfold_last_run(const clfold_context *ctx, clfold_run_info *info);

/*
 * The -D options of the kernel the last reduction used, e.g.
 * "-DOP=OP_SUM -DIN_T=int ... -DBLOCK_SIZE=256": with the files of cl/ they
 * rebuild that kernel by hand. "" before any reduction. (On NVIDIA the
 * one-launch scan of integer sums that widen is then rebuilt from its PTX
 * with a .minnctapersm directive: docs/design.md.)
 */
CLFOLD_API const char *clfold_last_build_options(const clfold_context *ctx);

/* The name of any status, clfold's or OpenCL's ("CL_OUT_OF_RESOURCES"). */
CLFOLD_API const char *clfold_status_string(clfold_status status);

/*
 * What went wrong in the last failed call on this context, in words; "" if
 * nothing. With ctx NULL: what the calling thread's last clfold_create* said
 * (which device selector matched nothing, which OpenCL call failed), "" if it
 * succeeded; valid until this thread's next clfold_create*.
 */
CLFOLD_API const char *clfold_last_error(const clfold_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* CLFOLD_H */

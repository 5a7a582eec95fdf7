/*
 * device.c: device selection and capabilities. Platforms and devices are
 * numbered in the order OpenCL lists them, as `clfold devices` shows them.
 */
#include "device.h"


#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* NVIDIA's cl_nv_device_attribute_query: the warp width. */
#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

/* Case-insensitive strstr. */
static bool contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack != '\0'; haystack++) {
        size_t i = 0;
        while (i < n && haystack[i] != '\0' &&
               tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

/* "P:D" with two decimal numbers; false for anything else. */
static bool parse_index(const char *selector, unsigned *platform, unsigned *device)
{
    char *end = NULL;
    if (!isdigit((unsigned char)selector[0]))
        return false;
    unsigned long p = strtoul(selector, &end, 10);
    if (*end != ':' || !isdigit((unsigned char)end[1]))
        return false;
    unsigned long d = strtoul(end + 1, &end, 10);
    if (*end != '\0' || p > 1000 || d > 1000)
        return false;
    *platform = (unsigned)p;
    *device = (unsigned)d;
    return true;
}

static bool device_matches(cl_platform_id platform, cl_device_id device, unsigned p, unsigned d,
                           const char *selector)
{
    char name[256] = "";
    unsigned want_p, want_d;
    if (parse_index(selector, &want_p, &want_d))
        return p == want_p && d == want_d;
    if (clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL) == CL_SUCCESS &&
        contains_nocase(name, selector))
        return true;
    return clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL) == CL_SUCCESS &&
           contains_nocase(name, selector);
}

static bool is_gpu(cl_device_id device)
{
    cl_device_type type = 0;
    return clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
           (type & CL_DEVICE_TYPE_GPU);
}

clfold_status device_select(clfold_context *ctx, const char *selector, cl_device_id *device)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint n_platforms = 0;
    cl_device_id first = NULL, first_gpu = NULL;
    cl_int listing_error = CL_SUCCESS; /* the first platform that failed to list its devices */

    *device = NULL;
    if (selector != NULL && selector[0] == '\0')
        selector = NULL;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &n_platforms);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && n_platforms == 0))
        FAIL(CLFOLD_ERROR_DEVICE_NOT_FOUND, "no OpenCL platform is installed");
    CHECK_CL(err, "clGetPlatformIDs");
    for (cl_uint p = 0; p < n_platforms && p < MAX_PLATFORMS && *device == NULL; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint n_devices = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &n_devices);
        if (err == CL_DEVICE_NOT_FOUND)
            continue; /* a platform without devices is not an error */
        if (err != CL_SUCCESS) {
            /* Nor is a broken platform, while another has the device: said below if none has. */
            if (listing_error == CL_SUCCESS)
                listing_error = err;
            continue;
        }
        for (cl_uint d = 0; d < n_devices && d < MAX_DEVICES; d++) {
            if (selector != NULL && device_matches(platforms[p], devices[d], p, d, selector)) {
                *device = devices[d];
                break;
            }
            if (first == NULL)
                first = devices[d];
            if (first_gpu == NULL && is_gpu(devices[d]))
                first_gpu = devices[d];
        }
    }
    if (selector == NULL)
        *device = first_gpu != NULL ? first_gpu : first;
    if (*device == NULL)
        CHECK_CL(listing_error, "clGetDeviceIDs");
    if (*device == NULL && selector != NULL)
        FAIL(CLFOLD_ERROR_DEVICE_NOT_FOUND, "no OpenCL device matches \"%s\"", selector);
    if (*device == NULL)
        FAIL(CLFOLD_ERROR_DEVICE_NOT_FOUND, "no OpenCL device found");
cleanup:
    return status;
}

clfold_status device_check_block(clfold_context *ctx, size_t block)
{
    if (block == 0 || (block & (block - 1)) != 0)
        return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                    "block size %zu is not a power of two", block);
    if (block > ctx->caps.max_work_group_size)
        return fail(ctx, CLFOLD_ERROR_INVALID_BLOCK_SIZE,
                    "block size %zu exceeds the device's maximum work-group size %zu", block,
                    ctx->caps.max_work_group_size);
    return CLFOLD_SUCCESS;
}

static bool has_extension(const char *extensions, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = strstr(extensions, name); at != NULL; at = strstr(at + 1, name))
        if ((at == extensions || at[-1] == ' ') && (at[n] == ' ' || at[n] == '\0'))
            return true;
    return false;
}

/*
 * Mesa's llvmpipe (under rusticl or Clover) compiles kernels with gallivm,
 * which ends every loop of a kernel once they have taken 65535 back edges
 * together (LP_MAX_TGSI_LOOP_ITERATIONS, one budget per 8-lane batch of
 * work-items, not per loop), and runs a work-group of one work-item in 8
 * lanes whose empty lanes still drive the loops. The CPU shape's work-items
 * loop over long chunks (131072 int32 values spend it) and, once it is
 * spent, every later loop runs once: fold_chunk's pairwise fold would stop,
 * and its sums come out short (tests/known-bugs/rusticl_loop_budget.py).
 * The GPU shape's work-items loop a few rounds each, so llvmpipe takes it.
 */
static bool has_loop_budget(const char *vendor, const char *name)
{
    return contains_nocase(vendor, "mesa") && contains_nocase(name, "llvmpipe");
}

/*
 * Kernels may ask the cache for lines ahead (cpu.cl's PREFETCH) where the
 * compiler is known to take clang's __builtin_prefetch and make it an
 * instruction: POCL's. OpenCL's own prefetch() is a no-op there (rows of
 * 2^13 floats take the same time with it as with none;
 * bench/results/kernel-choices-pocl3.txt), and Oclgrind 21.10
 * cannot run the intrinsic ("Undefined external function: llvm.prefetch").
 */
static bool has_prefetch_hints(const char *platform_name)
{
    return contains_nocase(platform_name, "portable computing language");
}

/*
 * Inline PTX is NVIDIA's: only its OpenCL compiler emits PTX, and only its
 * devices report cl_nv_device_attribute_query.
 * shfl.sync is a promise only NVIDIA makes: lanes of 32, synchronised by the
 * instruction itself. Anything that does not report a 32-wide warp through
 * NVIDIA's own query keeps the barriers.
 */
static bool has_warp_shuffle(cl_device_id device, bool inline_ptx)
{
    cl_uint warp = 0;
    if (!inline_ptx)
        return false;
    return clGetDeviceInfo(device, CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, NULL) ==
               CL_SUCCESS &&
           warp == 32;
}

#define GET_INFO(param, value) \
    CHECK_CL(clGetDeviceInfo(ctx->device, (param), sizeof(value), &(value), NULL), #param)

clfold_status device_read_caps(clfold_context *ctx)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct device_caps *caps = &ctx->caps;
    char *extensions = NULL;
    size_t size = 0;
    cl_device_type type = 0;
    cl_command_queue_properties queue_props = 0;
    cl_device_fp_config float_config = 0;
    cl_platform_id platform = NULL;
    char vendor[256], platform_name[256];

    GET_INFO(CL_DEVICE_NAME, caps->name);
    GET_INFO(CL_DEVICE_VENDOR, vendor);
    GET_INFO(CL_DEVICE_TYPE, type);
    GET_INFO(CL_DEVICE_MAX_COMPUTE_UNITS, caps->compute_units);
    GET_INFO(CL_DEVICE_MAX_WORK_GROUP_SIZE, caps->max_work_group_size);
    GET_INFO(CL_DEVICE_LOCAL_MEM_SIZE, caps->device_local_mem_size);
    GET_INFO(CL_DEVICE_MAX_MEM_ALLOC_SIZE, caps->max_alloc_size);
    GET_INFO(CL_DEVICE_MEM_BASE_ADDR_ALIGN, caps->base_align_bytes);
    caps->base_align_bytes /= 8; /* OpenCL gives it in bits */
    GET_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, caps->preferred_int_lanes[0]);
    GET_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, caps->preferred_int_lanes[1]);
    GET_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, caps->preferred_int_lanes[2]);
    GET_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, caps->preferred_int_lanes[3]);
    GET_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, caps->preferred_float_lanes);
    GET_INFO(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, caps->preferred_double_lanes);
    GET_INFO(CL_DEVICE_SINGLE_FP_CONFIG, float_config);
    caps->device_float_denormals = (float_config & CL_FP_DENORM) != 0;
    CHECK_CL(clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &size),
             "CL_DEVICE_EXTENSIONS");
    extensions = malloc(size + 1);
    if (extensions == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the device's extensions");
    CHECK_CL(clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, size, extensions, NULL),
             "CL_DEVICE_EXTENSIONS");
    extensions[size] = '\0';
    CHECK_CL(clGetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof queue_props,
                                   &queue_props, NULL),
             "CL_QUEUE_PROPERTIES");
    caps->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    caps->cpu_shape = caps->is_cpu && !has_loop_budget(vendor, caps->name);
    caps->has_fp64 = has_extension(extensions, "cl_khr_fp64");
    caps->has_int64_base_atomics = has_extension(extensions, "cl_khr_int64_base_atomics");
    caps->has_int64_extended_atomics = has_extension(extensions, "cl_khr_int64_extended_atomics");
    caps->inline_ptx = has_extension(extensions, "cl_nv_device_attribute_query");
    caps->device_warp_shuffle = has_warp_shuffle(ctx->device, caps->inline_ptx);
    caps->profiling = (queue_props & CL_QUEUE_PROFILING_ENABLE) != 0;
    /* cl_nv_create_buffer: NVIDIA's platform exports the function (driver 580 on the H100). */
    GET_INFO(CL_DEVICE_PLATFORM, platform);
    CHECK_CL(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name, platform_name,
                               NULL),
             "CL_PLATFORM_NAME");
    caps->prefetch_hints = has_prefetch_hints(platform_name);
    caps->split_half_loads = contains_nocase(platform_name, "portable computing language");
    caps->create_buffer_nv =
        (create_buffer_nv_fn)clGetExtensionFunctionAddressForPlatform(platform, "clCreateBufferNV");
    device_apply_settings(ctx);
cleanup:
    free(extensions);
    return status;
}

void device_apply_settings(clfold_context *ctx)
{
    struct device_caps *caps = &ctx->caps;
    const struct settings *settings = &ctx->settings;
    caps->local_mem_size = caps->device_local_mem_size;
    if (settings->local_mem_bytes != CLFOLD_PARAM_AUTO &&
        (cl_ulong)settings->local_mem_bytes < caps->local_mem_size)
        caps->local_mem_size = (cl_ulong)settings->local_mem_bytes;
    /* denorms_are_zero builds with -cl-denorms-are-zero: then no device keeps them. */
    caps->float_denormals = caps->device_float_denormals && !settings->denorms_are_zero;
    caps->warp_shuffle = caps->device_warp_shuffle && !settings->no_warp_shuffle;
}

/*
 * cl_shim.c: the OpenCL interposer of cl_shim.h: object accounting, fault
 * injection and a device without fp64, for tests only. Every entry point
 * here forwards to the ICD loader's function of the same name.
 */
#define _GNU_SOURCE /* RTLD_NEXT */

#include "cl_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* ---- state ------------------------------------------------------------------ */

static unsigned long fail_at;     /* the call that fails; 0: none */
static unsigned long calls;       /* interposed calls since shim_arm */
static const char *fired;         /* the function made to fail */
static long balance[SHIM_KINDS];
static int hide_fp64_flag;

/* Calls of one function that fail: from the environment or shim_fail_calls. */
static const char *fail_name;      /* NULL: none */
static unsigned long fail_nth;     /* 0: every call */
static unsigned long fail_seen;
static int fail_code;              /* 0: the function's usual code */
static char env_fail_name[64];
static bool trace; /* CLFOLD_SHIM_TRACE=1: every interposed call on stderr */
/* CLFOLD_SHIM_REPORT=FILE: each call made to fail appends its name to FILE, so
 * that a test of a preloaded shim can tell that the fault fired. */
static char report_path[4096];
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void set_fail(const char *name, unsigned long nth, int code)
{
    __atomic_store_n(&fail_name, NULL, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_nth, nth, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_seen, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_code, code, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_name, name, __ATOMIC_SEQ_CST);
}

static void read_environment(void)
{
    const char *hide = getenv("CLFOLD_SHIM_HIDE_FP64");
    const char *fail = getenv("CLFOLD_SHIM_FAIL");
    const char *report = getenv("CLFOLD_SHIM_REPORT");
    trace = getenv("CLFOLD_SHIM_TRACE") != NULL;
    if (report != NULL && strlen(report) < sizeof report_path)
        strcpy(report_path, report);
    else if (report != NULL)
        fprintf(stderr, "cl_shim: CLFOLD_SHIM_REPORT is too long; nothing is reported\n");
    if (hide != NULL && strcmp(hide, "1") == 0)
        __atomic_store_n(&hide_fp64_flag, 1, __ATOMIC_SEQ_CST);
    if (fail != NULL && fail[0] != '\0') {
        const char *colon = strchr(fail, ':');
        size_t n = colon != NULL ? (size_t)(colon - fail) : strlen(fail);
        if (n >= sizeof env_fail_name)
            n = sizeof env_fail_name - 1;
        memcpy(env_fail_name, fail, n);
        env_fail_name[n] = '\0';
        set_fail(env_fail_name, colon != NULL ? strtoul(colon + 1, NULL, 10) : 0, 0);
    }
}

/* The environment is read first, so that these calls win over it. */
void shim_fail_calls(const char *name, unsigned long nth, int code)
{
    pthread_once(&env_once, read_environment);
    set_fail(name, nth, code);
}

void shim_arm(unsigned long at)
{
    __atomic_store_n(&fail_at, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&calls, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fired, NULL, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_at, at, __ATOMIC_SEQ_CST);
}

unsigned long shim_calls(void) { return __atomic_load_n(&calls, __ATOMIC_SEQ_CST); }

const char *shim_fired(void) { return __atomic_load_n(&fired, __ATOMIC_SEQ_CST); }

long shim_balance(enum shim_kind kind) { return __atomic_load_n(&balance[kind], __ATOMIC_SEQ_CST); }

const char *shim_kind_name(enum shim_kind kind)
{
    static const char *const NAMES[SHIM_KINDS] = {"cl_context", "cl_command_queue", "cl_mem",
                                                  "cl_program", "cl_kernel", "cl_event"};
    return (unsigned)kind < SHIM_KINDS ? NAMES[kind] : "?";
}

void shim_hide_fp64(bool hide)
{
    pthread_once(&env_once, read_environment);
    __atomic_store_n(&hide_fp64_flag, hide ? 1 : 0, __ATOMIC_SEQ_CST);
}

static void count(enum shim_kind kind, long delta)
{
    __atomic_add_fetch(&balance[kind], delta, __ATOMIC_SEQ_CST);
}

/* One line, the function's name, appended to the report file if there is one. */
static void report_fired(const char *name)
{
    if (report_path[0] == '\0')
        return;
    FILE *file = fopen(report_path, "a");
    if (file == NULL) {
        fprintf(stderr, "cl_shim: cannot append to CLFOLD_SHIM_REPORT=%s\n", report_path);
        return;
    }
    fprintf(file, "%s\n", name);
    fclose(file);
}

/* Counts a call; true when this one is to fail, with *code set if it was chosen. */
static bool inject(const char *name, cl_int *code)
{
    pthread_once(&env_once, read_environment);
    unsigned long n = __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
    unsigned long at = __atomic_load_n(&fail_at, __ATOMIC_SEQ_CST);
    const char *chosen = __atomic_load_n(&fail_name, __ATOMIC_SEQ_CST);
    bool hit = at != 0 && n == at;
    if (!hit && chosen != NULL && strcmp(name, chosen) == 0) {
        unsigned long seen = __atomic_add_fetch(&fail_seen, 1, __ATOMIC_SEQ_CST);
        unsigned long nth = __atomic_load_n(&fail_nth, __ATOMIC_SEQ_CST);
        hit = nth == 0 || seen == nth;
        if (hit && __atomic_load_n(&fail_code, __ATOMIC_SEQ_CST) != 0)
            *code = __atomic_load_n(&fail_code, __ATOMIC_SEQ_CST);
    }
    if (hit) {
        __atomic_store_n(&fired, name, __ATOMIC_SEQ_CST);
        report_fired(name);
    }
    if (trace)
        fprintf(stderr, "cl_shim: call %lu: %s%s\n", n, name, hit ? " FAILS" : "");
    return hit;
}

/* The loader's function `name`; a shim without it cannot work at all. */
static void *next_symbol(const char *name)
{
    void *symbol = dlsym(RTLD_NEXT, name);
    if (symbol == NULL) {
        fprintf(stderr, "cl_shim: the OpenCL loader has no %s\n", name);
        abort();
    }
    return symbol;
}

/* Declares `real`, the loader's function of the enclosing name. */
#define REAL(name)                                                            \
    static __typeof__(&name) real_cache_;                                     \
    __typeof__(&name) real = __atomic_load_n(&real_cache_, __ATOMIC_ACQUIRE); \
    if (real == NULL) {                                                       \
        real = (__typeof__(&name))next_symbol(#name);                         \
        __atomic_store_n(&real_cache_, real, __ATOMIC_RELEASE);               \
    }

/* For functions that return a status. */
#define FALLIBLE(name, usual)             \
    REAL(name);                           \
    cl_int code_ = (usual);               \
    if (inject(#name, &code_))            \
        return code_

/* For functions that return an object and an error code. */
#define FALLIBLE_OBJECT(name, usual, errcode_ret) \
    REAL(name);                                   \
    cl_int code_ = (usual);                       \
    if (inject(#name, &code_)) {                  \
        if ((errcode_ret) != NULL)                \
            *(errcode_ret) = code_;               \
        return NULL;                              \
    }

/* An object that a successful call created: counted. */
#define CREATED(kind, object)  \
    do {                       \
        if ((object) != NULL)  \
            count(kind, 1);    \
    } while (0)

/* An event that a successful enqueue handed back. */
static cl_int enqueued(cl_int err, cl_event *event)
{
    if (err == CL_SUCCESS && event != NULL && *event != NULL)
        count(SHIM_EVENT, 1);
    return err;
}

/* ---- platforms and devices ------------------------------------------------- */

cl_int clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    FALLIBLE(clGetPlatformIDs, CL_OUT_OF_HOST_MEMORY);
    return real(num_entries, platforms, num_platforms);
}

cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size, void *value,
                         size_t *size_ret)
{
    FALLIBLE(clGetPlatformInfo, CL_OUT_OF_HOST_MEMORY);
    return real(platform, param, size, value, size_ret);
}

cl_int clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries,
                      cl_device_id *devices, cl_uint *num_devices)
{
    FALLIBLE(clGetDeviceIDs, CL_OUT_OF_HOST_MEMORY);
    return real(platform, type, num_entries, devices, num_devices);
}

/* Removes the word "cl_khr_fp64" (and a space after it) from an extension list. */
static void remove_fp64(char *extensions, size_t size)
{
    static const char WORD[] = "cl_khr_fp64";
    size_t n = sizeof WORD - 1;
    if (size == 0)
        return;
    extensions[size - 1] = '\0';
    for (char *at = strstr(extensions, WORD); at != NULL; at = strstr(at + 1, WORD)) {
        if ((at == extensions || at[-1] == ' ') && (at[n] == ' ' || at[n] == '\0')) {
            size_t skip = at[n] == ' ' ? n + 1 : n;
            memmove(at, at + skip, strlen(at + skip) + 1);
            return;
        }
    }
}

cl_int clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void *value,
                       size_t *size_ret)
{
    FALLIBLE(clGetDeviceInfo, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(device, param, size, value, size_ret);
    if (err != CL_SUCCESS || value == NULL || !__atomic_load_n(&hide_fp64_flag, __ATOMIC_SEQ_CST))
        return err;
    if (param == CL_DEVICE_EXTENSIONS)
        remove_fp64(value, size);
    if (param == CL_DEVICE_DOUBLE_FP_CONFIG && size >= sizeof(cl_device_fp_config))
        memset(value, 0, sizeof(cl_device_fp_config));
    if ((param == CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE ||
         param == CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE) && size >= sizeof(cl_uint))
        memset(value, 0, sizeof(cl_uint));
    return err;
}

/* ---- contexts and queues --------------------------------------------------- */

cl_context clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                           const cl_device_id *devices,
                           void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                           void *user_data, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateContext, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    cl_context context = real(properties, num_devices, devices, notify, user_data, errcode_ret);
    CREATED(SHIM_CONTEXT, context);
    return context;
}

cl_int clRetainContext(cl_context context)
{
    FALLIBLE(clRetainContext, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(context);
    if (err == CL_SUCCESS)
        count(SHIM_CONTEXT, 1);
    return err;
}

cl_int clReleaseContext(cl_context context)
{
    REAL(clReleaseContext);
    cl_int err = real(context);
    if (err == CL_SUCCESS)
        count(SHIM_CONTEXT, -1);
    return err;
}

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
                                      cl_command_queue_properties properties, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateCommandQueue, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    cl_command_queue queue = real(context, device, properties, errcode_ret);
    CREATED(SHIM_QUEUE, queue);
    return queue;
}

cl_int clRetainCommandQueue(cl_command_queue queue)
{
    FALLIBLE(clRetainCommandQueue, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(queue);
    if (err == CL_SUCCESS)
        count(SHIM_QUEUE, 1);
    return err;
}

cl_int clReleaseCommandQueue(cl_command_queue queue)
{
    REAL(clReleaseCommandQueue);
    cl_int err = real(queue);
    if (err == CL_SUCCESS)
        count(SHIM_QUEUE, -1);
    return err;
}

cl_int clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info param, size_t size,
                             void *value, size_t *size_ret)
{
    FALLIBLE(clGetCommandQueueInfo, CL_OUT_OF_HOST_MEMORY);
    return real(queue, param, size, value, size_ret);
}

cl_int clFinish(cl_command_queue queue)
{
    FALLIBLE(clFinish, CL_OUT_OF_HOST_MEMORY);
    return real(queue);
}

cl_int clFlush(cl_command_queue queue)
{
    FALLIBLE(clFlush, CL_OUT_OF_HOST_MEMORY);
    return real(queue);
}

/* ---- memory objects -------------------------------------------------------- */

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                      cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateBuffer, CL_MEM_OBJECT_ALLOCATION_FAILURE, errcode_ret);
    cl_mem mem = real(context, flags, size, host_ptr, errcode_ret);
    CREATED(SHIM_MEM, mem);
    return mem;
}

/*
 * NVIDIA's clCreateBufferNV (cl_nv_create_buffer) is no symbol of the
 * loader: clfold asks the platform for it. The shim hands out this wrapper
 * instead, so that its buffers are counted and can be made to fail too.
 */
typedef cl_mem(CL_API_CALL *create_buffer_nv_fn)(cl_context, cl_mem_flags, cl_bitfield, size_t,
                                                 void *, cl_int *);
static create_buffer_nv_fn real_create_buffer_nv;

static cl_mem CL_API_CALL shim_create_buffer_nv(cl_context context, cl_mem_flags flags,
                                                cl_bitfield flags_nv, size_t size, void *host_ptr,
                                                cl_int *errcode_ret)
{
    cl_int code_ = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    if (inject("clCreateBufferNV", &code_)) {
        if (errcode_ret != NULL)
            *errcode_ret = code_;
        return NULL;
    }
    create_buffer_nv_fn real = __atomic_load_n(&real_create_buffer_nv, __ATOMIC_ACQUIRE);
    cl_mem mem = real(context, flags, flags_nv, size, host_ptr, errcode_ret);
    CREATED(SHIM_MEM, mem);
    return mem;
}

void *clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name)
{
    REAL(clGetExtensionFunctionAddressForPlatform);
    void *found = real(platform, name);
    if (found == NULL || strcmp(name, "clCreateBufferNV") != 0)
        return found;
    __atomic_store_n(&real_create_buffer_nv, (create_buffer_nv_fn)found, __ATOMIC_RELEASE);
    return (void *)shim_create_buffer_nv;
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                         const void *info, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateSubBuffer, CL_MEM_OBJECT_ALLOCATION_FAILURE, errcode_ret);
    cl_mem mem = real(buffer, flags, type, info, errcode_ret);
    CREATED(SHIM_MEM, mem);
    return mem;
}

cl_int clRetainMemObject(cl_mem mem)
{
    FALLIBLE(clRetainMemObject, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(mem);
    if (err == CL_SUCCESS)
        count(SHIM_MEM, 1);
    return err;
}

cl_int clReleaseMemObject(cl_mem mem)
{
    REAL(clReleaseMemObject);
    cl_int err = real(mem);
    if (err == CL_SUCCESS)
        count(SHIM_MEM, -1);
    return err;
}

cl_int clGetMemObjectInfo(cl_mem mem, cl_mem_info param, size_t size, void *value, size_t *size_ret)
{
    FALLIBLE(clGetMemObjectInfo, CL_OUT_OF_HOST_MEMORY);
    return real(mem, param, size, value, size_ret);
}

/* ---- programs and kernels -------------------------------------------------- */

cl_program clCreateProgramWithSource(cl_context context, cl_uint count_, const char **strings,
                                     const size_t *lengths, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateProgramWithSource, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    cl_program program = real(context, count_, strings, lengths, errcode_ret);
    CREATED(SHIM_PROGRAM, program);
    return program;
}

cl_program clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                     const cl_device_id *devices, const size_t *lengths,
                                     const unsigned char **binaries, cl_int *binary_status,
                                     cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateProgramWithBinary, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    cl_program program = real(context, num_devices, devices, lengths, binaries, binary_status,
                              errcode_ret);
    CREATED(SHIM_PROGRAM, program);
    return program;
}

cl_int clRetainProgram(cl_program program)
{
    FALLIBLE(clRetainProgram, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(program);
    if (err == CL_SUCCESS)
        count(SHIM_PROGRAM, 1);
    return err;
}

cl_int clReleaseProgram(cl_program program)
{
    REAL(clReleaseProgram);
    cl_int err = real(program);
    if (err == CL_SUCCESS)
        count(SHIM_PROGRAM, -1);
    return err;
}

cl_int clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *devices,
                      const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                      void *user_data)
{
    FALLIBLE(clBuildProgram, CL_BUILD_PROGRAM_FAILURE);
    return real(program, num_devices, devices, options, notify, user_data);
}

cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_program_build_info param,
                             size_t size, void *value, size_t *size_ret)
{
    FALLIBLE(clGetProgramBuildInfo, CL_OUT_OF_HOST_MEMORY);
    return real(program, device, param, size, value, size_ret);
}

cl_int clGetProgramInfo(cl_program program, cl_program_info param, size_t size, void *value,
                        size_t *size_ret)
{
    FALLIBLE(clGetProgramInfo, CL_OUT_OF_HOST_MEMORY);
    return real(program, param, size, value, size_ret);
}

cl_kernel clCreateKernel(cl_program program, const char *name, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateKernel, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    cl_kernel kernel = real(program, name, errcode_ret);
    CREATED(SHIM_KERNEL, kernel);
    return kernel;
}

cl_int clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel *kernels,
                                cl_uint *num_kernels_ret)
{
    cl_uint made = 0;
    FALLIBLE(clCreateKernelsInProgram, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(program, num_kernels, kernels, &made);
    if (err == CL_SUCCESS && kernels != NULL)
        count(SHIM_KERNEL, (long)made);
    if (num_kernels_ret != NULL)
        *num_kernels_ret = made;
    return err;
}

cl_int clRetainKernel(cl_kernel kernel)
{
    FALLIBLE(clRetainKernel, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(kernel);
    if (err == CL_SUCCESS)
        count(SHIM_KERNEL, 1);
    return err;
}

cl_int clReleaseKernel(cl_kernel kernel)
{
    REAL(clReleaseKernel);
    cl_int err = real(kernel);
    if (err == CL_SUCCESS)
        count(SHIM_KERNEL, -1);
    return err;
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value)
{
    FALLIBLE(clSetKernelArg, CL_OUT_OF_HOST_MEMORY);
    return real(kernel, index, size, value);
}

cl_int clGetKernelInfo(cl_kernel kernel, cl_kernel_info param, size_t size, void *value,
                       size_t *size_ret)
{
    FALLIBLE(clGetKernelInfo, CL_OUT_OF_HOST_MEMORY);
    return real(kernel, param, size, value, size_ret);
}

cl_int clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                cl_kernel_work_group_info param, size_t size, void *value,
                                size_t *size_ret)
{
    FALLIBLE(clGetKernelWorkGroupInfo, CL_OUT_OF_HOST_MEMORY);
    return real(kernel, device, param, size, value, size_ret);
}

/* ---- commands and events --------------------------------------------------- */

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                              const size_t *offset, const size_t *global, const size_t *local,
                              cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueNDRangeKernel, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, kernel, dims, offset, global, local, num_events, wait_list, event),
                    event);
}

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                           size_t size, void *ptr, cl_uint num_events, const cl_event *wait_list,
                           cl_event *event)
{
    FALLIBLE(clEnqueueReadBuffer, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, buffer, blocking, offset, size, ptr, num_events, wait_list, event),
                    event);
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                            size_t size, const void *ptr, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueWriteBuffer, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, buffer, blocking, offset, size, ptr, num_events, wait_list, event),
                    event);
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                           size_t dst_offset, size_t size, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueCopyBuffer, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, src, dst, src_offset, dst_offset, size, num_events, wait_list,
                         event),
                    event);
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                           size_t pattern_size, size_t offset, size_t size, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueFillBuffer, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, buffer, pattern, pattern_size, offset, size, num_events, wait_list,
                         event),
                    event);
}

void *clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                         cl_map_flags flags, size_t offset, size_t size, cl_uint num_events,
                         const cl_event *wait_list, cl_event *event, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clEnqueueMapBuffer, CL_MAP_FAILURE, errcode_ret);
    void *mapped = real(queue, buffer, blocking, flags, offset, size, num_events, wait_list, event,
                        errcode_ret);
    if (mapped != NULL)
        enqueued(CL_SUCCESS, event);
    return mapped;
}

cl_int clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void *mapped,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueUnmapMemObject, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, mem, mapped, num_events, wait_list, event), event);
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events,
                                   const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueMarkerWithWaitList, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, num_events, wait_list, event), event);
}

cl_int clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event)
{
    FALLIBLE(clEnqueueBarrierWithWaitList, CL_OUT_OF_HOST_MEMORY);
    return enqueued(real(queue, num_events, wait_list, event), event);
}

cl_int clWaitForEvents(cl_uint num_events, const cl_event *events)
{
    FALLIBLE(clWaitForEvents, CL_OUT_OF_HOST_MEMORY);
    return real(num_events, events);
}

cl_event clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
    FALLIBLE_OBJECT(clCreateUserEvent, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    cl_event event = real(context, errcode_ret);
    CREATED(SHIM_EVENT, event);
    return event;
}

cl_int clSetUserEventStatus(cl_event event, cl_int status)
{
    FALLIBLE(clSetUserEventStatus, CL_OUT_OF_HOST_MEMORY);
    return real(event, status);
}

cl_int clRetainEvent(cl_event event)
{
    FALLIBLE(clRetainEvent, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real(event);
    if (err == CL_SUCCESS)
        count(SHIM_EVENT, 1);
    return err;
}

cl_int clReleaseEvent(cl_event event)
{
    REAL(clReleaseEvent);
    cl_int err = real(event);
    if (err == CL_SUCCESS)
        count(SHIM_EVENT, -1);
    return err;
}

cl_int clGetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t size, void *value,
                               size_t *size_ret)
{
    FALLIBLE(clGetEventProfilingInfo, CL_OUT_OF_HOST_MEMORY);
    return real(event, param, size, value, size_ret);
}

cl_int clGetEventInfo(cl_event event, cl_event_info param, size_t size, void *value,
                      size_t *size_ret)
{
    FALLIBLE(clGetEventInfo, CL_OUT_OF_HOST_MEMORY);
    return real(event, param, size, value, size_ret);
}

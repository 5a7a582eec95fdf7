/*
 * cl_shim.h: an interposer on the OpenCL API for the fault and resource
 * tests. Linked into a test (with ENABLE_EXPORTS, so that libclfold's calls
 * bind to it) or LD_PRELOADed into the runner (as libclfold_cl_shim.so), it
 * defines the OpenCL entry points that clfold calls, forwards each to the
 * ICD loader (dlsym(RTLD_NEXT)), and on the way
 *   - counts every OpenCL object created or retained and released, by kind,
 *     so that a test can check that nothing is left once everything is
 *     destroyed (a leaked cl_mem or cl_event shows as a balance above 0);
 *   - makes the Nth call fail with an OpenCL error without calling the
 *     driver (CL_MEM_OBJECT_ALLOCATION_FAILURE for buffers,
 *     CL_BUILD_PROGRAM_FAILURE for builds, CL_OUT_OF_HOST_MEMORY otherwise);
 *   - can hide cl_khr_fp64 from CL_DEVICE_EXTENSIONS (and zero
 *     CL_DEVICE_DOUBLE_FP_CONFIG), so that POCL, which has doubles, looks to
 *     clfold like a device without them.
 * Releases never fail: a caller could do nothing about it.
 *
 * In a preloaded shim the environment configures it:
 *   CLFOLD_SHIM_HIDE_FP64=1      hide cl_khr_fp64
 *   CLFOLD_SHIM_FAIL=NAME[:N]    the Nth call (every call without :N) of
 *                                the function NAME fails
 *   CLFOLD_SHIM_TRACE=1          every interposed call on stderr
 *   CLFOLD_SHIM_REPORT=FILE      each call made to fail appends its name to FILE
 */
#ifndef CLFOLD_TEST_CL_SHIM_H
#define CLFOLD_TEST_CL_SHIM_H

#include <stdbool.h>

enum shim_kind { SHIM_CONTEXT, SHIM_QUEUE, SHIM_MEM, SHIM_PROGRAM, SHIM_KERNEL, SHIM_EVENT, SHIM_KINDS };

/* Makes the fail_at-th interposed call from now on fail; 0 disarms. Resets the count. */
void shim_arm(unsigned long fail_at);

/* Interposed calls (other than releases) since the last shim_arm. */
unsigned long shim_calls(void);

/* The function whose call was made to fail since the last shim_arm; NULL if none. */
const char *shim_fired(void);

/* Creations and retains minus releases of objects of `kind`, since the start. */
long shim_balance(enum shim_kind kind);
const char *shim_kind_name(enum shim_kind kind);

/* Every kind's balance at one moment: a leak shows as a balance higher later. */
struct shim_balances {
    long of[SHIM_KINDS];
};

static inline struct shim_balances shim_balances_now(void)
{
    struct shim_balances b;
    for (int k = 0; k < SHIM_KINDS; k++)
        b.of[k] = shim_balance((enum shim_kind)k);
    return b;
}

/*
 * Makes calls of the function `name` fail from now on: the nth one (counted
 * from this call), or every one when nth is 0, with `code` (0: the usual
 * code). NULL stops it. `name` must outlive its use (a string literal).
 */
void shim_fail_calls(const char *name, unsigned long nth, int code);

/* Hides cl_khr_fp64 from the device queries that follow. */
void shim_hide_fp64(bool hide);

#endif /* CLFOLD_TEST_CL_SHIM_H */

/*
 * atomic.cl: the naive baseline of the workshop seed. Every work-item folds
 * its one element straight into a single global value with an atomic
 * operation: no local memory, no tree, and all work-items contending for one
 * address. The order of the updates is whatever the hardware makes it, so a
 * float result varies from run to run.
 *
 * The value lives in ATOM_T, ACC_T widened to 32 bits at least because
 * OpenCL has no 8- or 16-bit atomics; narrow_word narrows it afterwards.
 * Flags: INLINE_PTX on NVIDIA (native float atomic add); ATOM_T; ATOM_64 when it is 64 bits wide (cl_khr_int64_base_atomics
 * required), and HAS_INT64_EXTENDED_ATOMICS when the device has those.
 */
#ifndef ATOM_T
#define ATOM_T ACC_T
#endif
#ifndef INLINE_PTX
#define INLINE_PTX 0
#endif

#ifdef ATOM_64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#if HAS_INT64_EXTENDED_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif
#endif

#ifdef ATOM_64
#define ATOM_BITS ulong
#define ATOM_CMPXCHG atom_cmpxchg
#else
#define ATOM_BITS uint
#define ATOM_CMPXCHG atomic_cmpxchg
#endif

#if ACC_FLOAT
#define TO_BITS(x) CONCAT(as_, ATOM_BITS)(x)
#define FROM_BITS(x) CONCAT(as_, ATOM_T)(x)
#else
#define TO_BITS(x) ((ATOM_BITS)(x))
#define FROM_BITS(x) ((ATOM_T)(x))
#endif

/*
 * Folds `value` into *target with compare-and-swap: works for any operator.
 * A fold that leaves the value as it is (most of a min or max) writes
 * nothing, so those work-items do not join the queue on the one address.
 */
inline void atomic_fold_cas(volatile __global ATOM_T *target, ACC_T value)
{
    volatile __global ATOM_BITS *bits = (volatile __global ATOM_BITS *)target;
    /* OpenCL 1.2 has no atomic load; a plain read would race with the swaps. */
    ATOM_BITS seen = ATOM_CMPXCHG(bits, (ATOM_BITS)0, (ATOM_BITS)0);
    for (;;) {
        const ATOM_BITS merged = TO_BITS((ATOM_T)combine((ACC_T)FROM_BITS(seen), value));
        if (merged == seen)
            break;
        const ATOM_BITS before = ATOM_CMPXCHG(bits, seen, merged);
        if (before == seen)
            break;
        seen = before;
    }
}

#if INLINE_PTX
/*
 * NVIDIA's native floating-point atomic add (CUDA's atomicAdd), which
 * OpenCL 1.2 lacks: compare-and-swap on one address from millions of
 * work-items takes minutes on a GPU.
 */
inline void atomic_add_float(volatile __global ATOM_T *target, ACC_T value)
{
#if ACC_FLOAT == 64
    asm volatile("red.global.add.f64 [%0], %1;" : : "l"(target), "d"(value) : "memory");
#else
    asm volatile("red.global.add.f32 [%0], %1;" : : "l"(target), "f"(value) : "memory");
#endif
}
#endif

/*
 * The device's own atomic where OpenCL has one (the operator's ATOMIC_32 or
 * ATOMIC_64, defs.cl), compare-and-swap otherwise.
 * Narrow integers use the 32-bit atomics on their widened value: min, max
 * and the bitwise operators commute with sign or zero extension.
 */
inline void atomic_fold(volatile __global ATOM_T *target, ACC_T value)
{
#if ACC_FLOAT && OP_ADDS && INLINE_PTX
    atomic_add_float(target, value);
#elif ACC_FLOAT || !defined(ATOMIC_32)
    atomic_fold_cas(target, value);
#elif !defined(ATOM_64)
    ATOMIC_32(target, value);
#elif !ATOMIC_64_EXTENDED || HAS_INT64_EXTENDED_ATOMICS
    ATOMIC_64(target, value);
#else
    atomic_fold_cas(target, value);
#endif
}

/* Its value is the word at byte `at` of out, which the host filled with the identity; never `finish`. */
__kernel void reduce_atomic(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                            ulong at, uint finish)
{
    const size_t i = get_global_id(0);
    if (i < n)
        atomic_fold((volatile __global ATOM_T *)(out + at), load_in(in, offset + i));
}

/* The word narrowed back to ACC_T, written as any pass's value (n is 1). */
__kernel void narrow_word(__global const ATOM_T *in, ulong offset, ulong n, __global uchar *out,
                          ulong at, uint finish)
{
    write_value(out, at, 0, finish, (ACC_T)in[offset]);
}

#!/usr/bin/env python3
"""POCL 3.1 (Debian 12) crashes when a work-group's private values outgrow a worker thread's stack.

    /usr/bin/python3 tests/known-bugs/pocl_group_stack.py 4096       # SIGSEGV
    /usr/bin/python3 tests/known-bugs/pocl_group_stack.py 1024       # "right"
    (ulimit -s 65536; /usr/bin/python3 tests/known-bugs/pocl_group_stack.py 4096)   # "right"

POCL's CPU devices run all work-items of a group on one thread and keep
each work-item's values that live across a barrier in arrays on that
thread's stack, whose size is RLIMIT_STACK (8 MiB by default). Here each
of 4096 work-items keeps 280 words (2240 bytes, 9 MiB for the group)
across a barrier: the process dies with SIGSEGV at a jump to address 0.
POCL still reports 4096 as the kernel's work-group size and returns no
error. clfold's K7 with 4096 exact double states (280 bytes each, several
copies live) crashes the same way, and gives the right sum with 64 MiB
stacks. So src/reduce/tree.c keeps a ladder group's accumulator values
within 1 MiB on CPU devices and refuses larger blocks with
CLFOLD_ERROR_INVALID_BLOCK_SIZE. Arguments: BLOCK [WORDS] (default 4096 280).
Not part of ctest: it crashes. Needs python3-pyopencl and python3-numpy.
"""
import sys
import numpy as np, pyopencl as cl
src = """
typedef struct { ulong word[WORDS]; } state_t;
__kernel void k(__global const ulong *in, __global ulong *out, __local ulong *slot)
{
    const uint tid = get_local_id(0);
    state_t s;
    for (int i = 0; i < WORDS; i++)
        s.word[i] = in[get_global_id(0)] + i;
    slot[tid] = s.word[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong sum = slot[(tid + 1) % get_local_size(0)];
    for (int i = 0; i < WORDS; i++)
        sum += s.word[i];
    out[get_global_id(0)] = sum;
}
"""
block = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
words = int(sys.argv[2]) if len(sys.argv) > 2 else 280
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
x = np.arange(block, dtype=np.uint64)
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
o = cl.Buffer(ctx, mf.WRITE_ONLY, 8 * block)
cl.Program(ctx, src).build(options=["-DWORDS=%d" % words]).k(q, (block,), (block,), a, o, cl.LocalMemory(8 * block))
r = np.empty(block, np.uint64)
cl.enqueue_copy(q, r, o)
want = (x + 1) % block + words * x + words * (words - 1) // 2
print("right" if (r == want).all() else "wrong", r[:4])

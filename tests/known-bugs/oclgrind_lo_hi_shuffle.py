#!/usr/bin/env python3
"""Oclgrind 21.10 (Debian 12) crashes under --uninitialized on .lo/.hi halving.

    oclgrind --uninitialized /usr/bin/python3 tests/known-bugs/oclgrind_lo_hi_shuffle.py

prints nothing and dies with SIGSEGV (a memcpy inside
oclgrind::Uninitialized::instructionExecuted); without --uninitialized it
prints [120 376 632 888], the right sums. Halving by swizzles instead
(v.s01234567 + v.s89abcdef, ...) crashes the same way. cl/reduce/gpu.cl's 8- and 16-bit sums
therefore add a vector's lanes through a private array, and its pairwise
float sums are named before they are folded (the second pattern crashes the
same way; tests/oclgrind_driver.c runs both). The CPU shape's exact sums
or their lanes by swizzle halving (cl/reduce/cpu.cl OR_LANES): a loop over
a private array instead made them 15-30% slower on POCL 3.1, so their
Oclgrind test runs without --uninitialized. Not part of ctest: it crashes.
Needs python3-pyopencl and python3-numpy.
"""
import numpy as np, pyopencl as cl
src = """
__kernel void k(__global const uchar16 *in, __global int *out)
{
    int16 v = convert_int16(in[get_global_id(0)]);
    int8 a = v.lo + v.hi;
    int4 b = a.lo + a.hi;
    int2 c = b.lo + b.hi;
    out[get_global_id(0)] = c.x + c.y;
}
"""
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
x = np.arange(64, dtype=np.uint8)
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
o = cl.Buffer(ctx, mf.WRITE_ONLY, 16)
cl.Program(ctx, src).build().k(q, (4,), (4,), a, o)
r = np.empty(4, np.int32); cl.enqueue_copy(q, r, o); print(r)

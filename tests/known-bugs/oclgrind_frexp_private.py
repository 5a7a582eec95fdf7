#!/usr/bin/env python3
"""Oclgrind 21.10 (Debian 12) stops under --uninitialized at frexp's exponent.

    oclgrind --uninitialized /usr/bin/python3 tests/known-bugs/oclgrind_frexp_private.py

reports "OCLGRIND FATAL ERROR (./src/plugins/Uninitialized.cpp:194) Work item
needed to access private memory!" at the frexp call and the kernel's results
are lost; without --uninitialized it prints [0.75 2.], frexp(3) = 0.75 * 2^2.
Under ctest's Oclgrind flags the oclgrind driver then saw float products
(cl/core/defs.cl's scaled pairs, split with frexp) come out wrong, so the
kernels split a float from its bits instead (scaled_split). Not part of
ctest: it stops Oclgrind. Needs python3-pyopencl and python3-numpy.
"""
import numpy as np, pyopencl as cl
src = """
__kernel void k(__global const float *in, __global float *out)
{
    int e;
    const float m = frexp(in[get_global_id(0)], &e);
    out[2 * get_global_id(0)] = m;
    out[2 * get_global_id(0) + 1] = (float)e;
}
"""
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
x = np.array([3.0], dtype=np.float32)
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
o = cl.Buffer(ctx, mf.WRITE_ONLY, 8)
cl.Program(ctx, src).build().k(q, (1,), (1,), a, o)
r = np.empty(2, np.float32); cl.enqueue_copy(q, r, o); print(r)

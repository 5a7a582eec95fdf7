#!/usr/bin/env python3
"""Oclgrind 21.10 (Debian 12) reports a float pair built from a loaded value
and a constant as uninitialized under --uninitialized.

    oclgrind --uninitialized /usr/bin/python3 tests/known-bugs/oclgrind_pair_poison.py

reports "Uninitialized value written to global memory" at the store of
(float2)(x, 0.0f): LLVM builds the pair by inserting x into a vector whose
first lane is poison, <float poison, float 0.0>, and Oclgrind takes the
poison lane as uninitialized although the insert replaces it. It prints the
right pairs all the same. A select of a splat, select((float2)0,
(float2)(x), (int2)(-1, 0)), gives (x, 0) without the poison, so
cl/core/defs.cl builds compensated float pairs that way (the GPU scan tiles
stage them in local memory, where the report first showed). Double pairs
fold back to the poison form; no test stores one straight from an element.
Not part of ctest: it reports an error that is not there.
Needs python3-pyopencl and python3-numpy.
"""
import numpy as np, pyopencl as cl
src = """
__kernel void k(__global const float *in, __global float2 *out)
{
    const size_t i = get_global_id(0);
    out[i] = (float2)(in[i], 0.0f);
}
"""
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
x = np.arange(4, dtype=np.float32)
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
o = cl.Buffer(ctx, mf.WRITE_ONLY, 32)
cl.Program(ctx, src).build().k(q, (4,), (4,), a, o)
r = np.empty(8, np.float32); cl.enqueue_copy(q, r, o); print(r.reshape(4, 2))

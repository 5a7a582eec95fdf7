#!/usr/bin/env python3
"""POCL 3.1 (Debian 12) crashes on vload_half8 from an address that is not 16-byte aligned.

    /usr/bin/python3 tests/known-bugs/pocl_vload_half8.py 8 1     # SIGSEGV
    /usr/bin/python3 tests/known-bugs/pocl_vload_half8.py 8 0     # "right"
    /usr/bin/python3 tests/known-bugs/pocl_vload_half8.py 4 1     # "right"

vload_halfN asks only for a half's alignment (OpenCL C 1.2, 6.12.7). Here
one work-item folds rows of halves with fmax, each row loaded by
vload_halfN from element START + r * PITCH: with N = 8 and an address 2
bytes past a 16-byte boundary, the process dies with SIGSEGV (on AVX2 and
AVX-512 hosts alike). A float8 built from two vload_half4s loads from any
address. The CPU shape's columns of halves with 8 lanes (AVX2's floats)
would crash this way where the column count is not a multiple of 8, so
cl/core/defs.cl's load_halves builds vectors wider than 4 from
vload_half4s. Arguments: N START [PITCH ROWS] (defaults 8 1 8 1).
Not part of ctest: it crashes. Needs python3-pyopencl and python3-numpy.
"""
import sys
import numpy as np, pyopencl as cl
width = int(sys.argv[1]) if len(sys.argv) > 1 else 8
start = int(sys.argv[2]) if len(sys.argv) > 2 else 1
pitch = int(sys.argv[3]) if len(sys.argv) > 3 else 8
rows = int(sys.argv[4]) if len(sys.argv) > 4 else 1
src = """
__kernel void k(__global const half *in, ulong start, ulong pitch, __global float *out)
{
    VFLOAT acc = (VFLOAT)(-INFINITY);
    for (int r = 0; r < ROWS; r++)
        acc = fmax(acc, LOAD(0, in + start + r * pitch));
    STORE(acc, 0, out);
}
"""
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
x = np.arange(rows * pitch + start + width, dtype=np.float16)
a = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
o = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4 * width)
options = ["-DROWS=%d" % rows, "-DVFLOAT=float%d" % width, "-DLOAD=vload_half%d" % width,
           "-DSTORE=vstore%d" % width]
cl.Program(ctx, src).build(options=options).k(q, (1,), (1,), a, np.uint64(start), np.uint64(pitch), o)
r = np.empty(width, np.float32)
cl.enqueue_copy(q, r, o)
want = x[start + (rows - 1) * pitch:][:width].astype(np.float32)
print("right" if (r == want).all() else "wrong", r)

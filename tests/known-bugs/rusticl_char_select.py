#!/usr/bin/env python3
"""Mesa 22.3.6's llvmpipe (rusticl) gives 0 for a signed char select's constant arm.

    RUSTICL_ENABLE=llvmpipe /usr/bin/python3 tests/known-bugs/rusticl_char_select.py

`out[i] = i < n ? in[i] : (char)127` with n = 2 over 16 work-items gives
[46 46 0 0 ...] on llvmpipe (LLVM 15.0.6) where 127 belongs; the same with
short, with uchar, or written as an if gives the right values, and POCL 3.1
is right for all of them. Loading every element past the end so, as its
identity, would make the ladder's (K1..K6) signed 8-bit min, max and and
come out 0 there, and the CPU shape's int8 `and` of 1 to 15 elements,
whose short vectors are padded so. So cl/core/defs.cl's load_or_identity
and cl/reduce/cpu.cl's lane_or_pad write the if. Needs Debian 12's
mesa-opencl-icd, python3-pyopencl and python3-numpy.
"""
import os

os.environ.setdefault("RUSTICL_ENABLE", "llvmpipe")
import numpy as np, pyopencl as cl

src = """
__kernel void select_char(__global const char *in, ulong n, __global char *out)
{
    const size_t i = get_global_id(0);
    out[i] = i < n ? in[i] : (char)127;
}
__kernel void if_char(__global const char *in, ulong n, __global char *out)
{
    const size_t i = get_global_id(0);
    char v = (char)127;
    if (i < n)
        v = in[i];
    out[i] = v;
}
"""
for platform in cl.get_platforms():
    if not platform.get_devices():  # Mesa's Clover lists none without a GPU
        continue
    device = platform.get_devices()[0]
    ctx = cl.Context([device])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, src).build()
    x = np.full(16, 46, np.int8)
    a = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    for kernel in (prg.select_char, prg.if_char):
        o = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
        kernel(q, (16,), None, a, np.uint64(2), o)
        r = np.empty(16, np.int8)
        cl.enqueue_copy(q, r, o)
        print(f"{device.name}: {kernel.function_name}: {r}")

#!/usr/bin/env python3
"""Oclgrind 21.10 (Debian 12) loses a negative half NaN or -inf in gpu.cl's conversion.

    oclgrind /usr/bin/python3 tests/known-bugs/oclgrind_half_nan_sign.py

cl/reduce/gpu.cl's half_bits_to_float, run alone on five halves. POCL 3.1
prints the right float bits [0x7fc00000 0xffc00000 0xff802000 0x7f800000
0xff800000]: +NaN, -NaN, a -NaN with a payload, +inf, -inf. Oclgrind
prints 0xc7c00000, 0xc7802000 and 0xc7800000 for the three negative ones,
numbers (-98304, -65600, -65536): clang compiles the exponent test to a trunc to
i5 and a switch on it, and Oclgrind keeps the half's sign bit in that i5's
bit 5, so the "exponent is 31" branch never runs for negative halves. Not a
library bug: tests/test_arg.c and tests/oclgrind_driver.c keep negative NaN
and -inf out of half data under Oclgrind (the other halves' NaN and
infinities still run), and test everything on POCL. Not part of ctest.
Needs python3-pyopencl and python3-numpy.
"""
import numpy as np, pyopencl as cl
src = """
inline float half_bits_to_float(uint bits)
{
    const uint sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
    if (exponent == 0x1fu)
        return as_float(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        const float magnitude = (float)mantissa * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    return as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
__kernel void k(__global const ushort *in, __global uint *out)
{
    out[get_global_id(0)] = as_uint(half_bits_to_float(in[get_global_id(0)]));
}
"""
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
x = np.array([0x7e00, 0xfe00, 0xfc01, 0x7c00, 0xfc00], dtype=np.uint16)
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
o = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * len(x))
cl.Program(ctx, src).build().k(q, (len(x),), None, a, o)
r = np.empty(len(x), np.uint32); cl.enqueue_copy(q, r, o); print([hex(v) for v in r])

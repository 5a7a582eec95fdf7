#!/usr/bin/env python3
"""Mesa 22.3.6's llvmpipe (rusticl, Debian 12) stops loops after 65535 rounds in all.

    RUSTICL_ENABLE=llvmpipe /usr/bin/python3 tests/known-bugs/rusticl_loop_budget.py

prints, for llvmpipe, "wrong" and [[65535, 1], [1, 1]]; on POCL 3.1 "right" and
[[70000, 10], [1, 10]]. Each row is (rounds of a first loop, rounds of a
second loop of 10, a kernel argument). gallivm, which compiles llvmpipe's kernels, gives a
kernel one budget of 65535 loop back edges, shared by all its loops
(LP_MAX_TGSI_LOOP_ITERATIONS in gallivm/lp_bld_limits.h, checked in
lp_exec_endloop), and does not say when it runs out: the loop that spends
it stops, and every later loop runs its body once. Row 1: one work-item's
first loop of 70000. Row 2: a work-group of one work-item, whose first
loop runs once; but llvmpipe runs the group in 8 lanes, the 7 empty ones
with ids 1..7, and they drive the loops too: there n - id wraps round, the
loop runs until the budget is spent, and the real work-item's second loop
runs once.

The CPU shape (cl/reduce/cpu.cl) would hit both: its groups are of one
work-item, so end - begin would wrap in the empty lanes past the array,
and its pairwise fold of the lanes stop after one pair (3 ones summing to
2); and a work-item's chunk of more than about 4000 rounds (about 131072
int32 values) spends the budget by itself. So reduce_cpu gives a work-item
past the array an empty chunk, and on llvmpipe the auto path takes the GPU
shape (src/core/device.c, caps.cpu_shape), whose work-items loop a few
rounds each. Not part of ctest: rusticl is not installed in CI. Needs
mesa-opencl-icd, python3-pyopencl and python3-numpy.
"""
import os
import numpy as np, pyopencl as cl
src = """
__kernel void k(ulong n, ulong rounds, __global long *out)
{
    long a = 0, b = 0;
    const ulong m = n - get_global_id(0);
    for (ulong i = 0; i < m; i++)
        a++;
    for (ulong i = 0; i < rounds; i++)  /* an argument, so not unrolled */
        b++;
    out[0] = a;
    out[1] = b;
}
"""
os.environ.setdefault("RUSTICL_ENABLE", "llvmpipe")
for platform in cl.get_platforms():
    for device in platform.get_devices():
        ctx = cl.Context([device])
        q = cl.CommandQueue(ctx)
        prg = cl.Program(ctx, src).build()
        o = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 16)
        rows = []
        for n, want in ((70000, 70000), (1, 1)):
            r = np.zeros(2, np.int64)
            prg.k(q, (1,), (1,), np.uint64(n), np.uint64(10), o)
            cl.enqueue_copy(q, r, o)
            rows.append((r.tolist(), [want, 10]))
        right = all(got == want for got, want in rows)
        print(device.name, "right" if right else "wrong", [got for got, _ in rows])

#!/usr/bin/env python3
"""pyopencl_peer.py KIND TYPE N...: a PyOpenCL peer of `clfold bench`.

KIND is reduction_kernel (pyopencl.reduction.ReductionKernel) or array_sum
(pyopencl.array.sum). Runs on the first device whose name or platform's name contains $CLFOLD_DEVICE
(default: the first CPU device, as POCL on CI), sums the bench's data (element i
is (i % 1000) / 1000 for float and double, i % 1000 - 500 for int32, i % 100 - 50
for int8; integer sums are 64-bit, as clfold's; any other type is refused), and
prints one JSON object per size: {"peer", "type", "n", "best_ms", "median_ms", "result"}, the time
being one call with its result on the host (wall clock, best after warm-up).
Needs python3-pyopencl and python3-numpy (Debian), so run it with /usr/bin/python3.
It times sums only: `--op OP` (as `clfold bench -o argmax` passes it) for any
other operator is refused (exit 2), so no row is ever another operator's time.
"""
import json
import os
import re
import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

RUNS = 15

# TYPE: (element dtype, its OpenCL C name, the sum's dtype, the data from k = arange(n))
TYPES = {
    "float": (np.float32, "float", np.float32, lambda k: (k % 1000) / 1000),
    "double": (np.float64, "double", np.float64, lambda k: (k % 1000) / 1000),
    "int32": (np.int32, "int", np.int64, lambda k: k % 1000 - 500),
    "int8": (np.int8, "char", np.int64, lambda k: k % 100 - 50),
}


def device():
    want = os.environ.get("CLFOLD_DEVICE", "").lower()
    if re.fullmatch(r"[0-9]+:[0-9]+", want):  # P:D, as `clfold bench` sets it beside each device
        p, d = (int(x) for x in want.split(":"))
        return cl.get_platforms()[p].get_devices()[d]
    for platform in cl.get_platforms():
        for dev in platform.get_devices():
            named = want and want in f"{dev.name} {platform.name}".lower()
            if named or (not want and dev.type & cl.device_type.CPU):
                return dev
    return cl.get_platforms()[0].get_devices()[0]


def main():
    if len(sys.argv) >= 6 and sys.argv[-2] == "--op":
        if sys.argv[-1] != "sum":
            raise SystemExit(f"pyopencl_peer: times sums only, not {sys.argv[-1]}")
        del sys.argv[-2:]
    if len(sys.argv) < 4 or sys.argv[1] not in ("reduction_kernel", "array_sum") \
            or sys.argv[2] not in TYPES:
        raise SystemExit("usage: pyopencl_peer.py reduction_kernel|array_sum "
                         + "|".join(TYPES) + " N...")
    kind, dtype = sys.argv[1], sys.argv[2]
    np_type, c_type, out_type, values = TYPES[dtype]
    ctx = cl.Context([device()])
    queue = cl.CommandQueue(ctx)
    rk = ReductionKernel(ctx, out_type, neutral="0", reduce_expr="a+b", map_expr="x[i]",
                         arguments=f"__global const {c_type} *x")
    for n in map(int, sys.argv[3:]):
        host = values(np.arange(n, dtype=np.int64)).astype(np_type)
        x = cla.to_device(queue, host)
        if kind == "reduction_kernel":
            call = lambda: rk(x).get()  # noqa: E731
        else:
            call = lambda: cla.sum(x, dtype=out_type).get()  # noqa: E731
        for _ in range(2):
            result = call()
        times = []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            result = call()
            times.append((time.perf_counter() - t0) * 1e3)
        print(json.dumps({"peer": "pyopencl_" + kind, "type": dtype, "n": n, "best_ms": min(times),
                          "median_ms": statistics.median(times), "result": float(result)}), flush=True)


if __name__ == "__main__":
    main()

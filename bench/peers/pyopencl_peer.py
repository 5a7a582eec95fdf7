#!/usr/bin/env python3
"""pyopencl_peer.py KIND TYPE N...: a PyOpenCL peer of `clfold bench`.

KIND is reduction_kernel (pyopencl.reduction.ReductionKernel) or array_sum
(pyopencl.array.sum). Runs on the first device whose name contains $CLFOLD_DEVICE
(default: the first CPU device, as POCL on CI), sums the bench's data (element i
is (i % 1000) / 1000 for float, i % 1000 - 500 for int32), and prints one JSON
object per size: {"peer", "type", "n", "best_ms", "median_ms", "result"}, the time
being one call with its result on the host (wall clock, best after warm-up).
Needs python3-pyopencl and python3-numpy (Debian), so run it with /usr/bin/python3.
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

RUNS = 15


def device():
    want = os.environ.get("CLFOLD_DEVICE", "").lower()
    for platform in cl.get_platforms():
        for dev in platform.get_devices():
            if (want and want in dev.name.lower()) or (not want and dev.type & cl.device_type.CPU):
                return dev
    return cl.get_platforms()[0].get_devices()[0]


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("reduction_kernel", "array_sum"):
        raise SystemExit("usage: pyopencl_peer.py reduction_kernel|array_sum float|int32 N...")
    kind, dtype = sys.argv[1], sys.argv[2]
    ctx = cl.Context([device()])
    queue = cl.CommandQueue(ctx)
    np_type, c_type = (np.float32, "float") if dtype == "float" else (np.int32, "int")
    out_type = np.float32 if dtype == "float" else np.int64
    rk = ReductionKernel(ctx, out_type, neutral="0", reduce_expr="a+b", map_expr="x[i]",
                         arguments=f"__global const {c_type} *x")
    for n in map(int, sys.argv[3:]):
        k = np.arange(n, dtype=np.int64) % 1000
        host = (k / 1000).astype(np.float32) if dtype == "float" else (k - 500).astype(np.int32)
        x = cla.to_device(queue, host)
        call = (lambda: rk(x).get()) if kind == "reduction_kernel" else (lambda: cla.sum(x).get())
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

#!/usr/bin/env python3
"""pyopencl_peer.py KIND TYPE N... [--scan MODE]: a PyOpenCL peer of `clfold bench`.

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

Scans, as `clfold bench --scan` passes them after the sizes:
  pyopencl_peer.py generic_scan TYPE N... --scan inclusive|exclusive
times pyopencl.scan.GenericScanKernel (input x[i], scan a+b, output item or
prev_item) from the device array into another of NumPy's cumsum type (int8
and int32 summed in int64), one call and a queue.finish() (the output stays
on the device); every output is checked against the exact prefix of the
bench's data (integers exactly, floats within gamma(m) of it for m terms), a
wrong one an error (exit 1, no row). Rows add "scan": MODE.
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
from pyopencl.scan import GenericScanKernel

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


C_NAMES = {np.float32: "float", np.float64: "double", np.int64: "long"}


def exact_prefix(dtype, m):
    """The exact sum of the bench's first m elements (m an int64 array), as float64."""
    period, offset, scale = {"int8": (100, 50, 1), "int32": (1000, 500, 1)}.get(dtype, (1000, 0, 1000))
    q, r = m // period, m % period
    return (q * (period * (period - 1) // 2 - offset * period) + r * (r - 1) // 2 - offset * r) / scale


def check_scan(dtype, mode, got):
    """Every output against its exact prefix; SystemExit (said) at the first wrong one."""
    m = np.arange(len(got), dtype=np.int64) + (1 if mode == "inclusive" else 0)
    want = exact_prefix(dtype, m)
    u = {"float": 2.0 ** -24, "double": 2.0 ** -53}.get(dtype, 0.0)
    mu = (m + 1) * u
    bound = np.where(mu < 0.5, mu / np.maximum(1 - mu, 0.5), 1.0) * np.abs(want)
    bad = np.flatnonzero(np.abs(got.astype(np.float64) - want) > bound)
    if bad.size:
        k = bad[0]
        raise SystemExit(f"pyopencl_peer: {mode} scan of {len(got)} {dtype}: output {k} is "
                         f"{got[k]!r}, not {want[k]!r}")


def scan_main(dtype, sizes, mode):
    np_type, c_type, out_type, values = TYPES[dtype]
    ctx = cl.Context([device()])
    queue = cl.CommandQueue(ctx)
    knl = GenericScanKernel(
        ctx, out_type, arguments=f"__global const {c_type} *x, __global {C_NAMES[out_type]} *y",
        input_expr="x[i]", scan_expr="a+b", neutral="0",
        output_statement="y[i] = item;" if mode == "inclusive" else "y[i] = prev_item;")
    for n in sizes:
        x = cla.to_device(queue, values(np.arange(n, dtype=np.int64)).astype(np_type))
        y = cla.empty(queue, n, out_type)
        call = lambda: (knl(x, y, queue=queue), queue.finish())  # noqa: E731
        for _ in range(2):
            call()
        check_scan(dtype, mode, y.get())
        times = []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1e3)
        print(json.dumps({"peer": "pyopencl_generic_scan", "type": dtype, "op": "sum", "scan": mode,
                          "n": n, "best_ms": min(times), "median_ms": statistics.median(times)}),
              flush=True)


def main():
    if len(sys.argv) >= 6 and sys.argv[-2] == "--op":
        if sys.argv[-1] != "sum":
            raise SystemExit(f"pyopencl_peer: times sums only, not {sys.argv[-1]}")
        del sys.argv[-2:]
    if len(sys.argv) >= 6 and sys.argv[-2] == "--scan":
        mode, sizes = sys.argv[-1], sys.argv[3:-2]
        if sys.argv[1] != "generic_scan" or sys.argv[2] not in TYPES or \
                mode not in ("inclusive", "exclusive") or not all(n.isdigit() for n in sizes):
            raise SystemExit("usage: pyopencl_peer.py generic_scan " + "|".join(TYPES) +
                             " N... --scan inclusive|exclusive")
        scan_main(sys.argv[2], list(map(int, sizes)), mode)
        return
    if len(sys.argv) < 4 or sys.argv[1] not in ("reduction_kernel", "array_sum") \
            or sys.argv[2] not in TYPES or not all(n.isdigit() for n in sys.argv[3:]):
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

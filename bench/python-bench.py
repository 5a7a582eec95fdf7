#!/usr/bin/env python3
"""python-bench.py [ROUNDS [N [SMALL_N]]]: the Python module against its peers, in one run.

Sums N float32 values (default 2^26), element i being (i % 1000) / 1000 as in
`clfold bench`, with
  - clfold.reduce on the NumPy array (host memory, the default context),
  - clfold.reduce on a pyopencl.array.Array already on the device,
  - pyopencl.array.sum on that same device array (the value brought to the host),
  - numpy.sum on the NumPy array,
each ROUNDS times (default 9) after a warm-up whose value is checked against
the exact sum, interleaved so that the machine's
noise falls on all of them alike, and prints the best and median wall time of
each and the ratio of each peer's median to clfold.reduce's on the NumPy array
(above 1: clfold faster). Then the per-call overhead at SMALL_N elements
(default 2^10): clfold.reduce's median wall time against libclfold's own
clfold_reduce_host called straight through ctypes on the same context, 2001
calls each, alternated. Runs on the default device (CLFOLD_DEVICE) and PyOpenCL's first
device of the same name. Needs the module installed (docs/python.md) and, for
the PyOpenCL rows, python3-pyopencl.
"""
import math
import statistics
import sys
import time

import numpy as np

import clfold
from clfold import _lib


def pyopencl_queue(name):
    try:
        import pyopencl as cl
    except ImportError:
        return None
    for platform in cl.get_platforms():
        for device in platform.get_devices():
            if device.name.strip() == name:
                return cl.CommandQueue(cl.Context([device]))
    return None


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 26
    small = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 10
    host = ((np.arange(n, dtype=np.int64) % 1000) / 1000).astype(np.float32)
    ctx = clfold.default_context()
    device = ctx.device
    calls = {"clfold.reduce (numpy)": lambda: clfold.reduce(host),
             "numpy.sum": lambda: np.sum(host)}
    queue = pyopencl_queue(device.name)
    if queue is not None:
        import pyopencl.array as cla
        on_device = cla.to_device(queue, host)
        calls["clfold.reduce (pyopencl)"] = lambda: clfold.reduce(on_device)
        calls["pyopencl.array.sum"] = lambda: cla.sum(on_device).get()
    times = {name: [] for name in calls}
    exact = math.fsum(host.astype(np.float64))
    for name, call in calls.items():
        value = float(call())  # the warm-up builds kernels and buffers; its value is checked
        if abs(value - exact) > 1e-4 * exact:
            raise SystemExit(f"python-bench: {name} gave {value}, the exact sum is {exact}")
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["clfold.reduce (numpy)"])
    print(f"device: {device.name} ({device.platform}); {n} float32 values, {rounds} rounds, "
          f"clfold {clfold.library_version}, numpy {np.__version__}")
    print(f"{'call':28} {'best ms':>9} {'median ms':>10} {'median / clfold.reduce (numpy)':>32}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:28} {min(values) * 1e3:9.3f} {median * 1e3:10.3f} {median / base:31.2f}x")
    x = host[:small].copy()
    result = np.zeros((), np.float32)
    type_value, op_value = _lib.from_name("type", "float"), _lib.from_name("op", "sum")
    def direct():
        if _lib.lib.clfold_reduce_host(ctx._handle, x.ctypes.data, small, type_value, op_value,
                                       result.ctypes.data) != 0:
            raise SystemExit("python-bench: " + _lib.last_error(ctx._handle))

    wrapped_times, plain_times = [], []
    for call, into in [(lambda: clfold.reduce(x), wrapped_times), (direct, plain_times)] * 2001:
        start = time.perf_counter()
        call()
        into.append(time.perf_counter() - start)
    wrapped, plain = statistics.median(wrapped_times[1:]), statistics.median(plain_times[1:])
    print(f"per call at {small} elements: clfold.reduce {wrapped * 1e6:.1f} us, "
          f"clfold_reduce_host through ctypes {plain * 1e6:.1f} us: the module adds "
          f"{(wrapped - plain) * 1e6:.1f} us")


if __name__ == "__main__":
    main()

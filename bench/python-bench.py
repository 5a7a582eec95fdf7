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
(above 1: clfold faster). With PyOpenCL, a plain streaming read of the device
array runs in the same rounds: the runner's roofline kernel (read_cpu or
read_gpu of src/cli/bench/roofline.c), which reads every byte once and adds
nothing. No reduction of these bytes can take less, so pyopencl.array.sum's median over
the read's is the largest ratio any reduction could reach in this run. Then the per-call overhead at SMALL_N elements
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


# The runner's roofline kernels (src/cli/bench/roofline.c): every byte read once, xor-folded, and
# a write only if the fold hits a value no input gives, so that the compiler keeps every load.
READ_SOURCE = """
__kernel void read_gpu(__global const uint4 *in, ulong vectors, __global uint *out)
{
    const size_t stride = get_global_size(0);
    uint4 a = (uint4)(0), b = (uint4)(0), c = (uint4)(0), d = (uint4)(0);
    size_t i = get_global_id(0);
    for (; i + 3 * stride < vectors; i += 4 * stride) {
        a ^= in[i]; b ^= in[i + stride]; c ^= in[i + 2 * stride]; d ^= in[i + 3 * stride];
    }
    for (; i < vectors; i += stride)
        a ^= in[i];
    a ^= b ^ c ^ d;
    if ((a.x ^ a.y ^ a.z ^ a.w) == 0x9e3779b9u)
        out[0] = 1;
}
__kernel void read_cpu(__global const uint16 *in, ulong vectors, __global uint *out)
{
    const size_t chunk = (vectors + get_global_size(0) - 1) / get_global_size(0);
    const size_t begin = get_global_id(0) * chunk;
    const size_t end = min((size_t)vectors, begin + chunk);
    const size_t part = end > begin ? (end - begin) / 4 : 0;
    uint16 a = (uint16)(0), b = (uint16)(0), c = (uint16)(0), d = (uint16)(0);
    for (size_t i = begin; i < begin + part; i++) {
        a ^= in[i]; b ^= in[i + part]; c ^= in[i + 2 * part]; d ^= in[i + 3 * part];
    }
    for (size_t i = begin + 4 * part; i < end; i++)
        a ^= in[i];
    a ^= b ^ c ^ d;
    if ((a.s0 ^ a.s5 ^ a.sa ^ a.sf) == 0x9e3779b9u)
        out[0] = 1;
}
"""


def streaming_read(queue, array):
    """A call that reads every byte of `array` (a pyopencl array, a multiple of 64 bytes) once
    with the runner's roofline kernel, in its shape for the device, and waits for it."""
    import pyopencl as cl
    device = queue.device
    program = cl.Program(queue.context, READ_SOURCE).build()
    out = cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, 4)
    if device.type & cl.device_type.CPU:
        kernel, vectors = program.read_cpu, array.nbytes // 64
        size = 4 * device.max_compute_units  # clfold's CPU shape: four work-items a unit,
        local = (1,)                          # each its own group, so that every thread reads
    else:
        kernel, vectors = program.read_gpu, array.nbytes // 16
        size, local = 256 * 8 * device.max_compute_units, (256,)

    def read():
        kernel(queue, (size,), local, array.base_data, np.uint64(vectors), out).wait()
    return read


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
        calls["streaming read"] = streaming_read(queue, on_device)
    times = {name: [] for name in calls}
    exact = math.fsum(host.astype(np.float64))
    for name, call in calls.items():
        value = call()  # the warm-up builds kernels and buffers; a sum's value is checked
        if name != "streaming read" and abs(float(value) - exact) > 1e-4 * exact:
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
    if "streaming read" in times:
        read = statistics.median(times["streaming read"])
        print(f"the read bound: pyopencl.array.sum's median is "
              f"{statistics.median(times['pyopencl.array.sum']) / read:.2f}x the streaming read's, "
              f"the most any reduction of these bytes could reach in this run; clfold.reduce "
              f"(numpy) takes {base / read:.2f}x the read")
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

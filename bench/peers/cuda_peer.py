#!/usr/bin/env python3
"""cuda_peer.py LIB TYPE N...: a CUDA peer of `clfold bench` (LIB: torch or cupy).

Sums the bench's data (element i is (i % 1000) / 1000 for floats, i % 1000 - 500
for int32, i % 100 - 50 for int8) on the first CUDA GPU with torch.sum or cupy.sum
(CUB), timed with CUDA events around the call after a warm-up, and prints one
JSON object per size: {"peer", "type", "n", "best_ms", "median_ms", "e2e_ms",
"result"}. e2e_ms is what a caller waits for the value on the host: the median
wall time of `x.sum().item()` (torch) or `float(x.sum())` (CuPy), which is
what `clfold bench`'s e2e column measures of clfold.
"""
import json
import statistics
import sys
import time

RUNS = 30


def make(lib, kind, n):
    if lib == "torch":
        import torch
        i = torch.arange(n, device="cuda", dtype=torch.int64)
    else:
        import cupy
        i = cupy.arange(n, dtype=cupy.int64)
    k = i % 1000
    if kind == "float":
        return (k.float() if lib == "torch" else k.astype("float32")) / 1000
    if kind == "double":
        return (k.double() if lib == "torch" else k.astype("float64")) / 1000
    if kind == "half":  # halves in [1, 2), and 0, as clfold's bench
        v = (k % 1024 + 1024) / 1024 * (k != 0)
        return v.half() if lib == "torch" else v.astype("float16")
    if kind == "int8":
        v = i % 100 - 50
        return v.to(torch.int8) if lib == "torch" else v.astype("int8")
    if kind == "int32":
        return (k - 500).int() if lib == "torch" else (k - 500).astype("int32")
    raise SystemExit(f"cuda_peer: unsupported type {kind}")


def time_sum(lib, x):
    if lib == "torch":
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        fn, sync = (lambda: x.sum()), torch.cuda.synchronize
    else:
        import cupy
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        fn, sync = (lambda: x.sum()), cupy.cuda.Device().synchronize
    for _ in range(3):
        result = fn()
    sync()
    times = []
    for _ in range(RUNS):
        start.record()
        result = fn()
        end.record()
        end.synchronize()
        if lib == "torch":
            times.append(start.elapsed_time(end))
        else:
            import cupy
            times.append(cupy.cuda.get_elapsed_time(start, end))
    return min(times), statistics.median(times), float(result)


def time_to_host(x):
    """Median wall time, in ms, of one sum whose value ends up on the host."""
    for _ in range(3):
        float(x.sum())
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        float(x.sum())  # .item() for torch: a copy to the host, and a wait
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("torch", "cupy"):
        raise SystemExit("usage: cuda_peer.py torch|cupy TYPE N...")
    lib, kind = sys.argv[1], sys.argv[2]
    for n in map(int, sys.argv[3:]):
        x = make(lib, kind, n)
        best, median, result = time_sum(lib, x)
        e2e = time_to_host(x)
        print(json.dumps({"peer": "cub" if lib == "cupy" else "torch", "type": kind, "n": n,
                          "best_ms": best, "median_ms": median, "e2e_ms": e2e,
                          "result": result}), flush=True)
        del x


if __name__ == "__main__":
    main()

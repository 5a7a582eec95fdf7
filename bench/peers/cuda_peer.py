#!/usr/bin/env python3
"""cuda_peer.py LIB TYPE N...: a CUDA peer of `clfold bench` (LIB: torch or cupy).

Sums the bench's data (element i is (i % 1000) / 1000 for floats, i % 1000 - 500
for int32, i % 100 - 50 for int8) on the first CUDA GPU with torch.sum or cupy.sum
(CUB), timed with CUDA events around the call after a warm-up, and prints one
JSON object per size: {"peer", "type", "n", "best_ms", "median_ms", "e2e_ms",
"result"}. e2e_ms is what a caller waits for the value on the host: the median
wall time of `x.sum().item()` (torch) or `float(x.sum())` (CuPy), which is
what `clfold bench`'s e2e column measures of clfold.

Shapes, as `clfold bench --shape` and `--segments` pass them after the sizes:
  cuda_peer.py LIB TYPE N --shape RxC --axis A   x.reshape(R, C).sum(A)
  cuda_peer.py LIB TYPE N --segments FILE.npy    torch.segment_reduce(x, "sum",
                                                 offsets=...) (CuPy has none:
                                                 it prints nothing)
Their e2e_ms is that of the results copied to the host.
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


def shaped_sum(lib, x, shape_args):
    """The reduction that the shape arguments ask for, as a function of no arguments."""
    if shape_args[0] == "--shape":
        rows, cols = map(int, shape_args[1].split("x"))
        axis = int(shape_args[3])
        view = x.reshape(rows, cols)
        return lambda: view.sum(axis)
    import numpy as np
    offsets = np.load(shape_args[1]).astype(np.int64)
    if lib != "torch":
        return None
    import torch
    offs = torch.tensor(offsets, device="cuda")
    return lambda: torch.segment_reduce(x, "sum", offsets=offs)


def time_call(lib, fn):
    """Best and median of RUNS calls of fn (CUDA events), and the median with the results copied to the host."""
    if lib == "torch":
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        elapsed, host = (lambda: start.elapsed_time(end)), (lambda r: r.cpu())
    else:
        import cupy
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        elapsed, host = (lambda: cupy.cuda.get_elapsed_time(start, end)), (lambda r: r.get())
    for _ in range(3):
        host(fn())
    times, walls = [], []
    for _ in range(RUNS):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(elapsed())
    for _ in range(RUNS):
        t0 = time.perf_counter()
        host(fn())
        walls.append((time.perf_counter() - t0) * 1e3)
    return min(times), statistics.median(times), statistics.median(walls)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("torch", "cupy"):
        raise SystemExit("usage: cuda_peer.py torch|cupy TYPE N... [--shape RxC --axis A | "
                         "--segments FILE.npy]")
    lib, kind = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    shape_args = args[args.index("--shape"):] if "--shape" in args else \
        args[args.index("--segments"):] if "--segments" in args else []
    sizes = args[:len(args) - len(shape_args)]
    for n in map(int, sizes):
        x = make(lib, kind, n)
        if shape_args:
            fn = shaped_sum(lib, x, shape_args)
            if fn is None:
                print(f"cuda_peer: {lib} has no segmented reduction", file=sys.stderr)
                continue
            best, median, e2e = time_call(lib, fn)
            print(json.dumps({"peer": "cupy" if lib == "cupy" else "torch", "type": kind,
                              "n": n, "best_ms": best, "median_ms": median, "e2e_ms": e2e}),
                  flush=True)
            continue
        best, median, result = time_sum(lib, x)
        e2e = time_to_host(x)
        print(json.dumps({"peer": "cub" if lib == "cupy" else "torch", "type": kind, "n": n,
                          "best_ms": best, "median_ms": median, "e2e_ms": e2e,
                          "result": result}), flush=True)
        del x


if __name__ == "__main__":
    main()

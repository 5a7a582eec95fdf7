#!/usr/bin/env python3
"""cuda_peer.py LIB TYPE N... [--op OP]: a CUDA peer of `clfold bench` (LIB: torch or cupy).

Sums the bench's data (element i is (i % 1000) / 1000 for floats, i % 1000 - 500
for int32, i % 100 - 50 for int8) on the first CUDA GPU with torch.sum or cupy.sum
(CUB), timed with CUDA events around the call after a warm-up, and prints one
JSON object per size: {"peer", "type", "op", "n", "best_ms", "median_ms", "e2e_ms",
"result"}. e2e_ms is what a caller waits for the value on the host: the median
wall time of `x.sum().item()` (torch) or `float(x.sum())` (CuPy), which is
what `clfold bench`'s e2e column measures of clfold.

--op argmin or --op argmax (last, as `clfold bench -o argmax` passes it) times
torch.argmin/argmax or cupy.argmin/argmax instead (CuPy runs CUB's ArgMin and
ArgMax where CUPY_ACCELERATORS has cub); their e2e_ms is that of
`int(x.argmax())`, and "result" is the index. Both give NumPy's index: the
first of equal elements (the bench's data have no NaN).

Shapes, as `clfold bench --shape` and `--segments` pass them after the sizes:
  cuda_peer.py LIB TYPE N --shape RxC --axis A   x.reshape(R, C).sum(A), or
                                                 .argmax(A) with --op argmax
  cuda_peer.py LIB TYPE N --segments FILE.npy    torch.segment_reduce(x, "sum",
                                                 offsets=...) (CuPy has none,
                                                 nor has either a segmented
                                                 argmin or argmax: it prints
                                                 nothing)
Their e2e_ms is that of the results copied to the host.

Scans, as `clfold bench --scan` passes them after the sizes:
  cuda_peer.py LIB TYPE N... --scan inclusive   torch.cumsum(x, 0) or cupy.cumsum(x)
  cuda_peer.py LIB TYPE N... --scan exclusive   the same of x[:-1] into out[1:],
                                                out[0] = 0 (neither library has an
                                                exclusive scan; this is how a
                                                user writes one, with no copy)
into an array allocated once, of NumPy's cumsum dtype (int8 and int32 sums in
int64; half in float32, as clfold's, where NumPy keeps float16). Sums only:
--op min or max prints nothing (torch.cummin and cummax also find indices).
Every output is checked against the exact prefix of the bench's data
(integers exactly, floats within what any order of summation meets, gamma(m)
times the prefix for m terms: the data are never negative); a wrong one is an
error (exit 1, no row). Rows add "scan": MODE; e2e_ms is the median wall time
of the call and a synchronize (the output stays on the device, as clfold's).
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


OPS = ("sum", "argmin", "argmax")


def whole(x, op):
    """The reduction of the whole array, as a function of no arguments: x.sum(), x.argmax(), ..."""
    return getattr(x, op)  # torch and CuPy both name them so, and argmax() flattens


def time_whole(lib, fn):
    """Best and median of RUNS calls of fn (CUDA events), and the last value."""
    if lib == "torch":
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        sync = torch.cuda.synchronize
    else:
        import cupy
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        sync = cupy.cuda.Device().synchronize
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
    return min(times), statistics.median(times), result


def time_to_host(fn, to_host):
    """Median wall time, in ms, of one reduction whose value ends up on the host."""
    for _ in range(3):
        to_host(fn())
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        to_host(fn())  # .item() for torch: a copy to the host, and a wait
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def shaped(lib, x, shape_args, op):
    """The reduction that the shape arguments ask for, as a function of no arguments."""
    if shape_args[0] == "--shape":
        rows, cols = map(int, shape_args[1].split("x"))
        axis = int(shape_args[3])
        view = x.reshape(rows, cols)
        reduce = getattr(view, op)  # view.sum(1), view.argmax(1): dim for torch, axis for CuPy
        return lambda: reduce(axis)
    import numpy as np
    offsets = np.load(shape_args[1]).astype(np.int64)
    if lib != "torch" or op != "sum":
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


# ---- scans (--scan MODE) ----

SCAN_MODES = ("inclusive", "exclusive")
CHECK_CHUNK = 1 << 24  # outputs checked at a time


def scan_dtype(lib, kind):
    """NumPy's cumsum dtype for the bench's types (float32 for half, as clfold's)."""
    mod = __import__(lib)
    return {"float": mod.float32, "double": mod.float64, "half": mod.float32,
            "int8": mod.int64, "int32": mod.int64}[kind]


def scan_call(lib, x, mode, out):
    """The scan into `out`, as a function of no arguments."""
    mod = __import__(lib)
    if lib == "torch":
        cumsum = lambda src, dst: mod.cumsum(src, 0, dtype=dst.dtype, out=dst)  # noqa: E731
    else:
        cumsum = lambda src, dst: mod.cumsum(src, dtype=dst.dtype, out=dst)  # noqa: E731
    if mode == "inclusive":
        return lambda: cumsum(x, out)

    def exclusive():
        out[:1] = 0
        if len(x) > 1:
            cumsum(x[:-1], out[1:])
    return exclusive


def float64(lib, a):
    return a.double() if lib == "torch" else a.astype("float64")


def exact_prefix(lib, kind, m):
    """The exact sum of the bench's first m elements (m an int64 array) as float64: an integer
    times 1 (int8, int32), 1/1000 (float, double) or 1/1024 (half), exact below 2^53."""
    period, offset, scale = {"int8": (100, 50, 1), "int32": (1000, 500, 1)}.get(kind, (1000, 0, 1000))
    q, r = m // period, m % period
    if kind == "half":  # element k of a period: (k + 1024) / 1024, and 0 for k = 0
        block = lambda t: (t * (t - 1) // 2 + 1024 * (t - 1)) * (t > 0)  # noqa: E731
        return float64(lib, q * block(period) + block(r)) / 1024
    block = lambda t: t * (t - 1) // 2 - offset * t  # noqa: E731
    return float64(lib, q * block(period) + block(r)) / scale


def check_scan(lib, kind, mode, out, n):
    """Every output against its exact prefix; raises SystemExit (said) on the first wrong one."""
    mod = __import__(lib)
    u = {"float": 2.0 ** -24, "half": 2.0 ** -24, "double": 2.0 ** -53}.get(kind, 0.0)
    for first in range(0, n, CHECK_CHUNK):
        i = mod.arange(first, min(n, first + CHECK_CHUNK), dtype=mod.int64)
        if lib == "torch":
            i = i.cuda()
        m = i + (1 if mode == "inclusive" else 0)  # how many elements output i sums
        want = exact_prefix(lib, kind, m)
        got = float64(lib, out[first:first + len(i)])
        mu = float64(lib, m + 1) * u
        factor = mu / (1 - mu)
        factor[mu >= 0.5] = 1.0  # no bound left: anything in [0, 2 S]
        bad = abs(got - want) > factor * abs(want)
        if bool(bad.any()):
            k = int(mod.nonzero(bad)[0][0]) if lib == "torch" else int(mod.flatnonzero(bad)[0])
            raise SystemExit(f"cuda_peer: {lib} {mode} scan of {n} {kind}: output {first + k} is "
                             f"{float(got[k])!r}, not {float(want[k])!r}")


def time_scan(lib, fn):
    """Best and median of RUNS calls (CUDA events), and the median wall time of a call and a
    synchronize."""
    mod = __import__(lib)
    if lib == "torch":
        start, end = mod.cuda.Event(enable_timing=True), mod.cuda.Event(enable_timing=True)
        elapsed, sync = (lambda: start.elapsed_time(end)), mod.cuda.synchronize
    else:
        start, end = mod.cuda.Event(), mod.cuda.Event()
        elapsed, sync = (lambda: mod.cuda.get_elapsed_time(start, end)), mod.cuda.Device().synchronize
    times, walls = [], []
    for _ in range(RUNS):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(elapsed())
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        sync()
        walls.append((time.perf_counter() - t0) * 1e3)
    return min(times), statistics.median(times), statistics.median(walls)


def run_scan(lib, kind, n, mode, op):
    """One size's scan: its row, after every output is checked."""
    if op != "sum":
        print(f"cuda_peer: {lib}: no {op} scan timed (sums only)", file=sys.stderr)
        return
    mod = __import__(lib)
    x = make(lib, kind, n)
    out = mod.empty(n, dtype=scan_dtype(lib, kind), **({"device": "cuda"} if lib == "torch" else {}))
    fn = scan_call(lib, x, mode, out)
    for _ in range(3):
        fn()
    check_scan(lib, kind, mode, out, n)
    best, median, e2e = time_scan(lib, fn)
    print(json.dumps({"peer": lib, "type": kind, "op": op, "scan": mode, "n": n, "best_ms": best,
                      "median_ms": median, "e2e_ms": e2e, "result": float(out[-1])}), flush=True)


def parse(argv):
    """LIB, TYPE, the sizes, the shape's arguments, the scan's mode and the operator of the
    command line."""
    if len(argv) < 4 or argv[1] not in ("torch", "cupy"):
        raise SystemExit("usage: cuda_peer.py torch|cupy TYPE N... [--shape RxC --axis A | "
                         "--segments FILE.npy | --scan inclusive|exclusive] "
                         "[--op sum|argmin|argmax]")
    lib, kind, args = argv[1], argv[2], argv[3:]
    op, mode = "sum", None
    if len(args) >= 2 and args[-2] == "--op":
        op, args = args[-1], args[:-2]
        if op not in OPS + ("min", "max"):
            raise SystemExit(f"cuda_peer: --op takes {', '.join(OPS)}, min or max, not {op!r}")
    if "--scan" in args:
        at = args.index("--scan")
        mode, args = (args[at + 1] if at + 1 < len(args) else None), args[:at]
        if mode not in SCAN_MODES:
            raise SystemExit(f"cuda_peer: --scan takes {' or '.join(SCAN_MODES)}, not {mode!r}")
    shape_args = args[args.index("--shape"):] if "--shape" in args else \
        args[args.index("--segments"):] if "--segments" in args else []
    sizes = args[:len(args) - len(shape_args)]
    if not sizes or not all(n.isdigit() for n in sizes):
        raise SystemExit(f"cuda_peer: sizes are counts, not {' '.join(sizes)!r}")
    if (mode is None) == (op in ("min", "max")) and op != "sum":
        raise SystemExit(f"cuda_peer: {op} is timed " + ("as a scan only" if mode is None
                                                        else "as a reduction only"))
    return lib, kind, list(map(int, sizes)), shape_args, mode, op


def main():
    lib, kind, sizes, shape_args, mode, op = parse(sys.argv)
    for n in sizes:
        if mode is not None:
            run_scan(lib, kind, n, mode, op)
            continue
        x = make(lib, kind, n)
        if shape_args:
            fn = shaped(lib, x, shape_args, op)
            if fn is None:
                print(f"cuda_peer: {lib} has no segmented {op}", file=sys.stderr)
                continue
            best, median, e2e = time_call(lib, fn)
            print(json.dumps({"peer": "cupy" if lib == "cupy" else "torch", "type": kind,
                              "op": op, "n": n, "best_ms": best, "median_ms": median,
                              "e2e_ms": e2e}), flush=True)
            continue
        fn = whole(x, op)
        value = float if op == "sum" else int  # the value on the host: .item() in torch
        best, median, result = time_whole(lib, fn)
        e2e = time_to_host(fn, value)
        # CuPy's sum is the CUB it bundles; its argmin and argmax are named for CuPy itself.
        peer = "torch" if lib == "torch" else "cub" if op == "sum" else "cupy"
        print(json.dumps({"peer": peer, "type": kind, "op": op, "n": n, "best_ms": best,
                          "median_ms": median, "e2e_ms": e2e, "result": value(result)}),
              flush=True)
        del x


if __name__ == "__main__":
    main()

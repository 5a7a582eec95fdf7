#!/usr/bin/env python3
"""test_cli_axes.py CLFOLD: `clfold reduce --axis` and `--segments`, judged by NumPy.

Every result comes from NumPy on the same arrays, read back with numpy.load
from what the runner wrote (-O) and compared with what it printed:
  - every set of axes (negative ones too) of 1- to 4-d arrays, C and Fortran
    order, empty ones included: the shape drops the reduced axes, the dtype
    is the result type, and the values are NumPy's (integers and min/max
    exactly, NaN and signed zeros included; float sums within the documented
    bound of the exact sum, computed with fractions; exact sums bit for bit);
  - segments: empty ones give the identity, offsets int64 and uint64;
  - argmin and argmax against numpy.argmin and numpy.argmax: whole arrays
    (the index into the C-order ravel, Fortran order too), every single
    axis (negative ones too), ties, NaN, signed zeros, integer extremes,
    float16, every kernel; segments (from the segment's start, -1 when
    empty); several axes and empty arrays or axes refused, zero results an
    empty int64 array;
  - every negative axis down to -ndim, for reductions and argmin/argmax, and
    -ndim - 1 refused;
  - bad input: exit status 2 and one line on stderr naming what is wrong.
Exits 1 on any failure, or if nothing was checked.
"""
import itertools
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

from checks import check, finish

CLFOLD = sys.argv[1]
WORK = tempfile.mkdtemp()


def run(*args):
    r = subprocess.run([CLFOLD, "reduce", *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def exact_sum(values):
    return sum((Fraction(float(v)) for v in values), Fraction(0))


def within_bound(got, values, result_dtype):
    """The default accuracy's bound (docs/accuracy.md): (ceil(log2 n) + 4) u sum|x|."""
    n = len(values)
    u = Fraction(1, 2**24) if result_dtype == np.float32 else Fraction(1, 2**53)
    levels = max(1, (n - 1).bit_length())
    bound = (levels + 4) * u * sum((abs(Fraction(float(v))) for v in values), Fraction(0))
    return abs(Fraction(float(got)) - exact_sum(values)) <= bound


def round_to(value, dtype):
    """The Fraction `value` rounded once to `dtype`, to nearest, ties to even."""
    nearest = dtype.type(float(value))
    best = None
    for c in (np.nextafter(nearest, dtype.type(-np.inf)), nearest,
              np.nextafter(nearest, dtype.type(np.inf))):
        if np.isfinite(c):
            key = (abs(Fraction(float(c)) - value), int(np.array(c).view(f"u{c.itemsize}")) & 1)
            best = (key, c) if best is None or key < best[0] else best
    return best[1]


def same(got, want):
    """Bit for bit, but any NaN equals any NaN."""
    if got.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        bits_equal = got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")
        return bool(np.all(both_nan | bits_equal))
    return np.array_equal(got, want)


def numpy_reduce(a, op, axis):
    if op == "sum":
        dtype = np.int64 if a.dtype.kind == "i" else np.uint64 if a.dtype.kind == "u" else None
        if a.dtype == np.float16:
            dtype = np.float32
        return np.sum(a, axis=axis, dtype=dtype)
    result = np.min(a, axis=axis) if op == "min" else np.max(a, axis=axis)
    return result.astype(np.float32) if a.dtype == np.float16 else result


def moved(a, axes):
    """The reduced axes last, flattened: each row's elements."""
    kept = [d for d in range(a.ndim) if d not in axes]
    rows = int(np.prod([a.shape[d] for d in kept]))
    return np.transpose(a, kept + list(axes)).reshape(rows, -1) if rows > 0 else []


def check_axes(a, op, axes, spec, accuracy="default"):
    path = os.path.join(WORK, "a.npy")
    out = os.path.join(WORK, "out.npy")
    np.save(path, a)
    label = f"{a.dtype} {a.shape} {'F' if a.flags.f_contiguous and a.ndim > 1 else 'C'} " \
            f"--axis {spec} -o {op} --accuracy {accuracy}"
    rc, _, err = run("--axis", spec, "-o", op, "--accuracy", accuracy, "-O", out, path)
    if op in ("min", "max") and np.prod([a.shape[d] for d in axes]) == 0:
        # NumPy has no identity for them and refuses; so does the runner, in its words.
        check(rc == 2 and "which has no identity" in err, f"{label}: exit {rc}: {err.strip()}")
        return
    check(rc == 0, f"{label}: exit {rc}: {err.strip()}")
    if rc != 0:
        return
    got = np.load(out)
    want = numpy_reduce(a, op, axes)
    want = np.asarray(want)
    check(got.shape == want.shape and got.dtype == want.dtype,
          f"{label}: shape {got.shape} {got.dtype}, NumPy's {want.shape} {want.dtype}")
    if got.shape != want.shape:
        return
    rc, printed, _ = run("--axis", spec, "-o", op, "--accuracy", accuracy, path)
    check(rc == 0 and len(printed.split()) == got.size, f"{label}: printed {printed[:80]!r}")
    if rc == 0 and len(printed.split()) == got.size and got.size > 0:
        again = np.array([float(x) for x in printed.split()]).reshape(got.shape)
        check(same(again.astype(got.dtype), got) or got.dtype.kind != "f",
              f"{label}: printed values are not the written ones")
    if op != "sum" or a.dtype.kind != "f":
        check(same(got, want), f"{label}: got {got.ravel()[:6]}, NumPy {want.ravel()[:6]}")
        return
    rows = moved(a, axes)
    for got_value, row in zip(got.ravel(), rows):
        if accuracy == "exact":
            want_value = round_to(exact_sum(row), got.dtype)
            check(same(np.array([got_value]), np.array([want_value])),
                  f"{label}: exact sum {got_value!r}, want {want_value!r}")
        else:
            check(within_bound(got_value, row, got.dtype),
                  f"{label}: {got_value!r} is outside the bound of {float(exact_sum(row))!r}")


def check_arg(a, op, axis=None, spec=None, extra=(), printed=False):
    """The runner's -o argmin/argmax (whole, or along one axis) against NumPy's -O file; and printed."""
    path = os.path.join(WORK, "arg.npy")
    out = os.path.join(WORK, "arg_out.npy")
    np.save(path, a)
    args = list(extra) + (["--axis", spec if spec is not None else str(axis)] if axis is not None else [])
    label = f"{a.dtype} {a.shape} {'F' if a.flags.f_contiguous and a.ndim > 1 else 'C'} " \
            f"-o {op} {' '.join(args)}"
    want = np.asarray(getattr(np, op)(a, axis=axis))
    rc, _, err = run("-o", op, *args, "-O", out, path)
    check(rc == 0, f"{label}: exit {rc}: {err.strip()}")
    if rc != 0:
        return
    got = np.load(out)
    check(got.shape == want.shape and got.dtype == np.int64,
          f"{label}: shape {got.shape} {got.dtype}, NumPy's {want.shape} int64")
    check(np.array_equal(got, want), f"{label}: got {got.ravel()[:8]}, NumPy {want.ravel()[:8]}")
    if not printed:
        return
    rc, printed, err = run("-o", op, *args, path)
    check(rc == 0 and err == "" and printed.split() == [str(v) for v in want.ravel()],
          f"{label}: printed {printed[:80]!r}, NumPy {want.ravel()[:8]}; {err.strip()}")


def arg_arrays(rng):
    """Arrays whose argmin and argmax are easy to get wrong: ties, NaN, signed zeros, extremes."""
    nan, inf = np.nan, np.inf
    return [
        np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 9], dtype=np.int32),  # ties: the first wins
        np.array([7], dtype=np.int16),
        np.array([2.0, nan, 1.0, nan, -inf], dtype=np.float64),  # the first NaN wins both
        np.array([1.0, 0.0, -0.0, 2.0, -0.0], dtype=np.float32),  # -0 == +0: the first zero
        np.array([-1.0, -0.0, 0.0, -2.0], dtype=np.float32),
        np.array([-128, 127, 5, -128, 127], dtype=np.int8),
        np.array([0, 255, 255, 0], dtype=np.uint8),
        np.array([2**63 - 1, 2**63, 1, 2**64 - 1, 0, 2**64 - 1, 0], dtype=np.uint64),
        np.array([-(2**63), 2**63 - 1, 0, -(2**63), 2**63 - 1], dtype=np.int64),
        np.array([2**31 - 1, 2**31, 0, 2**32 - 1], dtype=np.uint32),
        np.array([1.5, -65504, 65504, -65504, 65504, 0.25], dtype=np.float16),
        np.array([1.0, inf, nan, -inf, nan], dtype=np.float16),
        np.array([-inf, -inf, inf, inf], dtype=np.float32),
        rng.integers(-3, 4, size=5003).astype(np.int8),  # many ties over several blocks
        np.where(np.arange(4099) == 3001, np.nan, rng.uniform(-1, 1, 4099)).astype(np.float32),
    ]


def check_args(rng):
    """argmin and argmax: whole arrays, single axes, every kernel, segments, and what NumPy refuses."""
    for a in arg_arrays(rng):
        for op in ("argmin", "argmax"):
            check_arg(a, op, printed=True)
    # The whole array's index is into the C-order ravel, whatever order the file has: with
    # ties, mapping a Fortran-order index would not do (here it would give 2, not 1).
    tie = np.asfortranarray(np.array([[1, 0], [0, 1]], dtype=np.int32))
    for op in ("argmin", "argmax"):
        check_arg(tie, op, printed=True)
    # Every single axis, negative ones too, in both orders: ties along every axis (integers
    # from -2 to 2), NaNs and signed zeros (floats).
    cases = [((4, 6), "C", np.int8), ((4, 6), "F", np.float32), ((4, 6), "F", np.int8),
             ((3, 4, 5), "C", np.float32), ((3, 4, 5), "F", np.int8), ((3, 4, 5), "C", np.float16),
             ((3, 4, 5), "F", np.uint64), ((3, 4, 5), "F", np.float64), ((1, 7, 1), "C", np.float32)]
    for shape, order, dtype in cases:
        if np.dtype(dtype).kind == "f":
            values = rng.uniform(-1, 1, size=shape)
            values.flat[3::7] = np.nan  # first NaNs at various places along each axis
            values.flat[1::5] = -0.0
            values.flat[2::5] = 0.0
        else:
            values = rng.integers(-2, 3, size=shape)
            if dtype == np.uint64:
                values = (values + 2) * 2**62  # up to 2^64 - 2^62, above int64's range
        a = np.asarray(values, order=order).astype(dtype, order=order)
        for op in ("argmin", "argmax"):
            check_arg(a, op)
            for axis in range(len(shape)):
                check_arg(a, op, axis, str(axis - len(shape)) if axis % 2 else str(axis),
                          printed=axis == 0)
    # Along rows and columns long enough to be cut into pieces.
    long = rng.integers(-5, 5, size=(3, 20011)).astype(np.int16)
    for op in ("argmin", "argmax"):
        check_arg(long, op, 1)
        check_arg(np.ascontiguousarray(long.T), op, 0)
    # Every whole-array kernel (the atomic baseline refuses, below).
    many = arg_arrays(rng)[-1]
    ties = arg_arrays(rng)[-2]
    for kernel in ("k1", "k2", "k3", "k4", "k5", "k6", "k7", "auto"):
        for a, op in ((many, "argmax"), (ties, "argmin")):
            check_arg(a, op, extra=("-k", kernel, "-b", "64"))
    # Zero results: an empty int64 array, as NumPy gives.
    for shape, axis in [((0, 5), 1), ((2, 0, 3), 0), ((2, 0, 3), 2)]:
        for op in ("argmin", "argmax"):
            check_arg(np.zeros(shape, dtype=np.float32), op, axis)

    # Segments: the index from the segment's start, -1 for an empty one; C order of a Fortran file.
    data = rng.integers(-3, 4, size=(6, 7)).astype(np.float64)
    data[2, 3] = data[4, 1] = np.nan
    np.save(os.path.join(WORK, "sd.npy"), np.asfortranarray(data))
    flat = data.ravel()
    bounds = [0, 0, 5, 5, 17, 18, 23, 42, 42]
    np.save(os.path.join(WORK, "so.npy"), np.array(bounds, dtype=np.uint64))
    for op in ("argmin", "argmax"):
        want = np.array([getattr(np, op)(flat[lo:hi]) if hi > lo else -1
                         for lo, hi in zip(bounds[:-1], bounds[1:])], dtype=np.int64)
        out = os.path.join(WORK, "seg_out.npy")
        rc, printed, err = run("--segments", os.path.join(WORK, "so.npy"), "-o", op,
                               os.path.join(WORK, "sd.npy"))
        check(rc == 0 and printed.split() == [str(v) for v in want],
              f"segments -o {op}: exit {rc}, printed {printed.split()}, NumPy {list(want)} "
              f"{err.strip()}")
        rc, _, err = run("--segments", os.path.join(WORK, "so.npy"), "-o", op, "-O", out,
                         os.path.join(WORK, "sd.npy"))
        got = np.load(out) if rc == 0 else None
        check(rc == 0 and got.dtype == np.int64 and np.array_equal(got, want),
              f"segments -o {op} -O: exit {rc}, {got!r}, NumPy {want!r} {err.strip()}")

    # What NumPy refuses (ValueError, AxisError, a tuple axis): exit status 2, one line.
    refused = {
        "several axes": (np.zeros((2, 3, 4), dtype=np.int32), ["--axis", "0,1"]),
        "every axis": (np.zeros((2, 3), dtype=np.int32), ["--axis", "0,-1"]),
        "an empty array": (np.zeros(0, dtype=np.float32), []),
        "an empty 2-d array": (np.zeros((0, 4), dtype=np.int8), []),
        "an empty axis with results": (np.zeros((0, 5), dtype=np.float32), ["--axis", "0"]),
        "an empty middle axis": (np.zeros((2, 0, 3), dtype=np.float32), ["--axis", "-2"]),
        "an empty axis without results": (np.zeros((0, 0), dtype=np.float32), ["--axis", "1"]),
        "an empty axis of a 1-d array": (np.zeros(0, dtype=np.int64), ["--axis", "0"]),
        "an axis out of range": (np.zeros((2, 3), dtype=np.float32), ["--axis", "2"]),
        "the atomic baseline": (np.arange(10, dtype=np.int32), ["-k", "atomic"]),
    }
    for name, (a, args) in refused.items():
        path = os.path.join(WORK, "refused.npy")
        np.save(path, a)
        for op in ("argmin", "argmax"):
            rc, printed, err = run("-o", op, *args, path)
            lines = err.strip().splitlines()
            check(rc == 2 and printed == "" and len(lines) == 1 and lines[0].startswith("clfold: "),
                  f"-o {op} of {name}: exit {rc}, stdout {printed!r}, stderr {err!r}")


def check_negative_axes(rng):
    """Every negative axis down to -ndim, alone and with -1, for reductions and argmin/argmax;
    -ndim - 1 refused. The other checks spell only some axes negatively, never axis 0."""
    for shape in [(5,), (4, 6), (3, 4, 5), (2, 3, 2, 5)]:
        ndim = len(shape)
        ints = rng.integers(-2, 3, size=shape).astype(np.int32)
        floats = rng.uniform(-1, 1, size=shape)
        floats.flat[1::4] = -0.0
        floats.flat[3::11] = np.nan
        for axis in range(-ndim, 0):
            check_axes(ints, "sum", (axis + ndim,), str(axis))
            check_axes(floats, "max", (axis + ndim,), str(axis))
            for op in ("argmin", "argmax"):
                check_arg(ints, op, axis, str(axis))
        if ndim > 2:
            check_axes(floats, "min", (0, ndim - 1), f"{-ndim},-1")
        path = os.path.join(WORK, "negative.npy")
        np.save(path, ints)
        for op in ("sum", "argmax"):
            rc, printed, err = run("--axis", str(-ndim - 1), "-o", op, path)
            check(rc == 2 and printed == "" and "out of bounds" in err,
                  f"{shape} --axis {-ndim - 1} -o {op}: exit {rc}, stdout {printed!r}, {err.strip()}")


def all_axis_sets(ndim):
    for k in range(1, ndim + 1):
        yield from itertools.combinations(range(ndim), k)


def main():
    rng = np.random.default_rng(7)
    # Every axis set of every shape in both orders, once each: the types and
    # operators take turns (the library's own tests hold every type against
    # every axis), so each of them meets every shape.
    kinds = [(np.int32, "sum"), (np.int8, "max"), (np.float32, "sum"), (np.float64, "min")]
    turn = 0
    for shape in [(5,), (4, 6), (3, 4, 5), (2, 3, 2, 5), (0, 3), (3, 0), (1, 7, 1), (40, 3000)]:
        for order in "CF":
            base = rng.integers(-1000, 1000, size=shape)
            for axes in all_axis_sets(len(shape)):
                dtype, op = kinds[turn % len(kinds)] if shape != (40, 3000) else kinds[2]
                turn += 1
                a = np.asarray(base, dtype=dtype, order=order)
                if dtype == np.float32:
                    a = np.asarray(rng.uniform(-1, 1, size=shape), dtype=np.float32, order=order)
                if dtype == np.float64 and a.size > 3:
                    a.flat[1] = -0.0
                    a.flat[2] = np.nan
                spec = ",".join(str(d - len(shape) if d % 2 else d) for d in axes)
                check_axes(a, op, axes, spec)
    # Exact sums, rows and columns.
    a = rng.standard_normal((37, 501)).astype(np.float32) * np.float32(1e3)
    for axes in [(0,), (1,)]:
        check_axes(a, "sum", axes, str(axes[0]), "exact")

    # Segments.
    data = np.arange(1, 11, dtype=np.int32)
    np.save(os.path.join(WORK, "d.npy"), data)
    for dtype in (np.int64, np.uint64):
        np.save(os.path.join(WORK, "o.npy"), np.array([0, 0, 3, 3, 10], dtype=dtype))
        rc, printed, err = run("--segments", os.path.join(WORK, "o.npy"),
                               os.path.join(WORK, "d.npy"))
        check(rc == 0 and printed.split() == ["0", "6", "0", "49"],
              f"segments of {dtype.__name__}: exit {rc}, printed {printed!r} {err.strip()}")
    floats = rng.uniform(-1, 1, size=(6, 7)).astype(np.float64)
    np.save(os.path.join(WORK, "f.npy"), np.asfortranarray(floats))
    np.save(os.path.join(WORK, "o.npy"), np.array([0, 5, 5, 42], dtype=np.int64))
    rc, printed, _ = run("--segments", os.path.join(WORK, "o.npy"), "-o", "max", "-O",
                         os.path.join(WORK, "out.npy"), os.path.join(WORK, "f.npy"))
    flat = floats.ravel()
    want = np.array([flat[0:5].max(), -np.inf, flat[5:42].max()])
    got = np.load(os.path.join(WORK, "out.npy")) if rc == 0 else None
    check(rc == 0 and got.shape == (3,) and same(got, want),
          f"Fortran-order segments: {got}, want {want}")

    check_args(rng)
    check_negative_axes(rng)

    # Bad input: exit status 2, one line.
    np.save(os.path.join(WORK, "m.npy"), np.zeros((2, 3), dtype=np.float32))
    m = os.path.join(WORK, "m.npy")
    bad = {
        "axis out of range": ["--axis", "2", m],
        "negative axis out of range": ["--axis", "-3", m],
        "repeated axis": ["--axis", "1,-1", m],
        "malformed axis": ["--axis", "1,", m],
        "axis and segments": ["--axis", "0", "--segments", m, m],
        "axis with a kernel": ["--axis", "0", "-k", "k3", m],
    }
    offsets = {
        "decreasing": np.array([0, 4, 2, 6], dtype=np.int64),
        "past the end": np.array([0, 4, 7], dtype=np.uint64),
        "negative": np.array([-1, 4], dtype=np.int64),
        "float offsets": np.array([0.0, 4.0]),
        "2-d offsets": np.array([[0, 4]], dtype=np.int64),
        "no offsets": np.array([], dtype=np.int64),
    }
    for name, value in offsets.items():
        path = os.path.join(WORK, name.replace(" ", "_") + ".npy")
        np.save(path, value)
        bad[f"offsets: {name}"] = ["--segments", path, m]
    for name, args in bad.items():
        rc, printed, err = run(*args)
        lines = err.strip().splitlines()
        check(rc == 2 and printed == "" and len(lines) == 1 and lines[0].startswith("clfold: "),
              f"{name}: exit {rc}, stdout {printed!r}, stderr {err!r}")

    return finish("test_cli_axes")


if __name__ == "__main__":
    sys.exit(main())

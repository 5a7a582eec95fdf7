#!/usr/bin/env python3
"""test_cli_scan.py CLFOLD: `clfold scan FILE -O OUT.npy`, judged by NumPy.

Every input is written by numpy.save and every result read back with
numpy.load, so nothing of the runner's own .npy code judges it:
  - sums on every type (each its own result type), and every operator on
    signed and unsigned data, against numpy.cumsum, cumprod,
    minimum.accumulate, maximum.accumulate and bitwise_*.accumulate,
    integers exactly (sums and products wrap modulo 2^64, as NumPy's do);
  - float min and max bit for bit (NaN; -0 below +0, docs/accuracy.md:
    where NumPy's minimum keeps the other zero, the contract wins);
    float sums within 1e-5 (half, float) or 1e-12 (double) of the prefix's
    sum |x|, at each accuracy but exact; float products within the
    reductions' bound (n + 1) u |P| of each prefix;
  - --exclusive: the identity, then the inclusive scan without its last;
  - every scan kernel, at its default block on 1, 2, 3, a prime and
    2^16 + 1 elements and at block 64 on 63 to 65 and 127 to 129; 2^20 + 1
    floats; empty arrays (below);
  - the output is always 1-d of the result dtype (integer sums and
    products 64-bit, half to float32), flattened in C order: 2-d and 3-d
    arrays, C and Fortran order, big-endian files, empty arrays;
  - stdout stays empty, stderr too without -v;
  - bad input (a missing or non-.npy file, a bool dtype, unknown operator
    or kernel, a bad block, no -O, argmin/argmax, bitwise on floats, exact
    float sums, an unwritable -O): exit status 2, one line on stderr, no
    output file.
Exits 1 on any failure, or if nothing was checked.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

from checks import check, finish

CLFOLD = sys.argv[1]
WORK = tempfile.mkdtemp()
IN = os.path.join(WORK, "in.npy")
OUT = os.path.join(WORK, "out.npy")
INTEGERS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def run(*args):
    r = subprocess.run([CLFOLD, "scan", *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def result_dtype(dtype, op):
    """clfold_result_type (docs/accuracy.md): integer sums and products in 64 bits, half in float."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return np.dtype(np.float32)
    if op in ("sum", "prod") and dtype.kind in "iu":
        return np.dtype(np.int64 if dtype.kind == "i" else np.uint64)
    return dtype.newbyteorder("=")


def identity(dtype, op):
    """The operator's identity in `dtype`, the result type: out[0] of an exclusive scan."""
    if op in ("sum", "or", "xor"):
        return dtype.type(0)
    if op == "prod":
        return dtype.type(1)
    if op == "and":
        return dtype.type(-1) if dtype.kind == "i" else np.iinfo(dtype).max
    if dtype.kind == "f":
        return dtype.type(np.inf if op == "min" else -np.inf)
    return np.iinfo(dtype).max if op == "min" else np.iinfo(dtype).min


def signed_zeros(flat, prefixes, op):
    """IEEE 754-2019 minimum/maximum, the contract: -0 < +0 (NumPy keeps either zero)."""
    negative = np.logical_or.accumulate((flat == 0) & np.signbit(flat))
    positive = np.logical_or.accumulate((flat == 0) & ~np.signbit(flat))
    zero = prefixes == 0
    sign = negative if op == "min" else ~positive
    prefixes[zero] = np.where(sign[zero], -0.0, 0.0)
    return prefixes


def numpy_scan(a, op, exclusive):
    """NumPy's inclusive scan of the C-order ravel, in the result type; the exclusive one from it."""
    flat = np.ravel(a, order="C")
    dtype = result_dtype(a.dtype, op)
    if op == "sum":
        want = np.cumsum(flat, dtype=dtype)
    elif op == "prod":
        want = np.cumprod(flat, dtype=dtype)
    else:
        ufunc = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
                 "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        want = ufunc.accumulate(flat).astype(dtype)
        if dtype.kind == "f":
            want = signed_zeros(flat, want, op)
    if exclusive:
        want = np.concatenate([np.array([identity(dtype, op)], dtype=dtype), want[:-1]])
    return want[:flat.size]


def same(got, want):
    """Bit for bit, but any NaN equals any NaN."""
    if got.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        bits_equal = got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")
        return bool(np.all(both_nan | bits_equal))
    return np.array_equal(got, want)


def float_ok(got, a, op, exclusive):
    """Sums within tolerance * sum |x| of each prefix; products within (n + 1) u |P|."""
    flat = np.ravel(a, order="C").astype(np.longdouble)
    if exclusive:
        flat = np.concatenate([[np.longdouble(0 if op == "sum" else 1)], flat[:-1]])
    result = result_dtype(a.dtype, op)
    if op == "sum":
        exact = np.cumsum(flat)
        bound = (1e-5 if result == np.float32 else 1e-12) * np.cumsum(np.abs(flat))
    else:
        exact = np.cumprod(flat)
        u = 2.0**-24 if result == np.float32 else 2.0**-53
        bound = (np.arange(flat.size) + 2) * u * np.abs(exact) + np.finfo(result).smallest_subnormal
    error = np.abs(got.astype(np.longdouble) - exact)
    bad = np.flatnonzero(~(error <= bound))
    return bad, exact


def check_scan(a, op="sum", extra=(), exclusive=False, label=None):
    """Runs the scan of `a`, checks stdout, stderr, the file's shape and dtype, and its values."""
    np.save(IN, a)
    if os.path.exists(OUT):
        os.remove(OUT)
    args = ["-o", op, *extra] + (["--exclusive"] if exclusive else [])
    order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    label = label or f"{a.dtype.str} {a.shape} {order} {' '.join(args)}"
    rc, printed, err = run(*args, IN, "-O", OUT)
    check(rc == 0 and printed == "" and err == "",
          f"{label}: exit {rc}, stdout {printed[:80]!r}, stderr {err.strip()!r}")
    if rc != 0:
        return
    got = np.load(OUT)
    want = numpy_scan(a, op, exclusive)
    check(got.shape == (a.size,) and got.dtype == want.dtype,
          f"{label}: {got.shape} {got.dtype}, NumPy's {want.shape} {want.dtype}")
    if got.shape != want.shape or got.dtype != want.dtype:
        return
    if got.dtype.kind != "f" or op in ("min", "max"):
        bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want)))
                             if got.dtype.kind == "f" else got != want)
        first = bad[0] if bad.size else 0
        check(same(got, want), f"{label}: {bad.size} differ, first [{first}]: "
              f"{got[first:first + 4]}, NumPy {want[first:first + 4]}")
        return
    bad, exact = float_ok(got, a, op, exclusive)
    check(bad.size == 0, f"{label}: {bad.size} outside the bound, first [{bad[:1]}]: "
          f"{got[bad[:1]]}, exact {exact[bad[:1]]}")


def integer_data(rng, dtype, n, op):
    info = np.iinfo(dtype)
    if op == "prod":  # odd factors, so that the products do not all wrap to 0
        return (rng.integers(-5, 6, size=n) * 2 + 1).astype(dtype)
    return rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)


def float_data(rng, dtype, n, op):
    if op == "prod":  # near 1, so that every prefix is a normal number
        return rng.uniform(0.9, 1.1, size=n).astype(dtype)
    magnitudes = 10.0 ** rng.uniform(-3, 3 if dtype != np.float16 else 1, size=n)
    return (rng.uniform(-1, 1, size=n) * magnitudes).astype(dtype)


def check_ops(rng):
    """
    Every operator, inclusive and exclusive, each on signed and unsigned data; sums on every
    type (each its own result type). Not every pair: POCL compiles a program for each type and
    operator (about a second), and test_scan holds the library to every pair.
    """
    others = ("prod", "min", "max", "and", "or", "xor")
    for i, dtype in enumerate(INTEGERS):
        for op in ("sum", others[i % len(others)], others[(i + 3) % len(others)]):
            a = integer_data(rng, dtype, 1000 + 7 * i + len(op), op)
            check_scan(a, op)
            check_scan(a, op, exclusive=True)
    for dtype, ops in ((np.float16, ("sum", "min", "max")),
                       (np.float32, ("sum", "prod", "min", "max")),
                       (np.float64, ("sum", "prod", "min", "max"))):
        for op in ops:
            a = float_data(rng, dtype, 3001, op)
            check_scan(a, op)
            check_scan(a, op, exclusive=True)
    # Sums that wrap modulo 2^64, as NumPy's do.
    big = np.array([2**63 - 1, 1, 2**63 - 1, 2, -(2**63)], dtype=np.int64)
    check_scan(big, "sum")
    check_scan(np.array([2**64 - 1, 2, 2**63, 2**63], dtype=np.uint64), "sum")
    check_scan(np.array([2**62, 4, 3, -(2**40)], dtype=np.int64), "prod")
    # NaN spreads to every later prefix; -0 is below +0 (IEEE minimum/maximum).
    special = np.array([1.0, 0.0, -0.0, 0.0, -1.0, np.inf, -np.inf, np.nan, 2.0, -3.0])
    for op in ("min", "max"):
        for start in (1, 2, 0):
            check_scan(special[start:7], op)
            check_scan(special[start:7].astype(np.float32), op, exclusive=True)
            check_scan(special[start:7].astype(np.float16), op)
        check_scan(special, op)
    # Float sums at the other accuracies.
    a = float_data(rng, np.float32, 10007, "sum")
    for accuracy in ("compensated", "fp64"):
        check_scan(a, "sum", ("--accuracy", accuracy))
        check_scan(a.astype(np.float64), "sum", ("--accuracy", accuracy), exclusive=True)


def check_kernels(rng):
    """Every kernel at edge sizes for two block sizes; a size that takes several levels."""
    for kernel in ("kogge-stone", "blelloch", "blelloch-padded", "auto"):
        for block, sizes in ((None, (1, 2, 3, 10007, 2**16 + 1)), ("64", (63, 64, 65, 127, 128, 129))):
            extra = ("-k", kernel) + (("-b", block) if block else ())
            for i, n in enumerate(sizes):
                op, dtype = (("sum", np.int32), ("max", np.int16), ("xor", np.uint32))[i % 3]
                check_scan(integer_data(rng, dtype, n, op), op, extra, exclusive=i % 2 == 1)
            check_scan(float_data(rng, np.float32, sizes[-1], "sum"), "sum", extra)
    check_scan(float_data(rng, np.float32, 2**20 + 1, "sum"), "sum")


def check_shapes(rng):
    """The C-order ravel of any shape and order, as numpy.cumsum(a) without an axis; empty arrays."""
    base = rng.integers(-100, 100, size=(7, 13))
    for order in "CF":
        check_scan(np.asarray(base, dtype=np.int32, order=order), "sum")
        check_scan(np.asarray(base, dtype=np.float64, order=order), "max", exclusive=True)
        check_scan(np.asarray(base.reshape(7, 13, 1), dtype=np.uint8, order=order), "or")
        check_scan(np.asarray(rng.integers(-9, 9, size=(3, 5, 4)), dtype=np.int16, order=order),
                   "max")
    check_scan(np.arange(24, dtype=">i4").reshape(4, 6), "sum", label="big-endian int32 (4, 6)")
    check_scan(np.asfortranarray(np.arange(24, dtype=">f8").reshape(4, 6)), "sum",
               label="big-endian float64 (4, 6) F")
    check_scan(np.array(5, dtype=np.int8), "sum", label="0-d int8")
    for a in (np.zeros(0, dtype=np.float32), np.zeros((0, 3), dtype=np.int16),
              np.zeros((2, 0), dtype=np.float16, order="F")):
        for op in ("sum", "max"):
            check_scan(a, op)
            check_scan(a, op, exclusive=True)


def check_refusals():
    """Exit status 2, one "clfold: " line on stderr, nothing on stdout, no OUT.npy."""
    m = os.path.join(WORK, "m.npy")
    np.save(m, np.arange(10, dtype=np.float32))
    i = os.path.join(WORK, "i.npy")
    np.save(i, np.arange(10, dtype=np.int32))
    flags = os.path.join(WORK, "flags.npy")
    np.save(flags, np.zeros(4, dtype=bool))
    not_npy = os.path.join(WORK, "not.npy")
    with open(not_npy, "w") as f:
        f.write("not a .npy file\n")
    refused = {
        "a missing file": [os.path.join(WORK, "missing.npy"), "-O", OUT],
        "not a .npy file": [not_npy, "-O", OUT],
        "a bool file": [flags, "-O", OUT],
        "an unknown operator": ["-o", "mean", m, "-O", OUT],
        "an unknown kernel": ["-k", "k3", m, "-O", OUT],
        "a block that is no power of two": ["-b", "48", m, "-O", OUT],
        "a block too large for any device": ["-b", "2^24", m, "-O", OUT],
        "no -O": [m],
        "-O without its file": [m, "-O"],
        "no file": ["-O", OUT],
        "argmin": ["-o", "argmin", m, "-O", OUT],
        "argmax": ["-o", "argmax", i, "-O", OUT],
        "xor of floats": ["-o", "xor", m, "-O", OUT],
        "an exact float sum": ["--accuracy", "exact", m, "-O", OUT],
        "an exact float sum, exclusive": ["--exclusive", "--accuracy", "exact", m, "-O", OUT],
        "an unwritable -O": [m, "-O", os.path.join(WORK, "no-such-dir", "out.npy")],
        "--exclusive with a value": ["--exclusive=yes", m, "-O", OUT],
        "a second file": [m, i, "-O", OUT],
    }
    for name, args in refused.items():
        if os.path.exists(OUT):
            os.remove(OUT)
        rc, printed, err = run(*args)
        lines = err.strip().splitlines()
        check(rc == 2 and printed == "" and len(lines) == 1 and lines[0].startswith("clfold: ")
              and not os.path.exists(OUT),
              f"{name}: exit {rc}, stdout {printed!r}, stderr {err!r}, "
              f"OUT.npy {'written' if os.path.exists(OUT) else 'absent'}")


def check_help_and_verbose():
    rc, printed, _ = run("--help")
    check(rc == 0 and printed.startswith("usage: clfold scan") and "-O OUT.npy" in printed
          and "--exclusive" in printed, f"scan --help: exit {rc}, {printed[:200]!r}")
    np.save(IN, np.arange(100, dtype=np.int32))
    rc, printed, err = run("-v", "-k", "blelloch", "-b", "32", IN, "-O", OUT)
    lines = err.splitlines()
    check(rc == 0 and printed == "" and lines and all(x.startswith("clfold: ") for x in lines)
          and "block 32" in err and "100 int32 elements" in err,
          f"scan -v: exit {rc}, stdout {printed!r}, stderr {err!r}")


def main():
    rng = np.random.default_rng(11)
    check_help_and_verbose()
    check_ops(rng)
    check_kernels(rng)
    check_shapes(rng)
    check_refusals()
    return finish("test_cli_scan")


if __name__ == "__main__":
    sys.exit(main())

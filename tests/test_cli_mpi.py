#!/usr/bin/env python3
"""test_cli_mpi.py MPIEXEC CLFOLD: `mpiexec -n K clfold reduce --mpi FILE`,
judged by NumPy, for K = 1..4.

  - exact float and double sums: the bits of the correctly rounded sum (an
    exact Fraction rounded once to float32; math.fsum for doubles), the same
    for every K and as one process without --mpi gives;
    float sums within the default bound; integer sums exactly (int64,
    wrapping as NumPy's); min, max with NaN; argmax and argmin (ties across
    the ranks' slices, a NaN), NumPy's index; big-endian and Fortran-order
    files; fewer elements than ranks; -O writes rank 0's 0-d file.
  - rank 0 alone prints: one line on stdout whatever K; a job that mixes
    -d local-rank with another -d runs.
  - failures reach every rank and end in bounded time (a timeout here is a
    failure): a missing file on one rank, a device that does not exist on
    one rank, another dtype or operator or accuracy on one rank, an
    operator that does not apply, an argmin or a max of an empty file, an argmax
    of a Fortran-order matrix, an -O that cannot be written: exit status 2,
    and rank 0's one line that names the failing rank and why.
  - usage: --mpi with --axis, -d local-rank without --mpi: exit 2.
Exits 1 on any failure, or if nothing was checked.
"""
import math
import os
from fractions import Fraction
import subprocess
import sys
import tempfile

import numpy as np

from checks import check, finish

MPIEXEC, CLFOLD = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp()
TIMEOUT = 120
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def path(name, array):
    p = os.path.join(WORK, name)
    np.save(p, array)
    return p


def mpirun(*apps):
    """Runs one MPMD job: each app is (ranks, [clfold reduce arguments])."""
    command = [MPIEXEC]
    for i, (ranks, args) in enumerate(apps):
        command += ([":"] if i else []) + ["-n", str(ranks), CLFOLD, "reduce", "--mpi", *args]
    try:
        r = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=ENV)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % TIMEOUT
    return r.returncode, r.stdout, r.stderr


def clfold_lines(stderr):
    """The runner's own lines of stderr, without what mpiexec adds."""
    return [line for line in stderr.splitlines() if line.startswith("clfold:")]


def expect_value(args, want, what, ranks_list=(1, 2, 3, 4), close=None):
    for ranks in ranks_list:
        code, out, err = mpirun((ranks, args))
        lines = out.split()
        ok = code == 0 and len(lines) == 1
        if ok:
            got = lines[0]
            ok = close(float(got)) if close else got == want
        check(ok, "%s on %d ranks: exit %s, stdout %r, want %s; stderr %s" %
              (what, ranks, code, out, want, err.strip()[:300]))


def round_to_float32(exact):
    """The float32 nearest the Fraction `exact`, ties to even: one rounding, never two."""
    guess = np.float32(float(exact))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    def key(c):
        even = int(np.array(c).view(np.uint32)) & 1
        return (abs(Fraction(float(c)) - exact), even)
    return min((c for c in candidates if np.isfinite(c)), key=key)


def fmt(value, dtype):
    """The runner's text of a value: integers in decimal, floats to round-trip."""
    if np.dtype(dtype).kind in "iu":
        return str(int(value))
    return ("%.17g" if np.dtype(dtype) == np.float64 else "%.9g") % value


def test_results():
    rng = np.random.default_rng(15)
    f = rng.standard_normal(100003).astype(np.float32)
    f[[7, 50001, 99990]] = [3e7, -3e7, 2.5e-3]
    p = path("f.npy", f)
    exact = round_to_float32(sum(Fraction(float(x)) for x in f))
    expect_value(["--accuracy", "exact", p], fmt(exact, np.float32), "exact float sum")
    alone = subprocess.run([CLFOLD, "reduce", "--accuracy", "exact", p], capture_output=True,
                           text=True, timeout=TIMEOUT)
    check(alone.returncode == 0 and alone.stdout.strip() == fmt(exact, np.float32),
          "exact float sum without --mpi: %r, want %s" % (alone.stdout, fmt(exact, np.float32)))
    code, out, err = mpirun((1, ["-d", "local-rank", "--accuracy", "exact", p]),
                            (2, ["-d", "0:0", "--accuracy", "exact", p]))
    check(code == 0 and out.strip() == fmt(exact, np.float32),
          "-d local-rank beside -d 0:0: exit %s, %r; stderr %s" % (code, out, err.strip()[:300]))
    d = rng.standard_normal(65537) * 10.0 ** rng.integers(-20, 20, 65537)
    pd = path("d.npy", d.astype(">f8"))
    expect_value(["--accuracy", "exact", pd], fmt(math.fsum(d), np.float64),
                 "exact big-endian double sum")
    bound = 1e-5 * float(np.abs(f).astype(np.float64).sum())
    expect_value([p], None, "default float sum",
                 close=lambda got: abs(got - float(exact)) <= bound)
    i = rng.integers(-2**62, 2**62, size=(333, 7), dtype=np.int64)
    expect_value(["-d", "local-rank", path("i.npy", i)], fmt(i.sum(dtype=np.int64), np.int64),
                 "int64 sum (wrapping), -d local-rank")
    u = rng.integers(0, 256, size=1001, dtype=np.uint8)
    expect_value([path("u.npy", u)], fmt(u.sum(dtype=np.uint64), np.uint64), "uint8 sum")
    ties = rng.integers(-100, 100, size=1000, dtype=np.int32)
    ties[[333, 334, 666, 999]] = 500
    ties[[250, 750]] = -500
    pt = path("ties.npy", ties)
    expect_value(["-o", "argmax", pt], "333", "argmax with ties across slices")
    expect_value(["-o", "argmin", pt], "250", "argmin with ties across slices")
    nan = f.copy()
    nan[[60000, 90000]] = np.nan
    pn = path("nan.npy", nan)
    expect_value(["-o", "argmax", pn], "60000", "argmax with NaN (the first NaN)")
    expect_value(["-o", "max", pn], "nan", "max with NaN")
    expect_value(["-o", "min", p], fmt(f.min(), np.float32), "float min")
    fo = np.asfortranarray(rng.standard_normal((300, 7)).astype(np.float32))
    expect_value(["-o", "max", path("fo.npy", fo)], fmt(fo.max(), np.float32),
                 "max of a Fortran-order matrix")
    small = np.array([5, -2, 9], dtype=np.int16)
    expect_value(["-o", "argmax", path("small.npy", small)], "2", "3 elements on up to 4 ranks")
    out = os.path.join(WORK, "out.npy")
    code, stdout, err = mpirun((3, ["--accuracy", "exact", "-O", out, p]))
    saved = np.load(out) if code == 0 and os.path.exists(out) else None
    check(saved is not None and saved.shape == () and saved.dtype == np.float32 and
          saved == exact and stdout == "", "-O on 3 ranks: exit %s, %r, stdout %r, stderr %s" %
          (code, saved, stdout, err.strip()[:300]))


def expect_failure(apps, words, what):
    code, out, err = mpirun(*apps)
    lines = clfold_lines(err)
    check(code == 2 and out == "" and len(lines) == 1 and all(w in lines[0] for w in words),
          "%s: exit %s, want 2; stdout %r; clfold's lines %r, want one saying %r; stderr %s" %
          (what, code, out, lines, words, err.strip()[:400]))


def test_failures():
    f = path("f2.npy", np.arange(1000, dtype=np.float32))
    i = path("i2.npy", np.arange(1000, dtype=np.int32))
    missing = os.path.join(WORK, "missing.npy")
    expect_failure([(1, [f]), (1, [missing]), (1, [f])], ["rank 1:", "missing.npy", "cannot open"],
                   "a missing file on rank 1")
    expect_failure([(2, [f]), (1, ["-d", "nosuch", f])], ["rank 2:", "nosuch"],
                   "no such device on rank 2")
    expect_failure([(1, [f]), (1, [i])], ["float sum on rank 0", "int32 sum on rank 1"],
                   "another dtype on rank 1")
    expect_failure([(1, [f]), (1, ["-o", "max", f])], ["float sum on rank 0", "float max on rank 1"],
                   "another operator on rank 1")
    expect_failure([(1, ["--accuracy", "exact", f]), (2, [f])], ["float sum (exact) on rank 0"],
                   "another accuracy on ranks 1 and 2")
    expect_failure([(3, ["-o", "xor", f])], ["rank 0:", "xor does not apply to float"],
                   "xor of floats")
    expect_failure([(2, ["-o", "argmin", path("empty.npy", np.zeros(0, np.float32))])],
                   ["argmin of no element"], "argmin of an empty file")
    expect_failure([(2, ["-o", "max", path("empty.npy", np.zeros(0, np.float32))])],
                   ["operation maximum which has no identity"], "max of an empty file")
    expect_failure([(2, ["-O", os.path.join(WORK, "no", "such", "dir.npy"), f])],
                   ["dir.npy"], "an -O that cannot be written")
    fo = path("fo2.npy", np.asfortranarray(np.zeros((30, 7), np.float32)))
    expect_failure([(2, ["-o", "argmax", fo])], ["rank 0:", "C order"],
                   "argmax of a Fortran-order matrix")
    expect_failure([(1, [f]), (1, [path("short.npy", np.arange(999, dtype=np.float32))])],
                   ["different files", "999", "1000"], "files of different lengths")
    for args, what in ((["reduce", "--mpi", "--axis", "0", f], "--mpi with --axis"),
                       (["reduce", "-d", "local-rank", f], "-d local-rank without --mpi")):
        r = subprocess.run([CLFOLD, *args], capture_output=True, text=True, timeout=TIMEOUT)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1,
              "%s: exit %d, stderr %r" % (what, r.returncode, r.stderr))


test_results()
test_failures()
sys.exit(finish("test_cli_mpi"))

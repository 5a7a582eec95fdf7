"""checks.py: the tally the runner's Python tests share (test_cli_axes.py,
test_cli_scan.py, test_cli_mpi.py): every check counts, a failed one says
what on stdout, and a run that failed or checked nothing exits 1."""

_tally = {"checks": 0, "failures": 0}


def check(ok, what):
    """Counts a check; prints "FAIL: what" when `ok` is false."""
    _tally["checks"] += 1
    if not ok:
        _tally["failures"] += 1
        print("FAIL:", what)


def finish(name):
    """Prints the summary; the exit status: 0 only if something was checked and nothing failed."""
    print(f"{name}: {_tally['checks']} checks, {_tally['failures']} failed")
    return 0 if _tally["failures"] == 0 and _tally["checks"] > 0 else 1

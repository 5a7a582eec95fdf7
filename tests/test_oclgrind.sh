#!/bin/sh
# test_oclgrind.sh DRIVER [ARGS...]: runs the driver under Oclgrind, which
# reports data races, uninitialised values, out-of-bounds accesses and
# barrier divergence in the kernels. --uniform-writes makes it report two
# work-items writing the same value to one place too (without it such a
# race, e.g. every work-item of a group writing the group's result, passes).
# Oclgrind exits 0 even when it finds errors, so the test fails if the
# driver fails OR Oclgrind's log is not empty. It fails, too, when
# oclgrind is not installed: these are the only tests that look for races,
# and a missing tool must not turn them into a pass (.ci/deps installs it).
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 DRIVER [ARGS...]" >&2
    exit 2
fi
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "FAIL: oclgrind is not installed (apt-get install oclgrind, or bash .ci/deps)"
    exit 1
fi

log=$(mktemp "${TMPDIR:-/tmp}/clfold_oclgrind.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

# Under Oclgrind its platform is the only one: no device selector needed.
unset CLFOLD_DEVICE
# CLFOLD_OCLGRIND_NO_UNINITIALIZED=1 leaves out --uninitialized, whose
# plugin crashes on vector halving (tests/known-bugs/oclgrind_lo_hi_shuffle.py):
# only for the CPU shape's exact sums, whose lanes are or-ed by halving.
checks="--data-races --uniform-writes --uninitialized"
[ "${CLFOLD_OCLGRIND_NO_UNINITIALIZED:-0}" = 1 ] && checks="--data-races --uniform-writes"
oclgrind $checks --log "$log" "$@"
status=$?

if [ -s "$log" ]; then
    echo "Oclgrind reported errors (first 120 of $(wc -l <"$log") log lines):"
    head -n 120 "$log"
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "the driver failed under Oclgrind (exit status $status)"
    exit 1
fi
echo "Oclgrind: no errors"
exit 0

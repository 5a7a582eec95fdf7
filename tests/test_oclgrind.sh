#!/bin/sh
# test_oclgrind.sh DRIVER [ARGS...]: runs the driver under Oclgrind, which
# reports data races, uninitialised values, out-of-bounds accesses and
# barrier divergence in the kernels. Oclgrind exits 0 even when it finds
# errors, so the test fails if the driver fails OR Oclgrind's log is not
# empty. Exit 77 (CTest's SKIP_RETURN_CODE) when oclgrind is not installed.
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 DRIVER [ARGS...]" >&2
    exit 2
fi
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "oclgrind is not installed: skipping"
    exit 77
fi

log=$(mktemp "${TMPDIR:-/tmp}/clfold_oclgrind.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

# Under Oclgrind its platform is the only one: no device selector needed.
unset CLFOLD_DEVICE
oclgrind --data-races --uninitialized --log "$log" "$@"
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

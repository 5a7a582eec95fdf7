#!/usr/bin/env bash
# CI: a second OpenCL implementation, Mesa's rusticl on llvmpipe (Debian 12's
# mesa-opencl-icd 22.3.6, which .ci/deps-ci installs): the tests of the
# whole-array reductions, partials, the value's landing, the non-blocking
# calls, arg-reductions, exact sums and scans run on it as on POCL. It lists
# its device only with RUSTICL_ENABLE=llvmpipe, so every other step keeps
# POCL as its one device. llvmpipe has no fp64 and no 64-bit atomics: the
# tests expect those refusals there. The axis and segment suites are left
# out for time (axis_shapes alone takes 4 minutes there; it passes).
# docs/bench-format.md says what was tried on it and which driver bugs clfold works around.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

if ! RUSTICL_ENABLE=llvmpipe "$build/clfold" devices | grep -q llvmpipe; then
    echo "rusticl.sh: no llvmpipe device (is mesa-opencl-icd installed?)" >&2
    exit 1
fi
RUSTICL_ENABLE=llvmpipe CLFOLD_DEVICE=llvmpipe ctest --test-dir "$build" -j2 --output-on-failure \
    --timeout 600 -R '^(api|async_.*|landing_.*|partial|ops_auto|ops_special|accuracy_bounds|accuracy_special|arg_whole_auto|arg_special|exact_float|exact_half|scan_lengths.*|kernels_k7|npy)$'

# rusticl's profiling timestamps do not advance: the bench takes wall times
# there and says so (a "timing": "wall" row, a Timing: line), never a GB/s
# from a zero time.
run=$(mktemp)
trap 'rm -f "$run"' EXIT
RUSTICL_ENABLE=llvmpipe "$build/clfold" bench -d llvmpipe --sizes 2^16 -t float,int32 \
    --format json >"$run"
python3 - "$run" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["devices"][0]["rows"]
assert len(rows) == 2, rows
for r in rows:
    assert r.get("timing") == "wall", r
    assert 0 < r["best_ms"] <= r["median_ms"] and r["best_ms"] >= 0.001, r
    assert 0 < r["gbps"] < 1000 and 0 < r["read_gbps"] < 1000, r
print("rusticl.sh: the bench's wall-timed rows:", [(r["type"], round(r["gbps"], 2)) for r in rows])
PY
RUSTICL_ENABLE=llvmpipe "$build/clfold" bench -d llvmpipe --sizes 2^16 | grep -q '^Timing: ' ||
    { echo "rusticl.sh: the bench's table does not say its times are wall times" >&2; exit 1; }

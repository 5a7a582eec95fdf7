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

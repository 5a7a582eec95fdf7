#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build clfold, list the devices, run the
# ladder on the GPU (int32 as in the seed, float, int8) and on POCL for
# comparison, then run the test suite against the GPU. Writes logs and JSON
# to $OUT (default ./bench/out).
#
#   bash bench/device-check.sh [build-dir]
# CMAKE_ARGS adds configure options (e.g. -DCLFOLD_BUILD_TESTS=OFF).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-bench/out}
mkdir -p "$out"
. bench/nvidia-icd.sh

cmake -S . -B "$build" -DCLFOLD_WERROR=ON ${CMAKE_ARGS:-} >"$out/cmake.log" 2>&1 &&
    cmake --build "$build" -j8 >>"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }

"$build/clfold" devices | tee "$out/devices.txt"
gpu=${CLFOLD_GPU:-NVIDIA}
status=0
for t in int32 float int8; do
    for fmt in table json; do
        "$build/clfold" ladder -d "$gpu" -t "$t" --format "$fmt" >"$out/ladder-gpu-$t.$fmt" || status=1
    done
    cat "$out/ladder-gpu-$t.table"
done
"$build/clfold" ladder -d "$gpu" -t float -b 256 -v 2>"$out/ladder-gpu-build-options.txt" | tail -9
"$build/clfold" ladder -d Portable -t int32 | tee "$out/ladder-pocl5-int32.table" || true

[ -f "$build/tests/CTestTestfile.cmake" ] || exit $status
CLFOLD_DEVICE=$gpu ctest --test-dir "$build" -j8 --output-on-failure --timeout 600 \
    -E oclgrind >"$out/ctest-gpu.log" 2>&1 || status=1
tail -25 "$out/ctest-gpu.log"
exit $status

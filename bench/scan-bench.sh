#!/usr/bin/env bash
# Scans (docs/scans.md) on the GPU machine: the scan ladder's table for float
# sums of 2^28 elements, and clfold bench --scan for float, int32 and int8
# inclusive sums of 2^28 against torch.cumsum, cupy.cumsum
# (bench/peers/cuda_peer.py) and CUB's DeviceScan::InclusiveSum where
# build/cub_peer (or $CUB_PEER) is (bench/peers/cub_peer.cu, with a CUDA
# device-to-device copy as a second roofline); then POCL on the host's CPU,
# 2^26 floats against OpenMP's scan directive (bench/peers/openmp_peer.c).
# Every output of every scan is checked, clfold's and each peer's. Appends
# to $OUT/scans.txt (default ./bench/out).
#
#   bash bench/scan-bench.sh [build-dir]   the GPU (CLFOLD_GPU, default NVIDIA), then POCL
#   GPU=0 bash bench/scan-bench.sh         POCL only (CLFOLD_CPU, default Portable: POCL's
#                                          platform, whatever its device's name)
#   CPU=0 bash bench/scan-bench.sh         the GPU only
# SIZE (default 2^28), LADDER_SIZE (default SIZE) and CPU_SIZE (default 2^26)
# change the sizes; WERROR=OFF builds without -Werror. Most of the wall time is
# the host's: the reference scan in long double (about 40-80 ns an element)
# and each peer's start (torch, CuPy); each step's seconds are written after it.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
out=${OUT:-bench/out}
size=${SIZE:-2^28}
cpu_size=${CPU_SIZE:-2^26}
mkdir -p "$out"
[ "${GPU:-1}" = 1 ] && . bench/nvidia-icd.sh
cmake -S . -B "$build" -DCLFOLD_WERROR="${WERROR:-ON}" -DCLFOLD_BUILD_TESTS=OFF -DCLFOLD_BUILD_EXAMPLES=OFF \
    >"$out/build.log" 2>&1 && cmake --build "$build" -j"$(nproc)" >>"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
clfold=$build/clfold
status=0

# run CMD...: runs it, its output and its wall time appended to scans.txt; a failed check
# (clfold's or a peer's) fails the script.
run() {
    local start=$SECONDS
    echo "\$ $*" | tee -a "$out/scans.txt"
    "$@" | tee -a "$out/scans.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    echo "($((SECONDS - start)) s)" | tee -a "$out/scans.txt"
}

if [ "${GPU:-1}" = 1 ]; then
    gpu=${CLFOLD_GPU:-NVIDIA}
    run "$clfold" ladder --scan -d "$gpu" -n "${LADDER_SIZE:-$size}"
    peers=(--peer "python3 bench/peers/cuda_peer.py torch" --peer "python3 bench/peers/cuda_peer.py cupy")
    cub=${CUB_PEER:-build/cub_peer}
    if [ -x "$cub" ]; then
        peers+=(--peer "$cub")
    else
        echo "note: no $cub (bash bench/peers/build-cub-peer.sh $cub): no CUB rows"
    fi
    # One type a run: each row is a line with its peers' ratios (>1: clfold faster).
    for type in float int32 int8; do
        run "$clfold" bench --scan -d "$gpu" --sizes "$size" -t "$type" "${peers[@]}"
    done
fi

if [ "${CPU:-1}" = 1 ]; then
    cpu=${CLFOLD_CPU:-Portable}
    units=$("$clfold" devices --format json | python3 -c '
import json, sys
want = sys.argv[1].lower()
for d in json.load(sys.stdin)["devices"]:
    if want in (d["name"] + " " + d["platform"]).lower():
        print(d["compute_units"]); break' "$cpu")
    if [ -z "$units" ]; then
        echo "scan-bench.sh: no OpenCL device matches \"$cpu\" (CLFOLD_CPU)" >&2
        status=1
    else
        peer=$build/bench/openmp_peer # built where CMake finds OpenMP
        if [ ! -x "$peer" ]; then
            peer=$out/openmp_peer
            cc -O3 -march=native -fopenmp -o "$peer" bench/peers/openmp_peer.c || status=1
        fi
        run "$clfold" bench --scan -d "$cpu" --sizes "$cpu_size" -t float --peer "$peer $units"
    fi
fi
exit $status

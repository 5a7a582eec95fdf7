#!/usr/bin/env bash
# Reductions with many results (docs/shapes.md) against their peers, in one
# run per shape: float sums of 2^28 elements along either axis of tall,
# wide and square matrices, and over power-law segments; argmax and argmin
# of the whole array, and argmax along the tall matrix's rows. On a GPU the peers
# are torch and CuPy (bench/peers/cuda_peer.py), and CUB's segmented reduce
# where build/cub_peer is (bench/peers/cub_peer.cu); on a CPU device, an OpenMP
# loop over the same rows, columns or segments (bench/peers/openmp_peer.c).
# Appends to $OUT/shapes.txt (default ./bench/out).
#
#   bash bench/shapes-bench.sh [build-dir]          the GPU (CLFOLD_GPU, default NVIDIA)
#   CPU=1 SIZE=2^26 bash bench/shapes-bench.sh      POCL, at 2^26 elements
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
out=${OUT:-bench/out}
mkdir -p "$out"
if [ "${CPU:-0}" = 1 ]; then
    device=${CLFOLD_CPU:-pthread}
    threads=$(nproc)
    cc -O3 -march=native -fopenmp -o "$out/openmp_peer" bench/peers/openmp_peer.c || exit 1
    peers=(--peer "$out/openmp_peer $threads")
    arg_peers=("${peers[@]}")
else
    device=${CLFOLD_GPU:-NVIDIA}
    . bench/nvidia-icd.sh
    peers=(--peer "python3 bench/peers/cuda_peer.py torch" --peer "python3 bench/peers/cuda_peer.py cupy")
    arg_peers=("${peers[@]}") # the CUB peer sums only
    # CUB's segmented reduce (rows and segments), where bench/peers/build-cub-peer.sh built it.
    [ -x build/cub_peer ] && peers+=(--peer build/cub_peer)
fi
cmake -S . -B "$build" -DCLFOLD_WERROR=ON -DCLFOLD_BUILD_TESTS=OFF -DCLFOLD_BUILD_EXAMPLES=OFF \
    >"$out/build.log" 2>&1 && cmake --build "$build" -j"$(nproc)" >>"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
clfold=$build/clfold

# 2^28 elements (2^26 on a CPU): log2 of rows and columns of each matrix.
size=${SIZE:-2^28}
bits=${size#2^}
half=$((bits / 2))
status=0
for shape in "$((bits - 5)) 5 1" "5 $((bits - 5)) 1" "$((bits - 5)) 5 0" "$half $((bits - half)) 0" \
             "$half $((bits - half)) 1"; do
    set -- $shape
    "$clfold" bench -d "$device" --shape "2^$1x2^$2" --axis "$3" -t float "${peers[@]}" |
        tee -a "$out/shapes.txt" || status=1
done
"$clfold" bench -d "$device" --segments power-law --sizes "$size" -t float "${peers[@]}" |
    tee -a "$out/shapes.txt" || status=1
# argmax and argmin of the whole array, and argmax along the rows of the tall matrix.
"$clfold" bench -d "$device" -o argmax,argmin --sizes "$size" -t float "${arg_peers[@]}" |
    tee -a "$out/shapes.txt" || status=1
"$clfold" bench -d "$device" --shape "2^$((bits - 5))x2^5" --axis 1 -o argmax -t float \
    "${arg_peers[@]}" | tee -a "$out/shapes.txt" || status=1
exit $status

#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, torch and CuPy: clfold bench against
# torch.sum and CuPy's sum (CUB) in the same run, float sums from 2^16 to
# 2^28 with a plot; int8, int32, double and half at 2^28; exact sums against
# the default accuracy, CUB's gpu_to_gpu and CuPy in one run; a few shapes of
# the GPU path (CLFOLD_GPU_SHAPE) at 2^28; and the ladder with its auto row.
# Writes at most 8 files to $OUT (default ./bench/out).
#
#   bash bench/gpu-bench.sh [build-dir]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
out=${OUT:-bench/out}
gpu=${CLFOLD_GPU:-NVIDIA}
mkdir -p "$out"
. bench/nvidia-icd.sh
cmake -S . -B "$build" -DCLFOLD_WERROR=ON -DCLFOLD_BUILD_TESTS=OFF -DCLFOLD_BUILD_EXAMPLES=OFF \
    >"$out/build.log" 2>&1 && cmake --build "$build" -j8 >>"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
clfold=$build/clfold
cuda_peers=(--peer "python3 bench/peers/cuda_peer.py torch" --peer "python3 bench/peers/cuda_peer.py cupy")
peers=("${cuda_peers[@]}")
# Current CUB and a CUDA streaming read, where bench/peers/build-cub-peer.sh built them.
[ -x build/cub_peer ] && peers+=(--peer build/cub_peer)
# The peers for one type: cub_peer sums float and double only.
peers_for() {
    case $1 in
    float | double) type_peers=("${peers[@]}") ;;
    *) type_peers=("${cuda_peers[@]}") ;;
    esac
}
status=0

"$clfold" bench -d "$gpu" --sizes 2^16:2^28 -t float "${peers[@]}" --plot "$out/bench-float.png" |
    tee "$out/bench.txt" || status=1
# Every type on the same 1 GiB, so that bytes per second compare like with like.
for type_size in float:2^28 int8:2^30 int32:2^28 double:2^27 half:2^29; do
    peers_for "${type_size%%:*}"
    "$clfold" bench -d "$gpu" --sizes "${type_size#*:}" -t "${type_size%%:*}" "${type_peers[@]}" |
        tail -1 | tee -a "$out/bench.txt" || status=1
done
# Start-up: a first reduction in a fresh process with the driver's compute cache
# emptied, then a second one in another process.
rm -rf ~/.nv/ComputeCache
for run in first second; do
    TIMEFORMAT="start-up, $run process: %R s"
    { time "$clfold" reduce -d "$gpu" tests/data/numpy_float32_2d.npy; } 2>&1 | tee -a "$out/bench.txt"
done
"$clfold" bench -d "$gpu" --sizes 2^16:2^28 -t float "${peers[@]}" --format json >"$out/bench-float.json" || status=1
# Exact sums: what they cost against the default accuracy, and against the
# reproducible and the plain CUB sums (docs/accuracy.md#exact-sums).
for type_top in float:2^28 double:2^27 half:2^29; do
    type=${type_top%%:*}
    peers_for "$type"
    "$clfold" bench -d "$gpu" --accuracy exact --sizes "2^16:${type_top#*:}" -t "$type" "${type_peers[@]}" \
        --peer "env CLFOLD=$clfold CLFOLD_DEVICE=$gpu bench/peers/clfold_peer.py default" |
        tee -a "$out/exact.txt" || status=1
done
for shape in ${TUNE:+512:4:4:0 512:4:4:64 512:4:4:256 512:4:4:1024 1024:2:4:256}; do
    echo "CLFOLD_GPU_SHAPE=$shape" | tee -a "$out/tune.txt"
    CLFOLD_GPU_SHAPE=$shape "$clfold" bench -d "$gpu" --sizes 2^16,2^18,2^19,2^20,2^21,2^28 -t float |
        tail -6 | tee -a "$out/tune.txt"
done
"$clfold" ladder -d "$gpu" | tee "$out/ladder.txt" || status=1
exit $status

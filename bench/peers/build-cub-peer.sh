#!/usr/bin/env bash
# Builds bench/peers/cub_peer.cu against current CCCL (header-only) with the
# static CUDA runtime, so that the binary runs on a GPU machine that has the
# driver but no toolkit (as the lent H100 has).
#
#   bash bench/peers/build-cub-peer.sh [OUTPUT]      (default build/cub_peer)
# CCCL_DIR names a CCCL checkout; without it, NVIDIA/cccl is cloned into
# build/cccl (a toolkit's own copy may be too old: the peer needs CCCL's
# determinism API, and CCCL 3.2 for its fixed-size segmented row). NVCC and
# CUDA_ARCH (default sm_90, Hopper) override the compiler and the target.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/cub_peer}
cccl=${CCCL_DIR:-build/cccl}
if [ ! -d "$cccl/cub/cub" ]; then
    git clone --depth 1 https://github.com/NVIDIA/cccl "$cccl"
fi
mkdir -p "$(dirname "$out")"
"${NVCC:-nvcc}" -O3 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" --cudart=static -Xcompiler -Wall,-Wextra \
    -I"$cccl/cub" -I"$cccl/thrust" -I"$cccl/libcudacxx/include" \
    -o "$out" bench/peers/cub_peer.cu
echo "built $out with CUB $(grep -m1 'define CUB_VERSION' "$cccl/cub/cub/version.cuh" | awk '{print $3}')" \
    "($(git -C "$cccl" log -1 --format='%h %cs' 2>/dev/null || echo "commit unknown"))"

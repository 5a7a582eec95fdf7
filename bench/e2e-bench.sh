#!/usr/bin/env bash
# The caller's wait for a small reduction, on a GPU machine with torch:
# clfold bench's e2e column (median wall time of one blocking call, value on
# the host) against torch's x.sum().item(), float sums from 2^10 to 2^22
# and at 2^24 and 2^28, run twice in one go: with the value watched for in
# host memory (the default on NVIDIA, src/reduce/landing.c) and with it
# read from the device (CLFOLD_HOST_RESULT=0). Torch is timed in each run.
#
#   bash bench/e2e-bench.sh [build-dir] [rounds]     (default build-device, 1)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
rounds=${2:-1}
gpu=${CLFOLD_GPU:-NVIDIA}
. bench/nvidia-icd.sh
sizes=1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,16777216,268435456
status=0
for round in $(seq "$rounds"); do
    for host_result in 1 0; do
        echo "# round $round, CLFOLD_HOST_RESULT=$host_result"
        CLFOLD_HOST_RESULT=$host_result "$build/clfold" bench -d "$gpu" -t float --sizes "$sizes" \
            --peer "python3 bench/peers/cuda_peer.py torch" || status=1
    done
done
exit $status

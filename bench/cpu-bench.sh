#!/usr/bin/env bash
# clfold's CPU shape on an OpenCL CPU device (POCL) against the OpenMP loop
# on as many threads as the device has compute units, and PyOpenCL's
# ReductionKernel when python3-pyopencl is installed. Each ratio is the
# median of ROUNDS bench runs (bench/repeat_ratios.py): a shared machine's
# timings swing too much for one run to say which is faster.
#
#   bash bench/cpu-bench.sh [ROUNDS [SIZES [TYPES]]]   (default 9 2^26 float,int32)
# CLFOLD_CPU selects the device (default "Portable", POCL's platform);
# BUILD the build directory (default build; built if it lacks the runner).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-9}
sizes=${2:-2^26}
types=${3:-float,int32}
build=${BUILD:-build}
device=${CLFOLD_CPU:-Portable}

if [ ! -x "$build/clfold" ] || [ ! -x "$build/bench/openmp_peer" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j"$(nproc)" >/dev/null
fi
units=$("$build/clfold" devices --format json | python3 -c '
import json, sys
want = sys.argv[1].lower()
for d in json.load(sys.stdin)["devices"]:
    if want in (d["name"] + " " + d["platform"]).lower():
        print(d["compute_units"]); break' "$device")
[ -n "$units" ] || { echo "cpu-bench.sh: no device matches \"$device\"" >&2; exit 2; }

peers=(--peer "$build/bench/openmp_peer $units")
if /usr/bin/python3 -c 'import pyopencl' 2>/dev/null; then
    peers+=(--peer "env CLFOLD_DEVICE=$device /usr/bin/python3 bench/peers/pyopencl_peer.py reduction_kernel")
fi
echo "device \"$device\" ($units compute units), $rounds rounds, sizes $sizes, types $types"
python3 bench/repeat_ratios.py "$rounds" "$build/clfold" -d "$device" --sizes "$sizes" -t "$types" \
    "${peers[@]}"

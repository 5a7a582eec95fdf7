#!/usr/bin/env bash
# Makes NVIDIA's OpenCL driver visible to the ICD loader on a machine whose
# driver is installed but not registered (as on the lent H100), keeping every
# vendor that /etc/OpenCL/vendors already lists (POCL, ...).
#
# Source it:   . bench/nvidia-icd.sh
# It exports OCL_ICD_VENDORS to a folder holding nvidia.icd.
# CLFOLD_NVIDIA_OPENCL overrides the driver library's path.

_clfold_lib=${CLFOLD_NVIDIA_OPENCL:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}
_clfold_dir=${TMPDIR:-/tmp}/clfold-icd
if [ ! -e "$_clfold_lib" ]; then
    echo "nvidia-icd.sh: $_clfold_lib not found; leaving the ICD loader as it is" >&2
else
    mkdir -p "$_clfold_dir"
    cp /etc/OpenCL/vendors/*.icd "$_clfold_dir"/ 2>/dev/null || true
    echo "$_clfold_lib" >"$_clfold_dir/nvidia.icd"
    export OCL_ICD_VENDORS="$_clfold_dir"
fi
unset _clfold_lib _clfold_dir

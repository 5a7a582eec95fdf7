#!/usr/bin/env bash
# Makes NVIDIA's OpenCL driver visible to the ICD loader on a machine whose
# driver is installed but not registered (as on the lent H100 and H200),
# keeping every driver the loader takes already (POCL, ...): those of
# OCL_ICD_FILENAMES where it is set, else those /etc/OpenCL/vendors lists.
#
# Source it:   . bench/nvidia-icd.sh
# It exports OCL_ICD_VENDORS to a folder holding an .icd file a driver, and
# unsets OCL_ICD_FILENAMES, whose drivers it moves into that folder: the
# variable overrides the folder, and mpiexec (Open MPI 4.1) hands its ranks
# only the first of its colon-separated entries, so that ranks saw POCL
# alone where the launching shell saw the GPU too (docs/mpi.md).
# CLFOLD_NVIDIA_OPENCL overrides the driver library's path.

_clfold_lib=${CLFOLD_NVIDIA_OPENCL:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}
_clfold_dir=${TMPDIR:-/tmp}/clfold-icd
if [ ! -e "$_clfold_lib" ]; then
    echo "nvidia-icd.sh: $_clfold_lib not found; leaving the ICD loader as it is" >&2
else
    mkdir -p "$_clfold_dir"
    rm -f "$_clfold_dir"/*.icd
    # The drivers the loader takes now: OCL_ICD_FILENAMES's where set (it overrides the system's).
    [ -n "${OCL_ICD_FILENAMES:-}" ] || cp /etc/OpenCL/vendors/*.icd "$_clfold_dir"/ 2>/dev/null || true
    IFS=: read -ra _clfold_listed <<<"${OCL_ICD_FILENAMES:-}"
    for _clfold_entry in "${_clfold_listed[@]}" "$_clfold_lib"; do
        _clfold_base=$(basename "$_clfold_entry")
        # One .icd a library, by its file name: one listed twice would be two platforms.
        [ -n "$_clfold_entry" ] && ! cat "$_clfold_dir"/*.icd 2>/dev/null | sed 's|.*/||' |
            grep -qxF "$_clfold_base" && echo "$_clfold_entry" >"$_clfold_dir/$_clfold_base.icd"
    done
    # The slash: ocl-icd 2.3 joins the folder and a file's name without one
    # (/etc/OpenCL/vendors without it gives no platform on the H200 machine).
    export OCL_ICD_VENDORS="$_clfold_dir/"
    unset OCL_ICD_FILENAMES _clfold_listed _clfold_entry _clfold_base
fi
unset _clfold_lib _clfold_dir

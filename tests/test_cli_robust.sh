#!/usr/bin/env bash
# test_cli_robust.sh CLFOLD NPY_TOOL SHIM: the runner against bad input and a
# failing driver (test_cli.sh has the commands themselves and the first
# usage errors). Bad usage and bad input must give exit status 2 and exactly
# one line on stderr, starting "clfold: ", and nothing on stdout; a failing
# device exit status 1 and a "clfold: " line; never a signal. The malformed
# .npy files are written here, byte by byte. The few runs that must succeed
# are judged by NumPy (cli_checks.sh).
#   SHIM: libclfold_cl_shim.so (tests/cl_shim.c), LD_PRELOADed to hide fp64
#   and to make OpenCL calls fail; each injected fault must be seen to fire.
set -u
clfold=$1 tool=$2 shim=$3
. "$(dirname "$0")/cli_checks.sh"

# expect_device_failure CMD...: exit 1, stderr starting with one "clfold: ..." line.
expect_device_failure() {
    run "$@"
    if [ "$status" -ne 1 ]; then
        fail "'$*' exited $status, expected 1$(signal_note)"
        sed 's/^/    /' "$work/err" | head -5
    elif ! head -1 "$work/err" | grep -q '^clfold: .'; then
        fail "'$*': stderr does not start with a 'clfold: ...' line: $(head -3 "$work/err")"
    else
        ok
    fi
}

# npy FILE MAJOR DICT [DATA_BYTES]: a .npy file with this header dict (padded
# as NumPy pads it) and DATA_BYTES zero bytes of data.
npy() {
    local file=$1 major=$2 dict=$3 bytes=${4:-0}
    local prefix=$((major == 1 ? 10 : 12))
    local total=$(((prefix + ${#dict} + 1 + 63) / 64 * 64))
    local len=$((total - prefix))
    {
        printf '\223NUMPY'
        printf "\\$(printf '%03o' "$major")\\000"
        printf "\\$(printf '%03o' $((len & 255)))\\$(printf '%03o' $((len >> 8)))"
        [ "$major" -eq 1 ] || printf '\000\000'
        printf '%s%*s\n' "$dict" $((len - ${#dict} - 1)) ''
        head -c "$bytes" /dev/zero
    } >"$file"
}

dict() { printf "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" "$1" "${3:-False}" "$2"; }

# --- a good file first: the helper writes what the runner reads -----------------------
npy "$work/good.npy" 1 "$(dict '<i4' '(3,)')" 12
run "$clfold" reduce "$work/good.npy"
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 0 ] && ok || fail "the test's own .npy writer: $status $(cat "$work/out" "$work/err")"
npy "$work/good2.npy" 2 "$(dict '<f8' '(2, 2)')" 32
run "$clfold" reduce "$work/good2.npy"
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 0 ] && ok || fail "a version 2.0 file: $status $(cat "$work/out" "$work/err")"

# --- files that are not there, or cannot be read ----------------------------------------
expect_usage_error "$clfold" reduce "$work/missing.npy"
expect_message 'missing.npy: cannot open: No such file'
expect_usage_error "$clfold" reduce "$work"
expect_message 'read error'
expect_usage_error "$clfold" reduce ""
expect_usage_error "$clfold" reduce - </dev/null
expect_usage_error "$clfold" reduce /dev/null
expect_message 'too short'
cp "$work/good.npy" "$work/secret.npy"
chmod 000 "$work/secret.npy"
if [ "$(id -u)" -ne 0 ]; then
    expect_usage_error "$clfold" reduce "$work/secret.npy"
    expect_message 'Permission denied'
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    # root reads anything: ask as nobody, who needs to reach the file and the runner.
    chmod 755 "$work"
    expect_usage_error setpriv --reuid=65534 --regid=65534 --clear-groups "$clfold" reduce "$work/secret.npy"
    expect_message 'Permission denied'
    chmod 700 "$work"
else
    echo "note: running as root without setpriv: the unreadable-file check is skipped"
fi

# --- not .npy, truncated, lying headers ---------------------------------------------------
: >"$work/empty.npy"
expect_usage_error "$clfold" reduce "$work/empty.npy"
expect_message 'too short'
printf 'PK\003\004 a zip file, not an array' >"$work/zip.npy"
expect_usage_error "$clfold" reduce "$work/zip.npy"
expect_message 'not a .npy file'
printf '\223NUMPY\001\000' >"$work/preamble.npy"
expect_usage_error "$clfold" reduce "$work/preamble.npy"
expect_message 'too short'
npy "$work/v9.npy" 1 "$(dict '<i4' '(3,)')" 12
printf '\011' | dd of="$work/v9.npy" bs=1 seek=6 conv=notrunc status=none
expect_usage_error "$clfold" reduce "$work/v9.npy"
expect_message 'version 9.0'
head -c 40 "$work/good.npy" >"$work/cut_header.npy"
expect_usage_error "$clfold" reduce "$work/cut_header.npy"
expect_message 'runs past the end'
npy "$work/short.npy" 1 "$(dict '<i4' '(1000,)')" 3999
expect_usage_error "$clfold" reduce "$work/short.npy"
expect_message 'truncated: header says 1000 elements of 4 bytes, file has 3999'
npy "$work/long.npy" 1 "$(dict '<i4' '(10,)')" 41
expect_usage_error "$clfold" reduce "$work/long.npy"
expect_message '1 more bytes than the header describes'
npy "$work/shape0.npy" 1 "$(dict '<f4' '(0, 5)')" 4
expect_usage_error "$clfold" reduce "$work/shape0.npy"
npy "$work/overflow.npy" 1 "$(dict '<i4' '(4294967296, 4294967296, 2)')" 8
expect_usage_error "$clfold" reduce "$work/overflow.npy"
expect_message 'shape overflows'
npy "$work/bytes_overflow.npy" 1 "$(dict '<f8' '(4611686018427387904,)')" 8
expect_usage_error "$clfold" reduce "$work/bytes_overflow.npy"
expect_message 'overflows'
npy "$work/huge.npy" 1 "$(dict '<u1' '(18446744073709551615,)')" 8
expect_usage_error "$clfold" reduce "$work/huge.npy"
expect_message 'truncated'
npy "$work/negative.npy" 1 "$(dict '<i4' '(-3,)')" 12
expect_usage_error "$clfold" reduce "$work/negative.npy"
npy "$work/notuple.npy" 1 "$(dict '<i4' '3')" 12
expect_usage_error "$clfold" reduce "$work/notuple.npy"
npy "$work/nokey.npy" 1 "{'descr': '<i4', 'shape': (3,)}" 12
expect_usage_error "$clfold" reduce "$work/nokey.npy"
expect_message "lacks the key 'fortran_order'"
npy "$work/python.npy" 1 "__import__('os').system('true')" 12
expect_usage_error "$clfold" reduce "$work/python.npy"
expect_message 'malformed header'

# --- dtypes clfold does not reduce ----------------------------------------------------------
for descr in '<c8' '<c16' '|b1' '<U4' '|S3' '|O' '<M8[ns]' '<m8' '<f16' '|V8' '<i3' ''; do
    npy "$work/dtype.npy" 1 "$(dict "$descr" '(2,)')" 16
    expect_usage_error "$clfold" reduce "$work/dtype.npy"
done
npy "$work/struct.npy" 1 "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }" 8
expect_usage_error "$clfold" reduce "$work/struct.npy"
expect_message 'structured'
# Big-endian data is swapped on reading, and a Fortran-order array's elements are
# reduced as they lie: both give the zeros' sum. A truncated one is still refused.
for descr in '>i4' '>f8' '>u2' '>f2'; do
    npy "$work/big_endian.npy" 1 "$(dict "$descr" '(2,)')" $((2 * ${descr#>?}))
    run "$clfold" reduce "$work/big_endian.npy"
    [ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 0 ] && ok || fail "$descr zeros: $status $(cat "$work/out" "$work/err")"
done
npy "$work/big_short.npy" 1 "$(dict '>f8' '(4,)')" 16
expect_usage_error "$clfold" reduce "$work/big_short.npy"
expect_message 'truncated'
npy "$work/fortran.npy" 1 "$(dict '<i4' '(2, 3)' True)" 24
run "$clfold" reduce "$work/fortran.npy"
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 0 ] && ok || fail "Fortran (2, 3): $status $(cat "$work/out" "$work/err")"

# --- options and numbers ----------------------------------------------------------------------
for n in 12abc -5 '' ' 12' 2^64 2^-1 2^ 0x10 1e6 99999999999999999999999 '1 2' 3.5; do
    expect_usage_error "$clfold" ladder -n "$n"
done
for b in 0 3 96 12abc -64 2^70 '' 99999999999999999999999; do
    expect_usage_error "$clfold" ladder -b "$b"
    expect_usage_error "$clfold" reduce -b "$b" "$work/good.npy"
done
expect_usage_error "$clfold" reduce -b 2^30 "$work/good.npy" # beyond the device's work-group limit
expect_usage_error "$clfold" ladder --format=
expect_usage_error "$clfold" ladder --format
expect_usage_error "$clfold" ladder --verbose=yes
expect_usage_error "$clfold" ladder --accuracy precise
expect_usage_error "$clfold" ladder --accuracy
expect_usage_error "$clfold" ladder -t ''
expect_usage_error "$clfold" ladder -o ''
expect_usage_error "$clfold" ladder -x
expect_usage_error "$clfold" ladder -k k3        # ladder runs every kernel
expect_usage_error "$clfold" ladder --device     # a value is missing
expect_usage_error "$clfold" ladder -d 99:0 -n 10
expect_usage_error "$clfold" ladder -d 0:99 -n 10
expect_usage_error "$clfold" reduce -d 99:0 "$work/good.npy"
expect_message 'no OpenCL device matches "99:0"'
expect_usage_error env CLFOLD_DEVICE=no-such-device "$clfold" reduce "$work/good.npy"
expect_message 'no OpenCL device matches "no-such-device", the selector in CLFOLD_DEVICE'
# The library's environment variables, checked when the context is made.
expect_usage_error env CLFOLD_AUTO_SHAPE=fpga "$clfold" reduce "$work/good.npy"
expect_message 'CLFOLD_AUTO_SHAPE="fpga": auto_shape=fpga is not cpu or gpu, or auto'
expect_usage_error env CLFOLD_GPU_SHAPE=512:4 "$clfold" reduce "$work/good.npy"
expect_message 'CLFOLD_GPU_SHAPE="512:4" has 2 fields; it takes 4, gpu_block:gpu_groups_per_unit:gpu_unroll:gpu_single_kib'
expect_usage_error env CLFOLD_MAX_CHUNK_BYTES=1e6 "$clfold" reduce "$work/good.npy"
expect_message 'CLFOLD_MAX_CHUNK_BYTES="1e6"'
expect_usage_error env CLFOLD_GPU_SHAPE=2097152:4:4:256 "$clfold" reduce "$work/good.npy"
expect_message 'gpu_block=2097152 is not a power of two from 1 to 1048576, or auto'
expect_usage_error env CLFOLD_CPU_LANES=32 "$clfold" reduce "$work/good.npy"
expect_message 'CLFOLD_CPU_LANES="32": cpu_lanes=32 is not a power of two from 2 to 16, or auto'
expect_usage_error env CLFOLD_KERNEL_DIR="$work/no-such-cl" "$clfold" reduce "$work/good.npy"
expect_message "CLFOLD_KERNEL_DIR=\"$work/no-such-cl\": No such file or directory\$"
expect_usage_error env CLFOLD_KERNEL_DIR="$work/good.npy" "$clfold" reduce "$work/good.npy"
expect_message 'is not a folder'
# A block's advice must be one to follow: where no block fits, it says so.
for b in 256 1; do
    expect_usage_error env CLFOLD_LOCAL_MEM_BYTES=1 "$clfold" reduce -k k7 -b $b --accuracy exact "$work/good.npy"
    expect_message 'no block size fits'
done
# The kernel compiler says nothing through the library, even building from a
# cold cache for AVX2 (POCL's "N warnings generated." of its psabi notes).
if grep -qw avx2 /proc/cpuinfo; then
    "$numpy_python" -c "import numpy as np; np.save('$work/int8.npy', np.arange(1000, dtype=np.int8))"
    # POCL's compiler keeps allocations past exit on a cold build: LeakSanitizer would speak.
    run env POCL_CACHE_DIR="$work/cold-cache" POCL_KERNELLIB_NAME=avx2 \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$clfold" reduce "$work/int8.npy"
    [ "$status" -eq 0 ] && [ ! -s "$work/err" ] && ok ||
        fail "a cold build wrote on stderr: exit $status, '$(head -3 "$work/err")'"
fi
expect_usage_error "$clfold" reduce "$work/good.npy" "$work/good.npy"
expect_usage_error "$clfold" reduce --op=nand "$work/good.npy"
expect_usage_error "$clfold" devices --format csv
expect_usage_error "$clfold" LADDER
# Words with line breaks and control characters: still one line (fuzz_args found the first).
expect_usage_error "$clfold" ladder $'--\nkernel'
expect_usage_error "$clfold" ladder -n $'12\n34'
expect_usage_error "$clfold" $'lad\rder'
expect_usage_error "$clfold" reduce -d $'no\nsuch\033[2J' "$work/good.npy"
cp "$work/short.npy" "$work/"$'two\nlines.npy'
expect_usage_error "$clfold" reduce "$work/"$'two\nlines.npy'
expect_usage_error "$clfold" reduce "$work/"$'no\nsuch.npy'
# --axis reads integers with strtoll, which skips a line break before one.
npy "$work/matrix.npy" 1 "$(dict '<i4' '(2, 3)')" 24
expect_usage_error "$clfold" reduce --axis $'0,\nx' "$work/matrix.npy"
expect_usage_error "$clfold" reduce --axis $'0,\n0' "$work/matrix.npy"
expect_usage_error "$clfold" reduce -o argmax --axis $'0,\n1' "$work/matrix.npy"

# --- the driver fails: a device without fp64, allocations and launches refused ------------
# (libclfold_cl_shim.so preloaded; an ASan build wants its runtime first in the
# library list, which a preloaded library is not: the check is switched off)
preload() {
    env LD_PRELOAD="$shim" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
"$tool" make double 1000 "$work/double.npy" && "$tool" make float 1000 "$work/float.npy" &&
    "$tool" make int32 100000 "$work/int32.npy" || fail "npy_tool make"
expect_usage_error preload CLFOLD_SHIM_HIDE_FP64=1 "$clfold" reduce "$work/double.npy"
expect_message 'cl_khr_fp64'
expect_usage_error preload CLFOLD_SHIM_HIDE_FP64=1 "$clfold" reduce --accuracy fp64 "$work/float.npy"
expect_message 'cl_khr_fp64'
run preload CLFOLD_SHIM_HIDE_FP64=1 "$clfold" reduce -o max "$work/float.npy"
if [ "$status" -eq 0 ]; then
    queue_output "$work/float.npy" max auto default "floats on a device without fp64"
else
    fail "floats on a device without fp64: exit $status$(signal_note): $(head -3 "$work/err")"
fi

# Exact sums without fp64: the trees merge integer states alone (EXACT_FPE=0);
# the CPU shape adds in doubles first and refuses.
run preload CLFOLD_SHIM_HIDE_FP64=1 "$clfold" reduce -k k7 --accuracy exact "$work/float.npy"
if [ "$status" -eq 0 ]; then
    queue_output "$work/float.npy" sum k7 exact "exact float sums on a device without fp64"
else
    fail "exact float sums on a device without fp64: exit $status$(signal_note): $(head -3 "$work/err")"
fi
expect_usage_error preload CLFOLD_SHIM_HIDE_FP64=1 CLFOLD_AUTO_SHAPE=cpu "$clfold" reduce --accuracy exact "$work/float.npy"
expect_message 'cl_khr_fp64'
expect_usage_error "$clfold" reduce -o prod --accuracy exact "$work/float.npy"
expect_message 'exact accuracy is for sums'
expect_usage_error "$clfold" reduce -k atomic --accuracy exact "$work/float.npy"
expect_message 'atomic baseline'

# Each fault below must fire (the shim names the call it failed in
# CLFOLD_SHIM_REPORT's file), and be followed by exactly this exit status and
# one "clfold: " line matching this message, with nothing on stdout. The nth
# values come from the runner's calls under CLFOLD_SHIM_TRACE=1, for
# `reduce -d 0:0` of the 100000 int32 values: an index selector queries no
# device, so the counts do not depend on the devices installed, and with
# -k k3 the reduction takes three passes with two programs (the later passes
# read the first one's accumulators).
# expect_fault CALL NTH STATUS MESSAGE [RUNNER OPTIONS...]
expect_fault() {
    local call=$1 nth=$2 want=$3 message=$4; shift 4
    local label="$call:$nth failing (reduce -d 0:0 $*)"
    rm -f "$work/report"
    run preload CLFOLD_SHIM_FAIL="$call:$nth" CLFOLD_SHIM_REPORT="$work/report" \
        "$clfold" reduce -d 0:0 "$@" "$work/int32.npy"
    if [ "$(cat "$work/report" 2>/dev/null)" != "$call" ]; then
        fail "$label: the fault did not fire (exit $status; shim report: '$(cat "$work/report" 2>/dev/null)')"
    elif [ "$status" -ne "$want" ]; then
        fail "$label: exit $status, expected $want$(signal_note): $(head -3 "$work/err")"
    elif [ -s "$work/out" ]; then
        fail "$label: wrote to stdout: $(head -3 "$work/out")"
    elif ! head -1 "$work/err" | grep -Eq -- "^clfold: $message"; then
        fail "$label: stderr does not start with /clfold: $message/: $(head -3 "$work/err")"
    elif [ "$(grep -c '^clfold: ' "$work/err")" -ne 1 ]; then
        fail "$label: more than one 'clfold: ' line: $(head -3 "$work/err")"
    elif [ "$call" != clBuildProgram ] && [ "$(wc -l <"$work/err")" -ne 1 ]; then
        # (a failed build's line is followed by its build log: docs/api.md, "Errors")
        fail "$label: more than one line on stderr: $(head -3 "$work/err")"
    else
        ok
    fi
}
oom='failed: CL_OUT_OF_HOST_MEMORY$'
context='creating the OpenCL context:'
#            call                      nth exit message (extended regex, after "clfold: ")        options
expect_fault clGetPlatformIDs          1   1    "$context clGetPlatformIDs $oom"
expect_fault clGetDeviceIDs            1   1    "$context clGetDeviceIDs $oom"
expect_fault clCreateContext           1   1    "$context clCreateContext $oom"
expect_fault clCreateCommandQueue      1   1    "$context clCreateCommandQueue $oom"
expect_fault clGetDeviceInfo           1   1    "$context CL_DEVICE_NAME $oom"
expect_fault clGetDeviceInfo           2   1    "$context CL_DEVICE_VENDOR $oom"
expect_fault clGetDeviceInfo           3   1    "$context CL_DEVICE_TYPE $oom"
expect_fault clGetDeviceInfo           14  1    "$context CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE $oom"
expect_fault clGetDeviceInfo           16  1    "$context CL_DEVICE_EXTENSIONS $oom"
expect_fault clGetCommandQueueInfo     1   1    "$context CL_QUEUE_PROPERTIES $oom"
expect_fault clCreateBuffer            1   1    'reduce: clCreateBuffer \(input\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE$' -k k3
expect_fault clCreateBuffer            2   1    'reduce: clCreateBuffer \(result\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE$' -k k3
expect_fault clCreateBuffer            3   1    'reduce: clCreateBuffer \(pinned result\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE$' -k k3
expect_fault clCreateBuffer            4   1    'reduce: clCreateBuffer \(partial values\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE$' -k k3
expect_fault clCreateBuffer            5   1    'reduce: clCreateBuffer \(partial values\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE$' -k k3
expect_fault clEnqueueMapBuffer        1   1    "reduce: clEnqueueMapBuffer \\(pinned result\\) failed: CL_MAP_FAILURE$" -k k3
expect_fault clCreateProgramWithSource 1   1    "reduce: clCreateProgramWithSource $oom"  -k k3
expect_fault clCreateProgramWithSource 2   1    "reduce: clCreateProgramWithSource $oom"  -k k3
expect_fault clBuildProgram            1   1    'reduce: building reduce/ladder\.cl with "-DOP=OP_SUM .* -DIN_T=int .*" failed:$' -k k3
expect_fault clBuildProgram            2   1    'reduce: building reduce/ladder\.cl with "-DOP=OP_SUM .* -DIN_IS_ACC=1.*" failed:$' -k k3
expect_fault clCreateKernel            1   1    "reduce: clCreateKernel $oom"             -k k3
expect_fault clCreateKernel            2   1    "reduce: clCreateKernel $oom"             -k k3
# A launch binds its path's arguments (K3: its local array, sdata), then in, offset, n, out, at, finish.
expect_fault clSetKernelArg            1   1    "reduce: clSetKernelArg\(sdata\) $oom"    -k k3
expect_fault clSetKernelArg            2   1    "reduce: clSetKernelArg\(in\) $oom"       -k k3
expect_fault clSetKernelArg            5   1    "reduce: clSetKernelArg\(out\) $oom"      -k k3
expect_fault clSetKernelArg            7   1    "reduce: clSetKernelArg\(finish\) $oom"   -k k3
expect_fault clSetKernelArg            9   1    "reduce: clSetKernelArg\(in\) $oom"       -k k3
expect_fault clEnqueueNDRangeKernel    1   1    "reduce: clEnqueueNDRangeKernel $oom"     -k k3
expect_fault clEnqueueNDRangeKernel    2   1    "reduce: clEnqueueNDRangeKernel $oom"     -k k3
expect_fault clEnqueueNDRangeKernel    3   1    "reduce: clEnqueueNDRangeKernel $oom"     -k k3
expect_fault clEnqueueReadBuffer       1   1    "reduce: clEnqueueReadBuffer \(result\) $oom" -k k3
# clfold devices: a failing driver is said, not shown as an empty list.
rm -f "$work/report"
run preload CLFOLD_SHIM_FAIL=clGetPlatformIDs:1 CLFOLD_SHIM_REPORT="$work/report" "$clfold" devices
[ "$(cat "$work/report" 2>/dev/null)" = clGetPlatformIDs ] && [ "$status" -eq 1 ] &&
    [ "$(cat "$work/err")" = "clfold: clGetPlatformIDs failed: CL_OUT_OF_HOST_MEMORY" ] && ok ||
    fail "devices with clGetPlatformIDs failing: exit $status, '$(cat "$work/err")'"
rm -f "$work/report"
run preload CLFOLD_SHIM_FAIL=clGetDeviceIDs:1 CLFOLD_SHIM_REPORT="$work/report" "$clfold" devices
[ "$(cat "$work/report" 2>/dev/null)" = clGetDeviceIDs ] && [ "$status" -eq 1 ] &&
    grep -q '^clfold: platform 0: clGetDeviceIDs failed: CL_OUT_OF_HOST_MEMORY$' "$work/err" && ok ||
    fail "devices with clGetDeviceIDs failing: exit $status, '$(cat "$work/err")'"
# The device's own shape (reduce/cpu.cl on POCL, reduce/gpu.cl on a GPU).
expect_fault clBuildProgram            1   1    'reduce: building reduce/(cpu|gpu)\.cl with "-DOP=OP_SUM .*" failed:$'
expect_fault clEnqueueNDRangeKernel    1   1    "reduce: clEnqueueNDRangeKernel $oom"
expect_fault clEnqueueReadBuffer       1   1    "reduce: clEnqueueReadBuffer \(.*\) $oom"
# A fault the runner survives: without a selector (an empty CLFOLD_DEVICE is
# none; `env -u` would be a second program under the preloaded shim, which an
# ASan build's shim cannot load into), the first device query asks whether
# the first device is a GPU; if it cannot tell, another device is taken, and
# the result must still be right.
rm -f "$work/report"
run preload CLFOLD_SHIM_FAIL=clGetDeviceInfo:1 CLFOLD_SHIM_REPORT="$work/report" CLFOLD_DEVICE= \
    "$clfold" reduce "$work/int32.npy"
if [ "$(cat "$work/report" 2>/dev/null)" != clGetDeviceInfo ]; then
    fail "the device-type query failing: the fault did not fire"
elif [ "$status" -ne 0 ] || [ -s "$work/err" ]; then
    fail "the device-type query failing: exit $status$(signal_note): $(head -3 "$work/err")"
else
    queue_output "$work/int32.npy" sum auto default "the device-type query failing"
fi
expect_device_failure preload CLFOLD_SHIM_FAIL=clCreateBuffer "$clfold" reduce "$work/int32.npy"
expect_message 'CL_MEM_OBJECT_ALLOCATION_FAILURE'
[ "$(wc -l <"$work/err")" -eq 1 ] && ok || fail "a full device: more than one line: $(cat "$work/err")"

# --- POCL's kernel cache cannot be written ----------------------------------------------------
# A cache directory that cannot be created (a path under a file): POCL does not start,
# and lists no device.
run env POCL_CACHE_DIR=/dev/null/clfold-pocl-cache "$clfold" reduce "$work/int32.npy"
echo "POCL_CACHE_DIR that cannot be created: exit $status: $(head -1 "$work/err")"
if [ "$status" -eq 0 ]; then
    queue_output "$work/int32.npy" sum auto default "unwritable POCL_CACHE_DIR"
    echo "note: with POCL_CACHE_DIR unusable the device still works (not POCL?)"
else
    [ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q '^clfold: no OpenCL device' "$work/err" &&
        ok || fail "unwritable POCL_CACHE_DIR: exit $status, '$(cat "$work/err")'"
fi
# An existing directory without write permission: POCL starts, and its builds fail.
mkdir "$work/ro-cache" && chmod 555 "$work/ro-cache"
as_other=()
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        chmod 755 "$work" && chmod 644 "$work/int32.npy"
        as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
    else
        echo "note: running as root without setpriv: the read-only cache check is skipped"
    fi
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as_other[@]} -gt 0 ]; then
    run "${as_other[@]}" env POCL_CACHE_DIR="$work/ro-cache" "$clfold" reduce "$work/int32.npy"
    echo "read-only POCL_CACHE_DIR: exit $status: $(head -1 "$work/err" | cut -c1-100)..."
    if [ "$status" -eq 0 ]; then
        queue_output "$work/int32.npy" sum auto default "read-only POCL_CACHE_DIR"
    else
        [ "$status" -eq 1 ] && grep -q '^clfold: reduce: building .* failed' "$work/err" && ok ||
            fail "read-only POCL_CACHE_DIR: exit $status, '$(head -3 "$work/err")'"
    fi
    chmod 700 "$work"
fi

finish test_cli_robust

#!/usr/bin/env bash
# test_cli_robust.sh CLFOLD NPY_TOOL SHIM: the runner against bad input and a
# failing driver (test_cli.sh has the commands themselves and the first
# usage errors). Bad usage and bad input must give exit status 2 and exactly
# one line on stderr, starting "clfold: ", and nothing on stdout; a failing
# device exit status 1 and a "clfold: " line; never a signal. The malformed
# .npy files are written here, byte by byte.
#   SHIM: libclfold_cl_shim.so (tests/cl_shim.c), LD_PRELOADed to hide fp64
#   and to make OpenCL calls fail.
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
expect_usage_error "$clfold" reduce -
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
for descr in '>i4' '>f8' '>u2' '>f2'; do
    npy "$work/big_endian.npy" 1 "$(dict "$descr" '(2,)')" 16
    expect_usage_error "$clfold" reduce "$work/big_endian.npy"
    expect_message 'big-endian'
done
npy "$work/fortran.npy" 1 "$(dict '<i4' '(2, 3)' True)" 24
expect_usage_error "$clfold" reduce "$work/fortran.npy"
expect_message 'Fortran'

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
expect_usage_error "$clfold" ladder --accuracy exact
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
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = "$("$tool" expect "$work/float.npy" max)" ] && ok ||
    fail "floats on a device without fp64: $status $(cat "$work/out" "$work/err")"
want=$("$tool" expect "$work/int32.npy" sum)
for call in clCreateContext clCreateCommandQueue clCreateBuffer clCreateProgramWithSource \
    clBuildProgram clCreateKernel clSetKernelArg clEnqueueNDRangeKernel clEnqueueReadBuffer \
    clGetDeviceInfo; do
    for nth in 1 2; do
        run preload CLFOLD_SHIM_FAIL=$call:$nth "$clfold" reduce "$work/int32.npy"
        if [ "$status" -eq 0 ]; then
            # a call that failed harmlessly (a second call that never comes, or an optional query)
            [ "$(cat "$work/out")" = "$want" ] && ok || fail "$call:$nth failing: wrong result $(cat "$work/out")"
        elif [ "$status" -eq 1 ] || [ "$status" -eq 2 ]; then
            head -1 "$work/err" | grep -q '^clfold: .' && [ ! -s "$work/out" ] && ok ||
                fail "$call:$nth failing: exit $status with '$(head -3 "$work/err")'"
        else
            fail "$call:$nth failing: exit $status $( [ "$status" -ge 128 ] && echo "(signal $((status - 128)))")"
        fi
    done
done
expect_device_failure preload CLFOLD_SHIM_FAIL=clCreateBuffer "$clfold" reduce "$work/int32.npy"
expect_message 'CL_MEM_OBJECT_ALLOCATION_FAILURE'
[ "$(wc -l <"$work/err")" -eq 1 ] && ok || fail "a full device: more than one line: $(cat "$work/err")"

# --- POCL's kernel cache cannot be written ----------------------------------------------------
# A cache directory that cannot be created (a path under a file): POCL does not start,
# and lists no device.
run env POCL_CACHE_DIR=/dev/null/clfold-pocl-cache "$clfold" reduce "$work/int32.npy"
echo "POCL_CACHE_DIR that cannot be created: exit $status: $(head -1 "$work/err")"
if [ "$status" -eq 0 ]; then
    [ "$(cat "$work/out")" = "$want" ] && ok || fail "unwritable POCL_CACHE_DIR: wrong result"
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
        [ "$(cat "$work/out")" = "$want" ] && ok || fail "read-only POCL_CACHE_DIR: wrong result"
    else
        [ "$status" -eq 1 ] && grep -q '^clfold: reduce: building .* failed' "$work/err" && ok ||
            fail "read-only POCL_CACHE_DIR: exit $status, '$(head -3 "$work/err")'"
    fi
    chmod 700 "$work"
fi

finish test_cli_robust

#!/usr/bin/env bash
# test_cli_bench_checks.sh CLFOLD: bench's own check of each result it times.
# - Right results on a matrix wider than one block of columns, on both
#   shapes: bench --shape 100x1000 --axis 0 exits 0, every row correct.
# - Wrong results fail every kind of bench: with integer sums and argmax's
#   pairs broken in a copy of cl/ (CLFOLD_KERNEL_DIR), whole arrays, columns
#   (one block and several), rows, segments, argmax and scans each exit 1
#   with a NO row.
set -u
clfold=$1
. "$(dirname "$0")/cli_checks.sh"
cl_dir="$(dirname "$0")/../cl"

# bench checks every column of a matrix wider than one block of columns: the library's
# (the GPU shape's team of up to 32 vectors, the CPU shape's lanes times their vectors) and
# the check's own (it gathers up to 256 columns at a time). 1000 columns, on both shapes.
for shape in cpu gpu; do
    expect_status 0 env CLFOLD_AUTO_SHAPE=$shape "$clfold" bench --shape 100x1000 --axis 0 -t int32,float \
        -o sum,argmax
    [ "$(grep -Ec '^(int32|float) +(sum|argmax) +100000 +auto +columns .* yes' "$work/out")" -eq 4 ] ||
        fail "bench --shape 100x1000 --axis 0 on the $shape shape: $(cat "$work/out" "$work/err")"
done
# A wrong result fails every kind of bench (exit 1, its row NO): integer sums and argmax's
# pairs broken in a copy of the kernels (the sum's PLAIN_COMBINE and combine's rule for
# arg pairs in cl/core/defs.cl), which every
# path folds with: whole arrays, columns (one block and several), rows, segments, argmax
# and scans.
cp -r "$cl_dir" "$work/broken-combine"
sed -i -e 's/^#define PLAIN_COMBINE(a, b) ((ACC_T)((ACC_UT)(a) + (ACC_UT)(b)))$/#define PLAIN_COMBINE(a, b) ((ACC_T)((ACC_UT)(a) + (ACC_UT)(b) + 1))/' \
    -e 's/^    return arg_before(b, a) ? b : a;$/    return arg_before(a, b) ? b : a;/' "$work/broken-combine/core/defs.cl"
if [ "$(diff "$cl_dir/core/defs.cl" "$work/broken-combine/core/defs.cl" | grep -c '^>')" -ne 2 ]; then
    fail "the broken combine no longer applies to cl/core/defs.cl"
else
    for kind in "--sizes 4099 -t int32" "--shape 100x300 --axis 0 -t int32" \
        "--shape 100x1000 --axis 0 -t int32" "--shape 100x300 --axis 1 -t int32" \
        "--segments power-law --sizes 300000 -t int32" "--sizes 4099 -o argmax" \
        "--scan --sizes 4099 -t int32"; do
        # shellcheck disable=SC2086 # $kind is several words
        expect_status 1 env CLFOLD_KERNEL_DIR="$work/broken-combine" "$clfold" bench $kind
        grep -Eq '^(int32|float) +(sum|argmax) .* NO' "$work/out" ||
            fail "bench $kind with a broken combine: $(cat "$work/out" "$work/err")"
    done
fi

finish test_cli_bench_checks

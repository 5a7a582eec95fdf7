#!/usr/bin/env bash
# test_cli.sh CLFOLD NPY_TOOL DATA_DIR: the runner's commands, end to end.
# Results are judged by NumPy (tests/npy_reference.py, through cli_checks.sh),
# independently of the runner's .npy reader and host reference; bad input
# must give exit status 2 and exactly one line on stderr.
set -u
clfold=$1 tool=$2 data=$3
. "$(dirname "$0")/cli_checks.sh"

# --- help and version ---------------------------------------------------------
for cmd in "" devices ladder reduce scan bench compare; do
    expect_status 0 "$clfold" $cmd --help
    grep -q '^usage: clfold' "$work/out" || fail "clfold $cmd --help prints no usage"
done
# README's runner synopsis is what --help prints: the grammar is written once (src/cli/args.c).
readme="$(dirname "$0")/../README.md"
for cmd in devices ladder reduce scan bench compare; do
    "$clfold" $cmd --help | python3 -c '
import sys
synopsis = sys.stdin.read().split("\n\n")[0]
readme = open(sys.argv[1]).read()
sys.exit(" ".join(synopsis.split()) not in " ".join(readme.split()))' "$readme" &&
        ok || fail "README.md lacks the synopsis that clfold $cmd --help prints"
done
expect_status 0 "$clfold" --version
grep -Eq '^clfold [0-9]+\.[0-9]+\.[0-9]+$' "$work/out" || fail "--version: $(cat "$work/out")"

# --- devices --------------------------------------------------------------------
expect_status 0 "$clfold" devices
grep -q '^0:0 ' "$work/out" || fail "devices lists no 0:0"
# What a user can reduce there: double (yes/no) and half (storage everywhere, arithmetic with cl_khr_fp16).
head -1 "$work/out" | grep -Eq ' double half$' || fail "devices header lacks the double and half columns"
grep -Eq '^0:0 .* (yes|no) +(storage|arithmetic)$' "$work/out" || fail "devices row 0:0 lacks double/half: $(grep '^0:0' "$work/out")"
expect_status 0 "$clfold" devices --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["devices"][0]["index"]=="0:0"; assert "max_work_group_size" in d["devices"][0]; assert d["devices"][0]["half"] in ("storage", "arithmetic")' "$work/out" \
    || fail "devices --format json is not the documented JSON"

# --- ladder ---------------------------------------------------------------------
expect_status 0 "$clfold" ladder -n 5003 -b 64
[ "$(grep -Ec '^(host|atomic|k[1-7]|auto) .* yes$' "$work/out")" -eq 10 ] || fail "ladder table lacks 10 correct rows: $(cat "$work/out")"
expect_status 0 "$clfold" ladder -n 2^12 -t float -o max --format json
python3 - "$work/out" <<'PY' || fail "ladder --format json is not the documented JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["n"] == 4096 and d["type"] == "float" and d["op"] == "max" and d["block"] == 128
assert {"name", "vendor", "driver"} <= set(d["device"])
kernels = [r["kernel"] for r in d["results"]]
assert kernels == ["host", "atomic", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "auto"], kernels
for r in d["results"]:
    assert r["correct"] is True and r["ms"] > 0 and r["gbps"] > 0, r
    assert {"step_speedup", "cumulative_speedup"} <= set(r)
PY
expect_status 0 "$clfold" ladder -n 1000 -t uint32 -o xor --format csv
[ "$(wc -l <"$work/out")" -eq 11 ] || fail "ladder csv: expected header + 10 rows"
head -1 "$work/out" | grep -q '^format_version,device,driver,n,type,op,block,kernel' || fail "ladder csv header"

# --- reduce: every type and operator, judged by NumPy -------------------------------
# npy_tool make writes random data (it only writes: the expected results come
# from NumPy, see cli_checks.sh); npy_reference.py data writes float data of
# its own: mixed magnitudes that make every order of summation round, and
# products that round yet never overflow. Integers, min, max and bitwise
# operators must match NumPy exactly; float sums and products must be within
# docs/accuracy.md's documented bound for the type, kernel and accuracy.
for type in int8 uint8 int16 uint16 int32 uint32 int64 uint64 half float double; do
    "$tool" make "$type" 10007 "$work/$type.npy" || fail "npy_tool make $type"
done
"$numpy_python" "$reference_py" data "$work" || fail "npy_reference.py data"
for type in int8 uint8 int16 uint16 int32 uint32 int64 uint64; do
    for op in sum prod min max and or xor; do
        reduce_checked "$work/$type.npy" "$op"
    done
done
# Doubles need cl_khr_fp64 (so does --accuracy fp64); POCL and NVIDIA's GPUs have it.
fp64=$("$clfold" devices --format json | python3 -c 'import json,sys; print(all(d["fp64"] for d in json.load(sys.stdin)["devices"]))')
[ "$fp64" = True ] || echo "note: a device without fp64: double data and --accuracy fp64 are not checked"
float_types="half float" accuracies="default compensated exact"
[ "$fp64" = True ] && float_types="half float double" accuracies="default compensated fp64 exact"
for type in $float_types; do
    reduce_checked "$work/$type.npy" min
    reduce_checked "$work/$type.npy" max
    # Every kernel at the default accuracy; the atomic baseline ignores the
    # accuracy and is held to the sequential bound.
    for kernel in k1 k2 k3 k4 k5 k6 k7 atomic auto; do
        reduce_checked "$work/mixed_$type.npy" sum -k "$kernel"
        reduce_checked "$work/prod_$type.npy" prod -k "$kernel"
    done
    # Products whose partial products overflow in most orders; the atomic
    # baseline multiplies in arrival order and may overflow (accuracy.md).
    for kernel in k1 k3 k7 auto; do
        reduce_checked "$work/range_$type.npy" prod -k "$kernel"
        reduce_checked "$work/range_zero_$type.npy" prod -k "$kernel"
    done
    # The other accuracies on the tree (k3), the runs (k7) and the device's
    # shape (auto). Their bounds are tight enough that a plain sum fails them.
    for accuracy in $accuracies; do
        reduce_checked "$work/$type.npy" sum --accuracy "$accuracy"
        [ "$accuracy" = default ] && continue
        for kernel in k3 k7 auto; do
            reduce_checked "$work/mixed_$type.npy" sum -k "$kernel" --accuracy "$accuracy"
        done
    done
done
# Every kernel, on a 3-D shape and a size that is a multiple of nothing.
"$tool" make int32 100002 "$work/int32_3d.npy" 2 3 16667 || fail "make 3-D file"
for kernel in k1 k2 k3 k4 k5 k6 k7 atomic auto; do
    reduce_checked "$work/int32_3d.npy" sum -k "$kernel"
    reduce_checked "$work/int32_3d.npy" min -k "$kernel" -b 32
done
# Empty arrays: the identities (NumPy has none for min and max; npy_reference.py
# holds the library's).
"$tool" make int32 0 "$work/empty.npy" || fail "make empty"
"$tool" make float 0 "$work/empty_float.npy" || fail "make empty float"
for op in sum prod and or xor; do reduce_checked "$work/empty.npy" "$op"; done
for op in sum prod; do reduce_checked "$work/empty_float.npy" "$op"; done
# NumPy has no identity for min and max of none (test_cli_files.sh has the words).
for op in min max; do
    expect_usage_error "$clfold" reduce -o "$op" "$work/empty.npy"
    expect_usage_error "$clfold" reduce -o "$op" "$work/empty_float.npy"
done
# Files written by NumPy itself (the product of the 1023 floats underflows to 0),
# big-endian ones swapped on reading and Fortran-order ones reduced as they lie.
for op in sum prod min max and or xor; do
    reduce_checked "$data/numpy_int16_3d.npy" "$op"
    reduce_checked "$data/numpy_uint8.npy" "$op"
    reduce_checked "$data/numpy_bigendian_int32.npy" "$op"
    reduce_checked "$data/numpy_fortran_2d.npy" "$op"
done
for op in sum prod min max; do reduce_checked "$data/numpy_float32_2d.npy" "$op"; done
# -O writes the printed result as NumPy's 0-d array of the result type.
for case in "int8 sum int64" "uint16 max uint16" "half sum float32" "float prod float32" "int64 xor int64"; do
    set -- $case
    printed=$("$clfold" reduce -o "$2" "$work/$1.npy") || fail "reduce -o $2 $1"
    "$clfold" reduce -o "$2" -O "$work/out.npy" "$work/$1.npy" >"$work/stdout" || fail "reduce -O $1 $2"
    [ ! -s "$work/stdout" ] || fail "reduce -O also printed: $(cat "$work/stdout")"
    "$numpy_python" -c 'import numpy as np, sys
a = np.load(sys.argv[1])
assert a.shape == () and a.dtype == np.dtype(sys.argv[2]), (a.shape, a.dtype)
assert a == np.array(sys.argv[3]).astype(a.dtype), (a, sys.argv[3])' "$work/out.npy" "$3" "$printed" &&
        ok || fail "reduce -O $1 $2: not the printed $printed as a 0-d $3"
done
expect_usage_error "$clfold" reduce -O "$work/no-such-dir/out.npy" "$work/int32.npy"
expect_usage_error "$clfold" reduce -O
if [ "$fp64" = True ]; then
    for op in sum prod min max; do reduce_checked "$data/numpy_float64_scalar.npy" "$op"; done
    [ "$("$clfold" reduce "$data/numpy_float64_scalar.npy")" = 2.5 ] && ok || fail "scalar file: not 2.5"
fi
# -v says what ran, on stderr only.
out=$("$clfold" reduce -v -k k5 -b 64 "$work/int32.npy" 2>"$work/err")
grep -q 'kernel k5, block 64' "$work/err" && grep -q 'build options: -DOP=OP_SUM' "$work/err" && ok ||
    fail "reduce -v: $(cat "$work/err")"
queue_result "$work/int32.npy" sum auto default "$out" "reduce -v: stdout"

# --- bench ---------------------------------------------------------------------
expect_status 0 "$clfold" bench --sizes 1000,4097 -t float,int8 -o sum,max -k auto,k3 --format json
python3 - "$work/out" <<'PY' || fail "bench --format json is not the documented JSON"
import json, sys
d = json.load(open(sys.argv[1]))  # docs/bench-format.md; test_bench_devices.sh validates the schema
assert d["schema"] == {"name": "clfold-bench", "version": 1} and len(d["devices"]) == 1
assert {"name", "vendor", "driver"} <= set(d["devices"][0])
rows = d["devices"][0]["rows"]
assert len(rows) == 2 * 2 * 2 * 2, len(rows)  # sizes x types x ops x kernels
for r in rows:
    assert r["correct"] is True and r["best_ms"] > 0 and r["median_ms"] >= r["best_ms"], r
    assert r["e2e_ms"] > 0 and r["gbps"] > 0 and r["read_gbps"] >= 0, r
assert {r["kernel"] for r in rows} == {"auto", "k3"}
PY
expect_status 0 "$clfold" bench --sizes 2^10:2^12 -t int32
[ "$(grep -Ec '^int32 +sum +[0-9]+ .* yes' "$work/out")" -eq 3 ] || fail "bench 2^10:2^12 lacks 3 rows: $(cat "$work/out")"
# The kernel column says auto, as the JSON and compare do; the path column which shape ran.
[ "$(grep -Ec '^int32 +sum +[0-9]+ +auto +(cpu|gpu) ' "$work/out")" -eq 3 ] ||
    fail "bench's table: not kernel auto and its path: $(cat "$work/out")"
# A peer: any program printing the bench's JSON lines; its rows and ratio appear.
cat >"$work/peer.sh" <<'SH'
#!/bin/sh
shift
for n in "$@"; do echo "{\"peer\": \"fake\", \"type\": \"float\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"; done
SH
chmod +x "$work/peer.sh"
expect_status 0 "$clfold" bench --sizes 1000 --peer "$work/peer.sh"
grep -q 'fake 1.5000 ms' "$work/out" || fail "bench --peer: the peer's row is missing: $(cat "$work/out")"
# A peer that fails fails the bench (exit 1), its table still printed; without peers, no peers' header.
expect_status 1 "$clfold" bench --sizes 1000 --peer false
grep -q 'peer "false" failed for float sum' "$work/err" || fail "bench --peer false: $(cat "$work/err")"
grep -q '^float .* yes$' "$work/out" || fail "bench --peer false: no table: $(cat "$work/out")"
expect_status 0 "$clfold" bench --sizes 1000
grep -q 'peers:' "$work/out" && fail "bench without peers prints a peers' header: $(cat "$work/out")"
# clfold itself at another accuracy as a peer (bench/peers/clfold_peer.py): what docs/accuracy.md's
# exact-against-default ratios are measured with.
expect_status 0 env CLFOLD="$clfold" "$clfold" bench --sizes 1000,4099 --accuracy exact \
    --peer "python3 $(dirname "$0")/../bench/peers/clfold_peer.py default"
[ "$(grep -Ec '^float +sum +(1000|4099) .* clfold-default [0-9.]+ ms [0-9.]+x' "$work/out")" -eq 2 ] ||
    fail "bench --peer clfold_peer.py: a size lacks the default accuracy's row: $(cat "$work/out" "$work/err")"
if command -v gnuplot >/dev/null 2>&1; then
    expect_status 0 "$clfold" bench --sizes 1000,2000 --plot "$work/plot.png"
    [ "$(head -c 4 "$work/plot.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "bench --plot wrote no PNG"
    # A saved run, drawn later (bench/plot_json.py), peer included.
    "$clfold" bench --sizes 1000,2000 --peer "$work/peer.sh" --format json >"$work/run.json" 2>/dev/null
    python3 "$(dirname "$0")/../bench/plot_json.py" "$work/run.json" "$work/saved.png" ||
        fail "plot_json.py failed on a bench JSON"
    [ "$(head -c 4 "$work/saved.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] ||
        fail "plot_json.py wrote no PNG"
fi
# Shapes: rows, columns and segments, checked, with a peer that sees the shape's arguments.
cat >"$work/shape_peer.sh" <<'SH'
#!/bin/sh
# shape_peer.sh TYPE N --shape RxC --axis A | --segments FILE: one row, only for what it was told.
case "$3 $4 $5 $6" in
"--shape 1000x37 --axis 0" | "--segments /tmp/clfold-segments-"*" ")
    [ "$3" = --shape ] || [ -s "$4" ] || exit 1
    echo "{\"peer\": \"shaped\", \"type\": \"$1\", \"n\": $2, \"best_ms\": 2.5, \"median_ms\": 3.0}" ;;
*) echo "shape_peer.sh: unexpected arguments: $*" >&2; exit 1 ;;
esac
SH
chmod +x "$work/shape_peer.sh"
expect_status 0 "$clfold" bench --shape 1000x37 --axis 0 -t float,int32 --peer "$work/shape_peer.sh"
[ "$(grep -Ec '^(float|int32) +sum +37000 +auto +columns .* yes +shaped 2.5000 ms' "$work/out")" -eq 2 ] &&
    grep -q '^Shape: 1000 x 37, axis 0' "$work/out" ||
    fail "bench --shape: rows or the peer's columns missing: $(cat "$work/out" "$work/err")"
expect_status 0 "$clfold" bench --shape 2^10x2^7 --axis 1 -t double -o max --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["devices"][0]["rows"]; assert d["shape"]=="1024 x 128, axis 1" and len(r)==1 and r[0]["correct"] and r[0]["path"]=="rows", d' \
    "$work/out" || fail "bench --shape --format json: $(cat "$work/out")"
offsets_files() { ls /tmp/clfold-segments-* 2>/dev/null | wc -l; }
before=$(offsets_files)
expect_status 0 "$clfold" bench --segments power-law --sizes 300000 -t float --peer "$work/shape_peer.sh"
grep -Eq '^float +sum +300000 +auto +segments .* yes +shaped 2.5000 ms' "$work/out" ||
    fail "bench --segments: $(cat "$work/out" "$work/err")"
[ "$(offsets_files)" -le "$before" ] || fail "bench --segments left its offsets file behind"
# argmin and argmax: every result checked against the host reference (whole arrays, rows,
# columns, segments), and a peer asked for them with "--op OP" last, whose rows are kept
# only for the operator they name (a row without "op" is a sum's).
expect_status 0 "$clfold" bench --sizes 1000,4097 -t float,int8,uint64 -o argmax,argmin --format json
python3 - "$work/out" <<'PY' || fail "bench -o argmax,argmin: $(cat "$work/out" "$work/err")"
import json, sys
rows = json.load(open(sys.argv[1]))["devices"][0]["rows"]
assert len(rows) == 2 * 3 * 2, len(rows)
assert {r["op"] for r in rows} == {"argmax", "argmin"}, rows
assert all(r["correct"] is True and r["best_ms"] > 0 for r in rows), rows
PY
cat >"$work/op_peer.sh" <<'SH'
#!/bin/sh
# op_peer.sh TYPE N... [SHAPE ARGS] [--op OP]: a row per size of the operator asked for, and a
# decoy row of another operator that the runner must drop.
type=$1; shift
op=sum sizes= options=no previous= before=
for arg; do
    case $arg in --*) options=yes ;; esac
    [ "$options" = no ] && sizes="$sizes $arg"
    [ "$previous" = --op ] && op=$arg
    before=$previous previous=$arg
done
[ "$op" = sum ] || [ "$before" = --op ] || { echo "op_peer.sh: --op is not last: $*" >&2; exit 1; }
for n in $sizes; do
    echo "{\"peer\": \"fake-$op\", \"type\": \"$type\", \"op\": \"$op\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"
    decoy=argmin; [ "$op" = argmin ] && decoy=argmax
    echo "{\"peer\": \"decoy\", \"type\": \"$type\", \"op\": \"$decoy\", \"n\": $n, \"best_ms\": 9.5, \"median_ms\": 9.5}"
done
SH
chmod +x "$work/op_peer.sh"
expect_status 0 "$clfold" bench --sizes 1000 -t float -o sum,argmax,max --peer "$work/op_peer.sh"
grep -Eq '^float +sum +1000 .* yes +fake-sum 1.5000 ms' "$work/out" &&
    grep -Eq '^float +argmax +1000 .* yes +fake-argmax 1.5000 ms' "$work/out" &&
    grep -Eq '^float +max +1000 .* yes *$' "$work/out" && ! grep -q decoy "$work/out" ||
    fail "bench -o sum,argmax,max --peer: $(cat "$work/out" "$work/err")"
expect_status 0 "$clfold" bench --shape 1000x37 --axis 0 -t float,int32 -o argmax --peer "$work/op_peer.sh"
[ "$(grep -Ec '^(float|int32) +argmax +37000 +auto +columns .* yes +fake-argmax 1.5000 ms' "$work/out")" -eq 2 ] ||
    fail "bench --shape -o argmax: $(cat "$work/out" "$work/err")"
expect_status 0 "$clfold" bench --shape 37x1000 --axis 1 -t half,double -o argmin,argmax --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["devices"][0]["rows"]; assert len(r)==4 and all(x["correct"] and x["path"]=="rows" for x in r), r' \
    "$work/out" || fail "bench --shape --axis 1 -o argmin,argmax: $(cat "$work/out")"
expect_status 0 "$clfold" bench --segments power-law --sizes 300000 -t int8 -o argmax
grep -Eq '^int8 +argmax +300000 +auto +segments .* yes' "$work/out" || fail "bench --segments -o argmax: $(cat "$work/out")"
expect_status 0 env CLFOLD="$clfold" "$clfold" bench --sizes 4099 -o argmax \
    --peer "python3 $(dirname "$0")/../bench/peers/clfold_peer.py default"
grep -Eq '^float +argmax +4099 .* yes +clfold-default [0-9.]+ ms' "$work/out" ||
    fail "bench -o argmax --peer clfold_peer.py: $(cat "$work/out" "$work/err")"
# The OpenMP peer (built where the compiler has OpenMP) times NumPy's argmax too.
openmp_peer="$(dirname "$clfold")/bench/openmp_peer"
if [ -x "$openmp_peer" ]; then
    expect_status 0 "$clfold" bench --sizes 4097 -t float,int8 -o argmax,argmin --peer "$openmp_peer 2"
    [ "$(grep -Ec '^(float|int8) +arg(max|min) +4097 .* yes +openmp [0-9.]+ ms' "$work/out")" -eq 4 ] ||
        fail "bench -o argmax,argmin --peer openmp_peer: $(cat "$work/out" "$work/err")"
    expect_status 0 "$clfold" bench --shape 100x37 --axis 0 -t double -o argmin --peer "$openmp_peer 2"
    grep -Eq '^double +argmin +3700 +auto +columns .* yes +openmp [0-9.]+ ms' "$work/out" ||
        fail "bench --shape -o argmin --peer openmp_peer: $(cat "$work/out" "$work/err")"
else
    echo "note: no $openmp_peer (no OpenMP): its argmax rows are not checked"
fi
expect_status 0 "$clfold" ladder -n 5003 -b 64 -o argmax
[ "$(grep -Ec '^(host|k[1-7]|auto) .* yes$' "$work/out")" -eq 9 ] && grep -Eq '^atomic .*no index' "$work/out" ||
    fail "ladder -o argmax: $(cat "$work/out")"
expect_usage_error "$clfold" bench -o argmax -k auto,atomic
expect_usage_error "$clfold" reduce -o argmax --axis 0,1 "$work/int32_3d.npy"
expect_usage_error "$clfold" reduce -o argmin "$work/empty.npy"
expect_usage_error "$clfold" reduce -o argmin -k atomic "$work/int32.npy"
expect_usage_error "$clfold" bench --shape 10x --axis 0
expect_usage_error "$clfold" bench --shape 10x10
expect_usage_error "$clfold" bench --shape 10x10 --axis 2
expect_usage_error "$clfold" bench --shape 10x10 --axis 0 --sizes 100
expect_usage_error "$clfold" bench --shape 10x10 --axis 0 -k k3
expect_usage_error "$clfold" bench --axis 1
expect_usage_error "$clfold" bench --segments uniform
expect_usage_error "$clfold" bench --segments power-law --sizes 1000,2000
expect_usage_error "$clfold" bench --sizes 12abc
expect_usage_error "$clfold" bench --sizes 2^20:2^10
expect_usage_error "$clfold" bench -t complex
expect_usage_error "$clfold" bench -t float -o xor
expect_usage_error "$clfold" bench -k k9

# --- scans: the scan ladder and bench --scan (docs/scans.md) ---------------------------
# Every row's every output is checked against the host reference (exit 1 if one is wrong);
# GB/s count input and output; the roofline is a device-to-device copy of as many bytes.
expect_status 0 "$clfold" ladder --scan -n 5003
[ "$(grep -Ec '^(kogge-stone|blelloch|blelloch-padded|auto) .* yes$' "$work/out")" -eq 4 ] &&
    grep -Eq '^Scan: +5003 float, inclusive sum \(result float\)' "$work/out" &&
    grep -Eq '^Roofline: +a device-to-device copy of 20012 bytes' "$work/out" ||
    fail "ladder --scan: not 4 correct rows of float sums: $(cat "$work/out" "$work/err")"
expect_status 0 "$clfold" ladder --scan --exclusive -n 2^12 -t int8 -b 64 --format json
python3 - "$work/out" <<'PY' || fail "ladder --scan --format json: $(cat "$work/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["n"], d["type"], d["op"], d["scan"], d["result_type"]) == (4096, "int8", "sum", "exclusive", "int64"), d
assert d["bytes"] == 4096 * 9 and d["copy"]["bytes"] == 4096 * 9 // 2, d
assert [r["kernel"] for r in d["results"]] == ["kogge-stone", "blelloch", "blelloch-padded", "auto"], d
for r in d["results"]:
    assert r["correct"] is True and r["status"] == "ok" and r["ms"] > 0 and r["passes"] >= 1, r
    assert abs(r["gbps"] - 4096 * 9 / (r["ms"] * 1e6)) <= 1e-3 * r["gbps"] + 1e-3, r  # input and output
    assert r["block"] == 64 or r["kernel"] == "auto", r
assert d["results"][0]["step_speedup"] is None and d["results"][0]["cumulative_speedup"] == 1
PY
expect_status 0 "$clfold" ladder --scan -n 1000 -t half -o max --format csv
[ "$(wc -l <"$work/out")" -eq 5 ] && head -1 "$work/out" | grep -q '^format_version,device,driver,n,type,op,scan,' &&
    [ "$(grep -c ',half,max,inclusive,default,.*,true,ok$' "$work/out")" -eq 4 ] ||
    fail "ladder --scan --format csv: $(cat "$work/out")"
expect_status 0 "$clfold" bench --scan --sizes 1000,4097 -t float,int8,half -o sum,min -k auto,kogge-stone \
    --format json
python3 - "$work/out" <<'PY' || fail "bench --scan --format json: $(cat "$work/out" "$work/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["shape"] == "inclusive scan", d["shape"]
rows = d["devices"][0]["rows"]
assert len(rows) == 2 * 3 * 2 * 2, len(rows)  # sizes x types x ops x kernels
out_size = {("float", "sum"): 4, ("int8", "sum"): 8, ("half", "sum"): 4, ("float", "min"): 4,
            ("int8", "min"): 1, ("half", "min"): 4}
in_size = {"float": 4, "int8": 1, "half": 2}
for r in rows:
    assert r["scan"] == "inclusive" and r["correct"] is True and r["read_gbps"] > 0, r
    assert r["kernel"] in ("auto", "kogge-stone") and r["path"] in ("kogge-stone", "scan-cpu", "scan-gpu"), r
    moved = r["n"] * (in_size[r["type"]] + out_size[(r["type"], r["op"])])
    assert abs(r["gbps"] - moved / (r["best_ms"] * 1e6)) <= 2e-3 * r["gbps"] + 2e-3, r
PY
# A peer is asked with "--scan MODE" after the sizes (and --op OP last for min and max); only
# its rows that say the same scan are kept (a decoy reduction row is dropped).
cat >"$work/scan_peer.sh" <<'SH'
#!/bin/sh
# scan_peer.sh TYPE N... --scan MODE [--op OP]: a row per size, and a reduction's decoy row.
type=$1; shift
sizes= mode= op=sum previous=
for arg; do
    case $previous in --scan) mode=$arg ;; --op) op=$arg ;; esac
    case $arg in --*) ;; *) [ -z "$mode" ] && [ "$previous" != --op ] && sizes="$sizes $arg" ;; esac
    previous=$arg
done
[ -n "$mode" ] || { echo "scan_peer.sh: no --scan in: $*" >&2; exit 1; }
for n in $sizes; do
    echo "{\"peer\": \"fake-$op\", \"type\": \"$type\", \"op\": \"$op\", \"scan\": \"$mode\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"
    echo "{\"peer\": \"decoy\", \"type\": \"$type\", \"op\": \"$op\", \"n\": $n, \"best_ms\": 9.5, \"median_ms\": 9.5}"
done
SH
chmod +x "$work/scan_peer.sh"
expect_status 0 "$clfold" bench --scan --exclusive --sizes 1000,2000 -t int32 -o sum,max,xor --peer "$work/scan_peer.sh"
grep -q '^Scan: exclusive; ' "$work/out" &&
    [ "$(grep -Ec '^int32 +sum +(1000|2000) +auto +scan-(cpu|gpu) .* yes +fake-sum 1.5000 ms' "$work/out")" -eq 2 ] &&
    [ "$(grep -Ec '^int32 +max +(1000|2000) +auto +scan-(cpu|gpu) .* yes +fake-max 1.5000 ms' "$work/out")" -eq 2 ] &&
    [ "$(grep -Ec '^int32 +xor +(1000|2000) .* yes *$' "$work/out")" -eq 2 ] && ! grep -q decoy "$work/out" ||
    fail "bench --scan --exclusive --peer: $(cat "$work/out" "$work/err")"
# A wrong scan fails the command: Kogge-Stone's step broken in a copy of the kernels
# (CLFOLD_KERNEL_DIR); its row says NO, Blelloch's stay correct, stderr says which output.
# (auto's row may say either: the GPU tiles scan with the same step, POCL's chunks do not.)
cl_dir="$(dirname "$0")/../cl"
cp -r "$cl_dir" "$work/broken-cl"
sed -i 's/if (lid >= d)/if (lid > d)/' "$work/broken-cl/scan/common.cl"
if cmp -s "$cl_dir/scan/common.cl" "$work/broken-cl/scan/common.cl"; then
    fail "the broken Kogge-Stone step no longer applies to cl/scan/common.cl"
else
    expect_status 1 env CLFOLD_KERNEL_DIR="$work/broken-cl" "$clfold" ladder --scan -n 5000
    grep -Eq '^kogge-stone .* NO$' "$work/out" &&
        [ "$(grep -Ec '^(blelloch|blelloch-padded) .* yes$' "$work/out")" -eq 2 ] &&
        grep -q '^clfold: kogge-stone: output [0-9]* is ' "$work/err" ||
        fail "ladder --scan with a broken kernel: $(cat "$work/out" "$work/err")"
    expect_status 1 env CLFOLD_KERNEL_DIR="$work/broken-cl" "$clfold" bench --scan --sizes 4097 -t int32 \
        -k kogge-stone,blelloch
    grep -Eq '^int32 +sum +4097 +kogge-stone .* NO' "$work/out" &&
        grep -Eq '^int32 +sum +4097 +blelloch .* yes' "$work/out" &&
        grep -q '^clfold: int32 inclusive sum scan, kogge-stone, n 4097: output [0-9]* is ' "$work/err" ||
        fail "bench --scan with a broken kernel: $(cat "$work/out" "$work/err")"
fi
# The OpenMP peer's scans (OpenMP 5.0's scan directive), each of its outputs checked by itself.
if [ -x "$openmp_peer" ]; then
    expect_status 0 "$clfold" bench --scan --sizes 4097,100003 -t float,int8 -o sum,max --peer "$openmp_peer 2"
    [ "$(grep -Ec '^(float|int8) +(sum|max) +(4097|100003) .* yes +openmp [0-9.]+ ms' "$work/out")" -eq 8 ] ||
        fail "bench --scan --peer openmp_peer: $(cat "$work/out" "$work/err")"
    expect_status 0 "$openmp_peer" 2 int32 1 4097 --scan exclusive --op min
    [ "$(grep -c '"scan": "exclusive"' "$work/out")" -eq 2 ] || fail "openmp_peer --scan exclusive: $(cat "$work/out")"
    expect_status 2 "$openmp_peer" 2 float 100 --scan inclusive --op argmax
fi
if /usr/bin/python3 -c 'import pyopencl' 2>/dev/null; then
    expect_status 0 env CLFOLD_DEVICE=0:0 /usr/bin/python3 "$(dirname "$0")/../bench/peers/pyopencl_peer.py" \
        generic_scan int8 1 4097 --scan exclusive
    [ "$(grep -c '"peer": "pyopencl_generic_scan", "type": "int8", "op": "sum", "scan": "exclusive"' "$work/out")" -eq 2 ] ||
        fail "pyopencl_peer.py generic_scan: $(cat "$work/out" "$work/err")"
fi
expect_usage_error "$clfold" ladder --exclusive
expect_usage_error "$clfold" ladder --scan -o argmax
expect_usage_error "$clfold" ladder --scan -t float -o xor
expect_usage_error "$clfold" ladder --scan -n 0
expect_usage_error "$clfold" ladder --scan -n 1000 --accuracy exact
expect_usage_error "$clfold" ladder --scan -k blelloch
expect_usage_error "$clfold" bench --exclusive
expect_usage_error "$clfold" bench --scan -o argmin
expect_usage_error "$clfold" bench --scan -k k3
expect_usage_error "$clfold" bench --scan --shape 10x10 --axis 0
expect_usage_error "$clfold" bench --scan --segments power-law
expect_usage_error "$clfold" bench --scan -t half --accuracy exact
expect_usage_error "$clfold" bench --scan --scan-mode inclusive

# --- bad usage and bad input: exit 2, one line on stderr ------------------------------
expect_usage_error "$clfold"
expect_usage_error "$clfold" frobnicate
expect_usage_error "$clfold" ladder --frobnicate
expect_usage_error "$clfold" ladder -n 12abc
expect_usage_error "$clfold" ladder -n
expect_usage_error "$clfold" ladder -n 0
expect_usage_error "$clfold" ladder -b 0
expect_usage_error "$clfold" ladder -b 3
expect_usage_error "$clfold" ladder -b 1048576
expect_usage_error "$clfold" ladder -t complex
expect_usage_error "$clfold" ladder -t float -o and
expect_usage_error "$clfold" ladder --format xml
expect_usage_error "$clfold" ladder -d no-such-device -n 10
expect_usage_error "$clfold" devices -n 5
expect_usage_error "$clfold" reduce
expect_usage_error "$clfold" reduce -k k9 "$work/int32.npy"
expect_usage_error "$clfold" reduce "$work/int32.npy" extra-argument
expect_usage_error "$clfold" reduce "$work/no-such-file.npy"
expect_usage_error "$clfold" reduce "$data/not_npy.npy"
expect_usage_error "$clfold" reduce "$data/truncated.npy"
expect_usage_error "$clfold" reduce "$data/numpy_bool.npy"
expect_usage_error "$clfold" reduce -o xor "$work/float.npy"
expect_usage_error "$clfold" reduce -d no-such-device "$work/int32.npy"

finish test_cli

#!/usr/bin/env bash
# test_cli.sh CLFOLD NPY_TOOL DATA_DIR: the runner's commands, end to end.
# Results are compared with the host reference (npy_tool expect); bad input
# must give exit status 2 and exactly one line on stderr.
set -u
clfold=$1 tool=$2 data=$3
. "$(dirname "$0")/cli_checks.sh"

# expect_reduce FILE OP [ARGS...]: clfold reduce prints exactly the reference result.
expect_reduce() {
    local file=$1 op=$2; shift 2
    local want got
    want=$("$tool" expect "$file" "$op") || { fail "npy_tool expect $file $op"; return; }
    got=$("$clfold" reduce -o "$op" "$@" "$file" 2>"$work/err")
    if [ "$got" != "$want" ]; then
        fail "reduce -o $op $* $(basename "$file"): got '$got', expected '$want' $(cat "$work/err")"
    else ok; fi
}

# --- help and version ---------------------------------------------------------
for cmd in "" devices ladder reduce; do
    expect_status 0 "$clfold" $cmd --help
    grep -q '^usage: clfold' "$work/out" || fail "clfold $cmd --help prints no usage"
done
expect_status 0 "$clfold" --version
grep -Eq '^clfold [0-9]+\.[0-9]+\.[0-9]+$' "$work/out" || fail "--version: $(cat "$work/out")"

# --- devices --------------------------------------------------------------------
expect_status 0 "$clfold" devices
grep -q '^0:0 ' "$work/out" || fail "devices lists no 0:0"
expect_status 0 "$clfold" devices --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["devices"][0]["index"]=="0:0"; assert "max_work_group_size" in d["devices"][0]' "$work/out" \
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

# --- reduce: generated files of every type, every operator --------------------------
for type in int8 uint8 int16 uint16 int32 uint32 int64 uint64 half float double; do
    "$tool" make "$type" 10007 "$work/$type.npy" || fail "npy_tool make $type"
    for op in sum prod min max and or xor; do
        case "$type:$op" in half:and|half:or|half:xor|float:and|float:or|float:xor|double:and|double:or|double:xor) continue ;; esac
        case "$type:$op" in
            # Float sums and products depend on the order of operations: check those
            # below against the bound; min and max are exact.
            half:sum|half:prod|float:sum|float:prod|double:sum|double:prod) continue ;;
        esac
        expect_reduce "$work/$type.npy" "$op"
    done
done
# Every kernel, on a 3-D shape and a size that is a multiple of nothing.
"$tool" make int32 100002 "$work/int32_3d.npy" 2 3 16667 || fail "make 3-D file"
for kernel in k1 k2 k3 k4 k5 k6 k7 atomic auto; do
    expect_reduce "$work/int32_3d.npy" sum -k "$kernel"
    expect_reduce "$work/int32_3d.npy" min -k "$kernel" -b 32
done
# Float sums: within the documented bound of the exact sum (bound tested in test_ops).
for type in float double half; do
    got=$("$clfold" reduce -o sum "$work/$type.npy") || fail "reduce $type sum"
    want=$("$tool" expect "$work/$type.npy" sum)
    python3 -c "import sys; g,w=float(sys.argv[1]),float(sys.argv[2]); sys.exit(abs(g-w) > 1e-4*max(1,abs(w)))" "$got" "$want" \
        || fail "$type sum: $got far from $want"
    ok
done
# Empty array: the identity.
"$tool" make int32 0 "$work/empty.npy" || fail "make empty"
[ "$("$clfold" reduce -o min "$work/empty.npy")" = 2147483647 ] || fail "min of nothing is not INT32_MAX"
[ "$("$clfold" reduce -o prod "$work/empty.npy")" = 1 ] || fail "prod of nothing is not 1"
# Files written by NumPy itself.
expect_reduce "$data/numpy_int16_3d.npy" sum
expect_reduce "$data/numpy_uint8.npy" xor
expect_reduce "$data/numpy_float32_2d.npy" max
expect_reduce "$data/numpy_float64_scalar.npy" sum
[ "$("$clfold" reduce "$data/numpy_float64_scalar.npy")" = 2.5 ] || fail "scalar file"
# -v says what ran, on stderr only.
out=$("$clfold" reduce -v -k k5 -b 64 "$work/int32.npy" 2>"$work/err")
grep -q 'kernel k5, block 64' "$work/err" && grep -q 'build options: -DOP=OP_SUM' "$work/err" || fail "reduce -v: $(cat "$work/err")"
[ "$out" = "$("$tool" expect "$work/int32.npy" sum)" ] || fail "reduce -v changed stdout"

# --- bench ---------------------------------------------------------------------
expect_status 0 "$clfold" bench --sizes 1000,4097 -t float,int8 -o sum,max -k auto,k3 --format json
python3 - "$work/out" <<'PY' || fail "bench --format json is not the documented JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 1 and {"name", "vendor", "driver"} <= set(d["device"])
rows = d["results"]
assert len(rows) == 2 * 2 * 2 * 2, len(rows)  # sizes x types x ops x kernels
for r in rows:
    assert r["correct"] is True and r["best_ms"] > 0 and r["median_ms"] >= r["best_ms"], r
    assert r["e2e_ms"] > 0 and r["gbps"] > 0 and r["read_gbps"] >= 0, r
assert {r["kernel"] for r in rows} == {"auto", "k3"}
PY
expect_status 0 "$clfold" bench --sizes 2^10:2^12 -t int32
[ "$(grep -Ec '^int32 +sum +[0-9]+ .* yes' "$work/out")" -eq 3 ] || fail "bench 2^10:2^12 lacks 3 rows: $(cat "$work/out")"
# A peer: any program printing the bench's JSON lines; its rows and ratio appear.
cat >"$work/peer.sh" <<'SH'
#!/bin/sh
shift
for n in "$@"; do echo "{\"peer\": \"fake\", \"type\": \"float\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"; done
SH
chmod +x "$work/peer.sh"
expect_status 0 "$clfold" bench --sizes 1000 --peer "$work/peer.sh"
grep -q 'fake 1.5000 ms' "$work/out" || fail "bench --peer: the peer's row is missing: $(cat "$work/out")"
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
expect_usage_error "$clfold" bench --sizes 12abc
expect_usage_error "$clfold" bench --sizes 2^20:2^10
expect_usage_error "$clfold" bench -t complex
expect_usage_error "$clfold" bench -t float -o xor
expect_usage_error "$clfold" bench -k k9

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
expect_usage_error "$clfold" reduce "$data/numpy_bigendian_int32.npy"
expect_usage_error "$clfold" reduce "$data/numpy_fortran_2d.npy"
expect_usage_error "$clfold" reduce "$data/numpy_bool.npy"
expect_usage_error "$clfold" reduce -o xor "$work/float.npy"
expect_usage_error "$clfold" reduce -d no-such-device "$work/int32.npy"

finish test_cli

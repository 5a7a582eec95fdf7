#!/usr/bin/env bash
# test_bench_devices.sh CLFOLD SCHEMA.json SHIM.so: `clfold bench` on several
# devices in one process (docs/bench-format.md): a table each and a summary,
# one JSON document that the schema (bench/schema/clfold-bench-1.json)
# validates, the CSV's device column, a device that fails reported in its
# place while the others run (the failure made by tests/cl_shim.c), and bad
# selectors. POCL has one device: it is selected twice, by index and by name.
set -u
clfold=$1 schema=$2 shim=$3
. "$(dirname "$0")/cli_checks.sh"

# validate FILE: FILE is valid against the schema (jsonschema, from python3-jsonschema: .ci/deps).
validate() {
    local python
    for python in /usr/bin/python3 python3; do
        "$python" -c 'import jsonschema' 2>/dev/null && break
        python=
    done
    # .ci/deps installs it, so CI fails without it; a machine set up otherwise (the GPU's) skips the check.
    if [ -z "$python" ]; then
        [ -n "${CI:-}" ] && fail "no Python with jsonschema: install python3-jsonschema (.ci/deps)"
        [ -z "${CI:-}" ] && echo "skipped: no Python with jsonschema to validate $1"
        return
    fi
    "$python" - "$schema" "$1" <<'PY' && ok || fail "$1 does not validate against $schema"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2])), schema)
PY
}

sizes=1000,4099
# -d all: every device that `clfold devices` lists, a table each.
listed=$("$clfold" devices | grep -Ec '^[0-9]+:[0-9]+ ')
expect_status 0 "$clfold" bench -d all --sizes $sizes -t float,int8
[ "$(grep -c '^Device: ' "$work/out")" -eq "$listed" ] || fail "bench -d all: not $listed tables: $(cat "$work/out")"
[ "$(grep -Ec '^(float|int8) +sum +(1000|4099) .* yes' "$work/out")" -eq $((4 * listed)) ] ||
    fail "bench -d all: rows missing: $(cat "$work/out")"

# The same device by two selectors: two tables, then the summary's two columns.
name=$("$clfold" devices --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["name"])')
word=$(echo "$name" | tr -c 'A-Za-z0-9\n' ' ' | awk '{print $1}')
expect_status 0 "$clfold" bench -d "0:0,$word" --sizes $sizes -t float -o sum,max
[ "$(grep -c '^Device: ' "$work/out")" -eq 2 ] && grep -q '^Summary: 2 devices side by side' "$work/out" &&
    grep -Fq "  B  $name #2" "$work/out" ||
    fail "bench -d 0:0,$word: no two tables and summary: $(cat "$work/out")"
[ "$(grep -Ec '^float +(sum|max) +(1000|4099) +auto +[0-9.]+ +[0-9.]+% +1\.00x +[0-9.]+ ' "$work/out")" -eq 4 ] ||
    fail "bench summary: not 4 rows of two columns: $(cat "$work/out")"

# JSON: one document, two devices, valid against the schema.
expect_status 0 "$clfold" bench -d "0:0,$word" --sizes $sizes -t float,int32 -o sum,argmax --format json
cp "$work/out" "$work/two.json"
validate "$work/two.json"
python3 - "$work/two.json" "$word" <<'PY' || fail "bench -d 0:0,$word --format json: $(head -c 600 "$work/two.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["selector"] for x in d["devices"]] == ["0:0", sys.argv[2]], d["devices"]
assert all(x["index"] == "0:0" and x["error"] is None for x in d["devices"])
assert d["command"][1:3] == ["bench", "-d"] and d["date"].endswith("Z")
for x in d["devices"]:
    assert len(x["rows"]) == 2 * 2 * 2 and all(r["correct"] for r in x["rows"]), x["rows"]
PY
# A peer's rows are in each device's rows; "GPU:CMD" runs beside GPUs only.
cat >"$work/peer.sh" <<'SH'
#!/bin/sh
shift
for n in "$@"; do echo "{\"peer\": \"fake-$CLFOLD_DEVICE\", \"type\": \"float\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"; done
SH
chmod +x "$work/peer.sh"
expect_status 0 "$clfold" bench -d "0:0,$word" --sizes 1000 --peer "$work/peer.sh" --peer "GPU:$work/peer.sh" --format json
cp "$work/out" "$work/peers.json"
validate "$work/peers.json"
type=$("$clfold" devices --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["type"])')
python3 - "$work/peers.json" "$type" <<'PY' || fail "bench --peer beside two devices: $(cat "$work/peers.json")"
import json, sys
gpu = sys.argv[2] == "GPU"
for x in json.load(open(sys.argv[1]))["devices"]:
    peers = [r for r in x["rows"] if r["source"] != "clfold"]
    assert [r["source"] for r in peers] == ["fake-0:0"] * (2 if gpu else 1), peers  # CLFOLD_DEVICE: P:D
PY

# CSV: the same rows, a device per row.
expect_status 0 "$clfold" bench -d "0:0,$word" --sizes $sizes --format csv
head -1 "$work/out" | grep -q '^schema_version,device_index,device,driver,accuracy,source,type,op,n,kernel,' &&
    [ "$(grep -c "^1,0:0,\"$name\",.*,clfold,float,sum," "$work/out")" -eq 4 ] ||
    fail "bench --format csv with two devices: $(cat "$work/out")"

# Scans (--scan): one document, valid against the schema, every row saying its scan, the
# document's shape "exclusive scan" (compare keys rows by it); the summary; the CSV's scan column.
cat >"$work/scan_peer.sh" <<'SH'
#!/bin/sh
type=$1; shift
for n in "$@"; do
    case $n in --*|inclusive|exclusive) continue ;; esac
    echo "{\"peer\": \"fake-scan\", \"type\": \"$type\", \"op\": \"sum\", \"scan\": \"exclusive\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"
done
SH
chmod +x "$work/scan_peer.sh"
expect_status 0 "$clfold" bench -d "0:0,$word" --scan --exclusive --sizes $sizes -t float,int32 -k auto,blelloch \
    --peer "$work/scan_peer.sh" --format json
cp "$work/out" "$work/scans.json"
validate "$work/scans.json"
python3 - "$work/scans.json" <<'PY' || fail "bench --scan -d 0:0,$word --format json: $(head -c 600 "$work/scans.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["shape"] == "exclusive scan" and len(d["devices"]) == 2, d["shape"]
for x in d["devices"]:
    own = [r for r in x["rows"] if r["source"] == "clfold"]
    peers = [r for r in x["rows"] if r["source"] != "clfold"]
    assert len(own) == 2 * 2 * 2 and all(r["correct"] and r["scan"] == "exclusive" for r in own), own
    assert {r["kernel"] for r in own} == {"auto", "blelloch"}, own
    assert len(peers) == 2 * 2 and all(r["scan"] == "exclusive" and r["source"] == "fake-scan" for r in peers), peers
    # a peer's GB/s count input and output too: int32 sums write int64
    for r in peers:
        assert abs(r["gbps"] - r["n"] * (4 + (8 if r["type"] == "int32" else 4)) / (1.5 * 1e6)) < 1e-3, r
PY
expect_status 0 "$clfold" bench -d "0:0,$word" --scan --sizes $sizes -t int8
grep -q '^Summary: 2 devices side by side' "$work/out" &&
    [ "$(grep -Ec '^int8 +sum +(1000|4099) +auto +[0-9.]+ +[0-9.]+% +1\.00x +[0-9.]+ .*inclusive scan$' "$work/out")" -eq 2 ] ||
    fail "bench --scan's summary: $(cat "$work/out")"
expect_status 0 "$clfold" bench --scan --sizes $sizes -t float --format csv
head -1 "$work/out" | grep -q ',read_gbps,correct,scan,path$' &&
    [ "$(grep -c '^1,[0-9]*:[0-9]*,.*,clfold,float,sum,[0-9]*,auto,.*,true,inclusive,scan-[a-z]*$' "$work/out")" -eq 2 ] ||
    fail "bench --scan --format csv: $(cat "$work/out")"

# A device that fails (its kernel's build, the 6th clBuildProgram of the process: the
# second device's reduction) says why in its place; the other runs; exit status 1.
expect_status 1 env LD_PRELOAD="$shim" CLFOLD_SHIM_FAIL=clBuildProgram:6 \
    "$clfold" bench -d "0:0,$word" --sizes 1000 -t float
grep -Eq '^FAILED: float sum auto: .*BUILD' "$work/out" &&
    [ "$(grep -Ec '^float +sum +1000 .* yes' "$work/out")" -eq 1 ] &&
    grep -Eq '^float +sum +1000 +auto +[0-9.]+ +[0-9.]+% +1\.00x +- +- +-$' "$work/out" ||
    fail "bench with a failing device: $(cat "$work/out" "$work/err")"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "a failing device: not one line on stderr: $(cat "$work/err")"
run env LD_PRELOAD="$shim" CLFOLD_SHIM_FAIL=clBuildProgram:6 \
    "$clfold" bench -d "0:0,$word" --sizes 1000 -t float --format json
cp "$work/out" "$work/failed.json"
validate "$work/failed.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; assert d[0]["error"] is None and "BUILD" in d[1]["error"] and d[1]["rows"]==[], d' \
    "$work/failed.json" || fail "bench --format json with a failing device: $(cat "$work/failed.json")"

# Bad selectors: exit 2, one line, before anything runs.
expect_usage_error "$clfold" bench -d "0:0,no-such-device" --sizes 1000
expect_usage_error "$clfold" bench -d "0:0," --sizes 1000
expect_usage_error "$clfold" bench -d ",0:0" --sizes 1000

finish test_bench_devices

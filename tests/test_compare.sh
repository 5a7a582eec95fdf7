#!/usr/bin/env bash
# test_compare.sh CLFOLD: `clfold compare` of saved bench runs
# (docs/bench-format.md): two runs whose devices have different names (the
# second a copy of the first with its device renamed, as from another
# machine) merge into one table, CSV and JSON with a column each and the
# ratio to --baseline, their legend saying what a reduction's or a scan's
# columns mean; --plot draws a PNG where gnuplot is installed and says
# what is missing where it is not; and every bad input is exit status 2 with
# one line on stderr: not JSON, another schema or version, no shared rows,
# a baseline that names no column. Two runs of known, different speeds check
# each ratio's value and direction against either baseline.
set -u
clfold=$1
. "$(dirname "$0")/cli_checks.sh"

cat >"$work/peer.sh" <<'SH'
#!/bin/sh
shift
for n in "$@"; do echo "{\"peer\": \"fake\", \"type\": \"float\", \"n\": $n, \"best_ms\": 1.5, \"median_ms\": 2.0}"; done
SH
chmod +x "$work/peer.sh"
expect_status 0 "$clfold" bench --sizes 1000,4099 -t float -k auto,k3 --peer "$work/peer.sh" --format json
cp "$work/out" "$work/a.json"
# The same run from "another machine": its device renamed.
python3 - "$work/a.json" "$work/b.json" <<'PY' || fail "cannot make the second run"
import json, sys
d = json.load(open(sys.argv[1]))
d["devices"][0]["name"] = "Renamed Device 9000"
d["host"]["hostname"] = "elsewhere"
json.dump(d, open(sys.argv[2], "w"))
PY

# The table: four columns (two devices, a peer on each), a row per (type, op, n, kernel).
expect_status 0 "$clfold" compare "$work/a.json" "$work/b.json" --baseline renamed
grep -Fq '  C  Renamed Device 9000  (' "$work/out" && grep -Fq '  D  fake on Renamed Device 9000' "$work/out" &&
    grep -q '^  baseline: C$' "$work/out" ||
    fail "compare: columns or baseline missing: $(cat "$work/out")"
[ "$(grep -Ec '^float +sum +(1000|4099) +(auto|k3) ' "$work/out")" -eq 4 ] ||
    fail "compare: not 4 rows: $(cat "$work/out")"
expect_status 0 "$clfold" compare "$work/a.json" "$work/b.json" --baseline "Renamed Device 9000" --format json
python3 - "$work/out" <<'PY' || fail "compare --format json: $(head -c 800 "$work/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == {"name": "clfold-compare", "version": 1} and d["baseline"] == "Renamed Device 9000"
names = [c["name"] for c in d["columns"]]
assert len(names) == 4 and names[2] == "Renamed Device 9000" and names[3] == "fake on Renamed Device 9000", names
assert len(d["rows"]) == 4, d["rows"]
for row in d["rows"]:
    cells = {c["column"]: c for c in row["cells"]}
    assert len(cells) == 4, row
    own, copy = cells[names[0]], cells[names[2]]
    assert own["gbps"] == copy["gbps"] and abs(own["ratio"] - 1) < 1e-9 and copy["ratio"] == 1, row
    assert "read_percent" in own and cells[names[3]]["best_ms"] == 1.5, row
PY
expect_status 0 "$clfold" compare "$work/a.json" "$work/b.json" --format csv
head -1 "$work/out" | grep -q '^shape,type,op,n,kernel,column,device,source,origin,best_ms,gbps,read_percent,ratio,baseline$' &&
    [ "$(grep -c '^"whole",float,sum,' "$work/out")" -eq 16 ] ||
    fail "compare --format csv: $(cat "$work/out")"
# Two runs of known, different speeds: the ratio is each column's GB/s over the
# baseline's (above 1: faster than the baseline), exact in the table, CSV and
# JSON, for either run as the baseline. A's peer is twice as fast as A; only A
# has n = 3000, where B's cell is "-" and, with B the baseline, so is A's ratio.
# A's rows come out of order, and with a max beside the sums: the rows are
# sorted by size within each (type, operator, kernel), sums first, and the
# peer's sum is put beside the sums only; its min, which A has no kernel for,
# stands alone (kernel "-"), last.
python3 - "$work" <<'PY' || fail "cannot make the runs of known speeds"
import json, sys
def run(name, gbps, peer=None):
    rows = [{"source": "clfold", "type": "float", "op": op, "n": n, "kernel": "auto", "best_ms": 4 * n / g / 1e6,
             "median_ms": 4 * n / g / 1e6, "gbps": g, "read_gbps": 20.0} for op, n, g in gbps]
    rows += [{"source": "twice", "type": "float", "op": op, "n": n, "best_ms": 2 * n / g / 1e6,
              "median_ms": 2 * n / g / 1e6, "gbps": 2 * g} for op, n, g in (peer or [])]
    return {"schema": {"name": "clfold-bench", "version": 1}, "accuracy": "default", "shape": "whole",
            "devices": [{"name": name, "rows": rows}]}
json.dump(run("Slow A", [("sum", 3000, 8.0), ("max", 1000, 12.0), ("sum", 1000, 10.0), ("sum", 2000, 20.0)],
              [("sum", 1000, 10.0), ("min", 1000, 4.0)]), open(sys.argv[1] + "/slow.json", "w"))
json.dump(run("Fast B", [("sum", 1000, 25.0), ("sum", 2000, 5.0)]), open(sys.argv[1] + "/fast.json", "w"))
PY
expect_status 0 "$clfold" compare "$work/slow.json" "$work/fast.json" --baseline "slow a"
grep -q '^  baseline: A$' "$work/out" &&
    grep -Eq '^float +sum +1000 +auto +10\.0 +50\.0% +1\.00x +20\.0 +100\.0% +2\.00x +25\.0 +125\.0% +2\.50x$' "$work/out" &&
    grep -Eq '^float +sum +2000 +auto +20\.0 +100\.0% +1\.00x +- +- +- +5\.0 +25\.0% +0\.25x$' "$work/out" &&
    grep -Eq '^float +sum +3000 +auto +8\.0 +40\.0% +1\.00x +- +- +- +- +- +-$' "$work/out" &&
    grep -Eq '^float +max +1000 +auto +12\.0 +60\.0% +1\.00x +- +- +- +- +- +-$' "$work/out" &&
    grep -Eq '^float +min +1000 +- +- +- +- +8\.0 +40\.0% +- +- +- +-$' "$work/out" ||
    fail "compare against A: the ratios: $(cat "$work/out")"
expect_status 0 "$clfold" compare "$work/slow.json" "$work/fast.json" --baseline "Fast B" --format csv
grep -q '^"whole",float,sum,1000,auto,"Slow A","Slow A","clfold","[^"]*slow.json",0.000400,10.000,50.00,0.4000,"Fast B"$' "$work/out" &&
    grep -q '^"whole",float,sum,1000,auto,"twice on Slow A",.*,0.8000,"Fast B"$' "$work/out" &&
    grep -q '^"whole",float,sum,2000,auto,"Slow A",.*,4.0000,"Fast B"$' "$work/out" &&
    grep -q '^"whole",float,sum,2000,auto,"Fast B",.*,1.0000,"Fast B"$' "$work/out" &&
    grep -q '^"whole",float,sum,3000,auto,"Slow A",.*,40.00,,"Fast B"$' "$work/out" ||
    fail "compare --format csv against B: the ratios: $(cat "$work/out")"
expect_status 0 "$clfold" compare "$work/slow.json" "$work/fast.json" --baseline "fast" --format json
python3 - "$work/out" <<'PY' || fail "compare --format json against B: $(cat "$work/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"] == "Fast B", d["baseline"]
rows = [(r["op"], r["n"], r["kernel"]) for r in d["rows"]]
assert rows == [("sum", 1000, "auto"), ("sum", 2000, "auto"), ("sum", 3000, "auto"), ("max", 1000, "auto"),
                ("min", 1000, "-")], rows
ratios = {(r["op"], r["n"], c["column"]): c.get("ratio") for r in d["rows"] for c in r["cells"]}
assert ratios == {("sum", 1000, "Slow A"): 0.4, ("sum", 1000, "twice on Slow A"): 0.8, ("sum", 1000, "Fast B"): 1.0,
                  ("sum", 2000, "Slow A"): 4.0, ("sum", 2000, "Fast B"): 1.0, ("sum", 3000, "Slow A"): None,
                  ("max", 1000, "Slow A"): None, ("min", 1000, "twice on Slow A"): None}, ratios
PY

# A run on its own is a table too.
expect_status 0 "$clfold" compare "$work/a.json"
grep -q '^Columns (GB/s of input; %read: of that device.s streaming read' "$work/out" ||
    fail "compare of reductions: the legend: $(head -1 "$work/out")"
# A scan's columns count input and output, against a copy of as many bytes.
expect_status 0 "$clfold" bench --scan --sizes 1000 -t float -k auto --format json
cp "$work/out" "$work/scan.json"
expect_status 0 "$clfold" compare "$work/scan.json"
grep -q '^Columns (GB/s of input and output; %read: of that device.s copy moving as many bytes' \
    "$work/out" && grep -q 'inclusive scan' "$work/out" ||
    fail "compare of a scan run: $(head -5 "$work/out")"

# --plot: a PNG where gnuplot is, and one line saying what is missing where it is not.
if command -v gnuplot >/dev/null 2>&1; then
    expect_status 0 "$clfold" compare "$work/a.json" "$work/b.json" --plot "$work/compare.png"
    [ "$(head -c 4 "$work/compare.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "compare --plot wrote no PNG"
    # A saved run drawn by bench/plot_json.py, the new document's first device.
    python3 "$(dirname "$0")/../bench/plot_json.py" "$work/a.json" "$work/saved.png" &&
        [ "$(head -c 4 "$work/saved.png" | od -An -c | tr -d ' ')" = "211PNG" ] && ok ||
        fail "plot_json.py drew no PNG from a bench document"
else
    echo "note: no gnuplot: compare --plot's PNG is not checked"
fi
mkdir "$work/bin"
ln -s "$(command -v sh)" "$work/bin/sh"
expect_status 1 env PATH="$work/bin" "$clfold" compare "$work/a.json" --plot "$work/none.png"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q 'gnuplot is not installed.*gnuplot-nox' "$work/err" &&
    [ ! -e "$work/none.png" ] && grep -q '^float ' "$work/out" ||
    fail "compare --plot without gnuplot: $(cat "$work/err")"

# A device named with control characters (ESC, BEL, a newline, a tab, U+009B, a
# C1 control that some terminals take as ESC [) and a backslash: the table
# escapes them (\x1b, \x07, \n, \t, \u009b, \\) and writes no control
# character; CSV keeps a line a cell, C0 controls as spaces; JSON gives the name
# back exactly; an error naming it is one line. Its operator, 'sum,"x', is one
# CSV field.
python3 - "$work/a.json" "$work/evil.json" "$work/evil-bad.json" <<'PY' || fail "cannot make the evil run"
import json, sys
d = json.load(open(sys.argv[1]))
d["devices"][0]["name"] = "Evil\x1b[2J\x07GPU\nline\t2\\x\x9b"
for row in d["devices"][0]["rows"]:
    row["op"] = 'sum,"x'
json.dump(d, open(sys.argv[2], "w"))
del d["devices"][0]["rows"][1]["best_ms"]
json.dump(d, open(sys.argv[3], "w"))
PY
expect_status 0 "$clfold" compare "$work/evil.json"
grep -Fq '  A  Evil\x1b[2J\x07GPU\nline\t2\\x\u009b  (' "$work/out" &&
    ! LC_ALL=C grep -q '[[:cntrl:]]' "$work/out" && ! grep -q $'\xc2\x9b' "$work/out" ||
    fail "compare: the device's name not escaped: $(head -3 "$work/out" | od -c | head -8)"
expect_status 0 "$clfold" compare "$work/evil.json" --format csv
python3 - "$work/out" <<'PY' || fail "compare --format csv of the evil name: $(head -3 "$work/out")"
import csv, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert lines[-1] == "" and len(lines) == 1 + 8 + 1, lines
for row in csv.reader(lines[1:-1]):
    assert len(row) == 14 and row[6] == "Evil [2J GPU line 2\\x\x9b" and row[2] == 'sum,"x', row
PY
expect_status 0 "$clfold" compare "$work/evil.json" --format json
python3 - "$work/out" <<'PY' || fail "compare --format json of the evil name: $(head -c 300 "$work/out")"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["columns"][0]["device"] == "Evil\x1b[2J\x07GPU\nline\t2\\x\x9b", d["columns"][0]
PY
expect_usage_error "$clfold" compare "$work/evil-bad.json"
expect_message 'device "Evil\\x1b\[2J\\x07GPU\\nline\\t2\\\\x\\u009b", row 1'

# Bad input: exit 2, one line on stderr, nothing on stdout.
printf 'type,n\nfloat,10\n' >"$work/not.json"
expect_usage_error "$clfold" compare "$work/a.json" "$work/not.json"
expect_message 'not\.json: not JSON: line 1, column 1'
head -c 300 "$work/a.json" >"$work/cut.json"
expect_usage_error "$clfold" compare "$work/cut.json"
sed 's/"version": 1/"version": 2/' "$work/a.json" >"$work/v2.json"
expect_usage_error "$clfold" compare "$work/a.json" "$work/v2.json"
expect_message 'schema "clfold-bench" version 2 is not one this clfold reads'
# A version that is not a number is named for what it is, never "version -1".
sed 's/"version": 1/"version": "1"/' "$work/a.json" >"$work/v-string.json"
expect_usage_error "$clfold" compare "$work/v-string.json"
expect_message 'schema "clfold-bench": its "version" is a string \("1"\), not a number \(this clfold reads clfold-bench version 1\)$'
sed 's/"version": 1/"version": null/' "$work/a.json" >"$work/v-null.json"
expect_usage_error "$clfold" compare "$work/v-null.json"
expect_message 'schema "clfold-bench": its "version" is null, not a number'
sed 's/, "version": 1//' "$work/a.json" >"$work/v-none.json"
expect_usage_error "$clfold" compare "$work/v-none.json"
expect_message 'schema "clfold-bench" has no "version"'
sed 's/"name": "clfold-bench"/"name": ["clfold-bench"]/' "$work/a.json" >"$work/n-array.json"
expect_usage_error "$clfold" compare "$work/n-array.json"
expect_message '"schema": its "name" is an array, not a string'
sed 's/"version": 1/"version": 1.0000001/' "$work/a.json" >"$work/v-near.json"
expect_usage_error "$clfold" compare "$work/v-near.json"
expect_message 'schema "clfold-bench" version 1.0000001 is not one'
# A row's field that is missing or wrong is named, with what was found.
python3 - "$work/a.json" "$work" <<'PY' || fail "cannot make the runs with bad rows"
import json, sys
for name, field, value in (("ms-string", "best_ms", "3"), ("n-negative", "n", -2), ("no-op", "op", None),
                           ("read-null", "read_gbps", None), ("not-object", None, 7)):
    d = json.load(open(sys.argv[1]))
    rows = d["devices"][0]["rows"]
    if field is None:
        rows[2] = value
    elif value is None and field == "op":
        del rows[2][field]
    else:
        rows[2][field] = value
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
PY
expect_usage_error "$clfold" compare "$work/ms-string.json"
expect_message 'row 2: its "best_ms" is a string \("3"\), not a number$'
expect_usage_error "$clfold" compare "$work/n-negative.json"
expect_message 'row 2: its "n" is -2, not 0 or more$'
expect_usage_error "$clfold" compare "$work/no-op.json"
expect_message 'row 2: it has no "op"$'
expect_usage_error "$clfold" compare "$work/read-null.json"
expect_message 'row 2: its "read_gbps" is null, not a number$'
expect_usage_error "$clfold" compare "$work/not-object.json"
expect_message 'row 2: it is a number, not an object$'
echo '{"format_version": 1, "device": {}, "results": []}' >"$work/old.json"
expect_usage_error "$clfold" compare "$work/old.json"
expect_message 'no "schema"'
expect_status 0 "$clfold" bench --sizes 2000 -t int8 --format json
cp "$work/out" "$work/other.json"
expect_usage_error "$clfold" compare "$work/a.json" "$work/other.json"
expect_message 'share no rows'
expect_usage_error "$clfold" compare "$work/a.json" "$work/b.json" --baseline no-such-column
expect_usage_error "$clfold" compare "$work/a.json" "$work/b.json" --baseline "fake on"
expect_usage_error "$clfold" compare "$work/no-such-file.json"

# The size limit admits a run of exactly 256 MiB and refuses one byte more, from a
# file (by its size, before reading) and from a pipe (by what it reads). The runs
# are a.json padded with spaces, which JSON takes as space after the value.
limit=$((256 << 20))
cp "$work/a.json" "$work/big.json"
head -c $((limit - $(wc -c <"$work/a.json"))) /dev/zero | tr '\0' ' ' >>"$work/big.json"
expect_status 0 "$clfold" compare "$work/big.json"
[ "$(wc -c <"$work/big.json")" -eq "$limit" ] && grep -Eq '^float +sum +4099 +k3 ' "$work/out" ||
    fail "compare of exactly 256 MiB: $(head -c 300 "$work/out")"
expect_status 0 "$clfold" compare /dev/stdin < <(cat "$work/big.json")
printf ' ' >>"$work/big.json"
expect_usage_error "$clfold" compare "$work/big.json"
expect_message 'big\.json: larger than 256 MiB'
expect_usage_error "$clfold" compare /dev/stdin < <(cat "$work/big.json")
expect_message 'stdin: larger than 256 MiB'
rm "$work/big.json"
truncate -s 1T "$work/huge.json"
expect_usage_error "$clfold" compare "$work/huge.json"
expect_message 'huge\.json: larger than 256 MiB'
rm "$work/huge.json"
expect_usage_error "$clfold" compare
expect_usage_error "$clfold" compare "$work/a.json" -d 0:0

finish test_compare

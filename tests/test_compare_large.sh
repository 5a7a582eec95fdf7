#!/usr/bin/env bash
# test_compare_large.sh CLFOLD: `clfold compare` of two generated runs of
# 200000 rows each (150000 of clfold's, 50000 of a peer's beside them),
# every row shared, the second's times twice the first's. CTest's TIMEOUT
# on this entry is the guard on compare's running time: far above what a
# merge of n log n takes, far below what one of n^2 does. The output is
# checked too, so that a fast wrong merge fails: every row present, sizes
# ascending, and each ratio right: B's is 0.5, the peer's half its device's.
set -u
clfold=$1
. "$(dirname "$0")/cli_checks.sh"

# make_run NAME MS_PER_ELEMENT OUT: a run of one device called NAME.
make_run() {
    python3 - "$@" <<'PY' || fail "cannot make the run $3"
import json, sys
name, per, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
own = [{"source": "clfold", "type": "float", "op": "sum", "n": n, "kernel": "auto", "path": "cpu",
        "best_ms": n * per, "median_ms": n * per, "e2e_ms": n * per, "gbps": 4 * n / (n * per) / 1e6,
        "read_gbps": 10.0, "correct": True} for n in range(1, 150001)]
peer = [{"source": "fake", "type": "float", "op": "sum", "n": n, "best_ms": 2 * n * per,
         "median_ms": 2 * n * per, "gbps": 2 * n / (n * per) / 1e6} for n in range(1, 50001)]
json.dump({"schema": {"name": "clfold-bench", "version": 1}, "accuracy": "default", "shape": "whole",
           "devices": [{"name": name, "rows": own + peer}]}, open(out, "w"))
PY
}
make_run "Device A" 1e-6 "$work/a.json"
make_run "Device B" 2e-6 "$work/b.json"

expect_status 0 "$clfold" compare "$work/a.json" "$work/b.json" --format csv
# One line a cell: 150000 rows of A and of B, 50000 of each one's peer, and the header.
[ "$(wc -l <"$work/out")" -eq 400001 ] || fail "compare: $(wc -l <"$work/out") lines, not 400001"
awk -F, 'NR > 1 && $4 != last { if ($4 <= last) { print "unsorted at line " NR; exit 1 } last = $4 }
         NR > 1 { want = $6 == "\"Device A\"" ? "1.0000" : $6 == "\"fake on Device B\"" ? "0.2500" : "0.5000" }
         NR > 1 && $13 != want { print $6 ": ratio " $13 ", not " want ", at line " NR; exit 1 }' \
    last=0 "$work/out" && ok || fail "compare: rows out of order or a ratio wrong"

finish test_compare_large

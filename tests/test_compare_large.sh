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

# Runs A and B, one device each; B's times twice A's. Rows are written as text:
# json.dump takes several seconds for as many.
python3 - "$work" <<'PY' || fail "cannot make the runs"
import sys
for name, per in (("A", 1e-6), ("B", 2e-6)):
    own = ('{"source": "clfold", "type": "float", "op": "sum", "n": %d, "kernel": "auto", "path": "cpu", '
           '"best_ms": %r, "median_ms": %r, "gbps": %r, "read_gbps": 10.0, "correct": true}')
    peer = '{"source": "fake", "type": "float", "op": "sum", "n": %d, "best_ms": %r, "median_ms": %r, "gbps": %r}'
    rows = [own % (n, n * per, n * per, 4 * n / (n * per) / 1e6) for n in range(1, 150001)]
    rows += [peer % (n, 2 * n * per, 2 * n * per, 4 * n / (2 * n * per) / 1e6) for n in range(1, 50001)]
    with open("%s/%s.json" % (sys.argv[1], name.lower()), "w") as out:
        out.write('{"schema": {"name": "clfold-bench", "version": 1}, "accuracy": "default", '
                  '"shape": "whole", "devices": [{"name": "Device %s", "rows": [\n' % name)
        out.write(",\n".join(rows))
        out.write("]}]}\n")
PY

expect_status 0 "$clfold" compare "$work/a.json" "$work/b.json" --format csv
# One line a cell: 150000 rows of A and of B, 50000 of each one's peer, and the header.
[ "$(wc -l <"$work/out")" -eq 400001 ] || fail "compare: $(wc -l <"$work/out") lines, not 400001"
awk -F, 'NR > 1 && $4 != last { if ($4 <= last) { print "unsorted at line " NR; exit 1 } last = $4 }
         NR > 1 { want = $6 == "\"Device A\"" ? "1.0000" : $6 == "\"fake on Device B\"" ? "0.2500" : "0.5000" }
         NR > 1 && $13 != want { print $6 ": ratio " $13 ", not " want ", at line " NR; exit 1 }' \
    last=0 "$work/out" && ok || fail "compare: rows out of order or a ratio wrong"

finish test_compare_large

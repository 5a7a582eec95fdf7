#!/usr/bin/env python3
"""clfold_peer.py ACCURACY TYPE N... [--op OP]: clfold itself, at another accuracy, as a peer of `clfold bench`.

What an accuracy costs is a ratio to the default accuracy, and on a noisy
machine only a ratio measured in one run means anything. So

    clfold bench --accuracy exact --peer "bench/peers/clfold_peer.py default"

sums the same data at both accuracies, one after the other, and the peer
column's ratio (peer time over clfold's) is the exact sum's speed as a
fraction of the default's. This runs `$CLFOLD bench` (default
build/clfold) on $CLFOLD_DEVICE, as the other peers do, and prints one JSON
object per size: {"peer", "type", "op", "n", "best_ms", "median_ms", "e2e_ms"}.
`--op OP` (last, as `clfold bench -o argmax` passes it) reduces by OP
instead of summing. Needs only python3.
"""
import json
import os
import subprocess
import sys

ACCURACIES = ("default", "compensated", "fp64", "exact")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ACCURACIES:
        raise SystemExit("usage: clfold_peer.py " + "|".join(ACCURACIES) + " TYPE N... [--op OP]")
    accuracy, kind, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
    op = "sum"
    if len(sizes) >= 2 and sizes[-2] == "--op":
        op, sizes = sizes[-1], sizes[:-2]
    command = [os.environ.get("CLFOLD", "build/clfold"), "bench", "--accuracy", accuracy,
               "-t", kind, "-o", op, "--sizes", ",".join(sizes), "--format", "json"]
    if os.environ.get("CLFOLD_DEVICE"):
        command += ["-d", os.environ["CLFOLD_DEVICE"]]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        raise SystemExit(f"clfold_peer: {' '.join(command)} exited with {run.returncode}")
    rows = json.loads(run.stdout)["devices"][0]["rows"]  # docs/bench-format.md
    for row in (r for r in rows if r["source"] == "clfold"):
        print(json.dumps({"peer": "clfold-" + accuracy, "type": row["type"], "op": row["op"],
                          "n": row["n"], "best_ms": row["best_ms"],
                          "median_ms": row["median_ms"], "e2e_ms": row["e2e_ms"]}), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""repeat_ratios.py ROUNDS CLFOLD BENCH-ARGS...: ratios that survive a noisy machine.

One `clfold bench` run gives each peer's time over clfold's in that run. On a
shared 2-core virtual machine those ratios swing by up to 2x from run to run,
so this runs the same bench ROUNDS times (each a fresh process, clfold and its
peers side by side as always) and prints, per type, size and peer, the median
ratio with its lowest and highest, and the best times over all rounds of clfold
and of the plain streaming read that the bench measures beside it (the roofline).

    bench/repeat_ratios.py 9 build/clfold --sizes 2^26 -t float,int32 \\
        --peer "build/bench/openmp_peer 2"

A ratio above 1 means clfold is faster. Needs only python3.
"""
import csv
import io
import statistics
import subprocess
import sys


def one_round(command):
    """{(type, op, n): (clfold best ms, read ms)} and {(type, op, n, peer): peer best ms} of one run."""
    out = subprocess.run(command + ["--format", "csv"], check=True, capture_output=True,
                         text=True).stdout
    ours, peers = {}, {}
    for row in csv.DictReader(io.StringIO(out)):
        key = (row["type"], row["op"], int(row["n"]))
        if row["source"] == "clfold":
            best_ms, gbps, read_gbps = (float(row[k]) for k in ("best_ms", "gbps", "read_gbps"))
            ours[key] = (best_ms, best_ms * gbps / read_gbps if read_gbps > 0 else float("nan"))
        else:
            peers[key + (row["source"],)] = float(row["best_ms"])
    return ours, peers


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        raise SystemExit("usage: repeat_ratios.py ROUNDS CLFOLD [BENCH ARGS...]")
    rounds = int(sys.argv[1])
    command = [sys.argv[2], "bench"] + sys.argv[3:]
    ratios, best = {}, {}
    for r in range(rounds):
        ours, peers = one_round(command)
        for key, (ms, read_ms) in ours.items():
            old = best.get(key, (ms, read_ms))
            best[key] = (min(ms, old[0]), min(read_ms, old[1]))
        for (type_, op, n, peer), ms in peers.items():
            if (type_, op, n) in ours:
                ratios.setdefault((type_, op, n, peer), []).append(ms / ours[(type_, op, n)][0])
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    print(f"{'type':7} {'op':6} {'n':>11} {'clfold best ms':>14} {'read best ms':>12}  {'peer':28} "
          f"{'median ratio':>12} {'lowest':>7} {'highest':>7}  rounds")
    for (type_, op, n, peer), values in sorted(ratios.items()):
        key = (type_, op, n)
        print(f"{type_:7} {op:6} {n:11d} {best[key][0]:14.4f} {best[key][1]:12.4f}  {peer:28} "
              f"{statistics.median(values):11.2f}x {min(values):6.2f}x {max(values):6.2f}x  "
              f"{len(values)}")


if __name__ == "__main__":
    main()

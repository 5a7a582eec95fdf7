#!/usr/bin/env python3
"""plot_json.py RESULTS.json OUT.png: draws a saved `clfold bench --format json` run.

The picture `clfold bench --plot` draws for one device (GB/s against size:
clfold's series, the streaming read, every peer), for runs made on a machine
without gnuplot, such as the lent GPU machines: save the JSON there, draw it
here. It reads the first device of the document (docs/bench-format.md);
`clfold compare RUN.json... --plot OUT.png` draws every device of several
runs, without the read. Needs python3 and gnuplot (Debian's gnuplot-nox).
"""
import json
import os
import subprocess
import sys
import tempfile

TYPE_SIZES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "half": 2, "int32": 4, "uint32": 4,
              "float": 4, "int64": 8, "uint64": 8, "double": 8}


def series(run):
    """[(title, [(n, GB/s), ...]), ...] in the order `clfold bench --plot` draws them."""
    out = {}
    group = lambda r: (r["type"], r["op"], r["kernel"])  # noqa: E731
    rows = [r for r in run["rows"] if r["source"] == "clfold"]
    first = group(rows[0]) if rows else None
    for r in rows:
        shape = (r.get("path") or "auto") if r["kernel"] == "auto" else r["kernel"]
        out.setdefault(f"clfold {shape} {r['type']} {r['op']}", []).append((r["n"], r["gbps"]))
        if group(r) == first:  # the read is drawn once, beside the first series
            out.setdefault(f"streaming read {r['type']}", []).append((r["n"], r["read_gbps"]))
    for p in (r for r in run["rows"] if r["source"] != "clfold"):
        gbps = p["n"] * TYPE_SIZES[p["type"]] / (p["best_ms"] * 1e6)
        out.setdefault(f"{p['source']} {p['type']} {p['op']}", []).append((p["n"], gbps))
    return list(out.items())


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: plot_json.py RESULTS.json OUT.png")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    if doc.get("schema", {}).get("name") != "clfold-bench" or doc["schema"].get("version") != 1:
        raise SystemExit(f"plot_json.py: {sys.argv[1]} is not a clfold-bench version 1 run")
    device = doc["devices"][0]
    lines = series(device)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        with open(data, "w") as f:
            for _, points in lines:
                f.write("".join(f"{n} {gbps:.3f}\n" for n, gbps in sorted(points)) + "\n\n")
        plots = ", ".join(f"'{data}' index {i} with linespoints title '{title}'"
                          for i, (title, _) in enumerate(lines))
        script = (f"set terminal png size 1100,650\nset output '{sys.argv[2]}'\n"
                  "set logscale x 2\nset format x '2^{%L}'\nset grid\nset key left top\n"
                  "set xlabel 'elements'\nset ylabel 'GB/s (input bytes / device time)'\n"
                  f"set title 'clfold bench on {device['name']} ({device['driver']})'\n"
                  f"plot {plots}\n")
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""test_bench_layers.py SOURCE_DIR: the files of `clfold bench`
(src/cli/bench/) call one way, down ORDER, read from the sources alone.

ORDER is where the order is declared: the folder's files top to bottom,
in one flow, plan -> measure -> report, below the command and above the
types they all pass on. A file may call only files below it, so:

  - every .c of the folder is in ORDER, and every file of ORDER is there;
    every header is the header of a file of ORDER;
  - no file of the folder, .c or .h, includes the header of a file above
    its own (X.h is X.c's; an include is resolved as the compiler does,
    from the including file's folder first);
  - each .c says in its first comment "May call (below it in
    src/cli/bench/): a.c, b.c." (or "none."), and that is exactly the
    files whose headers it includes;
  - docs/design.md names the folder's files in ORDER.

Exit status 0 only if every check passed (tests/checks.py).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

# Top to bottom. Each file may call only files after it.
ORDER = [
    "bench.c",           # the command: plan, then measure every device, then report
    "plan.c",            # the command line into a plan
    "measure.c",         # one device: whole arrays, then the shapes, scans and peers below
    "measure_shapes.c",  # --shape and --segments
    "measure_scan.c",    # --scan
    "peers.c",           # the peer programs, and the OpenCL loader's variables they start with
    "measure_time.c",    # the timing of one call
    "scan_check.c",      # a scan's reference, check and copy (clfold ladder --scan's too)
    "roofline.c",        # the streaming read and the copy a device gives
    "report.c",          # the tables, the summary and --plot
    "document.c",        # --format json and csv
    "merge.c",           # the side-by-side table (clfold compare's too)
    "plot.c",            # gnuplot
    "run.c",             # the types every stage passes on (run.h), and their few functions
]

MAY_CALL = "May call (below it in src/cli/bench/):"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def first_comment(text):
    """The text of the file's first /* ... */ comment, its lines joined, the stars dropped."""
    match = re.search(r"/\*(.*?)\*/", text, re.DOTALL)
    if match is None:
        return ""
    lines = [re.sub(r"^\s*\*\s?", "", line).strip() for line in match.group(1).splitlines()]
    return " ".join(line for line in lines if line)


def declared_calls(text):
    """The files that the first comment's "May call" names, or None where it has none."""
    comment = first_comment(text)
    at = comment.find(MAY_CALL)
    if at < 0:
        return None
    match = re.match(r"\s*(none|[a-z_0-9]+\.c(?:,\s*[a-z_0-9]+\.c)*)\.(?:\s|$)",
                     comment[at + len(MAY_CALL):] + " ")
    if match is None:
        return None
    return set() if match.group(1) == "none" else set(re.split(r",\s*", match.group(1)))


def folder_includes(folder, name, text):
    """The folder's headers that `name` includes, as the files they belong to (X.h -> X.c):
    each include found as the compiler finds it, beside the file, else under src/cli
    (the runner's include folder), so that "bench/report.h" counts as report.h."""
    owners = []
    for included in INCLUDE_RE.findall(text):
        for base in (folder, os.path.dirname(folder)):
            path = os.path.normpath(os.path.join(base, included))
            if os.path.exists(path):
                if os.path.dirname(path) == folder and path.endswith(".h"):
                    owners.append(os.path.basename(path)[:-2] + ".c")
                break
    return owners


def check_design(root):
    """docs/design.md's item on src/cli/bench/ names the folder's files in ORDER."""
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("- `src/cli/bench/`")), None)
    check(start is not None, "docs/design.md has no item \"- `src/cli/bench/`\" naming the files")
    if start is None:
        return
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    named = re.findall(r"`([a-z_0-9]+\.c)`", " ".join(lines[start:end]))
    check(named == ORDER, f"docs/design.md names the files of src/cli/bench/ as {named}, "
          f"not in ORDER {ORDER} (tests/test_bench_layers.py)")


def main():
    if len(sys.argv) != 2:
        print("usage: test_bench_layers.py SOURCE_DIR")
        return 2
    root = os.path.abspath(sys.argv[1])
    folder = os.path.join(root, "src", "cli", "bench")
    place = {name: i for i, name in enumerate(ORDER)}
    present = sorted(os.listdir(folder))
    sources = [n for n in present if n.endswith(".c")]
    headers = [n for n in present if n.endswith(".h")]

    for name in sources:
        check(name in place, f"src/cli/bench/{name} is not in ORDER (tests/test_bench_layers.py): "
              "put it where it belongs, below every file that calls it")
    for name in ORDER:
        check(name in sources, f"ORDER names {name}, which src/cli/bench/ does not hold")
    for name in headers:
        check(name[:-2] + ".c" in place, f"src/cli/bench/{name} is the header of no file of ORDER")

    for name in sources + headers:
        owner = name[:-2] + ".c"
        if owner not in place:
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = f.read()
        calls = folder_includes(folder, name, text)
        for callee in calls:
            if callee == owner and name.endswith(".c"):
                continue  # a file's own header
            check(callee in place and place[callee] > place[owner],
                  f"src/cli/bench/{name} includes {callee[:-2]}.h: {callee} is not below {owner} "
                  "in ORDER (a file may call only files below it)")
        if name.endswith(".c"):
            declared = declared_calls(text)
            actual = {c for c in calls if c != owner}
            check(declared is not None,
                  f"src/cli/bench/{name}: its first comment says no \"{MAY_CALL} a.c, b.c.\" (or none.)")
            if declared is not None:
                check(declared == actual,
                      f"src/cli/bench/{name}: its comment says it may call {sorted(declared) or 'none'}, "
                      f"its includes call {sorted(actual) or 'none'}")

    check_design(root)
    return finish("bench_layers")


if __name__ == "__main__":
    sys.exit(main())

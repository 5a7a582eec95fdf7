#!/usr/bin/env python3
"""test_op_lists.py LIBCLFOLD CLFOLD SOURCE_DIR: the operators are listed once, in the
library's table (src/core/ops.c). Everything else builds its list from it:

- no source of the library, the runner or the Python module spells three or more
  operator names in a row (a list written by hand), outside ops.c;
- the runner's --help and its errors name exactly the table's operators (every one
  for reduce and ladder, those with CLFOLD_OP_SCANS for scan);
- the bench's JSON schema (bench/schema/) allows exactly the table's operators, and
  for scans those with CLFOLD_OP_SCANS.
Exit status 1 with a line for each finding."""
import ctypes
import json
import os
import re
import subprocess
import sys

lib_path, runner, source = sys.argv[1:4]
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


class OpInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("numpy_name", ctypes.c_char_p), ("flags", ctypes.c_uint)]


lib = ctypes.CDLL(lib_path)
lib.clfold_op_describe.argtypes = [ctypes.c_int, ctypes.POINTER(OpInfo)]
lib.clfold_op_describe.restype = ctypes.c_int
table, info = [], OpInfo()
while lib.clfold_op_describe(len(table), ctypes.byref(info)) == 0:
    table.append((info.name.decode(), info.flags))
SCANS = 0x8
everything = [name for name, _ in table]
scanning = [name for name, flags in table if flags & SCANS]
check(len(everything) >= 9 and "sum" in everything, f"the table lists {everything}")

# A list written by hand: operator names joined the way code joins them. Quoted
# names with commas ("sum", "prod", ...) or names one space apart (help text:
# sum prod min ...), three or more; names joined by ", " (messages: sum, prod,
# min, ...), four or more. "and" and "or" are English too: they join such runs
# but are not counted, so that prose ("min and max") is no list.
name = "|".join(sorted(map(re.escape, everything), key=len, reverse=True))
RUNS = [(re.compile(rf"""["'](?:{name})["'](?:\s*,\s*["'](?:{name})["'])+"""), 3),
        (re.compile(rf"\b(?:{name})(?: (?:{name}))+\b"), 3),
        (re.compile(rf"\b(?:{name})(?:, (?:{name}))+\b"), 4)]


def hand_list(line):
    for pattern, least in RUNS:
        for run in pattern.finditer(line):
            counted = [w for w in re.findall(r"[a-z]+", run.group(0)) if w not in ("and", "or")]
            if len(counted) >= least:
                return True
    return False


EXEMPT = {os.path.join("src", "core", "ops.c")}  # the table itself
for folder in ("src", "include", os.path.join("python", "clfold")):
    for root, _, files in os.walk(os.path.join(source, folder)):
        for file in files:
            path = os.path.join(root, file)
            relative = os.path.relpath(path, source)
            if relative in EXEMPT or not file.endswith((".c", ".h", ".py", ".cl")):
                continue
            with open(path, encoding="utf-8") as text:
                for number, line in enumerate(text, 1):
                    if hand_list(line):
                        check(False, f"{relative}:{number}: a list of operators written by hand: "
                                     f"{line.strip()}")


def words_after(text, start):
    """The operator names in `text` from `start` up to the first word that is none."""
    found = []
    for word in re.findall(r"[a-z]+", text[start:]):
        if word not in everything:
            break
        found.append(word)
    return found


def runner_text(*args):
    r = subprocess.run([runner, *args], capture_output=True, text=True)
    return r.stdout + r.stderr


for command, want in (("reduce", everything), ("ladder", everything), ("scan", scanning)):
    text = runner_text(command, "--help")
    at = text.find("\n  -o OP")
    check(at >= 0 and words_after(text, at + len("\n  -o OP")) == want,
          f"clfold {command} --help lists {words_after(text, at + 8) if at >= 0 else None}, "
          f"the table {want}")
text = runner_text("reduce", "-o", "nothing", "x.npy")
at = text.find("(")
check(at >= 0 and words_after(text, at) == everything, f"an unknown operator's error: {text.strip()}")

with open(os.path.join(source, "bench", "schema", "clfold-bench-1.json"), encoding="utf-8") as f:
    schema = json.load(f)
enums = []


def collect(node):
    if isinstance(node, dict):
        if isinstance(node.get("op"), dict) and "enum" in node["op"]:
            enums.append(node["op"]["enum"])
        for value in node.values():
            collect(value)
    elif isinstance(node, list):
        for value in node:
            collect(value)


collect(schema)
check(everything in enums and scanning in enums and all(e in (everything, scanning) for e in enums),
      f"the bench schema's operator enums {enums}, the table's {everything} and {scanning}")

for failure in failures:
    print("FAIL:", failure)
print(f"test_op_lists: {len(table)} operators, {len(failures)} findings")
sys.exit(1 if failures else 0)

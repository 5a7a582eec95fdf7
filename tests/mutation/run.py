#!/usr/bin/env python3
"""tests/mutation/run.py: the mutation check, run on demand (never by CTest or CI).

Copies the working tree (tracked files and untracked files git does not
ignore) to a temporary folder, configures and builds it once, runs the tests
that the mutations name on the unmutated tree (the baseline), then for each
mutation of mutations.txt: applies it by pattern, rebuilds incrementally, runs
the tests it names, records caught (a test that passed on the baseline failed
or timed out) or survived (every one passed again), and puts the file back.
Ends with a table; exit status 0 only if every mutation applied and was caught.

    tests/mutation/run.py                 every mutation
    tests/mutation/run.py ID...           those mutations only
    tests/mutation/run.py --list          the list, nothing run
    tests/mutation/run.py --check [ID...] patterns and test names checked, nothing built
    tests/mutation/run.py --keep ID       keep the temporary folder for debugging

Python 3 standard library only. See README.md beside this file.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ("id", "bug", "file", "find", "replace", "tests")
ID_RE = re.compile(r"[A-Za-z0-9_.-]+")
ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


class ListError(Exception):
    """A malformed mutations file."""


# ---- the list ---------------------------------------------------------------


def unescape(value, where):
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "\\":
            if i + 1 >= len(value) or value[i + 1] not in ESCAPES:
                raise ListError(f"{where}: unknown escape {value[i:i + 2]!r} (use \\n, \\t or \\\\)")
            out.append(ESCAPES[value[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_list(path):
    """The mutations of `path`, in order, as dicts of KEYS (plus 'line')."""
    entries, current = [], None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\r\n")
            where = f"{path}:{number}"
            if not line.strip() or line.startswith("#"):
                continue
            key, colon, value = line.partition(":")
            if not colon or key not in KEYS:
                raise ListError(f"{where}: expected one of {', '.join(k + ':' for k in KEYS)}")
            if value.startswith(" "):
                value = value[1:]
            if key == "id":
                current = {"id": value, "line": number}
                entries.append(current)
                continue
            if current is None:
                raise ListError(f"{where}: '{key}:' before the first 'id:'")
            if key in current:
                raise ListError(f"{where}: a second '{key}:' in entry {current['id']}")
            current[key] = unescape(value, where) if key in ("find", "replace") else value.strip()
    seen = set()
    for e in entries:
        where = f"{path}:{e['line']}"
        if not ID_RE.fullmatch(e["id"]):
            raise ListError(f"{where}: bad id {e['id']!r} (letters, digits, - _ . only)")
        if e["id"] in seen:
            raise ListError(f"{where}: id {e['id']} appears twice")
        seen.add(e["id"])
        missing = [k for k in KEYS if k not in e]
        if missing:
            raise ListError(f"{where}: entry {e['id']} lacks {', '.join(missing)}")
        if not e["find"]:
            raise ListError(f"{where}: entry {e['id']} has an empty find")
        if e["find"] == e["replace"]:
            raise ListError(f"{where}: entry {e['id']} replaces its text with itself")
        if not e["tests"].split():
            raise ListError(f"{where}: entry {e['id']} names no tests")
        e["words"] = e["tests"].split()
    return entries


def occurrences(text, pattern):
    """How many times `pattern` occurs in `text`, overlapping matches included."""
    count, start = 0, 0
    while (at := text.find(pattern, start)) >= 0:
        count += 1
        start = at + 1
    return count


def pattern_problem(root, entry):
    """None if entry's pattern occurs exactly once in its file; else what is wrong."""
    path = os.path.join(root, entry["file"])
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as err:
        return f"cannot read {entry['file']}: {err.strerror}"
    n = occurrences(text, entry["find"])
    if n == 0:
        return "pattern not found"
    if n > 1:
        return f"pattern not unique ({n} matches)"
    return None


def resolve_tests(entry, registered):
    """The registered tests that entry's words name, and the words that name none."""
    chosen, idle = [], []
    for word in entry["words"]:
        try:
            rx = re.compile(word)
        except re.error as err:
            idle.append(f"{word} (bad regex: {err})")
            continue
        hits = [t for t in registered if rx.fullmatch(t)]
        if not hits:
            idle.append(word)
        chosen += [t for t in hits if t not in chosen]
    return chosen, idle


# ---- processes --------------------------------------------------------------


def run_logged(cmd, log, cwd, timeout, env=None):
    """Runs cmd in its own process group, output appended to `log`; the exit
    status, or None if it ran past `timeout` seconds (then the group is killed)."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            out.write(f"\n*** killed after {timeout} s\n")
            return None
        except BaseException:
            kill_group(proc)
            raise


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def copy_tree(root, dest):
    """Copies git's tracked and untracked-but-not-ignored files of root to dest."""
    listing = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
    copied = 0
    for name in sorted(set(listing.decode("utf-8", "surrogateescape").split("\0")) - {""}):
        src = os.path.join(root, name)
        if not os.path.lexists(src) or os.path.isdir(src) and not os.path.islink(src):
            continue  # deleted in the working tree, or a submodule
        target = os.path.join(dest, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(src, target, follow_symlinks=False)
        copied += 1
    return copied


def registered_tests(build, log):
    out = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True, text=True,
                         timeout=120)
    with open(log, "a", encoding="utf-8") as f:
        f.write(out.stdout + out.stderr)
    return re.findall(r"^\s*Test\s+#\d+: (\S+)\s*$", out.stdout, re.M)


def test_env(work):
    env = dict(os.environ)
    if env.pop("CLFOLD_KERNEL_DIR", None) is not None:
        print("note: CLFOLD_KERNEL_DIR unset for the tests (it would bypass the mutated kernels)")
    for name in ("CLFOLD_AUTO_SHAPE", "CLFOLD_GPU_SHAPE", "CLFOLD_MAX_CHUNK_BYTES"):
        env.pop(name, None)
    # POCL's kernel cache of its own: mutated kernels stay out of ~/.cache/pocl.
    env["POCL_CACHE_DIR"] = os.path.join(work, "pocl-cache")
    return env


def run_ctest(build, tests, jobs, cap, log, junit, env):
    """Runs `tests` under CTest with at most `cap` seconds for the whole run.

    Returns {name: outcome}: passed, failed, timeout, skipped or not run. The
    cap is CTest's own --stop-time: a test still running then is killed and
    reported as a timeout by CTest, one not yet started is not run. The
    process itself is killed only if CTest overruns its stop time by two
    minutes (outcome 'killed')."""
    regex = "^(" + "|".join(re.escape(t) for t in tests) + ")$"
    stop = time.strftime("%H:%M:%S", time.localtime(time.time() + cap))
    if os.path.exists(junit):
        os.remove(junit)
    cmd = ["ctest", "--test-dir", build, "-R", regex, "-j", str(jobs), "--no-tests=error",
           "--stop-time", stop, "--output-junit", junit]
    status = run_logged(cmd, log, build, cap + 120, env)
    outcome = {t: "not run" for t in tests}
    if status is None:
        return {t: "killed" for t in tests}
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read()
    reasons = dict(re.findall(r"^\s*\d+ - (\S+) \(([^)]*)\)\s*$", text.rsplit("\n$ ", 1)[-1], re.M))
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
    except (OSError, ET.ParseError):
        cases = []
    for case in cases:
        name, st = case.get("name"), case.get("status")
        if name not in outcome:
            continue
        if st == "run":
            outcome[name] = "passed"
        elif st == "fail":
            outcome[name] = "timeout" if reasons.get(name, "").startswith("Timeout") else "failed"
            out = case.findtext("system-out") or ""
            if re.search(r'building \S+\.cl with ".*" failed', out):
                outcome[name] = "kernel build failed"
        elif case.find("skipped") is not None:
            outcome[name] = "skipped"
    return outcome


# ---- one mutation -----------------------------------------------------------


def mutate(work, entry, build, args, env, baseline, logs):
    """Applies, builds, tests and reverts one mutation; returns its result dict."""
    result = {"result": "", "seconds": 0.0, "failed": [], "note": ""}
    start = time.time()
    log = os.path.join(logs, entry["id"] + ".log")
    path = os.path.join(work, entry["file"])
    problem = pattern_problem(work, entry)
    if problem:
        result.update(result="BROKEN", note=problem)
        return result
    with open(path, encoding="utf-8", newline="") as f:
        original = f.read()
    try:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(original.replace(entry["find"], entry["replace"], 1))
        status = run_logged(["cmake", "--build", build, "-j", str(args.jobs)], log, work,
                            args.build_timeout)
        if status != 0:
            result.update(result="BROKEN", note="the mutant does not build (see its log)")
            return result
        outcome = run_ctest(build, entry["chosen"], args.jobs, args.timeout, log,
                            os.path.join(logs, entry["id"] + ".junit.xml"), env)
    finally:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(original)
        result["seconds"] = time.time() - start
    bad = ("failed", "timeout")
    caught = [t for t in entry["chosen"] if outcome[t] in bad and baseline.get(t) == "passed"]
    stale = [t for t in entry["chosen"] if baseline.get(t) != "passed"]
    builds = [t for t in entry["chosen"] if outcome[t] == "kernel build failed"]
    unrun = [t for t in entry["chosen"] if outcome[t] in ("not run", "killed")]
    result["failed"] = [t + (" (timeout)" if outcome[t] == "timeout" else "") for t in caught]
    notes = []
    if caught:
        result["result"] = "caught"
    elif builds:
        result["result"] = "BROKEN"
        notes.append("the mutated kernel does not compile: " + ", ".join(builds))
    elif unrun:
        result["result"] = "INCOMPLETE"
        notes.append(f"{len(unrun)} tests {outcome[unrun[0]]} within --timeout {args.timeout}")
    else:
        result["result"] = "SURVIVED"
    if stale:
        notes.append("not passing before the mutation: " + ", ".join(stale))
    skipped = [t for t in entry["chosen"] if outcome[t] == "skipped"]
    if skipped:
        notes.append("skipped: " + ", ".join(skipped))
    result["note"] = "; ".join(notes)
    return result


# ---- the report -------------------------------------------------------------


def print_table(entries, results):
    rows = [("id", "result", "secs", "caught by", "expected tests", "bug")]
    for e in entries:
        r = results[e["id"]]
        by = ", ".join(r["failed"]) or "-"
        rows.append((e["id"], r["result"], f"{r['seconds']:.0f}", by, " ".join(e["words"]), e["bug"]))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    print()
    for i, row in enumerate(rows):
        print("  ".join(row[c].ljust(widths[c]) for c in range(5)) + "  " + row[5])
        if i == 0:
            print("  ".join("-" * w for w in widths) + "  " + "-" * 3)
    for e in entries:
        r = results[e["id"]]
        if r["note"]:
            print(f"  {e['id']}: {r['note']}")
        if r["result"] in ("SURVIVED", "INCOMPLETE"):
            print(f"  {e['id']}: ran {' '.join(e.get('chosen', []))}")
    counts = {}
    for r in results.values():
        counts[r["result"]] = counts.get(r["result"], 0) + 1
    print()
    print(", ".join(f"{v} {k.lower()}" for k, v in sorted(counts.items())) +
          f" of {len(entries)} mutations")


# ---- main -------------------------------------------------------------------


def parse_args():
    p = argparse.ArgumentParser(description="Apply each one-line bug of the list, rebuild, run "
                                "the tests it names, report caught or survived.")
    p.add_argument("ids", nargs="*", metavar="ID", help="run these mutations only (default: all)")
    p.add_argument("--list", action="store_true", help="print the mutations and exit")
    p.add_argument("--check", action="store_true",
                   help="check that every pattern occurs exactly once and every entry names a "
                   "registered test (configures a copy, builds nothing)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, build)")
    p.add_argument("--timeout", type=int, default=600, metavar="S",
                   help="cap on one mutation's CTest run, in seconds (default 600)")
    p.add_argument("--baseline-timeout", type=int, default=1800, metavar="S",
                   help="cap on the baseline CTest run, in seconds (default 1800)")
    p.add_argument("--build-timeout", type=int, default=900, metavar="S",
                   help="cap on each build, in seconds (default 900)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="build and CTest jobs (default 2)")
    p.add_argument("--file", default=os.path.join(HERE, "mutations.txt"),
                   help="the mutations list (default: mutations.txt beside this script)")
    p.add_argument("--tmpdir", default=None, help="where the temporary folder goes (default: $TMPDIR or /tmp)")
    return p.parse_args()


def select(entries, ids):
    if not ids:
        return entries
    known = {e["id"]: e for e in entries}
    unknown = [i for i in ids if i not in known]
    if unknown:
        sys.exit(f"run.py: no mutation called {', '.join(unknown)} (see --list)")
    return [known[i] for i in dict.fromkeys(ids)]


def main():
    args = parse_args()
    try:
        entries = select(parse_list(args.file), args.ids)
    except ListError as err:
        sys.exit(f"run.py: {err}")
    if args.list:
        for e in entries:
            print(f"{e['id']}\n    bug:   {e['bug']}\n    file:  {e['file']}\n    tests: {e['tests']}")
        return 0
    root = subprocess.run(["git", "-C", HERE, "rev-parse", "--show-toplevel"], check=True,
                          capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="clfold-mutation-", dir=args.tmpdir)
    # mkdtemp's 0700 would lock out the tests that drop privileges (cli_robust's setpriv).
    os.chmod(work, 0o755)
    try:
        return run(args, entries, root, work)
    finally:
        if args.keep:
            print(f"kept {work} (logs in {work}/mutation-logs)")
        else:
            shutil.rmtree(work, ignore_errors=True)


def run(args, entries, root, work):
    tree, build, logs = os.path.join(work, "src"), os.path.join(work, "src", "build"), \
        os.path.join(work, "mutation-logs")
    os.makedirs(tree)
    os.makedirs(logs)
    setup_log = os.path.join(logs, "setup.log")
    print(f"copying {root} to {tree}: {copy_tree(root, tree)} files")
    print(f"configuring{'' if args.check else ' and building'} (log: {setup_log})", flush=True)
    if run_logged(["cmake", "-S", tree, "-B", build], setup_log, tree, args.build_timeout) != 0:
        print(open(setup_log, encoding="utf-8", errors="replace").read()[-4000:])
        sys.exit("run.py: cmake could not configure the copy")
    registered = registered_tests(build, setup_log)
    broken = 0
    for e in entries:
        e["chosen"], idle = resolve_tests(e, registered)
        problem = pattern_problem(tree, e)
        if idle:
            print(f"note: {e['id']}: names no registered test: {' '.join(idle)}")
        if not e["chosen"]:
            problem = (problem + "; " if problem else "") + "none of its tests is registered"
        e["problem"] = problem
        broken += problem is not None
        if args.check:
            print(f"{e['id']:28} {'BROKEN: ' + problem if problem else 'ok'}"
                  f"  ({len(e['chosen'])} tests)")
    if args.check:
        print(f"\n{len(entries) - broken} of {len(entries)} mutations apply exactly once and name "
              "registered tests")
        return 1 if broken else 0

    if run_logged(["cmake", "--build", build, "-j", str(args.jobs)], setup_log, tree,
                  args.build_timeout) != 0:
        print(open(setup_log, encoding="utf-8", errors="replace").read()[-4000:])
        sys.exit("run.py: the unmutated copy does not build")
    env = test_env(work)
    wanted = sorted({t for e in entries if not e["problem"] for t in e["chosen"]},
                    key=registered.index)
    print(f"baseline: {len(wanted)} tests on the unmutated tree", flush=True)
    t0 = time.time()
    baseline = run_ctest(build, wanted, args.jobs, args.baseline_timeout, setup_log,
                         os.path.join(logs, "baseline.junit.xml"), env) if wanted else {}
    unwell = {t: o for t, o in baseline.items() if o != "passed"}
    print(f"baseline: {len(wanted) - len(unwell)} passed in {time.time() - t0:.0f} s" +
          "".join(f"\n  NOT PASSING before any mutation: {t} ({o})" for t, o in unwell.items()))

    results = {}
    for number, e in enumerate(entries, 1):
        if e["problem"]:
            results[e["id"]] = {"result": "BROKEN", "seconds": 0.0, "failed": [],
                                "note": e["problem"]}
        else:
            print(f"[{number}/{len(entries)}] {e['id']}: {len(e['chosen'])} tests ...", end="",
                  flush=True)
            results[e["id"]] = mutate(tree, e, build, args, env, baseline, logs)
            r = results[e["id"]]
            print(f" {r['result'].lower()} ({r['seconds']:.0f} s)"
                  + (f" by {', '.join(r['failed'])}" if r["failed"] else ""), flush=True)
    print_table(entries, results)
    return 0 if all(r["result"] == "caught" for r in results.values()) else 1


def interrupted(signum, frame):
    raise KeyboardInterrupt  # revert, kill CTest's process group, remove the folder


if __name__ == "__main__":
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupted)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started with & from a script
        signal.signal(signal.SIGINT, interrupted)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("run.py: interrupted")
    except BrokenPipeError:  # run.py --list | head
        sys.exit(0)

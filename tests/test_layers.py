#!/usr/bin/env python3
"""test_layers.py SOURCE_DIR [BINARY_DIR OBJECTS...]: clfold's folders call
down LAYERS only, and no header includes itself back through others.

LAYERS is where the order is declared, bottom to top. A folder may include
and call its own layer and the layers below; folders of one layer are
peers and use nothing of each other. So:

  - every folder of src/ is in LAYERS, and every folder of LAYERS is there;
  - no C file under src/ includes a header of a higher layer or of a peer
    (an include is resolved as the compiler does: beside the file first);
  - the folders above the library (LIBRARY) take from it only the public
    headers of include/ (PUBLIC says which layer each belongs to);
  - no header under src/ or include/ is in an include cycle;
  - where BINARY_DIR and OBJECTS (';'-separated lists, CMake's
    $<TARGET_OBJECTS:...>) are given: every symbol that an object uses and
    another object defines is defined in the user's layer or below it (nm),
    which catches calls that bypass the headers; and the folders above the
    library use only functions that include/ declares;
  - docs/design.md's diagram under "## Layers" draws LAYERS, top to bottom.

Exit status 0 only if every check passed (tests/checks.py).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

# Bottom to top. Each row is one layer; the folders of a row are peers.
LAYERS = [
    ["src/core"],                   # what every primitive shares: context, programs, launches
    ["src/reduce", "src/scan"],     # the primitives
    ["src/mpi", "src/reference"],   # libclfold_mpi, and the host reference: on the public API alone
    ["src/cli", "python"],          # the runner, and the Python package
]

# The layers that make libclfold; those above it see it through include/ alone.
LIBRARY = {"src/core", "src/reduce", "src/scan"}

# include/'s headers and the layer of each: clfold.h's API is every layer's to use.
PUBLIC = {"include/clfold.h": "src/core", "include/clfold_mpi.h": "src/mpi"}

# Sources that the build generates (under BINARY_DIR), and their layer.
GENERATED = {"generated/embedded_sources.c": "src/core"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
DECLARED_RE = re.compile(r"\b(clfold_\w+)\s*\(")

RANK = {folder: rank for rank, row in enumerate(LAYERS) for folder in row}


def may_use(user, used):
    """Whether a file of folder `user` may include or call what folder `used` holds."""
    return user == used or RANK[used] < RANK[user]


def folder_of(rel):
    """The folder of LAYERS (or include/'s layer) that the file `rel` (from the root) belongs to."""
    if rel in PUBLIC:
        return PUBLIC[rel]
    for folder in RANK:
        if rel.startswith(folder + "/"):
            return folder
    return None


def search_order(rel):
    """Where an include of the file `rel` is looked for: beside it, its own folder, include/,
    the layers below it lowest first (the compiler's include path), then every other
    folder, so that an include the layers forbid is still found and reported."""
    own = folder_of(rel)
    below = [f for row in LAYERS for f in row if RANK[f] < RANK[own]]
    others = [f for row in LAYERS for f in row if f != own and f not in below]
    return [os.path.dirname(rel), own, "include"] + below + others


def resolve(root, rel, included):
    """The file (from the root) that `#include "included"` in `rel` names, or None."""
    for base in search_order(rel):
        candidate = os.path.normpath(os.path.join(base, included))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def source_files(root):
    """Every .c and .h under src/, and include/'s headers, relative to the root."""
    found = [p for p in PUBLIC]
    for top, dirs, files in os.walk(os.path.join(root, "src")):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                found.append(os.path.relpath(os.path.join(top, name), root))
    return found


def check_folders(root):
    """src/'s folders are LAYERS's, and include/'s headers PUBLIC's."""
    present = {"src/" + d for d in os.listdir(os.path.join(root, "src"))
               if os.path.isdir(os.path.join(root, "src", d))}
    declared = set(RANK)
    for folder in sorted(present - declared):
        check(False, f"{folder}/ is in no layer: add it to LAYERS (tests/test_layers.py) and to "
              "docs/design.md's diagram")
    for folder in sorted(declared):
        check(os.path.isdir(os.path.join(root, folder)), f"LAYERS names {folder}/, which does not exist")
    headers = {"include/" + n for n in os.listdir(os.path.join(root, "include")) if n.endswith(".h")}
    for header in sorted(headers ^ set(PUBLIC)):
        check(False, f"{header}: include/'s headers and PUBLIC (tests/test_layers.py) differ")


def check_includes(root, files):
    """Each include goes down or stays in its folder; the header graph has no cycle."""
    edges = {}
    for rel in files:
        user = folder_of(rel)
        if user is None or not os.path.isfile(os.path.join(root, rel)):
            continue  # a folder in no layer, or a public header that is not there: check_folders says
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        edges[rel] = []
        for included in INCLUDE_RE.findall(text):
            target = resolve(root, rel, included)
            check(target is not None, f"{rel}: #include \"{included}\" is no file of the tree")
            if target is None:
                continue
            used = folder_of(target)
            check(used is not None, f"{rel}: includes {target}, which is in no layer")
            if used is None:
                continue
            edges[rel].append(target)
            check(may_use(user, used),
                  f"{rel} includes {target}: {used}/ is "
                  f"{'a peer of' if RANK[used] == RANK[user] else 'above'} {user}/ (LAYERS)")
            if user not in LIBRARY and used in LIBRARY:
                check(target in PUBLIC, f"{rel} includes {target}: {user}/ uses the library "
                      "through include/'s headers alone")
    check_cycles(edges)


def check_cycles(edges):
    """No header reaches itself through its includes (depth-first, three colours)."""
    state = {}
    cycles = []

    def visit(node, path):
        state[node] = "open"
        for nxt in edges.get(node, []):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node.endswith(".h") and node not in state:
            visit(node, [node])
    check(not cycles, "include cycles: " + "; ".join(" -> ".join(c) for c in cycles))


def object_source(root, binary, obj):
    """The source (from the root, or GENERATED's name) that CMake built `obj` from: its
    path under the build tree's CMakeFiles/<target>.dir/ (past a configuration's folder,
    where the generator makes one), below the folder of that target."""
    rel = os.path.relpath(obj, binary).replace(os.sep, "/")
    match = re.match(r"^(.*?)CMakeFiles/[^/]+\.dir/(.*)\.o(bj)?$", rel)
    if match is None:
        return None
    folder, path = match.group(1), match.group(2)
    for candidate in (path, path.partition("/")[2]):
        if candidate in GENERATED or os.path.isfile(os.path.join(root, folder + candidate)):
            return candidate if candidate in GENERATED else folder + candidate
    return folder + path


def symbols(obj):
    """(defined, undefined) external symbols of an object file, from nm."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == "U":
            undefined.add(parts[0])
        elif len(parts) >= 2 and parts[1] in "TDBRGSVWC" and parts[1].isupper():
            defined.add(parts[0])
    return defined, undefined


def check_symbols(root, binary, objects):
    """Every symbol an object uses from another object is defined in its layer or below."""
    public = set()
    for header in PUBLIC:
        with open(os.path.join(root, header), encoding="utf-8") as f:
            public |= set(DECLARED_RE.findall(f.read()))
    owner, uses = {}, {}
    for obj in objects:
        check(os.path.isfile(obj), f"{obj} is not built")
        if not os.path.isfile(obj):
            continue
        source = object_source(root, binary, obj)
        folder = GENERATED.get(source) if source in GENERATED else folder_of(source or "")
        known = source in GENERATED or os.path.isfile(os.path.join(root, source or ""))
        check(folder is not None and known, f"{obj}: built from {source}, which is in no layer")
        if folder is None:
            continue
        defined, undefined = symbols(obj)
        for name in defined:
            owner.setdefault(name, (folder, source))
        uses[source] = (folder, undefined)
    check(len(uses) > 0, "no object files to read")
    for source, (user, undefined) in sorted(uses.items()):
        for name in sorted(undefined):
            if name not in owner:
                continue  # the C library's, OpenCL's, MPI's
            used, where = owner[name]
            check(may_use(user, used), f"{source} calls {name} of {where}: {used}/ is "
                  f"{'a peer of' if RANK[used] == RANK[user] else 'above'} {user}/ (LAYERS)")
            if user not in LIBRARY and used in LIBRARY:
                check(name in public, f"{source} calls {name} of {where}, which include/ does not "
                      f"declare: {user}/ uses the library through its public API alone")


def check_design(root):
    """docs/design.md's diagram under "## Layers" has LAYERS's rows, top to bottom."""
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "## Layers"), None)
    check(start is not None, "docs/design.md has no section \"## Layers\"")
    if start is None:
        return
    rows = []
    fence = None
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("```"):
            if fence is not None:
                break
            fence = True
            continue
        if fence:
            words = line.split()
            folders = []
            for word in words:
                if not word.endswith("/") or word.rstrip("/") not in RANK:
                    break
                folders.append(word.rstrip("/"))
            if folders:
                rows.append(sorted(folders))
    expected = [sorted(row) for row in reversed(LAYERS)]
    check(rows == expected, f"docs/design.md's layer diagram has rows {rows}, not LAYERS top to "
          f"bottom {expected} (tests/test_layers.py)")


def main():
    if len(sys.argv) < 2:
        print("usage: test_layers.py SOURCE_DIR [BINARY_DIR OBJECTS...]")
        return 2
    root = os.path.abspath(sys.argv[1])
    check_folders(root)
    check_includes(root, source_files(root))
    if len(sys.argv) > 2:
        binary = os.path.abspath(sys.argv[2])
        objects = [o for arg in sys.argv[3:] for o in arg.split(";") if o]
        check_symbols(root, binary, objects)
    check_design(root)
    return finish("layers")


if __name__ == "__main__":
    sys.exit(main())

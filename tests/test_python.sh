#!/bin/sh
# test_python.sh LIBCLFOLD STAGE PYTEST_ARGS...: python/tests against this
# build's libclfold, without installing anything. The module loads only the
# library beside it (python/clfold/_lib.py), so STAGE/clfold gets copies of
# python/clfold's files and of LIBCLFOLD; pytest then runs from STAGE, where
# `import clfold` finds that copy. Takes /usr/bin/python3 or python3 on PATH,
# whichever has NumPy and pytest (python3-numpy, python3-pytest); without
# them the test fails: it would otherwise pass having checked nothing.
set -eu
lib=$1 stage=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$stage/clfold"
mkdir -p "$stage/clfold"
cp "$here"/../python/clfold/*.py "$here"/../python/clfold/py.typed "$stage/clfold/"
cp "$lib" "$stage/clfold/libclfold.so"
for python in /usr/bin/python3 python3; do
    if "$python" -c 'import numpy, pytest' >/dev/null 2>&1; then
        cd "$stage"
        exec "$python" -m pytest -q -p no:cacheprovider "$here/../python/tests/test_clfold.py" "$@"
    fi
done
echo "FAIL: no Python with NumPy and pytest (tried /usr/bin/python3 and python3): install python3-numpy and python3-pytest (.ci/deps)"
exit 1

#!/bin/sh
# with_numpy.sh SCRIPT.py ARGS...: runs a Python test with an interpreter that
# has NumPy: Debian's /usr/bin/python3 (python3-numpy), else python3 on PATH
# (which may be a pyenv one without it). Without NumPy the test fails: it
# would otherwise pass having checked nothing.
# Unbuffered: a script stopped at its time limit still shows where it was.
export PYTHONUNBUFFERED=1
for python in /usr/bin/python3 python3; do
    if "$python" -c 'import numpy' >/dev/null 2>&1; then
        exec "$python" "$@"
    fi
done
echo "FAIL: no Python with NumPy (tried /usr/bin/python3 and python3): install python3-numpy (.ci/deps)"
exit 1

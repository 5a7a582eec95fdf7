#!/usr/bin/env bash
# .ci/python.sh: the Python module as a user installs it (docs/python.md).
# Installs Debian's Python pieces (venv, pip, NumPy, PyOpenCL, pytest), makes a
# virtual environment that sees them (--system-site-packages), runs
# `pip install .` there (scikit-build-core, from PyPI, builds libclfold with
# this project's CMake into the package), then the module's tests on the
# default device. Also builds the wheel, and checks that it holds the package
# and its library and nothing else of the build. Run .ci/deps first: the
# compiler, CMake, the OpenCL headers and loader, and POCL come from there.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/apt.sh
apt_install python3-venv python3-pip python3-numpy python3-pyopencl python3-pytest unzip

work=build-python
rm -rf "$work/venv" "$work/wheel"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check .
"$work/venv/bin/pip" wheel --quiet --disable-pip-version-check --no-deps -w "$work/wheel" .
listing=$(unzip -Z1 "$work"/wheel/clfold-*.whl | grep -v '\.dist-info/')
expected=$'clfold/__init__.py\nclfold/_axes.py\nclfold/_context.py\nclfold/_lib.py\nclfold/_opencl.py\nclfold/libclfold.so\nclfold/py.typed'
if [ "$(sort <<<"$listing")" != "$expected" ]; then
    echo "python.sh: the wheel holds, outside its metadata:" >&2
    echo "$listing" >&2
    exit 1
fi
# From outside the source tree, so that `import clfold` is the installed package.
cd "$work" && "venv/bin/python" -m pytest -q ../python/tests

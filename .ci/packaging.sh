#!/usr/bin/env bash
# .ci/packaging.sh: checks clfold as a user gets it, installed. For the shared
# and then the static library it
#   - builds (warnings as errors) and installs to a temporary prefix, with
#     `cmake --install --prefix` (so the prefix differs from the configured one);
#   - checks the installed files, and that the version of the runner, of
#     clfold.pc and of clfoldConfigVersion.cmake is the header's;
#   - runs the installed runner (`clfold --version`) without LD_LIBRARY_PATH;
#   - builds examples/ as a standalone project with find_package(clfold) and
#     runs them (ctest);
#   - builds examples/*.c with a plain `cc $(pkg-config ...)` line (--static
#     for the static library) and runs them;
#   - builds an OpenCL 3.0 program (tests/packaging/) both ways with -Werror,
#     and runs it: clfold puts no CL_TARGET_OPENCL_VERSION on its consumers;
#   - checks symbols (tests/check_symbols.sh): the shared library exports
#     exactly the CLFOLD_API functions of clfold.h (nm -D), and the static
#     archive's global symbols are exactly those too (nm -g; its internal
#     ones are local, cmake/LocalizeArchive.cmake);
# and it compiles a file that includes clfold.h as C99 and as C++11 with
# -pedantic -Wall -Wextra -Werror, and links and runs the C++ one.
#
# Where an MPI is installed (mpicc on PATH) the MPI component must build
# (-DCLFOLD_MPI=ON), and the same checks cover it: its installed files, the
# mpi_reduce example through find_package(clfold COMPONENTS mpi) and through
# pkg-config clfold_mpi, run under mpiexec, and its symbols (exactly the
# CLFOLD_MPI_API functions of clfold_mpi.h, shared and static).
#
# Needs what .ci/deps and .ci/deps-ci install (cc, c++, cmake, pkg-config, nm, an OpenCL
# device such as POCL). Build trees go to build-pkg-ci/ (removed first),
# prefixes to a temporary folder under /tmp (removed at the end).
set -Eeuo pipefail
cd "$(dirname "$0")/.."
root=$PWD

builds=$root/build-pkg-ci
tmp=$(mktemp -d /tmp/clfold-packaging.XXXXXX)
logs=$builds/logs
jobs=$(nproc 2>/dev/null || echo 2)
start=$SECONDS

trap 'rm -rf "$tmp"' EXIT
trap 'echo "packaging: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR

step() { printf '\n== packaging: %s\n' "$*"; }
die() {
    printf 'packaging: FAIL: %s\n' "$*" >&2
    exit 1
}
# quiet NAME CMD...: runs CMD with its output in $logs/NAME.log, shown on failure.
quiet() {
    local name=$1
    shift
    if ! "$@" >"$logs/$name.log" 2>&1; then
        tail -n 60 "$logs/$name.log" >&2
        die "$name failed: $* (whole log: $logs/$name.log)"
    fi
}
# Runs a built program and shows what it prints.
run() {
    "$@" || die "$* exited with status $?"
}

rm -rf "$builds"
mkdir -p "$logs"
header=$root/include/clfold.h
version=$(sed -n 's/^#define CLFOLD_VERSION_\(MAJOR\|MINOR\|PATCH\) \+\([0-9]\+\).*/\2/p' "$header" | paste -sd.)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "cannot read CLFOLD_VERSION_* from $header"
echo "clfold $version"
mpi=OFF
if command -v mpicc >/dev/null 2>&1; then
    mpi=ON
    echo "MPI found: the MPI component too"
fi
# Open MPI: run as root (CI), and more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# ---- build and install ------------------------------------------------------
# install KIND (shared|static): sets $prefix and $libdir.
install_package() {
    local kind=$1 shared=ON
    [ "$kind" = static ] && shared=OFF
    prefix=$tmp/prefix-$kind
    step "$kind: build and install to $prefix"
    # Release, as a distribution builds it: -O3's warnings are errors too.
    quiet "$kind-configure" cmake -S "$root" -B "$builds/$kind" -DBUILD_SHARED_LIBS=$shared \
        -DCMAKE_BUILD_TYPE=Release -DCLFOLD_WERROR=ON -DCLFOLD_BUILD_TESTS=OFF -DCLFOLD_BUILD_EXAMPLES=OFF \
        -DCLFOLD_MPI=$mpi
    quiet "$kind-build" cmake --build "$builds/$kind" -j "$jobs"
    quiet "$kind-install" cmake --install "$builds/$kind" --prefix "$prefix"
    libdir=$prefix/$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$builds/$kind/CMakeCache.txt")
    local f
    for f in "$prefix/include/clfold.h" "$prefix/bin/clfold" "$libdir/pkgconfig/clfold.pc" \
        "$libdir/cmake/clfold/clfoldConfig.cmake" "$libdir/cmake/clfold/clfoldConfigVersion.cmake" \
        "$libdir/cmake/clfold/clfoldTargets.cmake"; do
        [ -f "$f" ] || die "$kind: $f was not installed"
    done
    if [ "$kind" = shared ]; then
        [ -f "$libdir/libclfold.so.$version" ] || die "libclfold.so.$version was not installed"
        [ "$(readlink "$libdir/libclfold.so.${version%%.*}")" = "libclfold.so.$version" ] ||
            die "libclfold.so.${version%%.*} does not point to libclfold.so.$version"
        [ -L "$libdir/libclfold.so" ] || die "the libclfold.so link was not installed"
    else
        [ -f "$libdir/libclfold.a" ] || die "libclfold.a was not installed"
        ! ls "$libdir"/libclfold.so* >/dev/null 2>&1 || die "a static build installed a libclfold.so"
    fi
    if [ "$mpi" = ON ]; then
        local lib=libclfold_mpi.a
        [ "$kind" = shared ] && lib=libclfold_mpi.so.$version
        for f in "$prefix/include/clfold_mpi.h" "$libdir/$lib" "$libdir/pkgconfig/clfold_mpi.pc" \
            "$libdir/cmake/clfold/clfoldMPITargets.cmake"; do
            [ -f "$f" ] || die "$kind: the MPI component's $f was not installed"
        done
    fi
    echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"
}

# ---- checks on an installed package ------------------------------------------
check_runner_and_versions() {
    local kind=$1 out
    step "$kind: installed runner without LD_LIBRARY_PATH, and versions"
    out=$(env -u LD_LIBRARY_PATH "$prefix/bin/clfold" --version) ||
        die "$kind: the installed runner does not start: $prefix/bin/clfold --version"
    echo "$out"
    [ "$out" = "clfold $version" ] || die "$kind: clfold --version says '$out', clfold.h says $version"
    if [ "$kind" = shared ]; then
        local loaded
        loaded=$(env -u LD_LIBRARY_PATH ldd "$prefix/bin/clfold" | awk '$1 ~ /^libclfold\.so/ { print $3 }')
        if [ -z "$loaded" ] || [ "$(realpath "$loaded")" != "$(realpath "$libdir/libclfold.so")" ]; then
            die "the installed runner loads '$loaded', not the prefix's libclfold (rpath \$ORIGIN/../lib?)"
        fi
        echo "the runner loads $loaded"
    fi
    local pc cm
    pc=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion clfold)
    cm=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$libdir/cmake/clfold/clfoldConfigVersion.cmake")
    [ "$pc" = "$version" ] || die "$kind: clfold.pc says version '$pc', clfold.h says $version"
    [ "$cm" = "$version" ] || die "$kind: clfoldConfigVersion.cmake says '$cm', clfold.h says $version"
    echo "clfold.pc $pc, clfoldConfigVersion.cmake $cm"
}

check_find_package() {
    local kind=$1
    local dir=$builds/examples-$kind
    step "$kind: examples/ standalone with find_package(clfold), CMAKE_PREFIX_PATH=$prefix"
    quiet "examples-$kind-configure" cmake -S "$root/examples" -B "$dir" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS=-Werror
    grep -q "^clfold_DIR:PATH=$libdir/cmake/clfold\$" "$dir/CMakeCache.txt" ||
        die "$kind: find_package found $(grep '^clfold_DIR' "$dir/CMakeCache.txt"), not $prefix"
    quiet "examples-$kind-build" cmake --build "$dir" -j "$jobs"
    if [ "$mpi" = ON ]; then
        [ -x "$dir/mpi_reduce" ] || die "$kind: find_package(clfold COMPONENTS mpi) built no mpi_reduce"
    fi
    ctest --test-dir "$dir" --output-on-failure ||
        die "$kind: an example built with find_package(clfold) failed"
}

check_pkg_config() {
    local kind=$1 static="" env=(env -u LD_LIBRARY_PATH) flags flags_opencl
    [ "$kind" = static ] && static=--static
    [ "$kind" = shared ] && env=(env LD_LIBRARY_PATH="$libdir")
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    step "$kind: examples/*.c with cc \$(pkg-config${static:+ $static} --cflags --libs clfold)"
    flags=$(pkg-config $static --cflags --libs clfold)
    flags_opencl=$(pkg-config $static --cflags --libs clfold OpenCL)
    echo "pkg-config${static:+ $static} --cflags --libs clfold: $flags"
    # reduce_host.c calls clfold only; own_queue.c calls OpenCL too.
    # shellcheck disable=SC2086
    quiet "pkg-config-$kind-reduce_host" cc -std=c99 -Wall -Wextra -Werror "$root/examples/reduce_host.c" \
        $flags -o "$tmp/reduce_host-$kind"
    # shellcheck disable=SC2086
    quiet "pkg-config-$kind-own_queue" cc -std=c99 -Wall -Wextra -Werror "$root/examples/own_queue.c" \
        $flags_opencl -o "$tmp/own_queue-$kind"
    if [ "$kind" = static ]; then
        ! readelf -d "$tmp/reduce_host-$kind" | grep -q 'NEEDED.*libclfold' ||
            die "reduce_host built with pkg-config --static still needs libclfold.so"
    fi
    run "${env[@]}" "$tmp/reduce_host-$kind"
    run "${env[@]}" "$tmp/own_queue-$kind"
    if [ "$mpi" = ON ]; then
        flags=$(pkg-config $static --cflags --libs clfold_mpi)
        echo "pkg-config${static:+ $static} --cflags --libs clfold_mpi: $flags"
        # shellcheck disable=SC2086
        quiet "pkg-config-$kind-mpi_reduce" cc -std=c99 -Wall -Wextra -Werror \
            "$root/examples/mpi_reduce.c" $flags -lm -o "$tmp/mpi_reduce-$kind"
        run "${env[@]}" mpiexec -n 2 "$tmp/mpi_reduce-$kind"
    fi
    unset PKG_CONFIG_PATH
}

# A program for OpenCL 3.0 that includes clfold.h before CL/cl.h and makes its
# queue with clCreateCommandQueueWithProperties (tests/packaging/): nothing of
# clfold may change its CL_TARGET_OPENCL_VERSION. Built with -Werror through
# find_package and through pkg-config, and run.
check_opencl3_consumer() {
    local kind=$1 dir flags variant
    dir=$builds/consumer-$kind
    step "$kind: an OpenCL 3.0 consumer through find_package and pkg-config"
    quiet "consumer-$kind-configure" cmake -S "$root/tests/packaging" -B "$dir" \
        -DCMAKE_PREFIX_PATH="$prefix"
    quiet "consumer-$kind-build" cmake --build "$dir"
    run env LD_LIBRARY_PATH="$libdir" "$dir/opencl3_consumer"
    run env LD_LIBRARY_PATH="$libdir" "$dir/opencl_default_consumer"
    flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config $([ "$kind" = static ] && echo --static) \
        --cflags --libs clfold OpenCL)
    for variant in "" -DTAKE_CL_DEFAULT; do
        # shellcheck disable=SC2086
        quiet "consumer-$kind-pkg-config$variant" cc -std=c99 -Wall -Wextra -Werror $variant \
            "$root/tests/packaging/opencl3_consumer.c" $flags -o "$tmp/consumer-$kind"
        run env LD_LIBRARY_PATH="$libdir" "$tmp/consumer-$kind"
    done
}

# check_symbols KIND: the installed libraries' global symbols are exactly the
# API their headers declare (tests/check_symbols.sh, also a ctest entry).
check_symbols() {
    local kind=$1 suffix=so libs
    [ "$kind" = static ] && suffix=a
    step "$kind: global symbols of the installed libraries, against the headers"
    libs=(CLFOLD_API "$prefix/include/clfold.h" "$libdir/libclfold.$suffix")
    if [ "$mpi" = ON ]; then
        libs+=(CLFOLD_MPI_API "$prefix/include/clfold_mpi.h" "$libdir/libclfold_mpi.$suffix")
    fi
    bash "$root/tests/check_symbols.sh" nm ON "${libs[@]}" ||
        die "$kind: an installed library's global symbols are not its header's API (above)"
}

check_header() {
    step "clfold.h as C99 and as C++11 (-pedantic -Wall -Wextra -Werror)"
    local cflags libs
    cflags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags clfold)
    libs=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --libs clfold)
    cat >"$tmp/header.c" <<'EOF'
#include <clfold.h>
int main(void) { return clfold_version_string()[0] == '\0'; }
EOF
    cat >"$tmp/header.cpp" <<'EOF'
#include <clfold.h>
#include <cstdio>
#include <cstring>
int main()
{
    clfold_type acc;
    if (clfold_result_type(CLFOLD_INT32, CLFOLD_SUM, &acc) != CLFOLD_SUCCESS || acc != CLFOLD_INT64)
        return 1;
    std::printf("C++: clfold %s, %s\n", clfold_version_string(), clfold_status_string(CLFOLD_SUCCESS));
    return std::strcmp(clfold_version_string(), CLFOLD_VERSION_STRING_FOR_TEST) != 0;
}
EOF
    # shellcheck disable=SC2086
    quiet header-c99 cc -std=c99 -pedantic -Wall -Wextra -Werror $cflags -c "$tmp/header.c" -o "$tmp/header.o"
    # shellcheck disable=SC2086
    quiet header-c++11 c++ -std=c++11 -pedantic -Wall -Wextra -Werror $cflags \
        -DCLFOLD_VERSION_STRING_FOR_TEST="\"$version\"" "$tmp/header.cpp" \
        $libs -o "$tmp/header-cpp"
    # Links only if the declarations are extern "C".
    run env LD_LIBRARY_PATH="$libdir" "$tmp/header-cpp"
}

install_package shared
check_runner_and_versions shared
check_symbols shared
check_header
check_find_package shared
check_pkg_config shared
check_opencl3_consumer shared

install_package static
check_runner_and_versions static
check_symbols static
check_find_package static
check_pkg_config static
check_opencl3_consumer static

step "all packaging checks passed in $((SECONDS - start)) s"

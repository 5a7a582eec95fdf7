#!/usr/bin/env bash
# .ci/robustness.sh: the robustness checks of docs/testing.md, after .ci/run has
# built and tested clfold (it reuses build/ for valgrind; it builds it when
# run on its own):
#   1. builds everything with clang and -fsanitize=address,undefined (the
#      library, the runner, the tests, the fuzzers) in build-asan/, warnings
#      as errors;
#   2. runs the test suite there on POCL, with LeakSanitizer on, except
#        big, scan_big, accuracy_tenth* 4.3 GB and 0.4 GB of host data, 2 minutes and
#                             more: ASan's shadow memory and slower loops on
#                             top; the same code runs on small arrays in
#                             accuracy_chunks and faults_beyond_global_memory;
#        oclgrind_*           the kernels run in Oclgrind's simulator, which
#                             ASan does not instrument: 40 s for nothing new;
#        scan_(lengths|matrix)_<ladder step>, arg_whole_k3 .. k6, ops_<kernel>,
#        axis_sweep_cpu_lanes_8
#                             the same host code as scan_lengths_auto,
#                             arg_whole_k1, k2, k7 and auto, kernels_<kernel>
#                             (each kernel's launch plan) and
#                             axis_shapes_cpu_shape, with another kernel,
#                             type or vector width: minutes of CPU time for
#                             nothing new;
#      and the MPI tests (label mpi) once more on their own, with ASan and
#      UBSan but not LeakSanitizer: Open MPI leaves its allocations at
#      MPI_Finalize, in components it has unloaded by then;
#   3. runs the host-side programs under valgrind memcheck (from build/): the
#      .npy reader and command-line parser tests, npy_tool, and the runner on
#      bad usage, bad files and an empty array (a context made and destroyed
#      on POCL, no kernel built: a build takes 80 s under memcheck);
#   4. fuzzes the .npy reader, the argument parser and the JSON reader of
#      clfold compare with libFuzzer for CLFOLD_FUZZ_SECONDS (default 60)
#      each, all at once, from the seed
#      corpora of tests/fuzz/ (new inputs go to build-asan/fuzz/, never into
#      the committed corpus), and prints how many inputs each ran.
# Suppressions, for the drivers' findings only: tests/lsan.supp (none needed
# today), tests/valgrind.supp. Needs what .ci/deps-ci installs (clang-14,
# libclang-rt-14-dev, valgrind).
set -Eeuo pipefail
cd "$(dirname "$0")/.."
root=$PWD

main_build=build
asan_build=build-asan
fuzz_seconds=${CLFOLD_FUZZ_SECONDS:-60}
jobs=$(nproc 2>/dev/null || echo 2)
clang=$(command -v clang-14 || command -v clang || true)
start=$SECONDS

trap 'echo "robustness: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
step() { printf '\n== robustness: %s (%d s so far)\n' "$*" $((SECONDS - start)); }
die() {
    printf 'robustness: FAIL: %s\n' "$*" >&2
    exit 1
}
[ -n "$clang" ] || die "no clang (apt-get install clang-14 libclang-rt-14-dev)"
command -v valgrind >/dev/null || die "no valgrind (apt-get install valgrind)"

# POCL alone for every check here. Mesa's ICD (mesa-opencl-icd, for
# .ci/rusticl.sh) throws a C++ exception while the loader opens it, which
# ASan cannot follow in a C program ("real___cxa_throw != 0": its
# interceptor finds no libstdc++); it lists no device here anyway.
icd_dir=$(mktemp -d)
trap 'rm -rf "$icd_dir"' EXIT
chmod 755 "$icd_dir" # cli_robust runs the runner as nobody too
for icd in /etc/OpenCL/vendors/*.icd; do
    case "$(basename "$icd")" in
    mesa* | rusticl*) ;;
    *) cp "$icd" "$icd_dir"/ ;;
    esac
done
export OCL_ICD_VENDORS=$icd_dir

# ---- 1. the sanitizer build ------------------------------------------------------
step "build with $clang -fsanitize=address,undefined in $asan_build/"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# -Wno-pass-failed: instrumented loops cannot always be vectorized, and clang
# says so of every `#pragma omp simd` (bench/peers/openmp_peer.c): a fact
# about this build, not a defect of the code.
CC=$clang cmake -S . -B "$asan_build" -DCLFOLD_WERROR=ON -DCLFOLD_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS=$sanitize -Wno-pass-failed" \
    "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" "-DCMAKE_SHARED_LINKER_FLAGS=$sanitize" \
    "-DCMAKE_MODULE_LINKER_FLAGS=$sanitize" >/dev/null
cmake --build "$asan_build" -j "$jobs"

# ---- 2. the suite under ASan, UBSan and LSan -------------------------------------------
step "ctest under AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer"
# intercept_tls_get_addr=0: LLVM 14's runtime mistakes some of the dynamic TLS
# blocks of the LLVM inside POCL for glibc 2.19's, and LeakSanitizer's tracer
# then dies at exit ("Tracer caught signal 11", at random; google/sanitizers
# #1322; runtimes up to LLVM 16 guess so). Without it LSan does not scan
# dynamic TLS, which clfold does not use.
asan_common=detect_leaks=1:halt_on_error=1:intercept_tls_get_addr=0
export ASAN_OPTIONS=$asan_common:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp
# Readable stacks: llvm-14 installs the symbolizer under a versioned name.
if ! command -v llvm-symbolizer >/dev/null && [ -x /usr/bin/llvm-symbolizer-14 ]; then
    export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
fi
# python_axes, op_lists: a library built with ASan cannot load into a Python without it.
ctest --test-dir "$asan_build" -j "$jobs" --output-on-failure -LE mpi \
    -E '^(big|scan_big|accuracy_tenth.*|oclgrind_.*|scan_(lengths|matrix)_(kogge-stone|blelloch.*)|arg_whole_k[3-6]|ops_(k[1-7]|atomic)|axis_sweep_cpu_lanes_8|python_axes|op_lists)$' ||
    die "a test failed under the sanitizers (see above)"
# The MPI tests under AddressSanitizer and UBSan, without LeakSanitizer:
# Open MPI 4.1 leaves its allocations at MPI_Finalize, much of it in MCA
# components it has unloaded by then, whose frames ("<unknown module>") no
# suppression can name. libclfold_mpi's own allocations are its handle
# alone, freed by clfold_mpi_destroy.
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 ctest --test-dir "$asan_build" -j "$jobs" \
    --output-on-failure -L mpi || die "an MPI test failed under the sanitizers (see above)"
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
export ASAN_OPTIONS=$asan_common # for the fuzzers

# ---- 3. valgrind memcheck on the host side ------------------------------------------------
step "valgrind memcheck: host-side programs from $main_build/"
if [ ! -x "$main_build/tests/test_npy" ] || [ ! -x "$main_build/tests/test_args" ] ||
    [ ! -x "$main_build/tests/test_json" ]; then
    cmake -S . -B "$main_build" -DCLFOLD_WERROR=ON >/dev/null
    cmake --build "$main_build" -j "$jobs"
fi
tmp=$(mktemp -d /tmp/clfold-robustness.XXXXXX)
trap 'rm -rf "$tmp" "$icd_dir"' EXIT
# memcheck CODE CMD...: CMD under memcheck must exit CODE; memcheck's own findings exit 99.
memcheck() {
    local want=$1 got=0
    shift
    valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --track-origins=yes --num-callers=40 \
        --suppressions="$root/tests/valgrind.supp" "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
    if [ "$got" -ne "$want" ]; then
        cat "$tmp/err" >&2
        die "valgrind $* exited $got, expected $want (99: memcheck found errors)"
    fi
    echo "memcheck clean: $* (exit $got)"
}
runner=$main_build/clfold tool=$main_build/tests/npy_tool
memcheck 0 "$main_build/tests/test_npy"
memcheck 0 "$main_build/tests/test_args"
memcheck 0 "$main_build/tests/test_json"
memcheck 0 "$tool" make half 4097 "$tmp/half.npy"
memcheck 0 "$tool" expect "$tmp/half.npy" max
memcheck 0 "$tool" make int32 0 "$tmp/empty.npy"
memcheck 0 "$runner" --help
memcheck 0 "$runner" reduce --help
memcheck 0 "$runner" --version
memcheck 2 "$runner" ladder -n 12abc
memcheck 2 "$runner" frobnicate
# clfold compare makes no context: a saved run, and one that is not JSON.
memcheck 0 "$runner" compare tests/fuzz/corpus/json/bench_run
memcheck 2 "$runner" compare tests/fuzz/corpus/json/trailing_comma
memcheck 2 "$runner" reduce "$tmp/missing.npy"
# Every file of the tests and of the seed corpus that the reader refuses (a
# readable one would build kernels: see above).
for file in tests/data/*.npy tests/fuzz/corpus/npy/*.npy; do
    "$tool" expect "$file" max >/dev/null 2>&1 || memcheck 2 "$runner" reduce "$file"
done
memcheck 0 "$runner" reduce -o sum "$tmp/empty.npy" # a context on POCL, made and destroyed
memcheck 2 "$runner" reduce -o min "$tmp/empty.npy" # no identity: refused before a context
memcheck 2 "$runner" reduce -d 99:0 "$tmp/half.npy"

# ---- 4. fuzzing --------------------------------------------------------------------------------
step "fuzzing fuzz_npy, fuzz_args and fuzz_json for $fuzz_seconds s each, at once"
fuzz_dir=$asan_build/fuzz
mkdir -p "$fuzz_dir"
pids=()
targets=(npy args json)
for target in "${targets[@]}"; do
    mkdir -p "$fuzz_dir/$target-new" "$fuzz_dir/$target-crashes"
    max_len=4096
    [ "$target" = args ] && max_len=512
    "$asan_build/tests/fuzz_$target" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=$max_len -dict="tests/fuzz/$target.dict" -print_final_stats=1 \
        -artifact_prefix="$fuzz_dir/$target-crashes/" \
        "$fuzz_dir/$target-new" "tests/fuzz/corpus/$target" >"$fuzz_dir/$target.log" 2>&1 &
    pids+=($!)
done
failed=""
for i in "${!targets[@]}"; do
    target=${targets[$i]}
    if ! wait "${pids[$i]}"; then
        failed="$failed fuzz_$target"
        tail -n 40 "$fuzz_dir/$target.log" >&2
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fuzz_dir/$target.log" | tail -1)
    corpus=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$fuzz_dir/$target.log" | tail -1 || true)
    echo "fuzz_$target: ${runs:-?} inputs in $fuzz_seconds s, ${corpus:-no corpus line}"
done
[ -z "$failed" ] || die "fuzzing found a crash or a broken contract in:$failed (inputs in $fuzz_dir/*-crashes/)"

step "all robustness checks passed in $((SECONDS - start)) s"

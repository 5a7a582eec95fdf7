# cli_checks.sh: the scaffolding that the runner's shell tests share, each
# sourcing it (test_cli.sh, test_cli_robust.sh and the others): a work
# folder removed on exit, the check and failure counters, the checks of the
# runner's exit status and of its one-line errors, and the queue of results
# that NumPy judges (npy_reference.py). Every command's output lands in
# $work/out and $work/err.

work=$(mktemp -d)
# chmod first: test_cli_robust.sh makes folders unwritable on purpose.
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
failures=0 checks=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }

# run CMD...: output in $work/out and $work/err, exit status in $status.
run() {
    "$@" >"$work/out" 2>"$work/err"
    status=$?
}

# Says which signal ended the last command, if one did.
signal_note() { [ "$status" -ge 128 ] && echo " (signal $((status - 128)))"; }

# expect_status STATUS CMD...: runs CMD and checks its exit status.
expect_status() {
    local want=$1; shift
    run "$@"
    if [ "$status" -ne "$want" ]; then
        fail "'$*' exited $status, expected $want$(signal_note)"
        sed 's/^/    /' "$work/err" | head -5
    else
        ok
    fi
}

# expect_usage_error CMD...: exit 2, one "clfold: ..." line on stderr, no stdout.
expect_usage_error() {
    run "$@"
    if [ "$status" -ne 2 ]; then
        fail "'$*' exited $status, expected 2$(signal_note)"
        sed 's/^/    /' "$work/err" | head -5
    elif [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q '^clfold: ' "$work/err"; then
        fail "'$*': stderr is not one 'clfold: ...' line: $(cat "$work/err")"
    elif [ -s "$work/out" ]; then
        fail "'$*' wrote to stdout on error"
    else
        ok
    fi
}

# expect_message PATTERN: the last command's stderr matches the extended regex.
expect_message() {
    if grep -Eq -- "$1" "$work/err"; then ok; else fail "stderr lacks /$1/: $(head -3 "$work/err")"; fi
}

# --- results judged by NumPy -----------------------------------------------------------
# The expected results come from NumPy (tests/npy_reference.py), which shares
# no code with the runner: not its .npy reader, not its host reference.
# Debian's /usr/bin/python3 has NumPy from python3-numpy; a python3 found
# first on PATH (pyenv, a virtual environment) may not. Without NumPy the test
# fails: it would otherwise pass having checked no result.
reference_py="$(dirname "${BASH_SOURCE[0]}")/npy_reference.py"
numpy_python=
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import numpy' >/dev/null 2>&1; then numpy_python=$candidate; break; fi
done
if [ -z "$numpy_python" ]; then
    echo "FAIL: no Python with NumPy (tried /usr/bin/python3 and python3): install python3-numpy (.ci/deps)"
    exit 1
fi

# The queue: one tab-separated line per result, checked in one NumPy run by
# finish (one Python start instead of one per result).
: >"$work/queue"
queued=0

# reduce_checked FILE OP [RUNNER OPTIONS...]: runs the runner ($clfold)'s
# reduce -o OP on FILE; it must exit 0 with nothing on stderr, and its one
# line of output joins the queue. The kernel (-k) and accuracy (--accuracy)
# choose the bound for float sums.
reduce_checked() {
    local file=$1 op=$2; shift 2
    local kernel=auto accuracy=default previous=
    for arg; do
        case $previous in -k) kernel=$arg ;; --accuracy) accuracy=$arg ;; esac
        previous=$arg
    done
    run "$clfold" reduce -o "$op" "$@" "$file"
    if [ "$status" -ne 0 ] || [ -s "$work/err" ]; then
        fail "reduce -o $op $* $(basename "$file"): exit $status$(signal_note): $(head -3 "$work/err")"
    else
        queue_output "$file" "$op" "$kernel" "$accuracy" "reduce -o $op $* $(basename "$file")"
    fi
}

# queue_output FILE OP KERNEL ACCURACY LABEL: the last command's output, which
# must be one line, joins the queue as the result of OP over FILE.
queue_output() {
    if [ "$(wc -l <"$work/out")" -ne 1 ]; then
        fail "$5: stdout is not one line: $(head -3 "$work/out")"
    else
        queue_result "$1" "$2" "$3" "$4" "$(cat "$work/out")" "$5"
    fi
}

# queue_result FILE OP KERNEL ACCURACY GOT LABEL: GOT, the runner's output, for NumPy to judge.
queue_result() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$work/queue"
    queued=$((queued + 1))
}

# check_queue: NumPy's verdict on every queued result; each "ok" counts as a check.
check_queue() {
    local answered=0 line
    [ "$queued" -gt 0 ] || return 0
    while IFS= read -r line; do
        case $line in
            "ok "*) ok; answered=$((answered + 1)) ;;
            "FAIL: "*) fail "${line#FAIL: }"; answered=$((answered + 1)) ;;
            *) fail "npy_reference.py: $line" ;;
        esac
    done < <("$numpy_python" "$reference_py" check "$work/queue" 2>&1)
    [ "$answered" -eq "$queued" ] || fail "npy_reference.py answered $answered of $queued queued results"
    : >"$work/queue"
    queued=0
}

# finish NAME: checks the queue, then the summary line. The exit status is 0
# only if nothing failed and something was checked.
finish() {
    check_queue
    echo "$1: $checks checks, $failures failures"
    [ "$checks" -gt 0 ] || [ "$failures" -gt 0 ] || echo "FAIL: $1 checked nothing"
    [ "$failures" -eq 0 ] && [ "$checks" -gt 0 ]
}

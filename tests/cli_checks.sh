# cli_checks.sh: the scaffolding that test_cli.sh and test_cli_robust.sh
# share, sourced by both: a work folder removed on exit, the check and
# failure counters, and the checks of the runner's exit status and of its
# one-line errors. Every command's output lands in $work/out and $work/err.

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

# finish NAME: the summary line; the exit status is 0 only if nothing failed.
finish() {
    echo "$1: $checks checks, $failures failures"
    [ "$failures" -eq 0 ]
}

#!/usr/bin/env bash
# test_cli_files.sh CLFOLD: the files the runner reads and writes, and the
# conventions a shell user expects of them.
# - -O replaces a file only whole: a write that fails on a full file system,
#   or in a folder that cannot be written, leaves the old file as it was and
#   no temporary file beside it (a 64 KiB tmpfs, read-only at the end, in a
#   mount namespace of its own: `unshare -rm`, as root or not).
# - -O that names an input (the file, or --segments' offsets) is refused
#   however it is spelled: ./ and a link are the same file.
# - "-" reads standard input and -O - writes standard output; "--" ends the
#   options; an option given twice, or with an empty value, is refused.
# - min and max of no elements are refused in NumPy's words; sum is 0.
set -u
clfold=$1
. "$(dirname "$0")/cli_checks.sh"

py() { "$numpy_python" -c "$@"; }

py "
import numpy as np
np.save('$work/small.npy', np.arange(6000, dtype=np.float32))   # 24 KB
np.save('$work/big.npy', np.arange(40000, dtype=np.float32))    # 160 KB
np.save('$work/in.npy', np.arange(10, dtype=np.float32))
np.save('$work/matrix.npy', np.arange(12, dtype=np.int32).reshape(3, 4))
np.save('$work/offsets.npy', np.array([0, 4, 10], dtype=np.int64))
np.save('$work/empty.npy', np.zeros(0, np.float32))
np.save('$work/empty_rows.npy', np.zeros((0, 3), np.float32))
np.save('$work/empty_cols.npy', np.zeros((3, 0), np.float32))
"
cp "$work/in.npy" "$work/in.keep"

# --- -O on a full file system, and in a folder that cannot be written -----------------------
# The scenario runs in its own mount namespace; it prints one line a check.
full_disk() {
    local dir=$work/small
    mkdir -p "$dir"
    mount -t tmpfs -o size=64k tmpfs "$dir" || { echo "skip: no tmpfs"; return; }
    cp "$work/small.npy" "$dir/result.npy"
    "$clfold" scan -O "$dir/result.npy" "$work/big.npy" 2>"$work/full.err"
    echo "full-status $?"
    cmp -s "$dir/result.npy" "$work/small.npy" && echo "full-kept yes" || echo "full-kept no"
    echo "full-files $(ls -A "$dir" | tr '\n' ' ')"
    mount -o remount,ro "$dir"
    "$clfold" scan -O "$dir/result.npy" "$work/in.npy" 2>"$work/ro.err"
    echo "ro-status $?"
    cmp -s "$dir/result.npy" "$work/small.npy" && echo "ro-kept yes" || echo "ro-kept no"
}
export -f full_disk
export clfold work
if unshare -rm true 2>/dev/null; then
    report=$(unshare -rm bash -c full_disk)
    if [ "$report" = "skip: no tmpfs" ]; then
        echo "note: no tmpfs in a mount namespace here: the full-disk checks are skipped"
    else
        grep -qx 'full-status 2' <<<"$report" && ok || fail "scan -O on a full disk: $report"
        grep -qx 'full-kept yes' <<<"$report" && ok || fail "a failed -O destroyed the old file: $report"
        grep -qx 'full-files result.npy ' <<<"$report" && ok || fail "a failed -O left files behind: $report"
        grep -q 'No space left on device' "$work/full.err" && ok || fail "full disk: $(cat "$work/full.err")"
        [ "$(wc -l <"$work/full.err")" -eq 1 ] && ok || fail "full disk: not one line: $(cat "$work/full.err")"
        grep -qx 'ro-status 2' <<<"$report" && ok || fail "scan -O in a read-only folder: $report"
        grep -qx 'ro-kept yes' <<<"$report" && ok || fail "a refused -O changed the old file: $report"
        grep -q 'cannot create: Read-only file system' "$work/ro.err" && ok ||
            fail "read-only folder: $(cat "$work/ro.err")"
    fi
else
    echo "note: unshare -rm is not allowed here: the full-disk checks are skipped"
fi

# A good -O replaces the old file, keeps its permissions, and leaves nothing beside it.
cp "$work/small.npy" "$work/out.npy"
chmod 640 "$work/out.npy"
expect_status 0 "$clfold" scan -O "$work/out.npy" "$work/in.npy"
py "import numpy as np; assert (np.load('$work/out.npy') == np.cumsum(np.arange(10, dtype=np.float32))).all()" &&
    ok || fail "scan -O over an old file: not the new scan"
[ "$(stat -c %a "$work/out.npy")" = 640 ] && ok || fail "-O changed the file's mode to $(stat -c %a "$work/out.npy")"
ls -A "$work" | grep -q '^\.out\.npy\.' && fail "-O left a temporary file: $(ls -A "$work")" || ok
# Through a link, the file it names is replaced and the link stays a link.
ln -s out.npy "$work/link.npy"
expect_status 0 "$clfold" reduce --axis 1 -O "$work/link.npy" "$work/matrix.npy"
[ -L "$work/link.npy" ] && ok || fail "-O through a link replaced the link"
py "import numpy as np; assert (np.load('$work/out.npy') == [6, 22, 38]).all()" && ok ||
    fail "-O through a link: the file it names is not the result"

# --- -O naming an input ------------------------------------------------------------------
ln -s in.npy "$work/in_link.npy"
ln "$work/in.npy" "$work/in_hard.npy"
for target in "$work/in.npy" "$work/./in.npy" "$work/in_link.npy" "$work/in_hard.npy"; do
    expect_usage_error "$clfold" scan -O "$target" "$work/in.npy"
    expect_message "is the input"
    expect_usage_error "$clfold" reduce --axis 0 -O "$target" "$work/in.npy"
done
expect_usage_error env -C "$work" "$clfold" scan -O ./in.npy in.npy
expect_usage_error "$clfold" reduce --segments "$work/offsets.npy" -O "$work/offsets.npy" "$work/in.npy"
expect_message "offsets.npy is the input"
cmp -s "$work/in.npy" "$work/in.keep" && ok || fail "an -O naming the input changed it"

# --- standard input and output -----------------------------------------------------------
run "$clfold" reduce - <"$work/in.npy"
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 45 ] && ok || fail "reduce - <in.npy: $status $(cat "$work/out" "$work/err")"
expect_usage_error "$clfold" reduce - </dev/null
expect_message '^clfold: -: .*too short'
"$clfold" scan -O - "$work/in.npy" >"$work/stdout.npy" 2>"$work/err" && ok || fail "scan -O -: $(cat "$work/err")"
py "import numpy as np; assert (np.load('$work/stdout.npy') == np.cumsum(np.arange(10, dtype=np.float32))).all()" &&
    ok || fail "scan -O - did not write the .npy to standard output"
[ -e "$work/-" ] || [ -e ./- ] && fail "-O - made a file named -" || ok
"$clfold" reduce --axis 0 -O - - <"$work/matrix.npy" >"$work/stdout.npy" 2>"$work/err" && ok ||
    fail "reduce -O - -: $(cat "$work/err")"
py "import numpy as np; assert (np.load('$work/stdout.npy') == [12, 15, 18, 21]).all()" && ok ||
    fail "reduce --axis 0 -O - - <matrix.npy: not the column sums"

# --- options -----------------------------------------------------------------------------
cp "$work/in.npy" "$work/-x.npy"
run "$clfold" reduce -o max -- "$work/-x.npy"
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 9 ] && ok || fail "reduce -- FILE: $status $(cat "$work/out" "$work/err")"
run env -C "$work" "$clfold" reduce -- -x.npy
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 45 ] && ok || fail "reduce -- -x.npy: $status $(cat "$work/out" "$work/err")"
expect_usage_error "$clfold" reduce -o sum -o max "$work/in.npy"
expect_message 'given twice'
expect_usage_error "$clfold" reduce --segments "$work/offsets.npy" --segments "$work/offsets.npy" "$work/in.npy"
expect_message '--segments is given twice'
expect_usage_error "$clfold" reduce -d "" "$work/in.npy"
expect_message 'not an empty one'
expect_usage_error "$clfold" reduce -O "" "$work/in.npy"
expect_usage_error "$clfold" reduce --axis= "$work/matrix.npy"

# --- min and max of no elements: NumPy's refusal ------------------------------------------
for op in min max; do
    word=$([ $op = min ] && echo minimum || echo maximum)
    for args in "$work/empty.npy" "--axis 0 $work/empty_rows.npy" "--axis 1 $work/empty_cols.npy" \
                "--axis 0,1 $work/empty_rows.npy"; do
        # shellcheck disable=SC2086
        expect_usage_error "$clfold" reduce -o $op $args
        expect_message "zero-size array to reduction operation $word which has no identity"
    done
    # Rows of 3 with none of them: no reduction is of no elements, as in NumPy.
    run "$clfold" reduce -o $op --axis 1 "$work/empty_rows.npy"
    [ "$status" -eq 0 ] && [ ! -s "$work/out" ] && ok || fail "$op --axis 1 of 0x3: $status $(cat "$work/err")"
done
run "$clfold" reduce -o sum "$work/empty.npy"
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = 0 ] && ok || fail "sum of no elements: $status $(cat "$work/out" "$work/err")"

finish test_cli_files

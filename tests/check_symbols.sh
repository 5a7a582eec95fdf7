#!/usr/bin/env bash
# check_symbols.sh: the global symbols that clfold's libraries define are
# exactly the API their headers declare: no internal function escapes to a
# program that links the library (where it could clash with a name of the
# program's own), and no API function is missing.
#
#   check_symbols.sh NM ARCHIVES MACRO HEADER LIBRARY [MACRO HEADER LIBRARY ...]
#
# NM: the nm to run. ARCHIVES: ON where the build makes a static archive's
# internal symbols local (cmake/LocalizeArchive.cmake), else why not: a static
# archive is then left out (a plain archive's internal functions are global
# symbols). For each LIBRARY (libclfold.so / .a, libclfold_mpi.so / .a): the
# API is the functions HEADER declares with MACRO (CLFOLD_API, CLFOLD_MPI_API),
# read from the header itself, so the list cannot fall behind it; a clfold_
# function HEADER declares without MACRO fails the check too. A shared
# library's symbols are its dynamic ones (nm -D), an archive's its members'
# globals (nm -g).
#
# ctest runs it on the build's libraries (the entry "symbols"), .ci/packaging.sh
# on the installed ones. Exits 0 when all agree, 1 on a mismatch, 77 when there
# was nothing to check.
set -uo pipefail
export LC_ALL=C # one order for sort, comm and perl

die() {
    printf 'check_symbols: %s\n' "$*" >&2
    exit 1
}
if [ $# -lt 5 ] || [ $((($# - 2) % 3)) -ne 0 ]; then
    die "usage: check_symbols.sh NM ARCHIVES MACRO HEADER LIBRARY [MACRO HEADER LIBRARY ...]"
fi
nm=$1
archives=$2
shift 2
command -v "$nm" >/dev/null 2>&1 || die "no nm: '$nm'"
command -v perl >/dev/null 2>&1 || die "needs perl (to read the headers)"

# api_of MACRO HEADER: the names of the functions HEADER declares with MACRO,
# one a line. Comments and preprocessor lines out, the rest cut at ; { and }:
# a piece that declares a clfold_ function starts with MACRO, or the header
# is wrong (the function would not be exported).
api_of() {
    perl -e '
        my ($macro, $file) = @ARGV;
        open my $fh, "<", $file or die "cannot read $file: $!\n";
        local $/;
        $_ = <$fh>;
        s{/\*.*?\*/}{ }gs;
        s{//[^\n]*}{}g;
        s{^[ \t]*#(?:[^\n]*\\\n)*[^\n]*}{}mg;
        my (@api, @bare);
        for my $piece (split /[;{}]/) {
            $piece =~ s/\s+/ /g;
            $piece =~ s/^ //;
            next if $piece =~ /^(typedef|static)\b/;
            next unless $piece =~ /^[\w\s*]*?\b(clfold_\w+) ?\(/;
            my $name = $1;
            if ($piece =~ /^\Q$macro\E\b/) { push @api, $name } else { push @bare, $name }
        }
        die "$file declares without $macro: @bare\n" if @bare;
        die "$file declares no function with $macro\n" unless @api;
        my %seen;
        print "$_\n" for sort grep { !$seen{$_}++ } @api;
    ' "$1" "$2"
}

# globals_of LIBRARY: the global symbols it defines, one a line.
globals_of() {
    local lib=$1 out
    case $lib in
    *.a) out=$("$nm" -g --defined-only "$lib") ;;
    *) out=$("$nm" -D --defined-only "$lib") ;;
    esac || die "$nm cannot read $lib"
    awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' <<<"$out" | sort -u
}

checked=0
failed=0
while [ $# -gt 0 ]; do
    macro=$1 header=$2 lib=$3
    shift 3
    [ -f "$lib" ] || die "no library $lib"
    if [[ $lib == *.a && $archives != ON ]]; then
        echo "$lib: left out, its internal symbols are not made local in this build ($archives)"
        continue
    fi
    api=$(api_of "$macro" "$header") || die "cannot read the API of $header"
    globals=$(globals_of "$lib") || exit 1
    extra=$(comm -13 <(echo "$api") <(echo "$globals"))
    missing=$(comm -23 <(echo "$api") <(echo "$globals"))
    checked=$((checked + 1))
    if [ -z "$extra" ] && [ -z "$missing" ]; then
        echo "$lib: $(wc -l <<<"$globals") global symbols, exactly the $macro functions of $(basename "$header")"
        continue
    fi
    failed=1
    echo "FAIL: $lib: its global symbols are not the $macro functions of $header"
    if [ -n "$extra" ]; then
        echo "  global, not declared with $macro (internal names escape to every program that links it):"
        awk '{ print "    " $0 }' <<<"$extra"
        echo "  An internal function has hidden visibility (the library is compiled with"
        echo "  -fvisibility=hidden) unless something gives it another: make it static, or"
        echo "  take off its visibility(\"default\") / $macro. For an archive, see"
        echo "  cmake/LocalizeArchive.cmake (its hidden symbols are made local)."
    fi
    if [ -n "$missing" ]; then
        echo "  declared with $macro, not a global symbol of the library (a program cannot link it):"
        awk '{ print "    " $0 }' <<<"$missing"
    fi
done
[ $failed -eq 0 ] || exit 1
[ $checked -gt 0 ] || exit 77
exit 0

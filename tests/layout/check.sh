#!/bin/sh
# The source layout against its rules (docs/architecture.md), one rule per mode:
#   includes SRC          every #include "..." of a folder names a header of its own folder or
#                         of a folder layers.txt lets it use, and a public (ts_*) one there
#   targets  SRC TARGETS  each folder's library is built from that folder's files, exposes that
#                         folder only as its include directory, and links only what it may use
#                         (TARGETS: the targets' properties, written by CMake at configure time)
#   guards   SRC          every header's include guard is TOUCHSTONE_ + its path, upper case
#   labels   SRC CTEST BUILD  every CTest test of BUILD carries a label, and only labels that
#                         tests/labels.txt lists (CTEST lists the tests, jq reads the list)
# Prints one line per violation and fails with the count; layers.txt at the top of the source
# holds the arrows.
set -u

MODE=${1:?mode: includes, targets or guards}
SRC=${2:?path to the source tree}
LAYERS=$SRC/layers.txt
# Violations are found in pipelines (subshells): each is a line of this file.
FAILED=$(mktemp)
INDEX=$(mktemp)
trap 'rm -f "$FAILED" "$INDEX" "$INDEX.edges" "$INDEX.loop" "$INDEX.violations"' EXIT

fail() {
    echo "FAILED: $*" >&2
    echo "$*" >>"$FAILED"
}

[ -r "$LAYERS" ] || { fail "no $LAYERS to read the layers from"; exit 1; }

# The folders, in the order layers.txt lists them; a folder's library; the folders it may use.
folders=$(awk '!/^#/ && NF { print $1 }' "$LAYERS")
library_of() {
    awk -v f="$1" '!/^#/ && $1 == f { sub(/:$/, "", $2); print $2 }' "$LAYERS"
}
uses_of() {
    awk -v f="$1" '!/^#/ && $1 == f { for (i = 3; i <= NF; i++) print $i }' "$LAYERS"
}
may_use() { # FOLDER OTHER: true when FOLDER is OTHER or lists it
    [ "$1" = "$2" ] || uses_of "$1" | grep -qx "$2"
}
folder_of_library() {
    awk -v t="$1" '!/^#/ && NF { l = $2; sub(/:$/, "", l); if (l == t) print $1 }' "$LAYERS"
}

# Every folder the build adds (top-level add_subdirectory) is a layer, except tests/.
check_listed() {
    for dir in $(sed -n 's/^add_subdirectory(\([A-Za-z0-9_-]*\))$/\1/p' "$SRC/CMakeLists.txt"); do
        [ "$dir" = tests ] && continue
        echo "$folders" | grep -qx "$dir" || fail "$dir/ is built (CMakeLists.txt) but has no line in layers.txt"
    done
    for f in $folders; do
        [ -d "$SRC/$f" ] || fail "layers.txt names $f/, which is not a folder of the source"
    done
}

check_includes() {
    check_listed
    index=$INDEX
    # Header name -> folder. Names are unique across folders: an include names one header.
    for f in $folders; do
        for h in "$SRC/$f"/*.h; do
            [ -e "$h" ] && echo "$(basename "$h") $f"
        done
    done | sort >"$index"
    for dup in $(awk '{ print $1 }' "$index" | uniq -d); do
        fail "header name $dup is in several folders ($(awk -v h="$dup" '$1 == h { printf "%s/ ", $2 }' "$index")): includes name headers by file name only"
    done
    # One awk over every file (a process per include took a minute on a loaded 2-core machine):
    # the index and layers.txt first, then each file's includes, one violation a line.
    files=$(for f in $folders; do ls "$SRC/$f"/*.c "$SRC/$f"/*.h 2>/dev/null; done)
    # shellcheck disable=SC2086 # the paths are words (no blanks in the tree's names)
    awk -v layers="$LAYERS" -v index_file="$index" '
        FILENAME == layers {
            if ($0 !~ /^#/ && NF) {
                uses[$1] = ""
                for (i = 3; i <= NF; i++) { may[$1 " " $i] = 1; uses[$1] = uses[$1] $i " " }
            }
            next
        }
        FILENAME == index_file { owner[$1] = $2; next }
        match($0, /^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"/) {
            inc = substr($0, RSTART, RLENGTH)
            sub(/^[^"]*"/, "", inc)
            sub(/"$/, "", inc)
            n = split(FILENAME, part, "/")
            f = part[n - 1]
            where = f "/" part[n]
            if (inc ~ /\//)
                print where " includes \"" inc "\" by path: include the header by name and link its folder\x27s library"
            else if (!(inc in owner))
                print where " includes \"" inc "\", which is in none of the layers\x27 folders"
            else if (owner[inc] != f && !((f " " owner[inc]) in may))
                print where " includes " owner[inc] "/" inc ": " f "/ may use only " uses[f] "(layers.txt)"
            else if (owner[inc] != f && inc !~ /^ts_/)
                print where " includes " owner[inc] "/" inc ", which is private to " owner[inc] "/ (public headers are ts_*)"
        }' "$LAYERS" "$index" $files >"$INDEX.violations"
    while read -r line; do
        fail "$line"
    done <"$INDEX.violations"
    check_cycles app
}

# Within app/, no include cycle between its modules (X.c/X.h including Y.h, Y.c/Y.h including
# X.h, directly or around a longer loop): a cycle means no module of it can be read, tested or
# changed alone (issue 24). tsort names the loop. (The libraries' folders pair a public header
# with a private one that includes it, a loop of one module: not checked there.)
check_cycles() {
    folder=$1
    for file in "$SRC/$folder"/*.c "$SRC/$folder"/*.h; do
        [ -e "$file" ] || continue
        from=$(basename "$file" | sed 's/\.[ch]$//')
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)\.h".*/\1/p' "$file" | while read -r to; do
            [ "$to" != "$from" ] && [ -e "$SRC/$folder/$to.h" ] && echo "$from $to"
        done
    done >"$INDEX.edges"
    if ! tsort "$INDEX.edges" >/dev/null 2>"$INDEX.loop"; then
        fail "$folder/ has an include cycle between its modules: $(sed -n 's/^tsort: //p' "$INDEX.loop" | grep -v 'input contains a loop' | tr '\n' ' ')"
    fi
}

# TARGETS lines: "FOLDER PROPERTY VALUE..." for LINK_LIBRARIES, INTERFACE_LINK_LIBRARIES,
# INCLUDE_DIRECTORIES, INTERFACE_INCLUDE_DIRECTORIES and SOURCES; "FOLDER missing" when the
# folder's library is not a target.
values() { # TARGETS FOLDER PROPERTY...: the values of those properties, one a line
    file=$1 folder=$2
    shift 2
    for prop in "$@"; do
        awk -v f="$folder" -v p="$prop" '$1 == f && $2 == p { for (i = 3; i <= NF; i++) print $i }' "$file"
    done
}

check_targets() {
    targets=${3:?file of the properties of the targets}
    [ -r "$targets" ] || { fail "no $targets"; return; }
    for f in $folders; do
        lib=$(library_of "$f")
        if grep -qx "$f missing" "$targets" || ! grep -q "^$f " "$targets"; then
            fail "$f/: its library $lib (layers.txt) is not a target of the build"
            continue
        fi
        for item in $(values "$targets" "$f" LINK_LIBRARIES INTERFACE_LINK_LIBRARIES | sort -u); do
            dep=$(echo "$item" | sed 's/^\$<LINK_ONLY:\(.*\)>$/\1/')
            other=$(folder_of_library "$dep")
            [ -n "$other" ] || continue # a library not of ours (hwloc, HDF5, OpenMP, ...)
            may_use "$f" "$other" || fail "$lib ($f/) links $dep ($other/): $f/ may use only $(uses_of "$f" | tr '\n' ' ')(layers.txt)"
        done
        for dir in $(values "$targets" "$f" INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES | sort -u); do
            [ "$dir" = "$SRC/$f" ] || fail "$lib ($f/) has the include directory $dir: a folder's library exposes its own folder only"
        done
        for source in $(values "$targets" "$f" SOURCES); do
            case $source in
            "$SRC/$f"/*/* | */../* | ../*) fail "$lib ($f/) is built from $source, outside $f/" ;;
            "$SRC/$f"/*) ;;
            /* | */*) fail "$lib ($f/) is built from $source, outside $f/" ;;
            esac
        done
    done
}

check_guards() {
    # One awk over every header (three processes a header took most of this check's time).
    headers=$(for dir in $folders tests; do find "$SRC/$dir" -name '*.h' -type f; done | LC_ALL=C sort)
    [ -n "$headers" ] || return
    # shellcheck disable=SC2086 # the paths are words (no blanks in the tree's names)
    awk -v src="$SRC/" '
        function report(file) {
            rel = substr(file, length(src) + 1)
            want = toupper(rel)
            gsub(/[^A-Z0-9]/, "_", want)
            want = "TOUCHSTONE_" want
            if (got[file] != want || defined[file] != want)
                print rel ": include guard " (got[file] == "" ? "none" : got[file]) ", expected " want " (#ifndef and #define first)"
        }
        !(FILENAME in got) && /^#ifndef[[:space:]]+[A-Za-z0-9_]+/ { got[FILENAME] = $2 }
        !(FILENAME in defined) && /^#define[[:space:]]+[A-Za-z0-9_]+/ { defined[FILENAME] = $2 }
        END { for (i = 1; i < ARGC; i++) report(ARGV[i]) }' $headers >"$INDEX.violations"
    while read -r line; do
        fail "$line"
    done <"$INDEX.violations"
}

check_labels() {
    ctest=${3:?the ctest command} build=${4:?the build directory}
    allowed=$(awk '!/^#/ && NF { print $1 }' "$SRC/tests/labels.txt")
    [ -n "$allowed" ] || { fail "no labels in $SRC/tests/labels.txt"; return; }
    command -v jq >/dev/null || { fail "jq is missing (scripts/setup-deps.sh --test installs it)"; return; }
    # ctest lists the tests from a directory of its own, whose log is not the one of the ctest
    # running this check.
    list=$(mktemp -d)
    printf 'subdirs("%s")\n' "$build" >"$list/CTestTestfile.cmake"
    if ! (cd "$list" && "$ctest" --show-only=json-v1) >"$list/tests.json"; then
        fail "$ctest --show-only=json-v1 cannot list the tests of $build"
    fi
    jq -r '.tests[] | [.name, ([(.properties // [])[] | select(.name == "LABELS") | .value[]] | join(" "))]
           | @tsv' "$list/tests.json" >"$list/labels.tsv" || fail "jq cannot read the list of tests"
    rm -rf "$list/Testing" "$list/CTestTestfile.cmake" "$list/tests.json"
    tab=$(printf '\t')
    while IFS=$tab read -r name labels; do
        [ -n "$labels" ] || fail "test $name has no label: give it one of tests/labels.txt"
        for label in $labels; do
            echo "$allowed" | grep -qx -- "$label" \
                || fail "test $name has the label $label, which tests/labels.txt does not list"
        done
    done <"$list/labels.tsv"
    [ -s "$list/labels.tsv" ] || fail "no tests listed in $build"
    rm -rf "$list"
}

case $MODE in
includes) check_includes ;;
targets) check_targets "$@" ;;
guards) check_guards ;;
labels) check_labels "$@" ;;
*) echo "unknown mode $MODE (includes, targets, guards, labels)" >&2; exit 2 ;;
esac

n=$(wc -l <"$FAILED")
if [ "$n" -gt 0 ]; then
    echo "$n violation(s) of the layout rules ($MODE; docs/architecture.md)" >&2
    exit 1
fi
echo "layout $MODE: ok"

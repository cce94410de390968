#!/bin/sh
# The C sources against .clang-format (clang-format 14):
#   format.sh fix SRC     formats them in place (`make format`)
#   format.sh check SRC   lists the files that differ from what clang-format would write and fails
#                         (layout.format); the diff of each shows how
# The files are every .c and .h of the source folders and tests/, build directories excepted.
set -u

MODE=${1:?mode: fix or check}
SRC=${2:?path to the source tree}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}

command -v "$CLANG_FORMAT" >/dev/null || {
    echo "format: $CLANG_FORMAT is missing (scripts/setup-deps.sh --test installs it)" >&2
    exit 1
}
[ -r "$SRC/.clang-format" ] || { echo "format: no $SRC/.clang-format" >&2; exit 1; }

files=$(cd "$SRC" && find app bench common config io kernels record topo tests tools \
    -name '*.[ch]' -type f 2>/dev/null | LC_ALL=C sort)
[ -n "$files" ] || { echo "format: no C files under $SRC" >&2; exit 1; }

case $MODE in
fix)
    cd "$SRC" && echo "$files" | xargs "$CLANG_FORMAT" -i --style=file
    ;;
check)
    differ=0
    for f in $files; do
        if ! "$CLANG_FORMAT" --style=file "$SRC/$f" | diff -u "$SRC/$f" - >"${TMPDIR:-/tmp}/format.$$"; then
            echo "FAILED: $f is not formatted as .clang-format says (make format):" >&2
            sed -n '3,40p' "${TMPDIR:-/tmp}/format.$$" >&2
            differ=$((differ + 1))
        fi
    done
    rm -f "${TMPDIR:-/tmp}/format.$$"
    if [ "$differ" -gt 0 ]; then
        echo "FAILED: $differ of $(echo "$files" | wc -l) files differ; run make format" >&2
        exit 1
    fi
    echo "format: $(echo "$files" | wc -l) files as .clang-format says"
    ;;
*) echo "format: unknown mode $MODE (fix or check)" >&2; exit 2 ;;
esac

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
    # One clang-format for every file (one a file took most of the minute layout.format ran on a
    # busy 2-core machine); the files it flags, one at a time for their diffs.
    cd "$SRC" || exit 1
    report=$(echo "$files" | xargs "$CLANG_FORMAT" --style=file --dry-run -Werror 2>&1)
    status=$?
    flagged=$(echo "$report" | sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' | sort -u)
    if [ "$status" -ne 0 ] && [ -z "$flagged" ]; then
        echo "FAILED: $CLANG_FORMAT --dry-run ended with status $status:" >&2
        echo "$report" | head -20 >&2
        exit 1
    fi
    differ=0
    for f in $flagged; do
        echo "FAILED: $f is not formatted as .clang-format says (make format):" >&2
        "$CLANG_FORMAT" --style=file "$f" | diff -u "$f" - | sed -n '3,40p' >&2
        differ=$((differ + 1))
    done
    if [ "$differ" -gt 0 ]; then
        echo "FAILED: $differ of $(echo "$files" | wc -l) files differ; run make format" >&2
        exit 1
    fi
    echo "format: $(echo "$files" | wc -l) files as .clang-format says"
    ;;
*) echo "format: unknown mode $MODE (fix or check)" >&2; exit 2 ;;
esac

#!/bin/sh
# browser_check.sh on one fixture: the checks named in EXPECTED fail (exit 1) and no other;
# with EXPECTED empty every check passes (exit 0) and both screenshots are there.
# Usage: test_browser.sh FIXTURE.html OUT_DIR PNG_CHECK "EXPECTED CHECKS"
set -u
FIXTURE=${1:?fixture}
OUT=${2:?output directory}
PNG_CHECK=${3:?png_check}
EXPECTED=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

start=$(date +%s)
PNG_CHECK=$PNG_CHECK sh "$HERE/browser_check.sh" "$FIXTURE" "$OUT" >"$LOG" 2>&1
status=$?
echo "browser_check.sh took $(($(date +%s) - start)) s"
failed=$(sed -n 's/^FAIL \([a-z]*\).*/\1/p' "$LOG" | sort -u | tr '\n' ' ' | sed 's/ $//')
want=$(echo "$EXPECTED" | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ' | sed 's/ $//')
if [ -z "$want" ]; then
    [ "$status" -eq 0 ] || fail "$(basename "$FIXTURE"): exit status $status, expected 0 (every check passing)"
    for png in desktop phone; do
        [ -s "$OUT/$png.png" ] || fail "no $png.png in $OUT"
    done
else
    [ "$status" -eq 1 ] || fail "$(basename "$FIXTURE"): exit status $status, expected 1 (a check failing)"
fi
[ "$failed" = "$want" ] || fail "$(basename "$FIXTURE"): failed checks '${failed}', expected '${want}'"
if [ "$failures" -ne 0 ]; then
    sed 's/^/    | /' "$LOG" >&2
    exit 1
fi
cat "$LOG"

#!/bin/sh
# png_check: a single-colour picture fails (1), a file that is not a PNG cannot be read (2).
# The pictures that pass are the screenshots of tests html.browser.*.
set -u
PNG_CHECK=${1:?png_check}
FIXTURES=${2:?fixtures directory}
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
out=$("$PNG_CHECK" "$FIXTURES/blank.png" 2>&1)
status=$?
[ "$status" -eq 1 ] || fail "blank.png (16x16, one white): exit status $status, expected 1"
echo "$out" | grep -q 'a single colour' || fail "blank.png: expected 'a single colour' in: $out"
out=$("$PNG_CHECK" "$FIXTURES/blank.png" 16 2>&1) || true
echo "$out" | grep -q 'not 16 px wide' && fail "blank.png is 16 px wide, yet: $out"
out=$("$PNG_CHECK" "$FIXTURES/blank.png" 390 2>&1)
echo "$out" | grep -q 'not 390 px wide' || fail "blank.png with WIDTH 390: expected 'not 390 px wide' in: $out"
"$PNG_CHECK" "$FIXTURES/good.html" >/dev/null 2>&1
status=$?
[ "$status" -eq 2 ] || fail "good.html is no PNG: exit status $status, expected 2"
[ "$failures" -eq 0 ] && echo "png_check: blank, wrong width and not-a-PNG told apart"
exit "$failures"

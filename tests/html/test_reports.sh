#!/bin/sh
# The real reports in headless chromium (browser_check.sh): `touchstone report --html` of a set
# of runs (serial and parallel init, 1 and 2 threads, two bindings) and `touchstone survey
# --quick --html` at a tiny size (TOUCHSTONE_SURVEY_SCALE, docs/survey.md). Every check must
# pass on both: sections in order, drawn pictures, sortable tables, no console error, nothing
# fetched from the network, a phone-wide page, non-empty screenshots at desktop and phone widths.
# Usage: test_reports.sh TOUCHSTONE SOURCE_DIR PNG_CHECK OUT_DIR
set -u
TS=${1:?touchstone}
SRC=${2:?source dir}
PNG_CHECK=${3:?png_check}
OUT=${4:?output directory}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT"
mkdir -p "$OUT/runs" || exit 2
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

# run NAME ARGS...: one small stencil2d run into OUT/runs/NAME.h5
run() {
    name=$1
    shift
    OMP_PLACES=cores "$TS" run "$SRC/configs/default.ini" --set run.kernel=stencil2d --set stencil.nx=512 \
        --set stencil.ny=512 --set run.iterations=8 --set run.warmup=1 -q -o "$OUT/runs/$name.h5" "$@" \
        >"$OUT/runs/$name.log" 2>&1 || fail "run $name: exit $? ($(tail -n 2 "$OUT/runs/$name.log"))"
}
run par-t1 --threads 1
run par-t2 --threads 2
run ser-t2 --threads 2 --serial-init
OMP_PROC_BIND=spread run spread-t2 --threads 2 --set openmp.proc_bind=spread
"$TS" report --html "$OUT/runs.html" "$OUT/runs" >"$OUT/report.log" 2>&1 || fail "report --html: exit $?"
# Two runs a point (TOUCHSTONE_SURVEY_REPEATS; 3 by default): the page as it looks with repeats,
# in two thirds of the survey's time.
TOUCHSTONE_SURVEY_SCALE=0.02 TOUCHSTONE_SURVEY_REPEATS=2 "$TS" survey --quick --html -o "$OUT/survey" >"$OUT/survey.log" 2>&1 ||
    fail "survey --quick --html: exit $? ($(tail -n 3 "$OUT/survey.log"))"

# check NAME FILE: every check of browser_check.sh passes on FILE; its screenshots in OUT/NAME.
check() {
    start=$(date +%s)
    PNG_CHECK=$PNG_CHECK sh "$HERE/browser_check.sh" "$2" "$OUT/$1" >"$OUT/$1.log" 2>&1
    status=$?
    echo "browser_check.sh $1: exit $status in $(($(date +%s) - start)) s"
    sed 's/^/    /' "$OUT/$1.log"
    [ "$status" -eq 0 ] || fail "$1: browser_check.sh exit $status"
    for png in desktop phone; do
        [ -s "$OUT/$1/$png.png" ] || fail "$1: no $png.png"
    done
}
[ -f "$OUT/runs.html" ] && check runs "$OUT/runs.html"
[ -f "$OUT/survey/survey.html" ] && check survey "$OUT/survey/survey.html"

[ "$failures" -eq 0 ] || { echo "test_reports: $failures failed"; exit 1; }
echo "test_reports: both reports pass every check"

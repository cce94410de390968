#!/bin/sh
# touchstone report --html: the self-contained HTML report of runs made here (a serial and a
# parallel init, a 1- and 2-thread scaling pair, a run whose config path holds markup): every
# section in order, each run's anchor, pictures, nothing fetched from the network, the file's
# text escaped; the refusals (an unreadable run, an output in a missing directory).
. "$(dirname "$0")/lib.sh"

RUNS=$WORK/runs
mkdir "$RUNS"
# A config whose name is markup: the report must show it as text, never as HTML.
HOSTILE="$WORK/x<script>alert(1)<&>.ini"
cp "$SRC/configs/sum.ini" "$HOSTILE"
# shellcheck disable=SC2086
run_ts 0 "parallel init, 2 threads" run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$RUNS/par-2.h5" -q || finish
# shellcheck disable=SC2086
run_ts 0 "serial init, 2 threads" run "$SRC/configs/sum.ini" $SMALL --threads 2 --serial-init -o "$RUNS/ser-2.h5" -q \
    || finish
# shellcheck disable=SC2086
run_ts 0 "parallel init, 1 thread" run "$SRC/configs/sum.ini" $SMALL --threads 1 -o "$RUNS/par-1.h5" -q || finish
# shellcheck disable=SC2086
run_ts 0 "a run of a config named with markup" run "$HOSTILE" $SMALL --threads 1 -o "$RUNS/hostile.h5" -q || finish

HTML=$WORK/report.html
run_ts 0 "report --html" report --html "$HTML" "$RUNS/par-2.h5" "$RUNS/ser-2.h5" "$RUNS/par-1.h5" "$RUNS/hostile.h5" \
    || finish
expect_in "$OUT" "report: $HTML written \(4 runs\)" "report --html says where the report went"
[ -s "$HTML" ] || fail "no report written"
ls "$WORK" | grep -q '\.tmp\.' && fail "a temporary file was left behind"

# Every section, once, in the contract's order.
got=$(grep -o '<section id="[a-z]*"' "$HTML" | sed 's/.*id="\(.*\)"/\1/' | tr '\n' ' ')
want="verdict node placement init binding scaling matrix sections threads conditions commands "
[ "$got" = "$want" ] || fail "sections: '$got', expected '$want'"
# One anchor per run file, and links to it.
for run in par-2 ser-2 par-1 hostile; do
    [ "$(grep -c "id=\"run-$run\"" "$HTML")" -eq 1 ] || fail "no single anchor id=\"run-$run\""
    expect_in "$HTML" "href=\"#run-$run\"" "a link to run $run"
done
# Pictures with titles; the serial/parallel pair drawn side by side, the 1-2 thread curve.
svgs=$(grep -o '<svg ' "$HTML" | wc -l)
[ "$svgs" -ge 8 ] || fail "only $svgs inline pictures"
[ "$(grep -o '<svg [^>]*><title>' "$HTML" | wc -l)" -eq "$svgs" ] || fail "a picture without its <title>"
expect_in "$HTML" 'init \(first touch\) time' "the init section compares serial and parallel"
expect_in "$HTML" 'parallel efficiency' "the scaling section draws efficiency"
expect_in "$HTML" 'class="sortable"' "sortable tables"
expect_in "$HTML" 'name="viewport"' "a viewport for phones"
expect_in "$HTML" '@media print' "print styles"
expect_in "$HTML" 'A plain set of runs has no NUMA matrix' "the matrix section says why it is empty"
# Nothing from the network: no http(s) URL at all, no src= and no external stylesheet.
expect_not_in "$HTML" 'https?://' "a network address in the report"
expect_not_in "$HTML" ' src=' "an external resource (src=)"
expect_not_in "$HTML" '<link ' "an external stylesheet"
# One script, the report's own; the config's markup only as escaped text.
[ "$(grep -c '<script>' "$HTML")" -eq 1 ] || fail "a script other than the report's own"
expect_not_in "$HTML" '<script>alert' "the config path's markup went into the page"
expect_in "$HTML" 'x&lt;script&gt;alert\(1\)&lt;&amp;&gt;\.ini' "the config path, escaped"

# A directory stands for its runs, as in report without --html; an existing report is replaced.
run_ts 0 "report --html DIR, over the last report" report --html "$HTML" "$RUNS" || finish
expect_in "$OUT" "\(4 runs\)" "the directory's four runs"

# Refusals: an unreadable run names the file; an output in a missing directory the errno.
echo "not HDF5" >"$WORK/bad.h5"
run_ts 2 "report --html of a file that is not a run" report --html "$WORK/r2.html" "$RUNS/par-1.h5" "$WORK/bad.h5"
expect_in "$ERR" "$WORK/bad.h5" "the unreadable run is named"
[ -e "$WORK/r2.html" ] && fail "a report written although a run could not be read"
run_ts 2 "report --html into a missing directory" report --html "$WORK/no/such/dir/r.html" "$RUNS/par-1.h5"
expect_in "$ERR" "$WORK/no/such/dir/r.html.*No such file or directory" "the missing directory's errno text"
run_ts 2 "report --html without a file" report --html
run_ts 2 "report --html with --format" report --html "$WORK/r3.html" --format csv "$RUNS/par-1.h5"
expect_in "$ERR" "one or the other" "--html and --format refused together"
run_ts 2 "compare --html" compare --html "$WORK/c.html" "$RUNS/par-1.h5" "$RUNS/par-2.h5"
expect_in "$ERR" "compare: unknown option '--html'" "compare refuses --html"
finish

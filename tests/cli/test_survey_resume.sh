#!/bin/sh
# An interrupted survey resumes to the same survey file: stopped after k runs
# (TOUCHSTONE_SURVEY_STOP_AFTER, deterministic) it exits 3 with a valid partial survey.h5 (the k
# runs done, the rest pending, no matrix, complete 0); the same command then runs only the rest,
# and the result has the structure of an uninterrupted survey's (same runs, commands and states:
# every line of `survey --dump` but the measured ones, folder names aside). Resumed in a folder
# where links were planted and run files swapped: the links replaced, never followed, and only
# the runs the plan made kept. A real SIGINT while a
# run is under way: exit 3 and a valid partial survey file, which resumes to the structure of an
# uninterrupted survey of the same size. (Resuming after the memory limit
# changed: test_survey_memory.sh.)
# Arguments: TOUCHSTONE SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
export TOUCHSTONE_SURVEY_SCALE=0.005 OMP_WAIT_POLICY=passive
# One run a point (TOUCHSTONE_SURVEY_REPEATS): nothing here is judged; cli.survey_busy runs the default 3.
export TOUCHSTONE_SURVEY_REPEATS=1

structure() { # the dump of survey folder $1 without what is measured, the folder named DIR
    "$TS" survey --dump -o "$1" | grep -v '^measured' | sed "s#$1#DIR#g"
}

run_ts 0 "an uninterrupted survey" survey --quick -o "$WORK/a"
structure "$WORK/a" >"$WORK/a.txt" || fail "dump of the uninterrupted survey"
n_runs_a=$(sed -n 's/^n_runs //p' "$WORK/a.txt")

# The folder is untrusted. Planted links are replaced, never written through: survey.ini,
# survey.html and the log of a run that runs again pointing at other files, a kept run file
# swapped for a link.
# A resume keeps only the runs its plan made, as their files record them: the close and spread
# files swapped, a run of another size in a run's place, each named with what differs and run
# again; the rest kept. Resumed so, the survey is the one it was.
A=$WORK/a
close=$(cd "$A/runs" && ls stencil2d-binding-close-t*.h5)
spread=$(cd "$A/runs" && ls stencil2d-binding-spread-t*.h5)
stacked=$(cd "$A/runs" && ls stencil2d-binding-stacked-t*.h5)
cmd=$(sed -n 's/^run-command triad-init-serial-t[0-9]*-r1 //p' "$WORK/a.txt" | sed "s#DIR#$A#g; s/triad.n=[0-9]*/triad.n=5000/")
expect_run 0 "triad-init-serial run again at another size" sh -c "$cmd"
mv "$A/runs/$close" "$WORK/swap.h5" && mv "$A/runs/$spread" "$A/runs/$close" && mv "$WORK/swap.h5" "$A/runs/$spread"
for v in ini log h5 html; do echo precious >"$WORK/victim.$v"; done
rm "$A/survey.ini" "$A/runs/$stacked" "$A/runs/${close%.h5}.log"
ln -s "$WORK/victim.ini" "$A/survey.ini"
ln -s "$WORK/victim.h5" "$A/runs/$stacked"
ln -s "$WORK/victim.log" "$A/runs/${close%.h5}.log"
ln -s "$WORK/victim.html" "$A/survey.html"
run_ts 0 "a survey resumed in a tampered folder" survey --quick --html -o "$A"
for v in ini log h5 html; do
    [ "$(cat "$WORK/victim.$v")" = precious ] || fail "the file a planted link named was written: victim.$v"
done
[ -f "$A/survey.ini" ] && [ ! -L "$A/survey.ini" ] || fail "survey.ini is still a link"
[ -s "$A/survey.html" ] && [ ! -L "$A/survey.html" ] || fail "survey.html is still a link"
[ -f "$A/runs/${close%.h5}.log" ] && [ ! -L "$A/runs/${close%.h5}.log" ] || fail "the close run's log is still a link"
expect_in "$ERR" "runs/$close is not kept: its OMP_PROC_BIND is 'spread', the plan's 'close'; it runs again" "the swapped close file named"
expect_in "$ERR" "runs/$spread is not kept: its OMP_PROC_BIND is 'close', the plan's 'spread'" "the swapped spread file named"
expect_in "$ERR" "runs/$stacked is not kept: it is a symbolic link, not a file the survey wrote" "the link named"
expect_in "$ERR" "runs/triad-init-serial-t[0-9]+-r1.h5 is not kept: its triad.n is 5000, the plan's [0-9]+" "the other size named"
[ "$(grep -c ' kept (runs/' "$ERR")" = $((n_runs_a - 4)) ] || fail "not exactly the $((n_runs_a - 4)) untouched runs kept"
structure "$A" >"$WORK/a2.txt" || fail "dump of the survey resumed in the tampered folder"
# (Its own command differs by --html.)
grep -v '^command ' "$WORK/a.txt" >"$WORK/a1.txt"
grep -v '^command ' "$WORK/a2.txt" >"$WORK/a2-.txt"
diff "$WORK/a1.txt" "$WORK/a2-.txt" >"$WORK/diff" || fail "the survey resumed in the tampered folder differs: $(head -5 "$WORK/diff")"
# What a resume trusts is refused when it is a link, naming it: survey.h5, runs/.
mkdir "$WORK/e" "$WORK/f"
ln -s "$A/survey.h5" "$WORK/e/survey.h5"
run_ts 2 "survey.h5 a link" survey --quick -o "$WORK/e" &&
    expect_in "$ERR" "survey: $WORK/e/survey.h5 is a symbolic link, not a survey file: the survey follows no link in its folder" "survey.h5 named"
run_ts 2 "--dump of a survey.h5 that is a link" survey --dump -o "$WORK/e" &&
    expect_in "$ERR" "survey: $WORK/e/survey.h5 is a symbolic link, not a survey file" "survey.h5 named by --dump"
ln -s "$A/runs" "$WORK/f/runs"
run_ts 2 "runs/ a link" survey --quick -o "$WORK/f" &&
    expect_in "$ERR" "survey: $WORK/f/runs is a symbolic link, not the survey's folder of runs" "runs/ named"

TOUCHSTONE_SURVEY_STOP_AFTER=3 run_ts 3 "a survey stopped after 3 runs" survey --quick -o "$WORK/b"
expect_in "$ERR" "stopped by a signal with [0-9]+ runs pending" "the stop says what is pending"
run_ts 0 "--dump of the partial survey" survey --dump -o "$WORK/b"
cp "$OUT" "$WORK/partial"
expect_in "$WORK/partial" '^complete 0$' "the partial survey is incomplete"
expect_in "$WORK/partial" '^has_matrix 0$' "no matrix before the battery is done"
[ "$(grep -c '^run .* state=done ' "$WORK/partial")" = 3 ] || fail "not 3 runs done after TOUCHSTONE_SURVEY_STOP_AFTER=3"
n_runs=$(sed -n 's/^n_runs //p' "$WORK/partial")
[ "$(grep -c '^run .* state=pending ' "$WORK/partial")" = $((n_runs - 3)) ] || fail "the other runs are not pending"

run_ts 0 "the same command resumes" survey --quick -o "$WORK/b"
[ "$(grep -c ' kept (runs/' "$ERR")" = 3 ] || fail "the 3 finished runs were not kept"
[ "$(grep -c ' [0-9.]* s (estimate' "$ERR")" = $((n_runs - 3)) ] || fail "not exactly the $((n_runs - 3)) others ran"
structure "$WORK/b" >"$WORK/b.txt" || fail "dump of the resumed survey"
# The survey's own command differs only by its folder; start_time is measured.
if ! diff "$WORK/a.txt" "$WORK/b.txt" >"$WORK/diff"; then
    fail "the resumed survey differs from the uninterrupted one"
    sed 's/^/    /' "$WORK/diff" | head -20 >&2
fi

# A real SIGINT while the battery runs (larger runs, so that one is under way when it lands).
TOUCHSTONE_SURVEY_SCALE=0.05 "$TS" survey --quick -o "$WORK/c" >"$WORK/c.out" 2>"$WORK/c.err" &
pid=$!
i=0
while ! grep -q '^\[2/' "$WORK/c.err" 2>/dev/null && [ $i -lt 600 ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" = 3 ] || fail "SIGINT: exit status $status, expected 3"
run_ts 0 "--dump after SIGINT" survey --dump -o "$WORK/c"
expect_in "$OUT" '^complete 0$' "the interrupted survey is incomplete"
expect_in "$OUT" '^run .* state=pending ' "runs left pending"
expect_not_in "$OUT" 'state=failed' "a run failed by the interrupt"
# Resumed, it is the survey an uninterrupted one at the same size is, wherever the signal landed.
TOUCHSTONE_SURVEY_SCALE=0.05 run_ts 0 "the survey SIGINT stopped, resumed" survey --quick -o "$WORK/c"
TOUCHSTONE_SURVEY_SCALE=0.05 run_ts 0 "an uninterrupted survey of that size" survey --quick -o "$WORK/d"
structure "$WORK/c" >"$WORK/c.txt" || fail "dump of the resumed survey"
structure "$WORK/d" >"$WORK/d.txt" || fail "dump of the uninterrupted survey"
if ! diff "$WORK/d.txt" "$WORK/c.txt" >"$WORK/diff"; then
    fail "the survey resumed after SIGINT differs from the uninterrupted one"
    sed 's/^/    /' "$WORK/diff" | head -20 >&2
fi
finish

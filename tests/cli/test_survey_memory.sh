#!/bin/sh
# A survey sized under a memory limit (its arrays capped to a sixth of RLIMIT_AS, `ulimit -v`)
# and stopped, then resumed without the limit: it keeps its own size and its finished runs, not
# refused as another plan (docs/survey.md, "Resume, interrupts and exit status"). Not under
# AddressSanitizer, whose shadow memory does not fit under `ulimit -v`.
# Arguments: TOUCHSTONE SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
export TOUCHSTONE_SURVEY_SCALE=0.005 OMP_WAIT_POLICY=passive
# One run a point (TOUCHSTONE_SURVEY_REPEATS): nothing here is judged; cli.survey_busy runs the default 3.
export TOUCHSTONE_SURVEY_REPEATS=1

( ulimit -v 1500000 && TOUCHSTONE_SURVEY_STOP_AFTER=2 exec "$TS" survey --quick -o "$WORK/m" ) >"$OUT" 2>"$ERR"
status=$?
[ "$status" = 3 ] || { fail "survey under ulimit -v: exit $status, expected 3"; sed 's/^/    /' "$ERR" | head >&2; }
expect_in "$ERR" "capped to a sixth of RLIMIT_AS" "the size capped by the memory limit"
capped=$("$TS" survey --dump -o "$WORK/m" | sed -n 's/^array_bytes //p')
run_ts 0 "resumed without the memory limit" survey --quick -o "$WORK/m"
[ "$(grep -c ' kept (runs/' "$ERR")" = 2 ] || fail "the 2 runs done under the limit were not kept"
now=$("$TS" survey --dump -o "$WORK/m" | sed -n 's/^array_bytes //p')
[ -n "$capped" ] && [ "$now" = "$capped" ] || fail "resumed with arrays of $now bytes, the survey had $capped"
TOUCHSTONE_SURVEY_STOP_AFTER=1 run_ts 3 "a survey without the limit" survey --quick -o "$WORK/free"
free=$("$TS" survey --dump -o "$WORK/free" | sed -n 's/^array_bytes //p')
[ "$capped" != "$free" ] || fail "ulimit -v did not cap the size ($free bytes either way): the test proves nothing"

finish

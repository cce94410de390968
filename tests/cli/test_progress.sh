#!/bin/sh
# Progress in batch logs: when stderr is not a terminal, plain lines (no \r) after
# TOUCHSTONE_PROGRESS_DELAY seconds, one per tenth of the iterations or per minute; none with
# --quiet or before the delay. Counts are bounded by the rule, not by the machine's speed.
. "$(dirname "$0")/lib.sh"
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS

# 1 warm-up + 199 iterations = 200 steps: a new tenth every 20 steps, 9 of them before the last.
LONG="--set sum.n=100000 --set run.iterations=199 --set run.warmup=1 --threads 1"
# shellcheck disable=SC2086
TOUCHSTONE_PROGRESS_DELAY=0 run_ts 0 "progress to a pipe" run "$SRC/configs/sum.ini" $LONG -o "$WORK/p.h5"
grep 'progress' "$ERR" >"$WORK/lines"
if grep -q "$(printf '\r')" "$ERR"; then
    fail "progress to a pipe: a carriage return in the log (terminal-style line)"
fi
line_re='^touchstone: progress: [0-9]+% \([0-9]+ of 200 iterations\), [0-9.]+ (s|min|h) elapsed, about [0-9.]+ (s|min|h) left$'
grep -Ev "$line_re" "$WORK/lines" | sed 's/^/    bad line: /' >"$WORK/bad"
[ -s "$WORK/bad" ] && { fail "progress lines not in the documented format"; cat "$WORK/bad" >&2; }
n=$(wc -l <"$WORK/lines")
# Every tenth 1..9 gives a line; a minute without one adds one (elapsed is in the last line).
last_elapsed=$(tail -1 "$WORK/lines" | sed -n 's/.*, \([0-9.]*\) s elapsed.*/\1/p')
extra=$(awk -v e="${last_elapsed:-0}" 'BEGIN { print int(e / 60) + 1 }')
if [ "$n" -lt 9 ] || [ "$n" -gt $((9 + extra)) ]; then
    fail "progress to a pipe: $n lines, want 9 (one per tenth) to $((9 + extra))"
    sed 's/^/    | /' "$WORK/lines" >&2
fi
# Percentages rise, iterations agree with them, and the last iteration has no line.
awk -F'[ %(]+' '{ pct = $3; done = $4; if (pct <= prev || pct != int(done * 100 / 200) || done >= 200) bad = 1; prev = pct }
                END { exit bad }' "$WORK/lines" || fail "progress lines out of order or inconsistent: $(tr '\n' '|' <"$WORK/lines")"
grep -q "^touchstone: progress: 10% (20 of 200 iterations)" "$WORK/lines" || fail "no line at the first tenth (20 of 200)"
expect_in "$OUT" "verified +PASSED" "the run with progress lines still verifies"

# --quiet silences them; a delay longer than the run leaves none.
# shellcheck disable=SC2086
TOUCHSTONE_PROGRESS_DELAY=0 run_ts 0 "quiet" run "$SRC/configs/sum.ini" $LONG -o "$WORK/q.h5" --quiet
expect_not_in "$ERR" "progress" "--quiet prints no progress"
# shellcheck disable=SC2086
TOUCHSTONE_PROGRESS_DELAY=3600 run_ts 0 "long delay" run "$SRC/configs/sum.ini" $LONG -o "$WORK/d.h5"
expect_not_in "$ERR" "progress" "no progress before TOUCHSTONE_PROGRESS_DELAY"
finish

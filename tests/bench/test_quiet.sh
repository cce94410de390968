#!/bin/sh
# bench/quiet.sh, the quiet check of bench/run.sh, on fixed numbers: the verdicts (met, NOT met,
# unclear), disturbed tries left out of the medians and repeated up to REPEATS_MAX, the rule
# applied to bench_watch's facts and to touchstone show's verdict. Measures nothing.
# shellcheck disable=SC2034 # the variables set here are bench/quiet.sh's
SRC=${1:?source directory}
. "$SRC/bench/quiet.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect() { # WHAT GOT WANTED
    [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}
say() { :; }

# The thresholds are the header's, every one of them; a header without one is refused.
quiet_thresholds "$SRC/common/ts_disturbed.h" || fail "cannot read common/ts_disturbed.h's thresholds"
printf '#define TS_DISTURB_OTHERS_SHARE 0.05\n' >"$WORK/h"
(quiet_thresholds "$WORK/h") && fail "a header missing thresholds was accepted"
printf '#define TS_DISTURB_SWITCH_RATE 20.0\n#define TS_DISTURB_SWITCH_MIN 5.0\n#define TS_DISTURB_STEAL_SHARE 0.02\n#define TS_DISTURB_OTHERS_SHARE 0.05\n#define TS_DISTURB_ROUNDING_TICKS 2.0\n#define TS_DISTURB_WAIT_SHARE 0.03\n#define TS_DISTURB_LOAD_ONLY_BELOW 0.45\n' >"$WORK/h"
quiet_thresholds "$WORK/h" || fail "a header with every threshold was refused"
expect "thresholds read" "$Q_OTHERS $Q_STEAL $Q_TICKS $Q_SWITCH_RATE $Q_SWITCH_MIN $Q_WAIT" "0.05 0.02 2.0 20.0 5.0 0.03"
expect "the load's window threshold read" "$Q_LOAD_BELOW" "0.45"

# verdict MEDIAN MIN MAX N TARGET MIN_ROUNDS
expect "clear above the goal" "$(verdict 1.00 0.98 1.02 5 0.90 3)" "met"
expect "clear below the goal" "$(verdict 0.80 0.78 0.82 5 0.90 3)" "NOT met"
expect "spread straddles the goal" "$(verdict 0.92 0.85 1.00 5 0.90 3)" "unclear"
expect "spread wider than the gap, all above" "$(verdict 0.95 0.91 1.20 5 0.90 3)" "unclear"
expect "spread wider than the gap, all below" "$(verdict 0.85 0.70 0.89 5 0.90 3)" "unclear"
expect "spread as wide as the gap" "$(verdict 1.00 0.95 1.05 5 0.90 3)" "met"
expect "too few rounds" "$(verdict 1.00 1.00 1.00 2 0.90 3)" "unclear"
expect "range, inside" "$(verdict 1.00 0.99 1.01 5 0.95-1.05 3)" "met"
expect "range, near the upper bound" "$(verdict 1.04 1.00 1.08 5 0.95-1.05 3)" "unclear"
expect "range, above" "$(verdict 1.20 1.18 1.22 5 0.95-1.05 3)" "NOT met"

# Files of tries (ROUND VALUE KEEP): round 2's disturbed try is left out, its repeat kept.
printf '1 10 1\n2 99 0\n2 11 1\n3 12 1\n' >"$WORK/a"
printf '1 10 1\n2 10 0\n2 10 1\n3 10 1\n' >"$WORK/b"
expect "kept values" "$(kept "$WORK/a" | tr '\n' ' ')" "10 11 12 "
expect "median of kept values" "$(kept "$WORK/a" | spread)" "11 10 12 3"
expect "per-round ratios of kept tries" "$(ratios "$WORK/a" "$WORK/b" | spread)" "1.1 1 1.2 3"
expect "ratio text" "$(ratio_text "$WORK/a" "$WORK/b")" "1.100 (1.000-1.200)"
expect "target met" "$(target_text "$WORK/a" "$WORK/b" 0.90 3)" "0.90 met"
expect "target unclear" "$(target_text "$WORK/a" "$WORK/b" 1.05 3)" "1.05 unclear"
expect "report row" "$(target_text "$WORK/a" "$WORK/b" report 3)" "report"
expect "row without a target" "$(target_text "$WORK/a" "$WORK/b" - 3)" ""
# A round whose only try was disturbed has no ratio; ratios of ratios join on the round.
printf '1 20 1\n2 30 0\n3 24 1\n' >"$WORK/c"
expect "disturbed round without a ratio" "$(ratios "$WORK/c" "$WORK/b" | tr '\n' ' ')" "2 2.4 "
ratios_by_round "$WORK/c" "$WORK/b" >"$WORK/cb"
expect "ratio of ratios" "$(ratios "$WORK/cb" "$WORK/cb" | tr '\n' ' ')" "1 1 "
expect "nothing kept" "$(ratio_text "$WORK/b" /dev/null)" "n/a"

# bench_watch's facts: elapsed n_cpus online busy own steal tick load_start load_end involuntary.
judge() { echo "$1" >"$WORK/f"; quiet_judge "$WORK/f" "$2" $3; }
judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 10" 2 >/dev/null || fail "a quiet command judged disturbed: $(judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 10" 2)"
why=$(judge "10 2 2 19.9 15.0 0 0.01 1.0 2.5 10" 2) && fail "others at 24.3% of the CPUs judged quiet"
case $why in *"other processes took 24.3%"*) ;; *) fail "others' share: '$why'" ;; esac
why=$(judge "10 2 2 19.9 19.8 1.0 0.01 1.0 2.5 10" 2) && fail "steal at 5% judged quiet"
case $why in *"steal took 4.8%"*) ;; *) fail "steal share: '$why'" ;; esac
# The load average judges only a window too short for the ticks (44 ms): over 10 s the CPUs' own
# time speaks (a load of 3.5 whose tasks took no CPU time of ours, the last run's, is no one's).
judge "10 2 2 19.9 19.8 0 0.01 3.5 2.5 10" 2 >/dev/null || fail "the load over a 10 s window judged"
why=$(judge "0.04 2 2 0.08 0.08 0 0.01 3.5 2.5 0" 2) && fail "load 3.5 on 2 CPUs over 40 ms judged quiet"
case $why in *"load average 3.50"*) ;; *) fail "load: '$why'" ;; esac
judge "0.04 2 2 0.08 0.08 0 0.01 3.5 2.5 0" 2 noload >/dev/null || fail "noload still judged the load average"
# 2 threads on 1 CPU wait for each other half their time: above 53% only is another's.
judge "1 1 2 1.0 1.0 0 0.01 1.0 1.0 0 0.98 3" 2 >/dev/null || fail "stacked threads' own wait judged disturbed"
why=$(judge "1 1 2 1.0 0.6 0 0.01 1.0 1.0 0 1.3 3" 2) && fail "stacked threads behind a busy process judged quiet"
case $why in *"threads waited for a CPU 65.0% of their time (above 53%)"*) ;; *) fail "stacked wait: '$why'" ;; esac
why=$(judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 1000" 2) && fail "50 switches per thread-second judged quiet"
case $why in *"50 involuntary switches"*) ;; *) fail "switches: '$why'" ;; esac
# With the threads' wait (run delay) known, it is judged and the switches are not: 2 threads of
# 10 s waiting 0.5 s in all is 2.5% (quiet, though 50 switches per thread-second); 0.7 s is 3.5%.
judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 1000 0.5 3" 2 >/dev/null \
    || fail "a wait of 2.5% judged disturbed: $(judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 1000 0.5 3" 2)"
why=$(judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 10 0.7 3" 2) && fail "a wait of 3.5% judged quiet"
expect "wait share" "$why" "threads waited for a CPU 3.5% of their time (above 3%)"
# wait -1 (no schedstat): the switches again.
why=$(judge "10 2 2 19.9 19.8 0 0.01 1.0 2.5 1000 -1 0" 2) && fail "50 switches per thread-second with no wait judged quiet"
case $why in *"50 involuntary switches"*) ;; *) fail "switches without the wait: '$why'" ;; esac
# A command of no threads of its own (the probe's sleep) has no wait share.
judge "1 2 2 0.0 0.0 0 0.01 1.0 1.0 0 0.5 1" 0 noload >/dev/null || fail "the probe judged by its wait"
# Rounding: 2 ticks per CPU are taken off, so 3 ticks of others in a 0.1 s run are no disturbance.
judge "0.1 2 2 0.23 0.20 0 0.01 0 0 0" 2 >/dev/null || fail "rounding ticks not taken off"
: >"$WORK/empty"
why=$(quiet_judge "$WORK/empty" 2) && fail "no facts judged quiet"
case $why in "not known"*) ;; *) fail "no facts: '$why'" ;; esac

# touchstone show --format json's verdict.
printf '{\n  "file": "x",\n  "disturbed": "no",\n  "disturbed_why": "",\n  "summary": []\n}\n' | quiet_json_judge \
    || fail "an undisturbed run judged disturbed"
why=$(printf '{\n  "disturbed": "yes",\n  "disturbed_why": "steal took 4.1%% of the CPUs'"'"' time (above 2%%)",\n  "x": 1\n}\n' \
    | quiet_json_judge) && fail "a disturbed run judged quiet"
expect "a run's reasons" "$why" "steal took 4.1% of the CPUs' time (above 2%)"
why=$(printf '{\n  "disturbed": "not known"\n}\n' | quiet_json_judge) && fail "a run that cannot tell judged quiet"
why=$(printf '' | quiet_json_judge) && fail "no output from show judged quiet"

# attempt: a try with a disturbed measurement is repeated, at most REPEATS_MAX more times, and
# left out; with QUIET_CHECK=0 it is kept and not repeated.
QUIET_LOG=$WORK/tries ROUNDS=2 REPEATS_MAX=3 QUIET_CHECK=1
: >"$QUIET_LOG"
: >"$WORK/n"
# Disturbed in its first DISTURBED tries (counted in $WORK/n across the tries' subshells).
fake() { # FILE DISTURBED
    echo x >>"$WORK/n"
    tries=$(wc -l <"$WORK/n")
    [ "$tries" -gt "$2" ] || echo "fake: disturbed" >>"$WORK/verdict"
    measured "$1" "$((10 + tries))"
    echo "try $tries"
}
round=1
attempt k1 "disturbed twice" fake "$WORK/m1" 2
expect "disturbed twice: tries" "$(awk '{ print $3 ":" $4 }' "$QUIET_LOG" | tr '\n' ' ')" "1:disturbed 2:disturbed 3:quiet "
expect "disturbed twice: kept" "$(kept "$WORK/m1")" "13"
expect "disturbed twice: file" "$(tr '\n' ' ' <"$WORK/m1")" "1 11 0 1 12 0 1 13 1 "
: >"$WORK/n"
round=2
attempt k2 "always disturbed" fake "$WORK/m2" 99
expect "always disturbed: tries" "$(grep -c '^k2 2 [0-9]* disturbed$' "$QUIET_LOG")" "4"
expect "always disturbed: nothing kept" "$(kept "$WORK/m2")" ""
expect "quiet count" "$(quiet_count k1 2)" "1 of 3 tries quiet, fewer than 2 rounds"
expect "quiet count, none" "$(quiet_count k2 1)" "0 of 4 tries quiet, fewer than 1 rounds"
case $(quiet_summary) in "quiet check: 2 pairs (or groups) measured in 7 tries; 6 tries disturbed"*"1 pairs without a quiet try; NOT a quiet node") ;;
*) fail "summary: '$(quiet_summary)'" ;; esac
: >"$WORK/n"
QUIET_CHECK=0
round=1
attempt k3 "check off" fake "$WORK/m3" 99
expect "check off: one try, kept" "$(tr '\n' ' ' <"$WORK/m3")" "1 11 1 "
expect "check off: count" "$(quiet_count k3 1)" "0 of 1 tries quiet (check off: all kept)"

if [ "$failures" -ne 0 ]; then
    echo "$failures failures" >&2
    exit 1
fi
echo "bench/quiet.sh: verdicts, kept tries and repeats as expected"

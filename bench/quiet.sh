# bench/quiet.sh: the quiet check of bench/run.sh, sourced by it (and by tests/bench/test_quiet.sh,
# which feeds these functions fixed numbers). POSIX sh and awk; nothing here measures.
#
# A measurement is disturbed by the rule a touchstone run judges itself by (common/ts_disturbed.h,
# docs/how-it-works.md "Disturbed runs"): touchstone's own runs by their file's verdict
# (touchstone show --format json), every other command by the same rule applied to what
# bench_watch saw around it (quiet_judge), with the thresholds read from that header.
#
# The files of measurements hold one line per try: ROUND VALUE... KEEP, KEEP 1 when the try
# counts (quiet, or the check is off) and 0 when it was disturbed and left out. The tries log
# ($QUIET_LOG) holds one line per try of a pair or group: KEY ROUND TRY quiet|disturbed.
# shellcheck shell=sh

# quiet_thresholds HEADER: sets Q_OTHERS, Q_STEAL, Q_TICKS, Q_SWITCH_RATE, Q_SWITCH_MIN, Q_WAIT from
# the header's #defines; returns 1 (and sets nothing) when one is missing.
quiet_thresholds() {
    q=$(awk '$1 == "#define" && $2 ~ /^TS_DISTURB_/ { v[$2] = $3 }
        END { n = split("OTHERS_SHARE STEAL_SHARE ROUNDING_TICKS SWITCH_RATE SWITCH_MIN WAIT_SHARE LOAD_ONLY_BELOW", k, " ")
              for (i = 1; i <= n; i++) { if (!(("TS_DISTURB_" k[i]) in v)) exit 1; printf "%s ", v["TS_DISTURB_" k[i]] } }' "$1" 2>/dev/null) \
        || return 1
    # shellcheck disable=SC2086 # seven numbers
    set -- $q
    [ $# -eq 7 ] || return 1
    Q_OTHERS=$1 Q_STEAL=$2 Q_TICKS=$3 Q_SWITCH_RATE=$4 Q_SWITCH_MIN=$5 Q_WAIT=$6 Q_LOAD_BELOW=$7
}

# quiet_judge FACTS THREADS [noload]: bench_watch's line (elapsed n_cpus online_cpus busy own_cpu
# steal clock_tick load_start load_end involuntary [wait threads_seen]) judged as ts_disturbed
# judges a run's counters, THREADS the command's threads; "noload" leaves the load average out.
# The threads' wait for a CPU (run delay) is judged as a share of THREADS x elapsed; the
# involuntary switches only where the wait is not known (a line without it, or wait -1: no
# schedstat), as for a run's file without it. Prints the reasons and returns 1 when disturbed;
# prints nothing and returns 0 when quiet; prints why and returns 1 when the facts are missing.
quiet_judge() {
    [ -s "$1" ] || { echo "not known: no facts from bench_watch"; return 1; }
    awk -v threads="$2" -v noload="${3:-}" -v o="$Q_OTHERS" -v s="$Q_STEAL" -v k="$Q_TICKS" -v sr="$Q_SWITCH_RATE" -v sm="$Q_SWITCH_MIN" \
        -v ws="$Q_WAIT" -v lb="$Q_LOAD_BELOW" '
        NF >= 10 { found = 1; elapsed = $1; n = $2; online = $3; busy = $4; own = $5; steal = $6; tick = $7
            l0 = $8; l1 = $9; inv = $10; wait = NF >= 12 ? $11 : -1 }
        function share(x) { x -= k * tick * n; return x > 0 ? x / (n * elapsed) : 0 }
        END {
            if (!found || elapsed <= 0 || n <= 0) { print "not known: no facts from bench_watch"; exit 1 }
            others = busy > own ? busy - own : 0
            why = ""
            if (wait >= 0) {
                w = threads > 0 ? wait / (threads * elapsed) : 0
                self = threads > n ? 1 - n / threads : 0 # threads stacked on fewer CPUs wait for each other
                if (w > self + ws) why = why sprintf("; threads waited for a CPU %.1f%% of their time (above %g%%)", 100 * w, 100 * (self + ws))
            } else {
                rate = threads > 0 ? inv / (threads * elapsed) : 0
                if (rate > sr && inv > sm * threads) why = why sprintf("; %.0f involuntary switches per thread-second (above %g)", rate, sr)
            }
            if (share(steal) > s) why = why sprintf("; steal took %.1f%% of the CPUs'"'"' time (above %g%%)", 100 * share(steal), 100 * s)
            if (share(others) > o) why = why sprintf("; other processes took %.1f%% of the CPUs'"'"' time (above %g%%)", 100 * share(others), 100 * o)
            excess = l1 - threads > l0 ? l1 - threads : l0
            # The lagging load only where the window is too short for the ticks to show a CPU half taken.
            if (noload == "" && elapsed * lb <= k * tick && excess > online) why = why sprintf("; load average %.2f beyond its own threads, above the machine'"'"'s %d CPUs", excess, online)
            if (why == "") exit 0
            print substr(why, 3); exit 1
        }' "$1" 2>/dev/null
}

# quiet_json_judge: touchstone show --format json on stdin. Prints the reasons and returns 1 when
# the run says it was disturbed (or cannot tell); returns 0 when it says it was not.
quiet_json_judge() {
    awk '/^  "disturbed": / { d = $0; sub(/^  "disturbed": "/, "", d); sub(/",?$/, "", d) }
        /^  "disturbed_why": / { w = $0; sub(/^  "disturbed_why": "/, "", w); sub(/",?$/, "", w) }
        END { if (d == "no") exit 0
              print d == "yes" ? w : "not known: " (d == "" ? "no verdict in touchstone show" : d); exit 1 }'
}

# kept FILE: the values of the lines that count (KEEP 1), without ROUND and KEEP.
kept() {
    [ -s "$1" ] || return 0
    awk '$NF == 1 { s = $2; for (i = 3; i < NF; i++) s = s " " $i; print s }' "$1"
}

# ratios A B: A over B in every round where both kept a value (the first field of each).
ratios() {
    [ -s "$1" ] && [ -s "$2" ] || return 0
    awk 'FNR == NR { if ($NF == 1) a[$1] = $2; next } $NF == 1 && ($1 in a) && $2 > 0 { printf "%.6g\n", a[$1] / $2 }' "$1" "$2"
}

# spread: numbers on stdin -> "MEDIAN MIN MAX N", or nothing when there are none.
spread() {
    sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit
        printf "%.6g %.6g %.6g %d\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR], NR }'
}

# verdict MEDIAN MIN MAX N TARGET MIN_ROUNDS: "met", "NOT met" or "unclear" for a ratio whose
# target is a lower bound ("0.90") or a range ("0.95-1.05"). Unclear when the spread (MAX - MIN)
# is larger than the gap between the median and the goal (the nearer bound of a range), or when
# fewer than MIN_ROUNDS rounds were kept: then the rounds cannot tell the ratio from the noise.
# (A spread as wide as the gap, to 1e-9 for the decimals, is clear.)
verdict() {
    awk -v m="$1" -v lo="$2" -v hi="$3" -v n="$4" -v t="$5" -v need="$6" 'BEGIN {
        if (t ~ /^[0-9.]+-[0-9.]+$/) { split(t, b, "-"); a = b[1] + 0; z = b[2] + 0 } else { a = t + 0; z = "" }
        met = m >= a && (z == "" || m <= z)
        gap = m - a; if (gap < 0) gap = -gap
        if (z != "") { g2 = z - m; if (g2 < 0) g2 = -g2; if (g2 < gap) gap = g2 }
        if (n < need || hi - lo > gap + 1e-9) print "unclear"; else print met ? "met" : "NOT met" }'
}

# ratio_text A B: "MEDIAN (MIN-MAX)" of the per-round ratios A over B, or "n/a".
ratio_text() {
    s=$(ratios "$1" "$2" | spread)
    [ -n "$s" ] || { echo n/a; return; }
    echo "$s" | awk '{ printf "%.3f (%.3f-%.3f)\n", $1, $2, $3 }'
}

# target_text A B TARGET MIN_ROUNDS: "TARGET VERDICT" for the per-round ratios A over B;
# TARGET alone when there are none; "-" and "report" rows have no verdict.
target_text() {
    case $3 in - | report) echo "${3#-}"; return ;; esac
    s=$(ratios "$1" "$2" | spread)
    [ -n "$s" ] || { echo "$3"; return; }
    # shellcheck disable=SC2086 # four numbers
    echo "$3 $(verdict $s "$3" "$4")"
}

# quiet_count KEY MIN_ROUNDS: how many of the key's tries were quiet, out of how many tried;
# says when fewer than MIN_ROUNDS were quiet, and when the check was off.
quiet_count() {
    [ -s "$QUIET_LOG" ] || { echo n/a; return; }
    awk -v key="$1" -v need="$2" -v off="${QUIET_CHECK:-1}" '$1 == key { n++; q += $4 == "quiet" }
        END { if (!n) { print "n/a"; exit }
              printf "%d of %d tries quiet", q, n
              if (off == "0") printf " (check off: all kept)"
              else if (q < need) printf ", fewer than %d rounds", need
              printf "\n" }' "$QUIET_LOG"
}

# ratios_by_round A B: "ROUND RATIO 1" (a file of measurements, every line kept) for each round
# where both A and B kept a value: ratios of ratios can be taken from it again.
ratios_by_round() {
    [ -s "$1" ] && [ -s "$2" ] || return 0
    awk 'FNR == NR { if ($NF == 1) a[$1] = $2; next } $NF == 1 && ($1 in a) && $2 > 0 { printf "%s %.6g 1\n", $1, a[$1] / $2 }' "$1" "$2"
}

# quiet_summary: one sentence on the tries in $QUIET_LOG: how many pairs (or groups) were
# measured, how many tries were disturbed and repeated or left out, whether the node was quiet.
quiet_summary() {
    [ -s "$QUIET_LOG" ] || { echo "quiet check: nothing measured"; return; }
    awk -v off="${QUIET_CHECK:-1}" -v why="${QUIET_OFF_WHY:-QUIET_CHECK=0}" -v max="${REPEATS_MAX:-3}" '{ n++; g = $1 " " $2; if (!(g in seen)) { seen[g] = 1; groups++ }
            if ($4 == "quiet") { quiet[g] = 1 } else d++ }
        END { for (g in seen) lost += !(g in quiet)
            if (off == "0") { printf "quiet check off (%s): %d tries of %d pairs, %d of them disturbed by the rule of a run'"'"'s summary, all kept, none repeated", why, n, groups, d; exit }
            printf "quiet check: %d pairs (or groups) measured in %d tries; %d tries disturbed by the rule of a run'"'"'s summary, repeated (at most %d times) and left out of the medians", groups, n, d, max
            if (lost) printf "; %d pairs without a quiet try", lost
            printf "; %s", d ? "NOT a quiet node" : "a quiet node throughout" }' "$QUIET_LOG"
}

# --- the tries: what bench/run.sh's rounds call. They use WORK (a directory for the try's files),
# round, ROUNDS, QUIET_CHECK, REPEATS_MAX, QUIET_LOG and say (a message to stderr). A
# measurement notes a disturbance by adding a line (its reason) to $WORK/verdict.

# measured FILE VALUE...: one measurement of the try under way, written to FILE (as ROUND
# VALUE... KEEP) when the try ends; nothing when VALUE is empty (the measurement failed).
measured() {
    m_file=$1
    shift
    [ -z "$*" ] || echo "$m_file $*" >>"$WORK/pending"
}

# attempt KEY LABEL FUNCTION ARGS...: one pair (or group) of round $round: FUNCTION ARGS
# measures (through measured, watched, ts_judged) and prints what it measured; tried again
# while a measurement was disturbed, at most REPEATS_MAX more times. Every try goes to the
# files with its KEEP (0: disturbed, left out) and to the tries log.
# shellcheck disable=SC2154 # round is the caller's
attempt() {
    a_key=$1 a_label=$2
    shift 2
    a_try=0
    while :; do
        a_try=$((a_try + 1))
        : >"$WORK/verdict"
        : >"$WORK/pending"
        a_said=$("$@")
        a_state=quiet a_keep=1
        if [ -s "$WORK/verdict" ]; then
            a_state=disturbed
            [ "$QUIET_CHECK" = 0 ] || a_keep=0
        fi
        while read -r p_file p_value; do echo "$round $p_value $a_keep" >>"$p_file"; done <"$WORK/pending"
        echo "$a_key $round $a_try $a_state" >>"$QUIET_LOG"
        if [ "$a_state" = quiet ]; then
            say "round $round/$ROUNDS: $a_label: $a_said"
            return 0
        fi
        a_why=$(awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$WORK/verdict")
        if [ "$a_keep" = 1 ]; then
            say "round $round/$ROUNDS: $a_label: $a_said (disturbed, kept: the check is off: $a_why)"
            return 0
        fi
        if [ "$a_try" -gt "$REPEATS_MAX" ]; then
            say "round $round/$ROUNDS: $a_label: $a_said (disturbed, left out; no quiet try in $a_try: $a_why)"
            return 0
        fi
        say "round $round/$ROUNDS: $a_label: $a_said (disturbed, left out, trying again: $a_why)"
    done
}

# quiet_setup ROOT: the quiet check's settings (QUIET_CHECK 1, REPEATS_MAX 3, QUIET_WAIT 30 s
# unless set), its tries log ($WORK/tries, emptied), the thresholds from ROOT's
# common/ts_disturbed.h; the check off, with QUIET_OFF_WHY, when they or $WATCH (bench_watch)
# are missing. The caller defines say, WORK and WATCH.
quiet_setup() {
    QUIET_CHECK=${QUIET_CHECK:-1}
    REPEATS_MAX=${REPEATS_MAX:-3}
    QUIET_WAIT=${QUIET_WAIT:-30}
    QUIET_LOG=$WORK/tries
    : >"$QUIET_LOG"
    if ! quiet_thresholds "$1/common/ts_disturbed.h"; then
        say "cannot read the thresholds of common/ts_disturbed.h: the quiet check is off"
        QUIET_CHECK=0 QUIET_OFF_WHY="no thresholds"
    elif [ ! -x "$WATCH" ]; then
        say "no $WATCH (cmake --build BUILD --target bench_watch): the quiet check is off"
        QUIET_CHECK=0 QUIET_OFF_WHY="no bench_watch"
    fi
}

# watched THREADS COMMAND...: runs COMMAND (stdin /dev/null, stdout the caller's) under
# bench_watch ($WATCH) and notes in the try's verdict ($WORK/verdict) when what else ran made it
# disturbed (or that it is not known, without bench_watch); exits with COMMAND's status.
watched() {
    w_threads=$1
    shift
    if [ ! -x "$WATCH" ]; then
        echo "${1##*/}: not known: no bench_watch" >>"$WORK/verdict"
        "$@" </dev/null
        return
    fi
    "$WATCH" "$WORK/facts" "$@" </dev/null
    w_status=$?
    w_why=$(quiet_judge "$WORK/facts" "$w_threads") || echo "${1##*/}: $w_why" >>"$WORK/verdict"
    return "$w_status"
}

# quiet_before: before round $round (of $ROUNDS), waits up to QUIET_WAIT seconds for one
# second in which other processes took no more of the CPUs than the rule allows (the load
# average, which lags a minute and holds the last round's own threads, is not waited for);
# notes it in $WORK/probes. The caller defines round and ROUNDS besides say, WORK and WATCH.
quiet_before() {
    [ "$QUIET_CHECK" != 0 ] || return 0
    b_waited=0
    while :; do
        "$WATCH" "$WORK/probe" sleep 1 </dev/null
        if b_why=$(quiet_judge "$WORK/probe" 0 noload); then
            echo "$round quiet $b_waited" >>"$WORK/probes"
            [ "$b_waited" -eq 0 ] || say "round $round/$ROUNDS: quiet after waiting ${b_waited} s"
            return 0
        fi
        b_waited=$((b_waited + 1))
        if [ "$b_waited" -ge "$QUIET_WAIT" ]; then
            echo "$round busy $b_waited" >>"$WORK/probes"
            say "round $round/$ROUNDS: not quiet after ${b_waited} s ($b_why): measuring; disturbed tries are repeated and left out"
            return 0
        fi
    done
}

#!/bin/sh
# touchstone survey --quick on a node made busy here: one busy loop per allowed CPU, on the
# same CPUs as the survey's runs (killed by the trap). Nine runs in ten at least must be judged
# disturbed, and the verdict must state no ratio as a finding: the node called too busy first,
# with its numbers, each group and section "not judged". The summary, survey --html and report
# of the runs say so where the numbers are. The smallest survey the tests use
# (TOUCHSTONE_SURVEY_SCALE).
# Arguments: TOUCHSTONE SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
export TOUCHSTONE_SURVEY_SCALE=0.005 OMP_WAIT_POLICY=passive
D=$WORK/busy

busy=""
trap 'for p in $busy; do kill "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT
for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    busy="$busy $!"
done

# The survey at nice 5 (the loops' weight three times its own): every run and section shares its
# CPUs with a loop that takes most of them. Still not every run need be disturbed: a scheduler
# that runs a waking thread for a whole slice (EEVDF, Linux 6.6 on) can leave a run of 50 ms
# (a few ms of iterations) alone, and /proc/stat's 10 ms ticks cannot show the loops in so short
# a window; such a run is judged undisturbed, rightly by its numbers (1 of 36 in 1 of 4 surveys
# on a 2-core Xeon VM, Linux 6.18; 4 of 36 at the loops' own weight).
expect_run 0 "survey --quick --html on a busy node" nice -n 5 "$TS" survey --quick --html -o "$D"
cp "$OUT" "$WORK/summary"
run_ts 0 "survey --dump" survey --dump -o "$D"
cp "$OUT" "$WORK/dump"
n_runs=$(sed -n 's/^n_runs //p' "$WORK/dump")
disturbed=$(grep -c '^measured run .* disturbed=1 ' "$WORK/dump")
[ "${n_runs:-0}" -ge 30 ] && [ $((10 * disturbed)) -ge $((9 * n_runs)) ] ||
    fail "$disturbed of $n_runs runs judged disturbed with a busy loop on every CPU"
expect_in "$WORK/dump" '^measured run .* why=.*while its process ran: [a-z0-9]' "the survey's own view of the node named"
expect_in "$WORK/dump" '^measured sentence 1 The node was too busy to judge: [0-9]+ of [0-9]+ runs were disturbed by other work \(other processes took a median [0-9]+% of their CPUs. time.*run the survey again when the node is quiet' "the busy node said first, with its numbers"
for g in Init Binding Scaling Policy; do
    expect_in "$WORK/dump" "^measured sentence [0-9]+ $g not judged on " "$g not judged on a busy node"
done
for g in "Bandwidth scaling" "Latency at load" "Core-to-core latency"; do
    expect_in "$WORK/dump" "^measured sentence [0-9]+ $g not judged: " "$g not judged on a busy node"
done
# No ratio stated: no number followed by "x " in any sentence but the matrix's (its own).
grep '^measured sentence ' "$WORK/dump" | grep -v '\[matrix\]$' | grep -E '[0-9]x([ ,.;)]|$)' >"$WORK/ratios"
[ ! -s "$WORK/ratios" ] || fail "a ratio stated on a busy node: $(cat "$WORK/ratios")"
expect_not_in "$WORK/dump" '^measured sentence [0-9]+ .*(speed-up over|faster than unbound|costs [0-9])' "a finding on a busy node"

# Where the numbers are: the summary's table, the survey's report, the runs' report.
expect_in "$WORK/summary" "runs done \\($disturbed of them disturbed\\)" "the summary counts the disturbed runs"
expect_in "$WORK/summary" ' DISTURBED \(others [0-9]+% of the CPUs' "the summary's table marks them"
expect_in "$D/survey.html" "DISTURBED: $disturbed of $n_runs runs: other work took their CPUs" "survey.html says so before the numbers"
expect_in "$D/survey.html" '<td class="warn" title="[^"]*">DISTURBED</td>' "survey.html marks them in the tables"
finish

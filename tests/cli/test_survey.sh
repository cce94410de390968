#!/bin/sh
# touchstone survey --quick end to end, at a tiny size (TOUCHSTONE_SURVEY_SCALE: the tests' knob,
# docs/survey.md): every point run twice here (3 by default), round after round, every run
# done, its file read back and judged disturbed or not, survey.h5 read back with every run, the
# NUMA matrix with its placement verified, a verdict whose sentences name their runs; a run's
# recorded command runs as pasted; the runs do not inherit the survey's own binding; a failed run
# makes exit 1 and is retried on the next call; another mode on the same folder refused; damaged
# survey files (truncated, another format version) refused with exit 2 and their path.
# Arguments: TOUCHSTONE SOURCE_DIR IO_SURVEY_TEST (tests/io, edits a survey file's format)
. "$(dirname "$0")/lib.sh" "$@"
DOCTOR=${3:?path to io_survey_test}
export TOUCHSTONE_SURVEY_SCALE=0.005 OMP_WAIT_POLICY=passive
# Two runs a point (TOUCHSTONE_SURVEY_REPEATS), enough to see them interleaved: what this machine's
# load lets the verdict say cannot be pinned here (cli.survey_verdict pins it on fixed runs), and
# cli.survey_busy runs the default three.
export TOUCHSTONE_SURVEY_REPEATS=2
# As on many clusters: the runtime binds the survey's own thread at start-up, which the runs
# must not inherit (each gets the CPUs the survey started with and its own OMP_* values).
export OMP_PLACES=cores OMP_PROC_BIND=spread
D=$WORK/s

run_ts 0 "survey --quick" survey --quick -o "$D"
expect_in "$OUT" "survey file: $D/survey.h5" "the summary names the survey file"
expect_in "$OUT" "^verdict" "the summary has a verdict"
expect_in "$OUT" "NUMA matrix" "the summary prints the matrix"
expect_in "$ERR" '^\[1/[0-9]+\] ' "progress on stderr"
expect_in "$ERR" 'estimate [0-9]+ s left' "progress with an estimate"
expect_in "$ERR" 'estimate [0-9]+ s left, the NUMA matrix and the sections included\)( DISTURBED)?$' "the estimate counts the NUMA matrix and the sections"
expect_in "$ERR" '^touchstone survey --quick: .*; estimate [0-9]+ s \(the runs [0-9]+ s at their kernels. rates measured now, the NUMA matrix [0-9]+ s at the [0-9.e+]+ GB/s of triad, the sections [0-9]+ s; measuring them took [0-9.]+ s\)$' "an estimate up front"
expect_in "$ERR" ' s \(estimated [0-9.]+ s; estimate [0-9]+ s left' "each run's own estimate"
expect_in "$ERR" '^survey: took [0-9]+ s, [0-9]+% of the estimate up front \([0-9]+ s\)$' "the time taken against the estimate"
[ -z "$(ls "$D/runs" | grep estimate-probe)" ] || fail "the estimate's probe run left its files in runs/"
expect_in "$ERR" '^\[matrix\] NUMA matrix \(estimate [0-9]+ s\) \.\.\. ' "the matrix's own estimate"
expect_in "$OUT" '^  repeats  2 runs of each point, interleaved$' "the summary says the repeats"
expect_in "$OUT" '^touchstone survey --quick on .*: [0-9]+ runs done \([0-9]+ of them disturbed\)' "disturbed runs counted"
expect_in "$OUT" ' disturbed$' "the runs' table has a disturbed column"

run_ts 0 "survey --dump" survey --dump -o "$D"
cp "$OUT" "$WORK/dump"
expect_in "$WORK/dump" '^complete 1$' "the survey is complete"
expect_in "$WORK/dump" '^format 3$' "format 3"
expect_in "$WORK/dump" '^repeats 2$' "2 repeats"
n_runs=$(sed -n 's/^n_runs //p' "$WORK/dump")
rows=$(grep -c '^run ' "$WORK/dump")
done=$(grep -c '^run .* state=done ' "$WORK/dump")
[ "${n_runs:-0}" -ge 20 ] || fail "quick battery of $n_runs runs, expected at least 20 (init, binding, scaling, policy, twice)"
# Interleaved, A B C A B C: every first run before any second one.
sed -n 's/^run .* repeat=\([0-9]\) .*/\1/p' "$WORK/dump" | tr -d '\n' >"$WORK/order"
[ "$(cat "$WORK/order")" = "$(printf '%*s' $((n_runs / 2)) '' | tr ' ' 1)$(printf '%*s' $((n_runs / 2)) '' | tr ' ' 2)" ] ||
    fail "the runs are not planned round after round: repeats in order $(cat "$WORK/order")"
# Every done run judged disturbed or not, with its numbers, by compare's rule.
[ "$(grep -c '^measured run .* disturbed=[01] ' "$WORK/dump")" = "$n_runs" ] || fail "a run not judged disturbed or not"

[ "$rows" = "$n_runs" ] && [ "$done" = "$n_runs" ] || fail "$done of $rows runs done, $n_runs planned"
for g in init binding scaling policy; do
    expect_in "$WORK/dump" "^run .* group=$g " "a run of group $g"
done
for v in parallel serial close spread unbound stacked firsttouch interleave threads=1; do
    expect_in "$WORK/dump" "^run .* variant=$v " "a run of variant $v"
done
# Every run's file exists and reads back (report refuses a damaged or incomplete one).
for f in $(sed -n 's/^run .* file=\(.*\)$/\1/p' "$WORK/dump"); do
    [ -f "$D/$f" ] || fail "run file $f missing"
done
run_ts 0 "report reads every run file back" report "$D/runs"
# Each run's threads on CPUs of their own (close binding, one thread per core), though the
# survey's own thread was bound to the first place.
close=$(ls "$D"/runs/stencil2d-binding-close-t*-r1.log)
t=${close##*-t}
t=${t%-r1.log}
cpus=$(sed -n 's/^  ran on *//p' "$close" | grep -o 'cpu[0-9]*' | sort -u | wc -l)
[ "$cpus" = "$t" ] || fail "the close run's $t threads ran on $cpus distinct CPUs: $(grep 'ran on' "$close")"
# The exact commands: the OMP_* environment and run's options; one pasted runs as it is.
expect_in "$WORK/dump" "^run-command stencil2d-binding-stacked-t[0-9]+-r1 OMP_NUM_THREADS=[0-9]+ OMP_PLACES='\{[0-9]+\}' OMP_PROC_BIND=close " "the stacked run's command, OMP_PLACES quoted"
expect_in "$WORK/dump" "^run-command triad-scaling-t1-r2 OMP_NUM_THREADS=1 OMP_PLACES=cores OMP_PROC_BIND=close .* run $D/survey.ini .*--set run.kernel=triad .*-o $D/runs/triad-scaling-t1-r2.h5 --overwrite$" "a scaling run's command"
expect_in "$WORK/dump" "^run-command [a-z0-9-]+-unbound-t[0-9]+-r2 .*OMP_PROC_BIND=false " "the unbound run's command"
cmd=$(sed -n 's/^run-command triad-policy-interleave-t[0-9]*-r1 //p' "$WORK/dump")
expect_run 0 "a recorded command pasted into a shell" sh -c "$cmd"
expect_in "$OUT" "output +$D/runs/triad-policy-interleave" "the pasted command writes its run file"
# The matrix: every cell's pages verified on its memory node, nothing marked; 1 x 1 on one node.
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
expect_in "$WORK/dump" '^has_matrix 1$' "the matrix was measured"
if [ "$nodes" -eq 1 ]; then
    expect_in "$WORK/dump" '^matrix 1x1 ' "one node: a 1 x 1 matrix"
    expect_in "$WORK/dump" '^cell 0 0 threads=' "the one cell"
fi
expect_not_in "$WORK/dump" '^measured cell .* misplaced=1' "a cell marked misplaced"
expect_in "$WORK/dump" '^measured cell .* fraction=1 misplaced=0' "pages verified on the memory node"
# The verdict: 3 to 9 sentences (the first on a busy node says so; the last three the sections'),
# each naming runs of the survey (or the matrix, or a section) as its sources.
ns=$(sed -n 's/^n_sentences //p' "$WORK/dump")
[ "${ns:-0}" -ge 3 ] && [ "${ns:-0}" -le 9 ] || fail "$ns sentences in the verdict, expected 3 to 9"
sed -n 's/^measured sentence [0-9]* .*\[\(.*\)\]$/\1/p' "$WORK/dump" | tr ',' '\n' >"$WORK/sources"
[ "$(wc -l <"$WORK/sources")" -ge "$ns" ] || fail "a sentence without sources"
while read -r src; do
    [ "$src" = matrix ] || grep -q "^run $src " "$WORK/dump" || grep -q "^section ${src#section:} " "$WORK/dump" ||
        fail "verdict source '$src' is no run or section of the survey"
done <"$WORK/sources"
# What it says depends on how busy this machine is (cli.survey_verdict pins each sentence on fixed
# runs; cli.survey_busy a node made busy): one of the init sentences, and a busy node said first.
expect_in "$WORK/dump" '^measured sentence [0-9]+ (Serial init costs [0-9.]+x on|Serial init was faster than|Serial and parallel init differ by nothing beyond the noise|Init not judged on)' "an init sentence"
if grep -q '^measured sentence [0-9]* Init not judged on .*[1-9][0-9]* disturbed runs left out' "$WORK/dump"; then
    expect_in "$WORK/dump" '^measured sentence 1 The node was too busy to judge: [0-9]+ of [0-9]+ runs were disturbed' "disturbed runs left the init unjudged: the node called too busy first"
fi
if [ "$nodes" -eq 1 ]; then
    expect_in "$WORK/dump" '^measured sentence [0-9]+ The NUMA matrix is 1x1 .*no remote memory.*\[matrix\]$' "one node: no remote memory, said"
fi

# Rerun on a complete survey: everything kept, nothing run again.
run_ts 0 "survey again on a complete folder" survey -o "$D"
kept=$(grep -c ' kept (runs/' "$ERR")
[ "$kept" = "$n_runs" ] || fail "$kept of $n_runs runs kept on a rerun"
# --html on the complete survey: its report beside survey.h5 (nothing run again), every section,
# an anchor per run, the verdict's sources linked; report --html of the folder writes the same.
run_ts 0 "survey --html on a complete folder" survey --html -o "$D"
kept=$(grep -c ' kept (runs/' "$ERR")
[ "$kept" = "$n_runs" ] || fail "--html: $kept of $n_runs runs kept"
expect_in "$OUT" "^report: $D/survey.html$" "the report's path printed"
for id in verdict node placement init binding scaling matrix threads conditions commands; do
    expect_in "$D/survey.html" "<section id=\"$id\"" "section $id in the survey's report"
done
for name in $(sed -n 's/^run \([^ ]*\) .*/\1/p' "$WORK/dump"); do
    expect_in "$D/survey.html" "id=\"run-$name\"" "the anchor of run $name"
done
expect_in "$D/survey.html" 'href="#run-triad-scaling-t1-r1"' "a verdict source linked to its run"
expect_in "$D/survey.html" "parallel #2" "a bar of each repeat, labelled with its run of the point"
run_ts 0 "report --html of the survey's folder" report --html "$WORK/report.html" "$D"
expect_in "$OUT" "a survey of $n_runs runs" "report names the survey"
cmp -s "$D/survey.html" "$WORK/report.html" || fail "report --html DIR differs from survey --html"
run_ts 2 "--dump with --html" survey --dump --html -o "$D"
# Another mode on the same folder: refused, naming both.
run_ts 2 "survey --full on a quick folder" survey --full -o "$D"
expect_in "$ERR" "holds a survey --quick .* this survey --full" "the refusal names both modes"

# A run that fails (its output name taken by a directory: run refuses it, exit 2): the survey
# goes on, completes with that run failed and exits 1; run again, only that run is retried. One
# run a point (TOUCHSTONE_SURVEY_REPEATS, the tests' knob): nothing here is judged.
F=$WORK/f
mkdir -p "$F/runs/triad-scaling-t1-r1.h5"
export TOUCHSTONE_SURVEY_REPEATS=1
run_ts 1 "a survey with a failing run" survey --quick -o "$F"
expect_in "$ERR" "triad scaling threads t1 #1 \.\.\. FAILED \(exit status 2\)" "the failed run on stderr"
run_ts 0 "--dump of a survey with a failed run" survey --dump -o "$F"
expect_in "$OUT" '^complete 1$' "a failed run still finishes the survey"
expect_in "$OUT" '^repeats 1$' "one repeat asked, one made"
expect_in "$OUT" '^run triad-scaling-t1-r1 .* state=failed exit_status=2 ' "the failed run's state and exit status"
[ "$(grep -c '^run .* state=failed ' "$OUT")" = 1 ] || fail "other runs failed too"
f_runs=$(sed -n 's/^n_runs //p' "$OUT")
[ "$f_runs" = $((n_runs / 2)) ] || fail "one repeat: $f_runs runs, expected $((n_runs / 2))"
rmdir "$F/runs/triad-scaling-t1-r1.h5"
run_ts 0 "the failed run retried" survey --quick -o "$F"
[ "$(grep -c ' kept (runs/' "$ERR")" = $((f_runs - 1)) ] || fail "not every run but the failed one kept"
# The same folder with 3 repeats plans other runs: refused, not mixed.
TOUCHSTONE_SURVEY_REPEATS=3 run_ts 2 "3 repeats on a folder of 1" survey --quick -o "$F"
expect_in "$ERR" "holds a survey --quick of $f_runs runs" "the refusal names the survey in the folder"
export TOUCHSTONE_SURVEY_REPEATS=2

# Damaged survey files: refused with the path, by --dump and by a resume.
mkdir -p "$WORK/cut" "$WORK/v2"
head -c 3000 "$D/survey.h5" >"$WORK/cut/survey.h5"
run_ts 2 "--dump of a truncated survey file" survey --dump -o "$WORK/cut"
expect_in "$ERR" "$WORK/cut/survey.h5" "the truncated file's path in the message"
run_ts 2 "resuming a truncated survey file" survey --quick -o "$WORK/cut"
expect_in "$ERR" "$WORK/cut/survey.h5" "the truncated file's path in the message (resume)"
"$DOCTOR" format "$D/survey.h5" "$WORK/v2/survey.h5" 99 || fail "io_survey_test format failed"
run_ts 2 "--dump of a survey file of format 99" survey --dump -o "$WORK/v2"
expect_in "$ERR" "$WORK/v2/survey.h5.*format 99, this touchstone reads formats 2 to 3" "the format version refused, with the path"
# Format 2 (before the sections) is still read: an older survey folder still reports.
"$DOCTOR" format "$D/survey.h5" "$WORK/v2/survey.h5" 2 || fail "io_survey_test format failed"
run_ts 0 "--dump of a survey file of format 2" survey --dump -o "$WORK/v2"
expect_in "$OUT" '^format 2$' "a format 2 file read"
run_ts 2 "--dump of a folder without a survey" survey --dump -o "$WORK/none"
expect_in "$ERR" "$WORK/none/survey.h5" "the missing file's path"

# Usage.
run_ts 2 "--quick and --full" survey --quick --full -o "$WORK/x"
run_ts 2 "an argument" survey stray
expect_in "$ERR" "unexpected argument 'stray'" "the stray argument named"
TOUCHSTONE_SURVEY_SCALE=2 run_ts 2 "a scale out of range" survey -o "$WORK/x"
expect_in "$ERR" "TOUCHSTONE_SURVEY_SCALE=2" "the bad scale named"
TOUCHSTONE_SURVEY_REPEATS=0 run_ts 2 "repeats out of range" survey -o "$WORK/x"
expect_in "$ERR" "TOUCHSTONE_SURVEY_REPEATS=0: not a whole number from 1 to 9" "the bad repeats named"
finish

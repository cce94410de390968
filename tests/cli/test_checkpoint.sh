#!/bin/sh
# Surviving the time limit: a signal stops the run after its iteration with exit status 3, a
# checkpoint and a results file marked incomplete; --restart continues it to a result bitwise
# identical to a run that was never stopped; checkpoints that do not belong are refused.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
get() { "$H5GET" "$@"; }

# Long enough (seconds) that the signal lands during the iterations; a checkpoint at any point
# must restart to the same result. One thread: a tiny barrier-bound loop on a machine shared
# with other tests would crawl.
LONG="--set stencil.nx=512 --set stencil.ny=512 --set stencil.alpha=0.001 --set run.iterations=20000 --threads 1"

# stop CONFIG OUT ARGS...: starts a run, sends SIGUSR1 once it reported its first tenth of the
# iterations (a progress line: inside them, nine tenths to go), expects exit 3. Not after a
# fixed delay: on a loaded machine half a second did not always see touchstone start, and a
# SIGUSR1 before main() blocks it ends the process.
stop() {
    config=$1
    out=$2
    shift 2
    TOUCHSTONE_PROGRESS_DELAY=0 "$TS" run "$config" "$@" -o "$out" >"$OUT" 2>"$ERR" &
    pid=$!
    while ! grep -q '^touchstone: progress: ' "$ERR" 2>/dev/null && kill -0 $pid 2>/dev/null; do
        sleep 0.05
    done
    kill -USR1 $pid 2>/dev/null || fail "$out: the run ended before the signal; make it longer"
    wait $pid
    status=$?
    [ $status -eq 3 ] || { fail "$out: exit status $status after SIGUSR1, expected 3"; sed 's/^/    /' "$ERR" >&2; }
}

# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference" run "$SRC/configs/stencil2d.ini" $LONG -o "$WORK/full.h5" -q
full=$(get -x "$WORK/full.h5" /results/global)

# A config name a shell would split or unquote, and options: the stop prints the command that
# continues this run, every option kept, quoted to be pasted.
CFG_ODD="$WORK/my config's copy.ini"
cp "$SRC/configs/stencil2d.ini" "$CFG_ODD"
# shellcheck disable=SC2086
stop "$CFG_ODD" "$WORK/run.h5" $LONG
expect_in "$ERR" "User defined signal 1: stopped after [0-9]+ of 20001 iterations; checkpoint $WORK/run.ckpt.h5; continue with: $TS run .* --set stencil\.nx=512 .* --threads 1 -o $WORK/run\.h5 --restart $WORK/run\.ckpt\.h5\$" \
    "the stop says how to continue"
grep -qF "run '$WORK/my config'\\''s copy.ini' --set" "$ERR" || fail "the config's name is not quoted for the shell"
again=$(sed -n 's/^touchstone: .*; continue with: //p' "$ERR")
[ -s "$WORK/run.ckpt.h5" ] || fail "no checkpoint after SIGUSR1"
[ "$(get "$WORK/run.h5" /@complete)" = 0 ] || fail "the stopped run's file is not marked incomplete"
[ "$(get "$WORK/run.h5" /verification@passed)" = 0 ] || fail "a stopped run claims to be verified"
done_before=$(get "$WORK/run.h5" /@steps_done)
ls "$WORK" | grep -q '\.tmp\.' && fail "temporary files left after the stop"

# The printed command, pasted, with another thread count after it: the result depends on neither.
expect_run 0 "restart" sh -c "$again --threads 2"
[ "$(get -x "$WORK/run.h5" /results/global)" = "$full" ] || fail "restarted result $(get -x "$WORK/run.h5" /results/global) differs from uninterrupted $full"
[ "$(get "$WORK/run.h5" /@complete)" = 1 ] || fail "the restarted run's file is not complete"
[ "$(get "$WORK/run.h5" /job@restarted)" = 1 ] || fail "/job does not say restarted"
[ "$(get "$WORK/run.h5" /job@steps_before_restart)" = "$done_before" ] || fail "/job steps_before_restart is not $done_before"
[ "$(get "$WORK/run.h5" /verification@passed)" = 1 ] || fail "the restarted run did not verify"
[ -e "$WORK/run.ckpt.h5" ] && fail "a finished run left its checkpoint behind (a requeue would continue it)"
# The summary, and show after it, say the run was restarted, from which checkpoint and where.
expect_in "$OUT" "^  restarted  from $WORK/run\.ckpt\.h5 after $done_before of 20001 iterations" "the summary says restarted"
run_ts 0 "show of the restarted run" show "$WORK/run.h5" &&
    expect_in "$OUT" "^  restarted  from $WORK/run\.ckpt\.h5 after $done_before of 20001 iterations" "show says restarted"

# sum carries no field: the checkpoint holds the step count and the times.
SUM="--set sum.n=1048576 --set run.iterations=8000 --threads 1"
# shellcheck disable=SC2086
run_ts 0 "sum reference" run "$SRC/configs/sum.ini" $SUM -o "$WORK/sumfull.h5" -q
# shellcheck disable=SC2086
stop "$SRC/configs/sum.ini" "$WORK/sum.h5" $SUM
# A checkpoint under another name than this run's is the user's file: a finished restart keeps
# it, and says so (only its own X.ckpt.h5 goes).
cp "$WORK/sum.ckpt.h5" "$WORK/sum-copy.ckpt.h5"
# shellcheck disable=SC2086
run_ts 0 "sum restart from a copy" run "$SRC/configs/sum.ini" $SUM -o "$WORK/sum2.h5" --restart "$WORK/sum-copy.ckpt.h5"
[ -e "$WORK/sum-copy.ckpt.h5" ] || fail "a restart removed the checkpoint it was given under another name"
expect_in "$ERR" "^touchstone: note: kept $WORK/sum-copy\.ckpt\.h5, the checkpoint this run continued: it is not this run's checkpoint \($WORK/sum2\.ckpt\.h5\)" \
    "the kept checkpoint is named"
# shellcheck disable=SC2086
run_ts 0 "sum restart" run "$SRC/configs/sum.ini" $SUM -o "$WORK/sum.h5" --restart "$WORK/sum.ckpt.h5"
[ -e "$WORK/sum.ckpt.h5" ] && fail "a finished restart left its own checkpoint behind"
expect_not_in "$ERR" "note: kept" "the run's own checkpoint is not kept"
[ "$(get -x "$WORK/sum.h5" /results/global)" = "$(get -x "$WORK/sumfull.h5" /results/global)" ] || fail "sum: restarted result differs"

# Periodic checkpoints survive SIGKILL: the newest one restarts to the same result.
# shellcheck disable=SC2086
"$TS" run "$SRC/configs/stencil2d.ini" $LONG --set output.checkpoint_every=1000 -o "$WORK/killed.h5" -q >/dev/null 2>&1 &
pid=$!
# Kill as soon as the first periodic checkpoint exists (polled for as long as the run lives: a
# loaded machine is slow, and the run has 19 more to write).
while [ ! -s "$WORK/killed.ckpt.h5" ] && kill -0 $pid 2>/dev/null; do
    sleep 0.05
done
kill -KILL $pid 2>/dev/null || fail "the periodic run ended before SIGKILL"
wait $pid 2>/dev/null
[ -e "$WORK/killed.h5" ] && fail "a killed run left a results file"
[ -s "$WORK/killed.ckpt.h5" ] || fail "no periodic checkpoint before SIGKILL"
# shellcheck disable=SC2086
run_ts 0 "restart after SIGKILL" run "$SRC/configs/stencil2d.ini" $LONG --set output.checkpoint_every=1000 -o "$WORK/killed.h5" -q \
    --restart "$WORK/killed.ckpt.h5"
[ "$(get -x "$WORK/killed.h5" /results/global)" = "$full" ] || fail "restart from a periodic checkpoint differs"

# Checkpoints that do not belong to the run are refused before anything is read.
# shellcheck disable=SC2086
stop "$SRC/configs/stencil2d.ini" "$WORK/other.h5" $LONG
# shellcheck disable=SC2086
run_ts 2 "another grid" run "$SRC/configs/stencil2d.ini" $LONG --set stencil.ny=128 -o "$WORK/x.h5" --restart "$WORK/other.ckpt.h5"
expect_in "$ERR" "checkpoint was written for stencil.ny = 512, this run has stencil.ny = 128; refusing to restart" "size mismatch named"
# shellcheck disable=SC2086
run_ts 2 "another kernel" run "$SRC/configs/sum.ini" -o "$WORK/x.h5" --restart "$WORK/other.ckpt.h5"
expect_in "$ERR" "checkpoint of kernel stencil2d, this run is sum" "kernel mismatch named"
# shellcheck disable=SC2086
run_ts 2 "another iteration count" run "$SRC/configs/stencil2d.ini" $LONG --set run.iterations=7 -o "$WORK/x.h5" --restart "$WORK/other.ckpt.h5"
expect_in "$ERR" "iterations" "iteration mismatch named"
head -c 3000 "$WORK/other.ckpt.h5" >"$WORK/truncated.h5"
# shellcheck disable=SC2086
run_ts 2 "truncated checkpoint" run "$SRC/configs/stencil2d.ini" $LONG -o "$WORK/x.h5" --restart "$WORK/truncated.h5"
expect_in "$ERR" "truncated.h5" "truncated checkpoint named"
# shellcheck disable=SC2086
run_ts 2 "a results file is no checkpoint" run "$SRC/configs/stencil2d.ini" $LONG -o "$WORK/x.h5" --restart "$WORK/full.h5"
expect_in "$ERR" "not a touchstone checkpoint" "results file refused"
# shellcheck disable=SC2086
run_ts 2 "missing checkpoint" run "$SRC/configs/stencil2d.ini" $LONG -o "$WORK/x.h5" --restart "$WORK/nope.h5"
expect_in "$ERR" "nope.h5: No such file or directory" "missing checkpoint named with errno text"
[ -e "$WORK/x.h5" ] && fail "a refused restart wrote a results file"

# /job from the Slurm environment.
# shellcheck disable=SC2086
SLURM_JOB_ID=77 SLURM_CPUS_PER_TASK=2 SLURM_JOB_PARTITION=debug SLURM_JOB_NODELIST=node01 \
    run_ts 0 "under Slurm" run "$SRC/configs/sum.ini" $SMALL -o "$WORK/job.h5" -q
[ "$(get "$WORK/job.h5" /job@job_id)" = 77 ] || fail "/job job_id"
[ "$(get "$WORK/job.h5" /job@partition)" = debug ] || fail "/job partition"
[ "$(get "$WORK/job.h5" /job@cpus_per_task)" = 2 ] || fail "/job cpus_per_task"
[ "$(get "$WORK/job.h5" /job@node_list)" = node01 ] || fail "/job node_list"
[ "$(get "$WORK/job.h5" /job@under_slurm)" = 1 ] || fail "/job under_slurm"
[ -n "$(get "$WORK/job.h5" /job@cpu_mask)" ] || fail "/job cpu_mask empty"
finish

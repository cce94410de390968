#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# scancel (SIGTERM to every step, as at the time limit) on jobs/run.sbatch: touchstone still
# writes its checkpoint, but a cancelled job must stay cancelled: the script must not requeue it.
. "$(dirname "$0")/lib.sh" "$@"

RUN="--set stencil.nx=1024 --set stencil.ny=1024 --set run.iterations=20000 --set output.checkpoint_every=400"
export OMP_WAIT_POLICY=passive   # see test_requeue.sh

id=$(submit -c 2 "$JOBS/run.sbatch" "$SRC/configs/stencil2d.ini" $RUN) || finish
log=touchstone-$id.log
ckpt=results/run-stencil2d-parallel-$id.ckpt.h5
first_checkpoint "$id" "$ckpt" "$log"
scancel "$id" || fail "scancel $id failed"
wait_jobs 60 "$id"
line=$(job_lines "$id")
[ "$(job_field "$line" JobState)" = CANCELLED ] || fail "job $id is $(job_field "$line" JobState), expected CANCELLED"
[ "$(job_field "$line" Restarts)" = 0 ] || fail "the cancelled job was requeued ($(job_field "$line" Restarts) restarts)"
# The job log and the checkpoint: touchstone stopped cleanly and said how to continue.
expect_in "$log" "got SIGTERM" "the batch shell saw the cancel"
expect_in "$log" "stopped after [0-9]+ of [0-9]+ iterations; checkpoint" "touchstone checkpointed on SIGTERM"
expect_in "$log" "the job was cancelled, so it is not requeued" "the script did not requeue"
[ -e "$ckpt" ] || fail "the checkpoint $ckpt is gone"
file=results/run-stencil2d-parallel-$id.h5
expect_h5 "$file" /@complete 0 "the results file of the interrupted run is marked incomplete"
finish

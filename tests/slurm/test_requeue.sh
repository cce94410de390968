#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# jobs/run.sbatch survives its time limit: SIGUSR1 to the batch shell (what --signal=B:USR1@60
# sends; here scancel --signal=USR1 --batch, at once) is forwarded to touchstone, which finishes
# its iteration, writes a checkpoint and exits 3; the script requeues the job, which restarts
# (SLURM_RESTART_COUNT=1) from the checkpoint and ends with a field and result bitwise identical
# to an uninterrupted run.
. "$(dirname "$0")/lib.sh" "$@"

# Two thousand iterations on 2 threads, a periodic checkpoint every 400: when the first one
# appears the run is certainly inside its iterations, whatever the machine's load, and the
# signal comes well before the end.
RUN="--set stencil.nx=1024 --set stencil.ny=1024 --set run.iterations=2000 --set output.write_field=true --set output.checkpoint_every=400"
# Passive waiting keeps the threads from spinning against other tests' processes on this small
# machine (ctest -j); it changes timings only, never the result.
export OMP_WAIT_POLICY=passive

# The reference: the same run, uninterrupted, outside Slurm.
OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close \
    "$TS" run "$SRC/configs/stencil2d.ini" $RUN -o reference.h5 >reference.txt 2>&1 \
    || { fail "the reference run failed"; cat reference.txt >&2; finish; }

echo "reference run done at ${SECONDS}s"
id=$(submit -c 2 "$JOBS/run.sbatch" "$SRC/configs/stencil2d.ini" $RUN) || finish
log=touchstone-$id.log
ckpt=results/run-stencil2d-parallel-$id.ckpt.h5

# Wait for the first periodic checkpoint (output.checkpoint_every), then signal.
first_checkpoint "$id" "$ckpt" "$log"
echo "first checkpoint written; signalling the batch shell of job $id at ${SECONDS}s"
scancel --signal=USR1 --batch "$id" || fail "scancel --signal=USR1 --batch $id failed"

wait_jobs 90 "$id"
echo "job $id finished at ${SECONDS}s"
line=$(job_lines "$id")
expect_job_ok "$id" "$log"
restarts=$(job_field "$line" Restarts)
[ "$restarts" = 1 ] || fail "job $id restarted $restarts time(s), expected 1 (requeued once)"

# The log tells the story, in order.
expect_in "$log" "got SIGUSR1, forwarding it to touchstone" "the batch shell forwarded the signal"
expect_in "$log" "touchstone stopped early and wrote its checkpoint: requeueing" "touchstone exited 3 and the job was requeued"
expect_in "$log" "restart 1 of job $id: continuing from .*run-stencil2d-parallel-$id\.ckpt\.h5" "the restart found the checkpoint"
expect_in "$log" "run.sbatch: finished, verified" "the restarted run finished"

file=results/run-stencil2d-parallel-$id.h5
expect_verified "$file" "restarted run" || { show_log "$log"; finish; }
expect_h5 "$file" /environment@SLURM_RESTART_COUNT 1 "the final run is the requeued one"
expect_h5 "$file" /job@restarted 1 "/job records the restart"
expect_h5 "$file" /job@restarted_from "$WORK/results/run-stencil2d-parallel-$id.ckpt.h5" "/job names the checkpoint"
expect_h5 "$file" /@complete 1 "the final file is complete"
steps=$(h5 "$file" /job@steps_before_restart)
total=$(( $(h5 "$file" /timings@n_iterations) + $(h5 "$file" /timings@n_warmup) ))
if [ -z "$steps" ] || [ "$steps" -le 0 ] || [ "$steps" -ge "$total" ]; then
    fail "the checkpoint should hold some but not all of the $total iterations, it held '${steps}'"
fi
[ -e "results/run-stencil2d-parallel-$id.ckpt.h5" ] && fail "the finished run left its checkpoint behind (a later requeue would continue it)"

# Bitwise identical to the uninterrupted run: the result, the partials, the whole field.
for path in /results/global /results/thread_partials /verification/observed; do
    a=$(h5 -x reference.h5 "$path")
    b=$(h5 -x "$file" "$path")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$path differs from the uninterrupted run: $(echo "$a" | tr "\n" " ") vs $(echo "$b" | tr "\n" " ")"
done
if ! h5diff reference.h5 "$file" /field/u /field/u >fielddiff.txt 2>&1; then
    fail "/field/u differs from the uninterrupted run"
    head -20 fielddiff.txt >&2
fi
finish

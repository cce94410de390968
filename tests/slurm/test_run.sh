#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# jobs/run.sbatch through sbatch: one task, --cpus-per-task threads, each on its own core,
# output named after the job id, verified, the job recorded in the file. Without -c it asks for
# what every node has (1 CPU) and runs 1 thread: a larger default pends forever on a smaller node.
. "$(dirname "$0")/lib.sh" "$@"

id=$(submit -c 2 "$JOBS/run.sbatch" "$SRC/configs/stencil2d.ini" $SMALL) || finish
wait_jobs 60 "$id" && expect_job_ok "$id" "touchstone-$id.log"

# Named after the job id: run-<kernel>-<init>-<job id>.h5.
file=results/run-stencil2d-parallel-$id.h5
expect_verified "$file" "run.sbatch" || { show_log "touchstone-$id.log"; finish; }
expect_h5 "$file" /environment@SLURM_JOB_ID "$id" "job id in /environment"
expect_h5 "$file" /environment@SLURM_CPUS_PER_TASK 2 "cpus per task in /environment"
expect_h5 "$file" /environment@OMP_NUM_THREADS 2 "OMP_NUM_THREADS from SLURM_CPUS_PER_TASK"
expect_h5 "$file" /environment@SRUN_CPUS_PER_TASK 2 "SRUN_CPUS_PER_TASK exported for srun"
expect_h5 "$file" /results@n_threads 2 "threads = cpus-per-task"
expect_h5 "$file" /threads@OMP_PLACES cores "OMP_PLACES set by the script"
expect_h5 "$file" /threads@OMP_PROC_BIND close "OMP_PROC_BIND set by the script"
# Two threads on two different cores, and not one stacking warning.
cores=$(h5 "$file" /threads/table:core | sort -u | wc -l)
[ "$cores" -eq 2 ] || fail "threads should sit on 2 different cores, found $cores: $(h5 "$file" /threads/table:core | tr '\n' ' ')"
expect_no_warning "$file" "$STACKED" "run.sbatch's srun -c gives every thread its own core"
expect_in "touchstone-$id.log" "verified +PASSED" "the summary is in the job log"
expect_in "touchstone-$id.log" "run.sbatch: finished, verified" "the script reports success"

# No -c: it must start on this node (whatever its size) and run one thread on one CPU.
id=$(submit "$JOBS/run.sbatch" "$SRC/configs/sum.ini" $SMALL) || finish
if ! wait_jobs 60 "$id"; then
    fail "run.sbatch without -c did not run on this $TOUCHSTONE_SLURM_CPUS-CPU node ($(job_field "$(job_lines "$id")" Reason))"
    scancel "$id" 2>/dev/null
    finish
fi
expect_job_ok "$id" "touchstone-$id.log"
file=results/run-sum-parallel-$id.h5
expect_verified "$file" "run.sbatch without -c" || { show_log "touchstone-$id.log"; finish; }
expect_h5 "$file" /results@n_threads 1 "run.sbatch without -c: one thread"
expect_h5 "$file" /job@cpus_per_task 1 "run.sbatch without -c: one CPU"
expect_no_warning "$file" "$STACKED" "run.sbatch without -c: one thread on one CPU"
finish

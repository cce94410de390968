#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# The Slurm 22.05 pitfall: inside a batch job with --cpus-per-task=2, a plain
# `srun --cpu-bind=cores` step gets ONE CPU, so both threads stack on it and touchstone must
# warn; `srun -c $SLURM_CPUS_PER_TASK` and SRUN_CPUS_PER_TASK give the step both CPUs and
# touchstone must stay quiet.
. "$(dirname "$0")/lib.sh" "$@"

id=$(submit -c 2 "$SRC/tests/slurm/pitfall.sbatch" "$SRC/configs/sum.ini" $SMALL) || finish
wait_jobs 60 "$id" && expect_job_ok "$id" "pitfall-$id.log"
log=pitfall-$id.log
for v in plain dash-c env; do
    expect_in "$log" "$v: exit status 0" "$v run"
    expect_verified "results/pitfall-$id-$v.h5" "$v" || show_log "$log"
done
# What srun really gave each step.
expect_in "$log" "plain: step mask [0-9]+$" "plain srun: a one-CPU step"
expect_in "$log" "dash-c: step mask [0-9]+-[0-9]+$" "srun -c: both CPUs"
expect_in "$log" "env: step mask [0-9]+-[0-9]+$" "SRUN_CPUS_PER_TASK: both CPUs"

plain=results/pitfall-$id-plain.h5
expect_warning "$plain" "ALL 2 THREADS ARE ON ONE CORE" "plain srun --cpu-bind=cores"
expect_warning "$plain" "2 threads but only 1 CPU available.*srun -c" "plain srun: the warning names srun -c"
for v in dash-c env; do
    f=results/pitfall-$id-$v.h5
    expect_no_warning "$f" "$STACKED" "$v: no stacking"
    expect_h5 "$f" /results@n_threads 2 "$v"
    [ "$(h5 "$f" /threads/table:core | sort -u | wc -l)" -eq 2 ] || fail "$v: threads not on 2 cores"
done
finish

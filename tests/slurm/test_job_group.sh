#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# The /job group of a run under Slurm: job and array ids, nodes, CPUs, partition, the CPU mask
# the process got, not restarted. One plain job and one array task, 1 CPU each.
. "$(dirname "$0")/lib.sh" "$@"

plain=$(submit -c 1 "$JOBS/run.sbatch" "$SRC/configs/sum.ini" $SMALL) || finish
array=$(submit -c 1 --array=3 "$JOBS/run.sbatch" "$SRC/configs/sum.ini" $SMALL) || finish
wait_jobs 60 "$plain" "$array"
expect_job_ok "$plain" "touchstone-$plain.log"
array_task=$(job_field "$(job_lines "$array")" JobId)
expect_job_ok "$array" "touchstone-$array_task.log"

check_job() { # FILE JOB_ID ARRAY_JOB ARRAY_TASK WHAT
    local f=$1 what=$5
    expect_verified "$f" "$what" || return
    if ! h5 "$f" /job@job_id >/dev/null; then
        fail "$what: no /job group (or no job_id in it) in $(basename "$f")"
        return
    fi
    expect_h5 "$f" /job@under_slurm 1 "$what"
    expect_h5 "$f" /job@job_id "$2" "$what"
    expect_h5 "$f" /job@array_job_id "$3" "$what"
    expect_h5 "$f" /job@array_task_id "$4" "$what"
    expect_h5 "$f" /job@node_list localhost "$what"
    expect_h5 "$f" /job@cpus_per_task 1 "$what"
    expect_h5 "$f" /job@cpus_on_node 1 "$what"
    expect_h5 "$f" /job@partition "$TOUCHSTONE_SLURM_PARTITION" "$what"
    expect_h5 "$f" /job@restarted 0 "$what: not restarted"
    mask=$(h5 "$f" /job@cpu_mask)
    case $mask in
    [0-9] | [0-9][0-9]) ;;   # one CPU: the task's whole allocation
    *) fail "$what: /job@cpu_mask '$mask' should be the task's single CPU" ;;
    esac
}
check_job "results/run-sum-parallel-$plain.h5" "$plain" "" "" "plain job"
check_job "results/run-sum-parallel-${array}_3.h5" "$array_task" "$array" 3 "array task ${array}_3"
finish

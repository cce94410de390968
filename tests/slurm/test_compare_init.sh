#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# jobs/compare-init.sbatch: parallel and serial first touch on the same whole node (--exclusive,
# every CPU), same config, REPS = 3 runs of each in alternating order (parallel serial serial
# parallel parallel serial); every file verified with bitwise-equal results, and one
# `touchstone compare` of all six runs, parallel as side 1, in the job log.
. "$(dirname "$0")/lib.sh" "$@"

# REPS is checked before anything runs (here without Slurm: nothing is submitted).
for bad in 0 x -1; do
    REPS=$bad bash "$JOBS/compare-init.sbatch" "$SRC/configs/sum.ini" >out 2>err
    [ $? -eq 2 ] && grep -q "REPS=$bad: runs per init mode" err || fail "REPS=$bad is not refused: $(cat err)"
done

id=$(submit "$JOBS/compare-init.sbatch" "$SRC/configs/sum.ini" $SMALL) || finish
wait_jobs 120 "$id"
log=compare-init-$id.log
# The runs in the order the log names them: A B B A A B.
order=$(sed -n 's/^==> run [0-9]* of 6: \([a-z]*\) first touch$/\1/p' "$log" | tr '\n' ' ')
[ "$order" = "parallel serial serial parallel parallel serial " ] || { fail "run order '$order'"; show_log "$log"; }
first=$(h5 -x "results/compare-init-$id-parallel-1.h5" /results/global)
for mode in parallel serial; do
    for k in 1 2 3; do
        f=results/compare-init-$id-$mode-$k.h5
        expect_verified "$f" "$mode init, run $k" || show_log "$log"
        expect_h5 "$f" /results@init_mode $mode "$mode run $k"
        # --exclusive without -c: the task gets the whole node, one thread per CPU.
        expect_h5 "$f" /results@n_threads "$TOUCHSTONE_SLURM_CPUS" "$mode run $k uses every CPU of the node"
        expect_h5 "$f" /environment@SLURM_JOB_ID "$id" "same job"
        expect_h5 "$f" /job@job_id "$id" "/job@job_id"
        [ -n "$first" ] && [ "$(h5 -x "$f" /results/global)" = "$first" ] ||
            fail "$mode run $k: result differs from parallel run 1"
        expect_no_warning "$f" "$STACKED" "$mode run $k"
    done
done
[ ! -e "results/compare-init-$id-parallel-4.h5" ] && [ ! -e "results/compare-init-$id-serial-4.h5" ] ||
    fail "more than REPS = 3 runs of a mode"

# The comparison itself, in the log: all six runs, two sides of three, a verdict and its reason.
if ! has_command compare; then
    fail "this touchstone has no 'compare' command yet (the compare/report work of issue 5): the job log has no comparison"
else
    expect_job_ok "$id" "$log"
    expect_in "$log" "==> comparison" "the comparison section"
    expect_in "$log" "compare exit status 0" "touchstone compare succeeded"
    sed -n '/==> comparison/,$p' "$log" >comparison.txt
    expect_in comparison.txt "^file +compare-init-$id-parallel-1.h5 +compare-init-$id-parallel-2.h5 +compare-init-$id-parallel-3.h5 +compare-init-$id-serial-1.h5" \
        "the comparison names all six files, parallel first"
    expect_in comparison.txt "^side +1 +1 +1 +2 +2 +2$" "two sides of three runs"
    expect_in comparison.txt "^ +2 +3 .* init mode serial$" "side 2 is the serial runs"
    expect_in comparison.txt "^side 2: (faster|slower|within noise|cannot separate): " "the verdict and its reason"
fi
finish

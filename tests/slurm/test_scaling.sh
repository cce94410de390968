#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# jobs/submit.sh: the scaling array (task id = threads: 1, 2 on this 2-CPU node) and the gather
# job that runs after it with --dependency=afterany, says every task succeeded and prints one
# table (touchstone report). Also: what the scripts leave in the submit directory is ignored
# by git.
. "$(dirname "$0")/lib.sh" "$@"

cpus=$TOUCHSTONE_SLURM_CPUS
"$JOBS/submit.sh" -c "$cpus" -- "$SRC/configs/triad.ini" $SMALL >submit.txt 2>&1 \
    || { fail "submit.sh failed"; cat submit.txt >&2; finish; }
cat submit.txt
array=$(sed -n 's/^array  *\([0-9]*\).*/\1/p' submit.txt)
gather=$(sed -n 's/^gather  *\([0-9]*\).*/\1/p' submit.txt)
[ -n "$array" ] && [ -n "$gather" ] || { fail "submit.sh did not print both job ids"; finish; }

# The gather job depends on the whole array.
dep=$(job_field "$(job_lines "$gather")" Dependency)
case $dep in afterany:"$array"*) ;; *) fail "gather job dependency is '$dep', expected afterany:$array" ;; esac

wait_jobs 90 "$array" "$gather"
expect_job_ok "$array" "scaling-${array}_1.log"

# Thread counts 1, 2, 4, ... up to the CPUs, each in its own array task and file.
tasks=""
t=1
while [ "$t" -lt "$cpus" ]; do tasks="$tasks $t"; t=$((t * 2)); done
tasks="$tasks $cpus"
end_of_array=0
for t in $tasks; do
    f=results/scaling-$array/scaling-${array}_$t.h5
    expect_verified "$f" "array task $t" || { show_log "scaling-${array}_$t.log"; continue; }
    expect_h5 "$f" /results@n_threads "$t" "task $t runs $t threads"
    expect_in "results/scaling-$array/scaling-${array}_$t.status" "^exit=0$" "task $t recorded its exit status"
    expect_h5 "$f" /environment@SLURM_ARRAY_JOB_ID "$array" "task $t"
    expect_h5 "$f" /environment@SLURM_ARRAY_TASK_ID "$t" "task $t"
    expect_h5 "$f" /environment@SLURM_CPUS_PER_TASK "$cpus" "every task has the same allocation"
    expect_no_warning "$f" "$STACKED" "task $t: threads on their own cores"
    line=$(job_lines "${array}_$t")
    e=$(date -d "$(job_field "$line" EndTime)" +%s 2>/dev/null || echo 0)
    [ "$e" -gt "$end_of_array" ] && end_of_array=$e
done

# The gather job ran after every task had ended, and printed the table.
gline=$(job_lines "$gather")
expect_job_ok "$gather" "gather-$gather.log"
gstart=$(date -d "$(job_field "$gline" StartTime)" +%s 2>/dev/null || echo 0)
[ "$gstart" -ge "$end_of_array" ] || fail "gather started at $gstart, before the array ended ($end_of_array)"
if ! has_command report; then
    fail "this touchstone has no 'report' command yet (the compare/report work of issue 5): gather printed no table"
else
    expect_in "gather-$gather.log" "report exit status 0" "touchstone report succeeded"
    expect_in "gather-$gather.log" "all $(echo $tasks | wc -w) tasks succeeded" "gather says every task succeeded"
    # One row per task: markdown in the log (header, separator, rows), csv next to the files.
    n=$(echo $tasks | wc -w)
    rows=$(sed -n '/==> table/,$p' "gather-$gather.log" | grep -c '^|')
    [ "$rows" -ge $((n + 2)) ] || fail "the markdown table in the log has $rows lines, expected a header, a separator and $n rows"
    csv=results/scaling-$array/summary.csv
    [ "$(grep -c . "$csv" 2>/dev/null)" -eq $((n + 1)) ] || { fail "$csv should have a header and $n rows"; cat "$csv" >&2; }
fi

# Logs and results in the repository root (where docs/cluster.md says to submit from) are not
# files to commit.
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    for f in results/scaling-1/summary.csv results/run-sum-parallel-1.h5 touchstone-1.log scaling-1_2.log \
        gather-1.log binding-1.log compare-init-1.log; do
        git -C "$SRC" check-ignore -q "$f" || fail "git does not ignore $f in the repository root (.gitignore)"
    done
fi
finish

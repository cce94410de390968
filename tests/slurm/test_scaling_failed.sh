#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL: an option list; lib.sh is next to this file; a && b || c is meant
# jobs/submit.sh when one array task fails: the gather job still runs once the array has ended
# (afterany; with afterok it would pend forever on DependencyNeverSatisfied), names the failed
# thread count, its exit status and its log, writes the table of the tasks that succeeded, and
# fails. The failing task is made by a wrapper around touchstone that refuses `run` in the
# array task with the largest thread count (the check before submitting passes through it).
. "$(dirname "$0")/lib.sh" "$@"

cpus=$TOUCHSTONE_SLURM_CPUS
cat >failing-touchstone <<EOF
#!/bin/sh
if [ "\$1" = run ] && [ "\${SLURM_ARRAY_TASK_ID:-}" = "$cpus" ]; then
    echo "failing-touchstone: task $cpus fails on purpose" >&2
    exit 2
fi
exec "$TS" "\$@"
EOF
chmod +x failing-touchstone
export TOUCHSTONE=$WORK/failing-touchstone

"$JOBS/submit.sh" -c "$cpus" -- "$SRC/configs/triad.ini" $SMALL >submit.txt 2>&1 \
    || { fail "submit.sh failed"; cat submit.txt >&2; finish; }
cat submit.txt
array=$(sed -n 's/^array  *\([0-9]*\).*/\1/p' submit.txt)
gather=$(sed -n 's/^gather  *\([0-9]*\).*/\1/p' submit.txt)
[ -n "$array" ] && [ -n "$gather" ] || { fail "submit.sh did not print both job ids"; finish; }
wait_jobs 90 "$array" "$gather"

# The gather job ran (not pending on a dependency that can never be satisfied) and failed.
gline=$(job_lines "$gather")
glog=gather-$gather.log
state=$(job_field "$gline" JobState)
if [ "$state" = PENDING ]; then
    fail "the gather job is still pending ($(job_field "$gline" Reason)) after a failed task"
    scancel "$gather" "$array" 2>/dev/null
    finish
fi
[ "$state" = FAILED ] && [ "$(job_field "$gline" ExitCode)" = 1:0 ] ||
    { fail "gather job: state $state, exit code $(job_field "$gline" ExitCode), expected FAILED 1:0"; show_log "$glog"; }

# The failed task by its thread count, exit status and log, with the log's last lines.
plural=s
[ "$cpus" -eq 1 ] && plural=""
expect_in "$glog" "FAILED: $cpus thread$plural: exit status 2; log $WORK/scaling-${array}_$cpus.log" "the failed task named"
expect_in "$glog" "    \| failing-touchstone: task $cpus fails on purpose" "the failed task's log quoted"
n=1
t=1
while [ "$t" -lt "$cpus" ]; do n=$((n + 1)); t=$((t * 2)); done
expect_in "$glog" "1 of $n tasks FAILED" "the count of failed tasks"

# The others in the table (log and csv), the failed one not.
csv=results/scaling-$array/summary.csv
if [ "$n" -gt 1 ] && has_command report; then
    expect_in "$glog" "report exit status 0" "the table of the tasks that succeeded"
    rows=$(sed -n '/==> table/,$p' "$glog" | grep -c '^|')
    [ "$rows" -eq $((n - 1 + 2)) ] || fail "the markdown table has $rows lines, expected a header, a separator and $((n - 1)) rows"
    [ "$(grep -c . "$csv" 2>/dev/null)" -eq "$n" ] || { fail "$csv should have a header and $((n - 1)) rows"; cat "$csv" >&2; }
    grep -q "scaling-${array}_$cpus.h5" "$csv" && fail "$csv lists the failed task's file"
fi
finish

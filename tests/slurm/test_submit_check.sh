#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL: an option list; lib.sh is next to this file; a && b || c is meant
# jobs/submit.sh checks the study with `touchstone check` before submitting: a config or run
# option that check refuses, and the options the study sets itself, submit nothing (exit 2,
# Slurm's job count unchanged). A valid config whose memory exceeds this machine is submitted
# with a note (compute nodes may be larger); here every task then fails on the node's limit, and
# the gather job still ends and reports them all. Without -c, submit.sh asks for the smallest
# node's CPUs (a fixed default pends forever on a smaller node).
. "$(dirname "$0")/lib.sh" "$@"

cpus=$TOUCHSTONE_SLURM_CPUS
jobs_known() { scontrol show jobs -o 2>/dev/null | grep -c '^JobId='; }

# refused WHAT EXPECTED_MESSAGE SUBMIT_ARGS...: exit 2, the message, no job submitted.
refused() {
    local what=$1 message=$2 before after status
    shift 2
    before=$(jobs_known)
    "$JOBS/submit.sh" "$@" >out.txt 2>err.txt
    status=$?
    after=$(jobs_known)
    [ "$status" -eq 2 ] || { fail "$what: submit.sh exit status $status, expected 2"; cat out.txt err.txt >&2; }
    [ "$after" -eq "$before" ] || fail "$what: $((after - before)) job(s) submitted, expected none"
    grep -Eq -- "$message" err.txt || { fail "$what: expected /$message/ on stderr"; sed 's/^/    | /' err.txt >&2; }
}

refused "unknown config key" "touchstone check refused the study; nothing submitted" \
    -c "$cpus" -- "$SRC/configs/triad.ini" $SMALL --set triad.nn=5
grep -q "triad.nn" err.txt || fail "unknown config key: check's message is not shown"
refused "value out of range" "touchstone check refused" -c "$cpus" -- "$SRC/configs/triad.ini" --set run.iterations=-1
refused "missing config" "touchstone check refused" -c "$cpus" -- "$WORK/no-such.ini"
refused "unknown run option" "touchstone check refused" -c "$cpus" -- "$SRC/configs/triad.ini" --bogus
refused "--threads" "no --threads: each array task runs as many threads as its task id" \
    -c "$cpus" -- "$SRC/configs/triad.ini" --threads 2
refused "-o" "no -o: the study names its files" -c "$cpus" -- "$SRC/configs/triad.ini" -o x.h5
refused "sbatch option without --" "put -- between sbatch options and CONFIG" -c "$cpus" "$SRC/configs/triad.ini"
refused "bad -c" "-c needs a positive number of CPUs" -c 0 -- "$SRC/configs/triad.ini"

# Valid, but more memory than this machine (the node too): submitted, with a note; every task
# fails when it checks its node's limits, and gather reports them all instead of pending.
big="--set triad.n=1e12"
"$JOBS/submit.sh" -c "$cpus" -- "$SRC/configs/triad.ini" $SMALL $big >submit.txt 2>&1 ||
    { fail "submit.sh refused a valid config that needs more memory than the submitting machine"; cat submit.txt >&2; finish; }
expect_in submit.txt "note: the run needs more memory than this machine allows" "the memory note"
array=$(sed -n 's/^array  *\([0-9]*\).*/\1/p' submit.txt)
gather=$(sed -n 's/^gather  *\([0-9]*\).*/\1/p' submit.txt)
[ -n "$array" ] && [ -n "$gather" ] || { fail "submit.sh did not print both job ids"; finish; }
wait_jobs 90 "$array" "$gather"
gline=$(job_lines "$gather")
state=$(job_field "$gline" JobState)
if [ "$state" = PENDING ]; then
    fail "the gather job is still pending ($(job_field "$gline" Reason)) after every task failed"
    scancel "$gather" 2>/dev/null
    finish
fi
[ "$state" = FAILED ] || fail "gather job: state $state, expected FAILED"
n=1
t=1
while [ "$t" -lt "$cpus" ]; do n=$((n + 1)); t=$((t * 2)); done
expect_in "gather-$gather.log" "$n of $n tasks FAILED" "gather counts every task as failed"
expect_in "gather-$gather.log" "FAILED: 1 thread: exit status 2" "the 1-thread task named"

# No -c: this node's CPUs, and the study runs.
"$JOBS/submit.sh" "$SRC/configs/sum.ini" $SMALL >default.txt 2>&1 ||
    { fail "submit.sh without -c failed"; cat default.txt >&2; finish; }
expect_in default.txt "^array  [0-9]+  \(tasks [0-9,]*$cpus, $cpus CPUs each\)" "without -c: the node's $cpus CPUs"
array=$(sed -n 's/^array  *\([0-9]*\).*/\1/p' default.txt)
gather=$(sed -n 's/^gather  *\([0-9]*\).*/\1/p' default.txt)
if wait_jobs 60 "$array" "$gather"; then
    expect_job_ok "$gather" "gather-$gather.log"
else
    scancel "$array" "$gather" 2>/dev/null
fi
finish

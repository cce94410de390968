# shellcheck shell=bash disable=SC2034  # sourced: sets variables for the tests
# Shared by the Slurm tests: submit the jobs/ scripts to the private cluster that
# cluster.sh started, wait for them with a bounded poll, check their files.
# Usage in a test:  . "$(dirname "$0")/lib.sh" "$@"
# Arguments: TOUCHSTONE SOURCE_DIR CLUSTER_DIR H5_GET TEST_NAME
set -u

TS=${1:?path to the touchstone binary}
SRC=${2:?path to the source tree}
CLUSTER=${3:?cluster directory (cluster.sh start DIR)}
H5_GET=${4:?path to h5_get}
NAME=${5:?test name}
FAILURES=0

fail() {
    echo "FAILED: $*" >&2
    FAILURES=$((FAILURES + 1))
}

[ -r "$CLUSTER/env" ] || { echo "FAILED: no cluster in $CLUSTER (the slurm.start fixture did not run or failed)" >&2; exit 1; }

# The jobs inherit this environment (sbatch --export=ALL): nothing from an outer Slurm job or
# from the developer's shell may leak into them.
for v in $(env | sed -n 's/^\(\(SLURM\|SBATCH\|SRUN\|SALLOC\|OMP\|GOMP\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
unset TOUCHSTONE_PROGRESS_DELAY
# shellcheck disable=SC1091
. "$CLUSTER/env"   # SLURM_CONF, TOUCHSTONE_SLURM_PARTITION, TOUCHSTONE_SLURM_CPUS

# Every test works in its own fresh directory: job logs and results land there.
WORK=$CLUSTER/../work/$NAME
rm -rf "$WORK"
mkdir -p "$WORK/results" || exit 1
WORK=$(cd "$WORK" && pwd)
cd "$WORK" || exit 1
export TOUCHSTONE="$TS" TOUCHSTONE_RESULTS="$WORK/results"
JOBS=$SRC/jobs

# Small problems: a run takes well under a second.
SMALL="--set stencil.nx=512 --set stencil.ny=512 --set run.iterations=50 --set sum.n=1000000 --set triad.n=1000000"

# submit SBATCH_ARGS...: prints the job id (array: the array job id).
submit() {
    local out
    if ! out=$(sbatch --parsable "$@" 2>&1); then
        fail "sbatch $* refused: $out"
        return 1
    fi
    echo "${out%%;*}"
}

# One line per job record (arrays: one per task) with the fields we look at.
job_lines() {
    scontrol show job -o "$1" 2>/dev/null
}

job_field() { # job_field LINE FIELD
    echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# wait_jobs SECONDS ID...: polls scontrol (4 times a second) until every record of every job
# is finished, or SECONDS have passed. sbatch --wait would poll at 2, 10 and 42 s.
# A job whose dependency can never be satisfied counts as finished (it will never run).
wait_jobs() {
    local limit=$1 start=$SECONDS id line state reason busy
    shift
    while :; do
        busy=0
        for id in "$@"; do
            lines=$(job_lines "$id")
            [ -n "$lines" ] || { busy=1; continue; }
            while IFS= read -r line; do
                state=$(job_field "$line" JobState)
                reason=$(job_field "$line" Reason)
                case $state in
                COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED) ;;
                PENDING) [ "$reason" = DependencyNeverSatisfied ] || busy=1 ;;
                *) busy=1 ;;
                esac
            done <<EOF
$lines
EOF
        done
        [ "$busy" -eq 0 ] && return 0
        if [ $((SECONDS - start)) -ge "$limit" ]; then
            fail "jobs $* not finished after $limit s"
            for id in "$@"; do job_lines "$id" | sed 's/^/    /' >&2; done
            return 1
        fi
        sleep 0.25
    done
}

# expect_job_ok ID LOG: every record COMPLETED with exit code 0:0; shows the log otherwise.
# (A COMPLETED job can still hide a failed step: the files are checked separately.)
expect_job_ok() {
    local id=$1 log=$2 line state code bad=0
    while IFS= read -r line; do
        state=$(job_field "$line" JobState)
        code=$(job_field "$line" ExitCode)
        if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
            fail "job $(job_field "$line" JobId): state $state, exit code $code, reason $(job_field "$line" Reason)"
            bad=1
        fi
    done <<EOF
$(job_lines "$id")
EOF
    [ "$bad" -eq 0 ] || show_log "$log"
    return "$bad"
}

# first_checkpoint ID CKPT LOG: waits up to 60 s for job ID's first periodic checkpoint CKPT;
# when none comes, cancels the job, shows its log and ends the test.
first_checkpoint() {
    local start=$SECONDS
    while [ ! -e "$2" ] && [ $((SECONDS - start)) -lt 60 ]; do sleep 0.1; done
    [ -e "$2" ] && return 0
    fail "no checkpoint $2 within 60 s of submitting job $1 (checkpoint support missing?)"
    scancel "$1"
    show_log "$3"
    finish
}

show_log() {
    local f
    for f in "$@"; do
        if [ -r "$f" ]; then
            echo "---- $f" >&2
            sed 's/^/    | /' "$f" | tail -n 60 >&2
        else
            echo "---- $f: missing" >&2
        fi
    done
    # The slurmd of each node that has a log (localhost; n1 and n2, the emulated pair).
    for f in "$CLUSTER"/log/slurmd-*.log; do
        [ -s "$f" ] || continue
        echo "---- last lines of $(basename "$f")" >&2
        tail -n 15 "$f" | sed 's/^/    | /' >&2
    done
}

# h5 FILE /path[@attr|:field]: the value(s), one per line (h5_get; -x for exact hex).
h5() {
    "$H5_GET" "$@" 2>/dev/null
}

# expect_h5 FILE PATH EXPECTED WHAT: the value must equal EXPECTED exactly.
expect_h5() {
    local got
    got=$(h5 "$1" "$2")
    [ "$got" = "$3" ] || fail "$4: $2 is '$got', expected '$3' in $(basename "$1")"
}

# expect_verified FILE WHAT: the file exists and /verification@passed = 1.
expect_verified() {
    if [ ! -f "$1" ]; then
        fail "$2: no file $1"
        ls -l "$(dirname "$1")" >&2
        return 1
    fi
    expect_h5 "$1" /verification@passed 1 "$2: verification"
}

# The run's warnings, one per line ("" when none).
warnings_of() {
    h5 "$1" /warnings
}

expect_warning() { # FILE REGEX WHAT
    warnings_of "$1" | grep -Eq -- "$2" || {
        fail "$3: no warning matching /$2/ in $(basename "$1")"
        warnings_of "$1" | sed 's/^/    warning: /' >&2
    }
}

expect_no_warning() { # FILE REGEX WHAT
    if warnings_of "$1" | grep -Eq -- "$2"; then
        fail "$3: unexpected warning in $(basename "$1"):"
        warnings_of "$1" | grep -E -- "$2" | sed 's/^/    warning: /' >&2
    fi
}

expect_in() { # FILE REGEX WHAT
    grep -Eq -- "$2" "$1" 2>/dev/null || { fail "$3: expected /$2/ in $(basename "$1")"; show_log "$1"; }
}

# A stacked-threads warning of any kind: all on one core, threads sharing cores, fewer
# CPUs or cores than threads.
STACKED="ONE CORE|share core|share cores|only [0-9]+ CPU|may use only [0-9]+ core"

# True when this touchstone has the command $1 (compare, report).
has_command() {
    ! "$TS" "$1" --help 2>&1 | grep -q "unknown command"
}

finish() {
    if [ "$FAILURES" -ne 0 ]; then
        echo "$NAME: $FAILURES check(s) failed (work directory: $WORK)" >&2
        exit 1
    fi
    echo "$NAME: all checks passed ($SECONDS s)"
    exit 0
}

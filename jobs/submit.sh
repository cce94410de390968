#!/bin/bash
# Submits a whole thread-scaling study after checking it: `touchstone check` on the config with
# your run options first (when it refuses, nothing is submitted), then the scaling array (one
# task per thread count 1, 2, 4, ... up to the CPUs per task, and that count itself) and the
# gather job. The gather job runs after the array whatever its outcome
# (--dependency=afterany): it lists the tasks that failed, tabulates the others, and fails
# when any task failed. Prints the job ids.
#
#   jobs/submit.sh [-c CPUS] [sbatch options ...] -- CONFIG [touchstone run options ...]
#   jobs/submit.sh CONFIG [touchstone run options ...]
#   jobs/submit.sh -c 16 -p PARTITION -A ACCOUNT -t 1:00:00 -- configs/triad.ini --set triad.n=1e9
#
# -c: the CPUs of every task, and the largest thread count. Without -c: the CPUs of the
# smallest node of the partition (-p, else SBATCH_PARTITION, else all; from sinfo), so that
# the array runs on any of its nodes.
# sbatch options before `--` go to both jobs' sbatch (partition, account, QOS, constraints).
# Run options: as for touchstone run (--set, --serial-init, --quiet), but not --threads (the
# task id is the thread count), -o (the study names its files) or --restart.
# The config is read when each task starts: leave it unchanged until the whole array started.
# Run it from the directory the logs and results should go to (the repository, usually).
# Prints:
#   array  <array job id>  (tasks 1,2,4,8, 8 CPUs each)
#   gather <gather job id>  (after the array, whatever its outcome; results/scaling-<array job id>/summary.csv)
# Exit status: 0 submitted; 2 refused before submitting anything (bad options, or touchstone
# check refused the config); 1 sbatch refused.
# Environment: TOUCHSTONE and TOUCHSTONE_RESULTS pass through to the jobs (see run.sbatch); the
# check runs the same binary the jobs will. Installed (DIR/share/touchstone/jobs/submit.sh),
# without TOUCHSTONE or ./build/app/touchstone: DIR/bin/touchstone, for the jobs too.
set -u

here=$(cd "$(dirname "$0")" && pwd)
usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
}
cpus=""
partition=${SBATCH_PARTITION:-}
opts=()
have_sep=0
for a in "$@"; do [ "$a" = "--" ] && have_sep=1; done
if [ "$have_sep" -eq 1 ]; then
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        case $1 in
        -c | --cpus-per-task) cpus=${2:-}; shift 2 || usage ;;
        -c*) cpus=${1#-c}; shift ;;
        --cpus-per-task=*) cpus=${1#*=}; shift ;;
        -p | --partition) partition=${2:-}; opts+=("$1" "${2:-}"); shift 2 || usage ;;
        -p*) partition=${1#-p}; opts+=("$1"); shift ;;
        --partition=*) partition=${1#*=}; opts+=("$1"); shift ;;
        *) opts+=("$1"); shift ;;
        esac
    done
    shift
elif [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; then
    echo "submit.sh: '$1' before the config: put -- between sbatch options and CONFIG" >&2
    exit 2
fi
[ $# -ge 1 ] || usage
config=$1
shift

# Run options: the ones the study sets itself are refused, not silently overridden.
prev=""
for a in "$@"; do
    if [ "$prev" != --set ]; then
        case $a in
        --threads | --threads=*)
            echo "submit.sh: no --threads: each array task runs as many threads as its task id (1,2,4,... up to -c)" >&2
            exit 2 ;;
        -o | -o* | --output | --output=*)
            echo "submit.sh: no -o: the study names its files (results/scaling-<array>/scaling-<array>_<threads>.h5)" >&2
            exit 2 ;;
        --restart | --restart=*)
            echo "submit.sh: no --restart: a study starts afresh (continue one run with jobs/run.sbatch)" >&2
            exit 2 ;;
        esac
    fi
    prev=$a
done

# Without -c: the smallest node's CPUs, so the array fits on every node of the partition.
if [ -z "$cpus" ]; then
    cpus=$(sinfo -h -N ${partition:+-p "$partition"} -o '%c' 2>/dev/null | sort -n | head -n 1)
    if [ -z "$cpus" ]; then
        echo "submit.sh: no -c, and sinfo names no node${partition:+ in partition $partition}: give -c CPUS" >&2
        exit 2
    fi
fi
case $cpus in '' | *[!0-9]* | 0) echo "submit.sh: -c needs a positive number of CPUs, got '$cpus'" >&2; exit 2 ;; esac

# --- the binary the jobs will run (as in scaling.sbatch), and its check of the study.
ts=${TOUCHSTONE:-}
if [ -z "$ts" ]; then
    installed=${here%/share/touchstone/jobs}
    if [ -x "./build/app/touchstone" ]; then
        ts=./build/app/touchstone
    elif [ "$installed" != "$here" ] && [ -x "$installed/bin/touchstone" ]; then
        # An installed tree (cmake --install): its own binary, named to the jobs, which cannot
        # look beside themselves (Slurm runs a copy of each batch script).
        ts=$installed/bin/touchstone
        export TOUCHSTONE=$ts
    else
        ts=$(command -v touchstone) || { echo "submit.sh: no touchstone (set TOUCHSTONE=/path/to/touchstone)" >&2; exit 2; }
    fi
fi
# check takes every option run takes, with the same meaning: the study's options as they are,
# at the largest thread count, so that an option run would not know is refused here, not by
# every task.
# (--quiet aside: check's report of the memory is read below.)
check_args=()
for a in "$@"; do
    case $a in --quiet | -q) ;; *) check_args+=("$a") ;; esac
done
check_args+=(--threads "$cpus")
err=$(mktemp "${TMPDIR:-/tmp}/submit-check.XXXXXX") || exit 2
trap 'rm -f "$err"' EXIT
out=$("$ts" check "$config" "${check_args[@]}" 2>"$err")
check_status=$?
if [ "$check_status" -ne 0 ]; then
    # A valid config whose memory exceeds what THIS machine has is not refused: the compute
    # nodes may have more, and each task checks again against its own node's limits.
    if [ "$check_status" -eq 2 ] && echo "$out" | head -n 1 | grep -q ': valid$' &&
        echo "$out" | grep -q '^  limit EXCEEDED'; then
        echo "submit.sh: note: the run needs more memory than this machine allows:" >&2
        echo "$out" | sed -n '/^memory needed/,$p' | sed 's/^/  /' >&2
        echo "  submitting anyway: every task checks again against its node's limits" >&2
    else
        echo "submit.sh: touchstone check refused the study; nothing submitted:" >&2
        sed 's/^/  /' "$err" >&2
        echo "  (checked: $ts check $config ${check_args[*]})" >&2
        exit 2
    fi
fi

# Thread counts: powers of two below the CPUs, then the CPUs themselves.
tasks=""
t=1
while [ "$t" -lt "$cpus" ]; do
    tasks="$tasks,$t"
    t=$((t * 2))
done
tasks=${tasks#,}
tasks=${tasks:+$tasks,}$cpus

results=${TOUCHSTONE_RESULTS:-results}
# --parsable prints "jobid" or "jobid;cluster".
array=$(sbatch --parsable "${opts[@]}" -c "$cpus" --array="$tasks" "$here/scaling.sbatch" "$config" "$@") || exit 1
array=${array%%;*}
gather=$(sbatch --parsable "${opts[@]}" --dependency=afterany:"$array" "$here/gather.sbatch" \
         "$results/scaling-$array" "$tasks") || {
    echo "submit.sh: gather job refused; the array $array runs anyway (scancel $array to stop it)" >&2
    exit 1
}
gather=${gather%%;*}
echo "array  $array  (tasks $tasks, $cpus CPUs each)"
echo "gather $gather  (after the array, whatever its outcome; $results/scaling-$array/summary.csv)"

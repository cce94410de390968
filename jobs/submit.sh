#!/bin/sh
# Submits a whole thread-scaling study: the scaling array (one task per thread count 1, 2, 4,
# ... up to the CPUs per task, and that count itself) and the gather job that waits for it
# (--dependency=afterok), then prints the job ids.
#
#   jobs/submit.sh [-c CPUS] [sbatch options ...] -- CONFIG [touchstone run options ...]
#   jobs/submit.sh CONFIG [touchstone run options ...]              (8 CPUs per task)
#   jobs/submit.sh -c 16 -p PARTITION -A ACCOUNT -t 1:00:00 -- configs/triad.ini --set triad.n=1e9
#
# sbatch options before `--` go to both jobs' sbatch (partition, account, QOS, constraints).
# Run it from the directory the logs and results should go to (the repository, usually).
# Prints:
#   array  <array job id>  (tasks 1,2,4,8)
#   gather <gather job id>  (after the array; results/scaling-<array job id>/summary.csv)
# Environment: TOUCHSTONE and TOUCHSTONE_RESULTS pass through to the jobs (see run.sbatch).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cpus=8
opts=""
have_sep=0
for a in "$@"; do [ "$a" = "--" ] && have_sep=1; done
if [ "$have_sep" -eq 1 ]; then
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        case $1 in
        -c | --cpus-per-task) cpus=$2; shift 2 ;;
        -c*) cpus=${1#-c}; shift ;;
        --cpus-per-task=*) cpus=${1#*=}; shift ;;
        *) opts="$opts $1"; shift ;;
        esac
    done
    shift
fi
if [ $# -lt 1 ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
fi
case $cpus in '' | *[!0-9]* | 0) echo "submit.sh: -c needs a positive number of CPUs, got '$cpus'" >&2; exit 2 ;; esac

# Thread counts: powers of two below the CPUs, then the CPUs themselves.
tasks=""
t=1
while [ "$t" -lt "$cpus" ]; do
    tasks="$tasks,$t"
    t=$((t * 2))
done
tasks=${tasks#,}
tasks=${tasks:+$tasks,}$cpus

# --parsable prints "jobid" or "jobid;cluster".
# shellcheck disable=SC2086  # $opts is a list of options
array=$(sbatch --parsable $opts -c "$cpus" --array="$tasks" "$here/scaling.sbatch" "$@") || exit 1
array=${array%%;*}
# shellcheck disable=SC2086
gather=$(sbatch --parsable $opts --dependency=afterok:"$array" "$here/gather.sbatch" \
         "${TOUCHSTONE_RESULTS:-results}/scaling-$array") || {
    echo "submit.sh: gather job refused; the array $array runs anyway (scancel $array to stop it)" >&2
    exit 1
}
gather=${gather%%;*}
echo "array  $array  (tasks $tasks, $cpus CPUs each)"
echo "gather $gather  (after the array; ${TOUCHSTONE_RESULTS:-results}/scaling-$array/summary.csv)"

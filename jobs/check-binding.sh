#!/bin/bash
# The first step of any job: does this job's binding give every thread what it should?
# Runs `touchstone advise --check` through the job's own launcher, so that every rank's threads
# are observed exactly as the real step's will be, and prints the verdict with each finding and
# its fix. Put it before the real step, with the same launcher options:
#
#   jobs/check-binding.sh srun --mpi=pmix -c "$SLURM_CPUS_PER_TASK" --cpu-bind=cores
#   jobs/check-binding.sh mpirun --map-by slot:PE=4 --bind-to core -x OMP_NUM_THREADS
#   jobs/check-binding.sh                      # one process, this shell's OMP_* environment
#
# Exit status: advise's. 0 as planned, 1 the job runs but loses (stacked threads, a rank across
# NUMA domains, unbound threads, NUMA balancing on, ...), 2 could not check. With
# TOUCHSTONE_BINDING=strict a 1 is worth stopping the job for: `... || exit`. Otherwise the
# caller goes on and the log keeps the findings.
#
# Environment (optional): TOUCHSTONE  the binary (default: ./build/app/touchstone, then PATH)
set -u
ts=${TOUCHSTONE:-}
if [ -z "$ts" ]; then
    if [ -x "${SLURM_SUBMIT_DIR:-.}/build/app/touchstone" ]; then
        ts=${SLURM_SUBMIT_DIR:-.}/build/app/touchstone
    else
        ts=$(command -v touchstone) || { echo "check-binding.sh: no touchstone (set TOUCHSTONE=/path/to/touchstone)" >&2; exit 2; }
    fi
fi
echo "==> advise --check"
"$@" "$ts" advise --check
status=$?
case $status in
0) echo "check-binding.sh: binding as planned" ;;
1) echo "check-binding.sh: the binding works but loses (findings above, each with its fix)" ;;
*) echo "check-binding.sh: could not check the binding (status $status)" ;;
esac
if [ "$status" -eq 1 ] && [ "${TOUCHSTONE_BINDING:-}" != strict ]; then
    exit 0 # a finding is news, not a reason to stop, unless asked
fi
exit "$status"

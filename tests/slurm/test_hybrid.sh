#!/bin/bash
# shellcheck disable=SC1091,SC2015  # lib.sh and pair.sh are next to this file; a && b || c is meant
# jobs/hybrid.sbatch on the emulated pair (n1, n2): NODES x TASKS-PER-NODE ranks started by
# srun --mpi=pmix, CPUS-PER-TASK OpenMP threads each. touchstone topo's ranks section in the job
# log must show the world that was asked for: its size, the hosts, the note that they share a
# kernel, every thread of every rank on its own CPU. Then the run step: verified, and its file
# holds every rank (/mpi@size).
. "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/pair.sh"

SUM="--set sum.n=1000000"
# layout name, sbatch options, nodes, tasks per node, CPUs per task
layouts="2x1x2:-N2:--ntasks-per-node=1:-c2:2:1:2
1x2x1:-N1:--ntasks-per-node=2:-c1:1:2:1
2x2x1:-N2:--ntasks-per-node=2:-c1:2:2:1"
declare -A idof
ids=""
for l in $layouts; do
    IFS=: read -r name o1 o2 o3 _ <<<"$l"
    # shellcheck disable=SC2086
    id=$(submit -p "$PAIR" "$o1" "$o2" "$o3" "$JOBS/hybrid.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
    ids="$ids $id"
    idof[$name]=$id
done
# shellcheck disable=SC2086
wait_jobs 120 $ids || finish

for l in $layouts; do
    IFS=: read -r name _ _ _ nodes per cpus <<<"$l"
    id=${idof[$name]}
    log=hybrid-$id.log
    what="hybrid.sbatch -N$nodes --ntasks-per-node=$per -c$cpus (job $id)"
    [ -r "$log" ] || { fail "$what: no log $log"; show_log "$log"; continue; }
    expect_in "$log" "^hybrid.sbatch: launcher: srun --mpi=pmix -c $cpus --cpu-bind=cores" "$what: srun through PMIx"
    expect_in "$log" "OMP_NUM_THREADS=$cpus each" "$what: OMP_NUM_THREADS from SLURM_CPUS_PER_TASK"
    expect_in "$log" "^hybrid.sbatch: topo: exit status 0" "$what: topo on every rank"
    section "$log" topo >"topo-$name.txt"
    expect_layout "topo-$name.txt" "$(job_nodes "$id")" "$per" "$cpus" "$what"
    [ "$nodes" -eq 1 ] || [ "$(job_nodes "$id")" = "n1 n2" ] || fail "$what: allocation $(job_nodes "$id"), expected n1 n2"
    # Each rank has a CPU per thread: no stacking warning from any rank.
    if grep -Eq -- "$STACKED" "topo-$name.txt"; then
        fail "$what: a stacking warning"
        grep -E -- "$STACKED" "topo-$name.txt" | sed 's/^/    /' >&2
    fi
    # advise --check through the same srun (issue 15): the binding is the plan's.
    expect_in "$log" "^hybrid.sbatch: advise --check: exit status 0" "$what: advise --check as planned"
    expect_in "$log" "^verdict    0: as planned" "$what: the verdict printed"
    expect_in "$log" "^==> run" "$what: the run step"
    expect_job_ok "$id" "$log"
    expect_in "$log" "^hybrid.sbatch: run: exit status 0" "$what: touchstone run"
    expect_in "$log" "^hybrid.sbatch: finished, verified" "$what: verified"
    expect_verified "results/hybrid-sum-parallel-$id.h5" "$what"
    [ "$(grep -c '^touchstone: error' "$log")" = 0 ] || fail "$what: an error in the log"
    size=$(h5 "results/hybrid-sum-parallel-$id.h5" /mpi@size 2>/dev/null)
    [ "$size" = $((nodes * per)) ] || fail "$what: the run's /mpi@size is '$size', expected $((nodes * per))"
done
finish

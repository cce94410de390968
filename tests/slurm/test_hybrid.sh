#!/bin/bash
# shellcheck disable=SC1091,SC2015  # lib.sh and pair.sh are next to this file; a && b || c is meant
# jobs/hybrid.sbatch on the emulated pair (n1, n2): NODES x TASKS-PER-NODE ranks started by
# srun --mpi=pmix, CPUS-PER-TASK OpenMP threads each. touchstone topo's ranks section in the job
# log must show the world that was asked for: its size, the hosts, the note that they share a
# kernel, every thread of every rank on its own CPU. Then the run step: verified, and its file
# holds every rank (/mpi@size). And steps.sbatch: touchstone as two tasks of a step that srun
# started without MPI warns once; the launch `advise --slurm` prints starts one job of 2 ranks.
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
# touchstone as the 2 tasks of a step (issue 23): srun without MPI warns once, advise's line joins them.
steps=$(submit -p "$PAIR" -N1 --ntasks-per-node=2 -c1 "$SRC/tests/slurm/steps.sbatch") || finish
# shellcheck disable=SC2086
wait_jobs 120 $ids $steps || finish

# Open MPI 4.1.4's TCP transport sometimes crashes inside MPI_Init on this emulated pair (two
# node names on one loopback address; a core shows a NULL call from mca_btl_tcp under
# ompi_mpi_init, before touchstone does anything; seen on 1 run in 5, main included; its message
# "connect() to 127.0.0.1:PORT failed: Operation now in progress (115)" prints the connect's
# stale errno, the bug open-mpi/ompi#13110 fixed in 4.1.x in 2025). Such a job is submitted
# again, at most twice, and said so: a crash of the MPI runtime is not touchstone's. (Under
# make test's load the 2 x 2 layout crashed twice in a row once, on a 2-core Xeon VM.)
for l in $layouts; do
    IFS=: read -r name o1 o2 o3 _ <<<"$l"
    for _ in 1 2; do
        log=hybrid-${idof[$name]}.log
        grep -q "exit status 139" "$log" 2>/dev/null && grep -q "Process received signal" "$log" || break
        echo "note: job ${idof[$name]} ($name): the MPI runtime crashed (exit status 139), submitting it once more:"
        grep -E "Process received signal|Signal:|\[ *[0-9]+\]" "$log" | head -n 8 | sed 's/^/    | /'
        # shellcheck disable=SC2086
        id=$(submit -p "$PAIR" "$o1" "$o2" "$o3" "$JOBS/hybrid.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
        wait_jobs 120 "$id" || finish
        idof[$name]=$id
    done
done

log=steps-$steps.log
what="steps.sbatch (job $steps)"
if [ -r "$log" ]; then
    WARN="touchstone: warning: this is task 0 of 2 of Slurm step $steps\.[0-9]+, but no MPI launch joined the tasks"
    section "$log" batch >steps-batch.txt
    expect_in steps-batch.txt "^steps.sbatch: batch: exit status 0" "$what: advise in the batch step"
    grep -q "warning" steps-batch.txt && fail "$what: touchstone alone in the batch step warned: $(grep warning steps-batch.txt)"
    section "$log" plain >steps-plain.txt
    expect_in steps-plain.txt "^steps.sbatch: plain: exit status 0" "$what: srun --mpi=none"
    expect_in steps-plain.txt "^$WARN \(srun without --mpi=pmix .*each of the 2 tasks runs the whole problem alone.*srun --mpi=pmix" \
        "$what: srun --mpi=none: the warning"
    [ "$(grep -c "touchstone: warning: this is task" steps-plain.txt)" = 1 ] ||
        fail "$what: srun --mpi=none: not one warning for the step ($(grep -c "touchstone: warning: this is task" steps-plain.txt))"
    [ "$(grep -c '^  world ' "plain-$steps.out")" = 0 ] && [ "$(grep -c '^threads' "plain-$steps.out")" -ge 2 ] ||
        fail "$what: srun --mpi=none: expected two reports of one process each"
    section "$log" advised >steps-advised.txt
    expect_in steps-advised.txt "^steps.sbatch: advised: srun --mpi=pmix --ntasks-per-node=2 --cpus-per-task=1 " \
        "$what: advise --slurm's line asks for PMIx"
    expect_in steps-advised.txt "^steps.sbatch: advised: exit status 0" "$what: advise's line"
    expect_in steps-advised.txt "^  world +2 ranks on 1 host" "$what: advise's line starts one MPI job of 2 ranks"
    grep -q "touchstone: warning: this is task" steps-advised.txt && fail "$what: advise's line: the step warning"
else
    fail "$what: no log $log"
    show_log "$log"
fi

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

#!/bin/bash
# shellcheck disable=SC1091,SC2015,SC2086  # lib.sh and pair.sh are next to this file; a && b || c is meant; $SUM
# mpirun inside a Slurm allocation (issue 14), on the emulated pair (n1, n2):
#  - the pitfall (tests/slurm/mpirun-pitfall.sbatch, -N2 --ntasks-per-node=1 -c2): plain mpirun
#    binds each rank to ONE core although it has 2 CPUs, and touchstone topo shows both threads
#    of every rank on one CPU; --map-by slot:PE=2 --bind-to core and --bind-to none give each
#    rank both. With two ranks on a node (-N1 --ntasks-per-node=2 -c1), --bind-to none puts both
#    ranks on the same CPU, PE=1 keeps them apart.
#  - jobs/hybrid-mpirun.sbatch: the same layouts as slurm.hybrid, each rank on its own cores.
#  - jobs/hybrid.sbatch where srun has no pmix plugin: it says so and falls back to mpirun.
. "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/pair.sh"

SUM="--set sum.n=1000000"
pit2=$(submit -p "$PAIR" -N2 --ntasks-per-node=1 -c2 "$SRC/tests/slurm/mpirun-pitfall.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
pit1=$(submit -p "$PAIR" -N1 --ntasks-per-node=2 -c1 "$SRC/tests/slurm/mpirun-pitfall.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
hyb2=$(submit -p "$PAIR" -N2 --ntasks-per-node=1 -c2 "$JOBS/hybrid-mpirun.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
hyb1=$(submit -p "$PAIR" -N1 --ntasks-per-node=2 -c1 "$JOBS/hybrid-mpirun.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
# hybrid.sbatch under an srun whose --mpi=list names no pmix (everything else is the real srun).
mkdir -p nopmix
cat >nopmix/srun <<EOF
#!/bin/sh
if [ "\$1" = --mpi=list ]; then
    printf 'MPI plugin types are...\n\tnone\n\tcray_shasta\n\tpmi2\n'
    exit 0
fi
exec $(command -v srun) "\$@"
EOF
chmod +x nopmix/srun
fallback=$(PATH=$WORK/nopmix:$PATH submit -p "$PAIR" -N2 --ntasks-per-node=1 -c2 "$JOBS/hybrid.sbatch" "$SRC/configs/sum.ini" $SUM) || finish
wait_jobs 150 "$pit2" "$pit1" "$hyb2" "$hyb1" "$fallback" || finish

# --- the pitfall, -c 2: the masks mpirun gave, and where topo saw the threads.
log=mpirun-pitfall-$pit2.log
what="mpirun in -N2 --ntasks-per-node=1 -c2 (job $pit2)"
expect_job_ok "$pit2" "$log"
for v in plain pe none; do
    expect_in "$log" "^$v: exit status 0" "$what: $v: topo"
done
for r in 0 1; do
    expect_in "$log" "^plain: rank $r mask [0-9]+$" "$what: plain mpirun: rank $r bound to one CPU"
    expect_in "$log" "^pe: rank $r mask 0-1$" "$what: --map-by slot:PE=2: rank $r has both CPUs"
    expect_in "$log" "^none: rank $r mask 0-1$" "$what: --bind-to none: rank $r has both CPUs"
done
section "$log" plain >plain.txt
rows=$(rank_rows plain.txt)
for r in 0 1; do
    got=$(echo "$rows" | awk -v r="$r" '$1 == r { print $5 }' | sort -u | wc -l)
    threads=$(echo "$rows" | awk -v r="$r" '$1 == r' | wc -l)
    [ "$threads" -eq 2 ] && [ "$got" -eq 1 ] ||
        fail "$what: plain mpirun: rank $r's $threads threads on $got CPU(s), expected 2 threads on 1 CPU (the pitfall)"
done
# advise --check judges it (issue 15): 1, both threads of the rank stacked on one core, while
# PE=2 and --bind-to none (OMP_PLACES=cores spreads them) are as planned.
expect_in "$log" "^plain: advise exit status 1$" "$what: plain mpirun: advise --check says the binding loses"
# Both hosts give the same finding: one line naming them (advise --check judges each host, issue 24).
expect_in "$log" "^  stacked: 2 of 2 hosts \\(hosts n[12], n[12]\\): threads r0.t0, r0.t1 are bound to core [0-9]+ together" \
    "$what: plain mpirun: the stacked finding, once for both hosts"
expect_in "$log" "^pe: advise exit status 0$" "$what: PE=2: advise --check as planned"
expect_in "$log" "^none: advise exit status 0$" "$what: --bind-to none: advise --check as planned"
# Its cause is the mask mpirun gave (issue 23), and its fix is mpirun's PE= option, which the pe
# run below follows (as planned there): not the OMP_* variables the job has set already.
expect_in "$log" "^  stacked: 2 of 2 hosts .*threads r0.t0, r0.t1 .*rank 0's affinity mask \\(CPU [0-9]+, .*fix: widen the mask: mpirun --map-by ppr:1:node:PE=2 --bind-to core" \
    "$what: plain mpirun: the mask named, mpirun's PE=2 to widen it"
grep -q "^  stacked: .*export OMP" "$log" && fail "$what: plain mpirun: a fix exporting what the job has set"
# touchstone names the pitfall: each rank's threads all on one core, with the fix the pe run uses;
# one line for both ranks, which make it alike (issue 24).
expect_in plain.txt "2 of 2 ranks \\(ranks 0-1; hosts n[12], n[12]\\): its 2 threads all run on core .*as when mpirun binds each rank to one core.*mpirun --map-by slot:PE=2 --bind-to core" \
    "$what: plain mpirun: the one-core warning naming both ranks"
section "$log" pe >pe.txt
expect_layout pe.txt "$(job_nodes "$pit2")" 1 2 "$what: --map-by slot:PE=2 --bind-to core"
section "$log" none >none.txt
expect_layout none.txt "$(job_nodes "$pit2")" 1 2 "$what: --bind-to none"

# --- two ranks on one node, -c 1: PE=1 keeps them apart, --bind-to none stacks them.
log=mpirun-pitfall-$pit1.log
what="mpirun in -N1 --ntasks-per-node=2 -c1 (job $pit1)"
expect_job_ok "$pit1" "$log"
expect_in "$log" "^pe: rank 0 mask 0$" "$what: PE=1: rank 0 on CPU 0"
expect_in "$log" "^pe: rank 1 mask 1$" "$what: PE=1: rank 1 on CPU 1"
section "$log" pe >pe1.txt
expect_layout pe1.txt "$(job_nodes "$pit1")" 2 1 "$what: --map-by slot:PE=1 --bind-to core"
expect_in "$log" "^pe: advise exit status 0$" "$what: PE=1: advise --check as planned"
expect_in "$log" "^none: advise exit status 1$" "$what: --bind-to none: advise --check says the ranks share a core"
# Its fix gives each rank a core (the pe run's binding), never --bind-to none again.
expect_in "$log" "^  stacked: threads r0.t0, r1.t0 are bound to core [0-9]+ together .*fix: give each rank its own cores: mpirun --map-by ppr:2:node:PE=1 --bind-to core" \
    "$what: --bind-to none: the launcher's fix"
section "$log" none >none1.txt
cpus=$(rank_rows none1.txt | awk '{ print $5 }' | sort -u | wc -l)
[ "$cpus" -eq 1 ] || fail "$what: --bind-to none: the two ranks on $cpus CPUs, expected both on one (each binds its thread to the node's first core)"

# --- jobs/hybrid-mpirun.sbatch
for job in "$hyb2:2:1:2" "$hyb1:1:2:1"; do
    IFS=: read -r id nodes per cpus <<<"$job"
    log=hybrid-mpirun-$id.log
    what="hybrid-mpirun.sbatch -N$nodes --ntasks-per-node=$per -c$cpus (job $id)"
    [ -r "$log" ] || { fail "$what: no log $log"; continue; }
    expect_in "$log" "^hybrid-mpirun.sbatch: launcher: mpirun --map-by slot:PE=$cpus --bind-to core" "$what: launcher"
    expect_in "$log" "^hybrid-mpirun.sbatch: topo: exit status 0" "$what: topo on every rank"
    section "$log" topo >"topo-$id.txt"
    expect_layout "topo-$id.txt" "$(job_nodes "$id")" "$per" "$cpus" "$what"
    grep -Eq -- "$STACKED" "topo-$id.txt" && fail "$what: a stacking warning: $(grep -E -- "$STACKED" "topo-$id.txt" | head -n 1)"
    expect_in "$log" "^==> run" "$what: the run step"
    expect_job_ok "$id" "$log"
    expect_in "$log" "^hybrid-mpirun.sbatch: finished, verified" "$what: verified"
    expect_verified "results/hybrid-sum-parallel-$id.h5" "$what"
done

# --- hybrid.sbatch without pmix: a clear message, then mpirun with PE= (2 ranks of 2 CPUs).
log=hybrid-$fallback.log
what="hybrid.sbatch where srun has no pmix (job $fallback)"
expect_in "$log" "no pmix plugin .*falling back to mpirun" "$what: the message"
expect_in "$log" "^hybrid.sbatch: launcher: mpirun --map-by slot:PE=2 --bind-to core" "$what: mpirun"
section "$log" topo >fallback.txt
expect_layout fallback.txt "$(job_nodes "$fallback")" 1 2 "$what"
finish

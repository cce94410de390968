#!/bin/sh
# The warnings across ranks (issue 14) in `touchstone topo` and `advise --check` under mpirun,
# in the layouts whose outcome a 2-core machine fixes: the launcher's binding (the mask of each
# rank) decides them, not where the scheduler happens to put a thread.
# Usage: test_rank_warnings.sh TOUCHSTONE SOURCE_DIR MPIRUN
. "$(dirname "$0")/lib.sh"

cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "skipped: $cpus CPU, the layouts below need 2"; exit 0; }

# mpirun binds each rank to a core of its own: 2 threads a rank take turns on that core, the
# mpirun-in-allocation pitfall of every rank: one line naming both (issue 24), each number that
# differs between them (core, CPU, mask) as the smallest..largest. The masks are disjoint.
if expect_run 0 "topo on 2 ranks bound to a core each" "$MPIRUN" --bind-to core --map-by core -np 2 "$TS" topo \
    --threads 2; then
    expect_in "$OUT" "^  across ranks: warning: 2 of 2 ranks \(ranks 0-1; host [^)]*\): its 2 threads all run on core 0\.\.1 \(CPU 0\.\.1; the rank's mask: 0\.\.1\): .*give each rank 2 cores of its own: mpirun --map-by slot:PE=2 --bind-to core, or srun --mpi=pmix --cpus-per-task=2 --cpu-bind=cores, with OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread\$" \
        "ranks bound to one core: the ranks' warning"
    [ "$(grep -c '^  across ranks: warning: .*all run on core' "$OUT")" = 1 ] ||
        fail "ranks bound to one core: not one line for both ranks"
    expect_not_in "$OUT" "may both run on" "ranks bound to a core each: their masks do not overlap"
fi

# advise --check judges as topo does (issue 23), and each fix it offers, followed, ends the
# finding. The machine's conditions from a quiet fake tree: the verdicts are about the binding.
mkdir -p "$WORK/quiet/proc/sys/kernel" "$WORK/quiet/proc/sys/vm"
echo 0 >"$WORK/quiet/proc/sys/kernel/numa_balancing"
echo 0 >"$WORK/quiet/proc/sys/vm/zone_reclaim_mode"
CHECK_ENV="-x TOUCHSTONE_CONDITIONS_ROOT=$WORK/quiet -x OMP_PLACES=cores -x OMP_PROC_BIND=spread"
# advise_check STATUS WHAT THREADS MPIRUN_ARGS...: advise --check on the ranks mpirun starts.
advise_check() {
    expected=$1
    what=$2
    threads=$3
    shift 3
    # shellcheck disable=SC2086
    expect_run "$expected" "$what" "$MPIRUN" "$@" $CHECK_ENV -x OMP_NUM_THREADS="$threads" "$TS" advise --check
}
# 2 ranks bound to a core each, 2 threads a rank (topo warns above): not "as planned".
advise_check 1 "advise --check, 2 ranks x 2 threads bound to a core each" 2 --bind-to core --map-by core -np 2 &&
    expect_in "$OUT" "^  stacked: threads r[01].t0, r[01].t1 are bound to core [0-9]+ together and take turns on it: the job runs 4 threads on its 2 cores \(2 PUs\); fix: at most 1 thread a rank \(export OMP_NUM_THREADS=1\)" \
        "2 x 2 on 2 cores: the finding and its fix"
advise_check 0 "advise --check, its fix: 1 thread a rank" 1 --bind-to core --map-by core -np 2
# One rank of 2 threads bound to one core (mpirun's binding of 1 or 2 ranks): the mask is the
# cause; the fix is mpirun's own option, not OMP_* already set, not --bind-to none.
advise_check 1 "advise --check, 1 rank of 2 threads bound to a core" 2 --bind-to core -np 1 &&
    expect_in "$OUT" "rank 0's affinity mask \(CPU [0-9]+, .*fix: widen the mask: mpirun --map-by ppr:1:node:PE=2 --bind-to core -x OMP_NUM_THREADS -x OMP_PLACES -x OMP_PROC_BIND\$" \
        "one rank on one core: the mask widened by mpirun's option"
advise_check 0 "advise --check, its fix: --map-by ppr:1:node:PE=2 --bind-to core" 2 --map-by ppr:1:node:PE=2 \
    --bind-to core -np 1
# 2 ranks of 1 thread under --bind-to none: both bind their thread to core 0; the fix parts them.
advise_check 1 "advise --check, 2 ranks unbound by mpirun" 1 --bind-to none -np 2 &&
    expect_in "$OUT" "^  stacked: threads r0.t0, r1.t0 are bound to core 0 together while 1 of the job's 2 cores has no thread: they take turns on it; fix: give each rank its own cores: mpirun --map-by ppr:2:node:PE=1 --bind-to core " \
        "2 ranks on core 0: the launcher's line"
advise_check 0 "advise --check, its fix: --map-by ppr:2:node:PE=1 --bind-to core" 1 --map-by ppr:2:node:PE=1 \
    --bind-to core -np 2
# topo's one-core warning, and its fix followed (one rank: the machine has 2 cores).
if expect_run 0 "topo, 1 rank of 2 threads bound to a core" "$MPIRUN" --bind-to core -np 1 -x OMP_PLACES=cores \
    -x OMP_PROC_BIND=spread "$TS" topo --threads 2; then
    expect_in "$OUT" "^  across ranks: warning: rank 0 .*all run on core .*mpirun --map-by slot:PE=2 --bind-to core" \
        "topo, one rank on one core: the warning"
fi
if expect_run 0 "topo under the one-core warning's fix" "$MPIRUN" --map-by slot:PE=2 --bind-to core -np 1 \
    -x OMP_PLACES=cores -x OMP_PROC_BIND=spread "$TS" topo --threads 2; then
    expect_not_in "$OUT" "across ranks: warning|ON ONE CORE|share core" "topo under --map-by slot:PE=2: a warning"
fi

# No binding from mpirun, OMP_PLACES=cores: both ranks may use every CPU, and each binds its
# thread 0 to the first core: the masks overlap, whatever the threads' CPUs.
MPI_ARGS="-x OMP_PLACES=cores"
if mpi_ts 0 "topo on 2 unbound ranks" 2 topo --threads 1; then
    expect_in "$OUT" "^  across ranks: warning: host [^:]*: ranks 0 and 1 may both run on CPUs [0-9,-]+ \(masks [0-9,-]+ and [0-9,-]+\): .*srun --mpi=pmix --cpus-per-task=N --cpu-bind=cores, or mpirun --map-by slot:PE=N" \
        "unbound ranks: the overlap warning"
    [ "$(grep -c '^  across ranks: warning:' "$OUT")" = 1 ] || fail "unbound ranks of one thread: not one warning across ranks"
    expect_not_in "$OUT" "^rank warnings: none" "unbound ranks: 'none' printed above a warning"
fi
MPI_ARGS=""

# A good layout: a core a rank, one thread each. Nothing across ranks (each rank still has its
# own warning that binding is off).
if expect_run 0 "topo on 2 ranks of 1 thread, a core each" "$MPIRUN" --bind-to core --map-by core -np 2 "$TS" topo \
    --threads 1; then
    expect_not_in "$OUT" "across ranks" "a core a rank, one thread each: a line across ranks"
    expect_in "$OUT" "^rank warnings$" "a core a rank: the section"
fi

# Two node names on one kernel, as srun gives the ranks of the emulated cluster (SLURMD_NODENAME
# n1 and n2, one hostname, one boot id): every rank may use every CPU, yet no overlap warning
# between the two "hosts", one note that they share a kernel instead.
if expect_run 0 "topo on two node names of one kernel" "$MPIRUN" --oversubscribe --bind-to none \
    -np 1 env SLURMD_NODENAME=n1 "$TS" topo --threads 1 : -np 1 env SLURMD_NODENAME=n2 "$TS" topo --threads 1; then
    expect_in "$OUT" "^  world +2 ranks on 2 hosts sharing 1 kernel" "two node names: the world line"
    expect_in "$OUT" "^  hosts +2 of 2 hosts \(hosts n1, n2\): 1 rank, 1 thread \(1 a rank\) on 1 of [0-9]+ CPUs, 1 of [0-9]+ cores; NUMA nodes [0-9]+\$" \
        "two node names: one summary for both hosts"
    expect_in "$OUT" "^  across ranks: note: hosts n1, n2 share one kernel \(boot id " "two node names: the note"
    expect_not_in "$OUT" "across ranks: warning" "two node names of one kernel: a warning across ranks"
    expect_in "$OUT" "^  2 of 2 ranks \(ranks 0-1; hosts n1, n2\): warning: " \
        "two node names: the ranks' warnings name both nodes"
fi
# The same as JSON: the world's hosts and kernel, each rank's node name, the note as a list item.
if expect_run 0 "topo --format json on two node names of one kernel" "$MPIRUN" --oversubscribe --bind-to none \
    -np 1 env SLURMD_NODENAME=n1 "$TS" topo --threads 1 --format json : \
    -np 1 env SLURMD_NODENAME=n2 "$TS" topo --threads 1 --format json; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["mpi"]
assert (m["size"], m["hosts"], m["kernels"], m["shared_kernel"]) == (2, 2, 1, True), m
assert [r["host"] for r in d["ranks"]] == ["n1", "n2"], d["ranks"]
assert all(r["num_threads"] == 1 and len(r["threads"]) == 1 for r in d["ranks"]), d["ranks"]
assert d["ranks"][0]["boot_id"] == d["ranks"][1]["boot_id"]
assert any(w["kind"] == "note" and w["text"].startswith("hosts n1, n2 share one kernel") for w in d["rank_warnings"]), d["rank_warnings"]
assert not [w for w in d["rank_warnings"] if w["kind"] == "warning"], d["rank_warnings"]
assert d["ranks"][1]["warnings"], "rank 1 has its own binding warnings"
' "$OUT" || fail "topo --format json on two node names: not the document expected"
fi
# advise --check on two node names, a rank each bound to one core with 2 threads: each host is
# judged on its machine's first rank as a job of 1 rank (not rank 0's host alone, not 2 ranks on
# one host), and the finding both give is one line naming both (issue 24). The OMP_* variables
# by env: mpirun's -x reaches the first app context only.
two_hosts_env="TOUCHSTONE_CONDITIONS_ROOT=$WORK/quiet OMP_PLACES=cores OMP_PROC_BIND=spread OMP_NUM_THREADS=2"
# shellcheck disable=SC2086
if expect_run 1 "advise --check on two node names, a core a rank" "$MPIRUN" --bind-to core --map-by core \
    -np 1 env SLURMD_NODENAME=n1 $two_hosts_env "$TS" advise --check : \
    -np 1 env SLURMD_NODENAME=n2 $two_hosts_env "$TS" advise --check; then
    expect_in "$OUT" "^job +1 rank x 2 threads \(the job: 1 MPI rank on this host, " "two node names: rank 0's host planned alone"
    expect_in "$OUT" "^  stacked: 2 of 2 hosts \(hosts n1, n2\): threads r0.t0, r0.t1 are bound to core 0\.\.1 together" \
        "two node names: one finding for both hosts"
    [ "$(grep -c '^  stacked: ' "$OUT")" = 1 ] || fail "two node names: not one stacked finding"
fi
finish

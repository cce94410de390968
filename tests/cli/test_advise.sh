#!/bin/sh
# touchstone advise (issue 15): plans on synthetic nodes against golden tables reviewed once by
# hand (tests/cli/advise/*.txt), the JSON of a plan, refusals, and --check's verdicts on this
# machine: 0 under the binding it recommends, 1 with OMP_PLACES='{0}' (stacked) and with
# OMP_PROC_BIND=false (unbound), 2 on a topology it cannot read.
. "$(dirname "$0")/lib.sh"
GOLDEN="$SRC/tests/cli/advise"
SNC="package:2 numa:2 l3:1 core:4 pu:2"
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND

# golden NAME ARGS...: the plan printed exactly as reviewed.
golden() {
    name=$1
    shift
    run_ts 0 "advise $name" advise "$@" || return
    if ! cmp -s "$OUT" "$GOLDEN/$name.txt"; then
        fail "advise $name: differs from $name.txt"
        diff "$GOLDEN/$name.txt" "$OUT" | head -20 >&2
    fi
}
golden snc-4x0 --synthetic "$SNC" --ranks 4
golden snc-2x0 --synthetic "$SNC" --ranks 2
golden snc-8x1 --synthetic "$SNC" --ranks 8 --threads 1
golden snc-3x0 --synthetic "$SNC" --ranks 3
golden snc-1x6-slurm --synthetic "$SNC" --ranks 4 --threads 6 --slurm
golden flat-1x0-smt --synthetic "package:1 core:8 pu:2" --smt
golden numa8-8x2 --synthetic "package:2 numa:4 l3:1 core:2 pu:1" --ranks 8 --threads 2
# Real nodes (tests/topologies/README.md says where each comes from).
cd "$SRC/tests/topologies" || exit 1 # the plans name the file as given
golden xeon-snc2-4x0 --topology xeon-6230-2s-snc2.xml --ranks 4
golden epyc-8x0 --topology epyc-7451-2s-8numa.xml --ranks 8
golden knl-4x8 --topology knl-snc4-hybrid.xml --ranks 4 --threads 8
golden kunpeng-8x8 --topology kunpeng920-2s-4numa.xml --ranks 8 --threads 8
golden power8-2x0-smt --topology power8-2s-smt2.xml --ranks 2 --smt
golden opteron-cgroup-2x0 --topology opteron-4s-cgroup6.xml --ranks 2
cd "$WORK" || exit 1

# The JSON of a plan: every rank's threads on cores of their own, in the rank's NUMA domain.
if run_ts 0 "advise --format json" advise --synthetic "$SNC" --ranks 4 --format json; then
    python3 - "$OUT" <<'PY' || fail "advise --format json: the plan does not hold"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["node"]["numa_domains"] == 4 and d["node"]["cores"] == 16 and d["node"]["smt"] == 2, d["node"]
assert d["openmp"] == {"OMP_NUM_THREADS": 4, "OMP_PLACES": "cores", "OMP_PROC_BIND": "spread"}, d["openmp"]
assert d["srun"].startswith("srun --mpi=pmix --ntasks-per-node=4 --cpus-per-task=8"), d["srun"]
assert len(d["ranks"]) == 4
cores = [t["core"] for r in d["ranks"] for t in r["threads"]]
assert len(cores) == 16 and len(set(cores)) == 16, cores
for r in d["ranks"]:
    assert r["numa_first"] == r["numa_last"] == r["rank"], r
    assert all(t["numa"] == r["rank"] for t in r["threads"]), r
assert "verdict" not in d
PY
fi

# Refusals, exit 2 with the reason.
run_ts 2 "17 ranks on 16 cores" advise --synthetic "$SNC" --ranks 17 &&
    expect_in "$ERR" "17 ranks on 16 usable cores" "17 ranks: the reason"
run_ts 2 "a missing topology file" advise --topology "$WORK/none.xml" &&
    expect_in "$ERR" "none.xml: cannot read topology: No such file or directory" "missing topology: the errno text"
echo "not xml" >"$WORK/bad.xml"
run_ts 2 "a topology that is not hwloc XML" advise --topology "$WORK/bad.xml" &&
    expect_in "$ERR" "bad.xml" "bad topology: the file named"
run_ts 2 "an invalid synthetic description" advise --synthetic "package:two" &&
    expect_in "$ERR" "package:two" "bad synthetic: the description named"
run_ts 2 "--ranks 0" advise --ranks 0
run_ts 2 "--check on another node" advise --check --synthetic "$SNC"
run_ts 2 "an unknown format" advise --format xml

# A Slurm step of several tasks that MPI did not join (srun -n 2 where MpiDefault is none): task 0
# warns, once, that each task runs alone; the other tasks and a step of one task do not.
# (tests/slurm/test_hybrid.sh runs it through a real srun.)
unset SLURM_JOB_ID SLURM_STEP_ID SLURM_NTASKS SLURM_STEP_NUM_TASKS SLURM_PROCID
STEP="SLURM_JOB_ID=7 SLURM_STEP_ID=0"
# shellcheck disable=SC2086
expect_run 0 "advise as task 0 of 2 without MPI" env $STEP SLURM_STEP_NUM_TASKS=2 SLURM_PROCID=0 "$TS" advise \
    --synthetic "$SNC" --ranks 2 &&
    expect_in "$ERR" "^touchstone: warning: this is task 0 of 2 of Slurm step 7.0, but no MPI launch joined the tasks .*each of the 2 tasks runs the whole problem alone.*srun --mpi=pmix" \
        "task 0 of 2: the warning"
[ "$(grep -c warning "$ERR")" = 1 ] || fail "task 0 of 2: not one warning"
# shellcheck disable=SC2086
expect_run 0 "advise as task 1 of 2 without MPI" env $STEP SLURM_STEP_NUM_TASKS=2 SLURM_PROCID=1 "$TS" advise \
    --synthetic "$SNC" --ranks 2 && expect_not_in "$ERR" "warning" "task 1 of 2: a second warning"
# shellcheck disable=SC2086
expect_run 0 "advise as the one task of a step" env $STEP SLURM_STEP_NUM_TASKS=1 SLURM_NTASKS=2 SLURM_PROCID=0 \
    "$TS" advise --synthetic "$SNC" --ranks 2 && expect_not_in "$ERR" "warning" "a step of one task: a warning"
# A batch script of a 2-task job starting touchstone once: SLURM_NTASKS=2, SLURM_PROCID=0, no step.
expect_run 0 "advise in a batch script of 2 tasks" env SLURM_JOB_ID=7 SLURM_NTASKS=2 SLURM_PROCID=0 "$TS" advise \
    --synthetic "$SNC" --ranks 2 && expect_not_in "$ERR" "warning" "the batch script: a warning"

# --check on this machine, with as many threads as cores (at most 2: both verdicts hold). The
# machine's conditions come from a fake tree, quiet but for the case that turns NUMA balancing on,
# so that the verdicts are about the binding whatever this machine's kernel settings.
mkdir -p "$WORK/quiet/proc/sys/kernel" "$WORK/quiet/proc/sys/vm" "$WORK/balancing/proc/sys/kernel"
echo 0 >"$WORK/quiet/proc/sys/kernel/numa_balancing"
echo 0 >"$WORK/quiet/proc/sys/vm/zone_reclaim_mode"
echo 1 >"$WORK/balancing/proc/sys/kernel/numa_balancing"
export TOUCHSTONE_CONDITIONS_ROOT="$WORK/quiet"
cores=$(nproc)
[ "$cores" -gt 2 ] && cores=2
if [ "$cores" -ge 2 ]; then
    expect_run 0 "--check under the recommended binding" env OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread \
        "$TS" advise --check && expect_in "$OUT" "^verdict    0: as planned \(2 threads observed\)" "verdict 0"
    expect_run 1 "--check with OMP_PLACES={0}" env OMP_NUM_THREADS=2 OMP_PLACES='{0}' "$TS" advise --check &&
        expect_in "$OUT" "^  stacked: threads r0.t0, r0.t1 are bound to core 0 together" "stacked: the finding"
    expect_run 1 "--check with OMP_PROC_BIND=false" env OMP_NUM_THREADS=2 OMP_PROC_BIND=false "$TS" advise --check &&
        expect_in "$OUT" "^  unbound: rank 0: 2 of its 2 threads may run on several cores" "unbound: the finding"
    [ -s "$ERR" ] && fail "--check: a verdict of 1 printed on stderr: $(head -3 "$ERR")"
    # taskset -c 0 with the plan's variables already set: the process's mask confines the threads.
    # The fix widens it and asks for nothing already set; followed, the finding is gone.
    if command -v taskset >/dev/null; then
        expect_run 1 "--check under taskset -c 0" env OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread \
            taskset -c 0 "$TS" advise --check &&
            expect_in "$OUT" "^  stacked: threads r0.t0, r0.t1 are bound to core 0 together while 1 of the job's 2 cores has no thread: .*rank 0's affinity mask \(CPU 0, .*fix: widen the mask: taskset -c 0-1 " \
                "taskset -c 0: the mask named, widened" &&
            expect_not_in "$OUT" "^  stacked: .*export OMP" "taskset -c 0: an export of what is already set"
        expect_run 0 "--check under the widened mask" env OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread \
            taskset -c 0-1 "$TS" advise --check
        # OMP_PROC_BIND alone set: the mask, and of the variables only the one missing.
        expect_run 1 "--check under taskset -c 0, OMP_PLACES unset" env OMP_NUM_THREADS=2 OMP_PROC_BIND=spread \
            taskset -c 0 "$TS" advise --check &&
            expect_in "$OUT" "fix: widen the mask: taskset -c 0-1 .*; and export OMP_PLACES=cores\$" \
                "taskset -c 0, OMP_PLACES unset: what is missing"
    fi
    expect_run 1 "--check --format json" env OMP_NUM_THREADS=2 OMP_PLACES='{0}' "$TS" advise --check --format json &&
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"] == 1 and d["observed_threads"] == 2 and "stacked" in [f["kind"] for f in d["findings"]], d' "$OUT" ||
        fail "--check --format json: verdict 1 with the stacked finding expected"
    expect_run 1 "--check with NUMA balancing on" env TOUCHSTONE_CONDITIONS_ROOT="$WORK/balancing" OMP_NUM_THREADS=2 \
        OMP_PLACES=cores OMP_PROC_BIND=spread "$TS" advise --check &&
        expect_in "$OUT" "^  condition: kernel.numa_balancing is 1: .*fix: echo 0 > /proc/sys/kernel/numa_balancing" \
            "balancing: the finding"
    # A run with check.binding = strict: judged before anything is timed.
    SUM="$SRC/configs/sum.ini --set sum.n=100000 --set run.iterations=2 --threads 2 -q --set check.binding=strict"
    # shellcheck disable=SC2086
    run_ts 0 "run, check.binding=strict, bound as planned" run $SUM --set openmp.places=cores \
        --set openmp.proc_bind=spread -o "$WORK/strict-ok.h5" && [ -s "$WORK/strict-ok.h5" ] ||
        fail "run, strict, as planned: no results file"
    # shellcheck disable=SC2086
    run_ts 1 "run, check.binding=strict, all on CPU 0" run $SUM --set 'openmp.places={0}' -o "$WORK/strict-bad.h5" &&
        expect_in "$ERR" "^touchstone: binding: stacked: threads r0.t0, r0.t1 are bound to core 0" "strict: the finding" &&
        expect_in "$ERR" "^touchstone: check.binding = strict: the binding of these 2 threads loses" "strict: the verdict"
    [ -e "$WORK/strict-bad.h5" ] && fail "run, strict, a binding that loses: a results file was written"
    # jobs/check-binding.sh, the first step of a job: the launcher is what comes before touchstone.
    expect_run 0 "check-binding.sh, a binding that loses" env TOUCHSTONE="$TS" "$SRC/jobs/check-binding.sh" \
        env OMP_NUM_THREADS=2 OMP_PLACES='{0}' &&
        expect_in "$OUT" "^check-binding.sh: the binding works but loses" "check-binding.sh: the verdict"
    expect_run 1 "check-binding.sh, strict" env TOUCHSTONE="$TS" TOUCHSTONE_BINDING=strict "$SRC/jobs/check-binding.sh" \
        env OMP_NUM_THREADS=2 OMP_PLACES='{0}'
    expect_run 0 "check-binding.sh, as planned" env TOUCHSTONE="$TS" TOUCHSTONE_BINDING=strict \
        "$SRC/jobs/check-binding.sh" env OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread &&
        expect_in "$OUT" "^check-binding.sh: binding as planned" "check-binding.sh: as planned"
else
    echo "one CPU: the --check verdicts need two"
fi
finish

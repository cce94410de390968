#!/bin/sh
# The OpenMP binding model against libgomp itself, on the machine this runs on: for every
# OMP_PLACES x OMP_PROC_BIND x OMP_NUM_THREADS (1 .. 2 x CPUs) below, omp_truth reports the
# places list libgomp built, its binding policy and the place of every thread, beside the
# model's answer; they must be equal. libgomp's warnings (an OMP_PLACES it refuses) must match
# what the model says it ignores. Then the same under `taskset -c LAST_CPU` (a partial
# allocation: places keep only the CPUs the process may use; the model is told which through
# TS_TRUTH_CPUS), for every single policy and 1 .. 2 threads. Prints how many combinations
# were compared.
#
# Usage: [TRUTH_PLACES=...] [TRUTH_BINDS=...] test_omp_truth.sh OMP_TRUTH [MAX_THREADS]
#   OMP_TRUTH    the omp_truth program of a touchstone build (build/tests/topo/omp_truth)
#   MAX_THREADS  the largest team (default: 2 x the CPUs this process may use)
# It needs nothing but sh and the program, so it runs as it is inside the emulated two-node
# machine (tests/numa_vm) given the build directory's omp_truth there.
set -u
TRUTH=${1:?path to the omp_truth program}
CPUS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc) # busybox (the VM) has only nproc
MAX=${2:-$((2 * CPUS))}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/omp-truth.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# "-" stands for the variable unset. Explicit lists name CPUs 0 and 1, which every machine
# the suite runs on has.
PLACES='-
threads
cores
sockets
numa_domains
ll_caches
{0}
{0},{1}
{0:2}
{0:1}:2:1
0,1
{0:2,!1}
{0},{1},!{0}
threads(1)
cores(1)
sockets(1)
THREADS
!{0}
{0}:2:-1
{0:2}:3
{63}
{64}
cores(
{0,}
'
BINDS='-
false
true
master
primary
close
spread
spread,close
close,spread
true,close
bogus'

# TRUTH_PLACES and TRUTH_BINDS (one value a line) replace the lists: the emulated machine,
# where each run costs some 20 times more, checks the values its two NUMA nodes change.
PLACES=${TRUTH_PLACES:-$PLACES}
BINDS=${TRUTH_BINDS:-$BINDS}

# Only what each run sets below reaches libgomp (the caller's OpenMP settings would change its
# answers).
unset OMP_PLACES OMP_PROC_BIND GOMP_CPU_AFFINITY OMP_DISPLAY_ENV OMP_DYNAMIC OMP_THREAD_LIMIT OMP_NUM_THREADS

compared=0
differ=0
warned=0
ignored=0

# sweep BINDS MAX_THREADS: every OMP_PLACES x each of BINDS x 1 .. MAX_THREADS threads, each
# run started through $LAUNCH (empty, or a taskset command line).
sweep() {
    binds=$1
    max=$2
    old_ifs=$IFS
    IFS='
'
    for places in $PLACES; do
        for bind in $binds; do
            t=1
            while [ "$t" -le "$max" ]; do
                IFS=$old_ifs
                # Every run's output and libgomp's warnings after a line naming the run, into one
                # file that one awk reads at the end (an awk per run was a third of the time).
                name="${LAUNCH:+$LAUNCH: }OMP_PLACES='$places' OMP_PROC_BIND='$bind' OMP_NUM_THREADS=$t"
                echo "@@ $name" >>"$WORK/all"
                # The variables set in front of the program, the others unset above: an env
                # process in between cost as much CPU as omp_truth itself.
                if [ "$places" = - ] && [ "$bind" = - ]; then
                    OMP_NUM_THREADS=$t $LAUNCH "$TRUTH"
                elif [ "$places" = - ]; then
                    OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind $LAUNCH "$TRUTH"
                elif [ "$bind" = - ]; then
                    OMP_NUM_THREADS=$t OMP_PLACES=$places $LAUNCH "$TRUTH"
                else
                    OMP_NUM_THREADS=$t OMP_PLACES=$places OMP_PROC_BIND=$bind $LAUNCH "$TRUTH"
                fi >>"$WORK/all" 2>&1
                status=$?
                compared=$((compared + 1))
                if [ "$status" -ne 0 ]; then
                    differ=$((differ + 1))
                    echo "DIFFERS (exit status $status): $name" >&2
                    awk '/^@@ / { b = "" } { b = b "    " $0 "\n" } END { printf "%s", b }' "$WORK/all" | head -8 >&2
                fi
                IFS='
'
                t=$((t + 1))
            done
        done
    done
    IFS=$old_ifs
    # libgomp warns about OMP_PLACES (or OMP_PROC_BIND) exactly when the model says so, run by
    # run: the differing runs, then "TOTALS warned ignored differing".
    awk '
        function end_run() {
            if (name == "") return
            warned += w; ignored += ign
            if (lp lb != mp mb) {
                printf "WARNINGS DIFFER: %s: libgomp warned about places/bind %d%d, the model says %d%d\n", name, lp, lb, mp, mb
                printf "%s", block
                bad++
            }
        }
        /^@@ / { end_run(); name = substr($0, 4); w = lp = lb = mp = mb = ign = 0; block = ""; next }
        { if (length(block) < 600) block = block "    " $0 "\n" }
        /libgomp:/ { w = 1; if (/OMP_PROC_BIND/) lb = 1; else lp = 1 }
        /^model-says/ { mp = /places_warned=1/; mb = /bind_ignored=1/; ign = /places_ignored=1/ || mb }
        END { end_run(); printf "TOTALS %d %d %d\n", warned, ignored, bad }' "$WORK/all" >"$WORK/verdict"
    grep -v '^TOTALS ' "$WORK/verdict" >&2
    set -- $(sed -n 's/^TOTALS //p' "$WORK/verdict")
    warned=$((warned + ${1:-0}))
    ignored=$((ignored + ${2:-0}))
    differ=$((differ + ${3:-1}))
    rm -f "$WORK/all"
}

LAUNCH=
sweep "$BINDS" "$MAX"
echo "omp_truth: $compared combinations compared on $CPUS CPUs (threads 1..$MAX), $differ differ;" \
    "libgomp warned in $warned, the model ignored OMP_PLACES or OMP_PROC_BIND in $ignored"
total=$compared

# A partial allocation: the process may use only its last CPU, as under srun on a shared node.
# Places keep only that CPU, {0} has none left, and libgomp says so.
last=$((CPUS - 1))
if [ "$CPUS" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    compared=0
    warned=0
    ignored=0
    LAUNCH="taskset -c $last"
    export TS_TRUTH_CPUS=$last
    sweep "$(printf '%s\n' $BINDS | grep -v ',')" 2
    unset TS_TRUTH_CPUS
    echo "omp_truth: $compared more compared under taskset -c $last (threads 1..2);" \
        "libgomp warned in $warned, the model ignored OMP_PLACES or OMP_PROC_BIND in $ignored"
    total=$((total + compared))
else
    echo "omp_truth: no taskset or a single CPU, partial allocation not checked"
fi
echo "omp_truth: $total combinations in all, $differ differ"
[ "$differ" -eq 0 ]

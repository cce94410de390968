#!/bin/sh
# Run-level times across ranks (issue 28): /timings holds the job's, /mpi/ranks each rank's own.
# On 2 ranks of 1 thread running sum (no halo: nothing couples the ranks inside a timed step),
# rank 1 is stopped (SIGSTOP) for 0.5 s, several times, while the ranks iterate. An iteration
# rank 1 was stopped in is the job's slowest, so /timings/kernel, the sum of /timings/iteration,
# exceeds rank 0's own kernel time by most of a stop: rank 0 waits for rank 1 between its
# iterations (reading the stop vote rank 1 has not posted yet, an iteration later), outside its
# timed steps, and its own times never see the stop. Every other phase and the total are the largest of the ranks' own, exactly. No
# speed is asserted: the stop is ours, and the file says where it landed.
# Usage: test_rank_times.sh TOUCHSTONE SOURCE_DIR MPIRUN H5GET
. "$(dirname "$0")/lib.sh"
H5GET=${4:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1

STOP=0.5   # seconds rank 1 stands still each time
STOPS=4    # times a run: a stop misses the timed steps only when rank 1 waits for rank 0
ATTEMPTS=3 # runs, until a stop lands inside a timed step of rank 1 (the file says which did)
# 64 MB a rank, an iteration of a few ms; 400 of them outlast the stops (rank 1 runs only
# between them). Binding off: mpirun does not bind the ranks here, so both would take core 0.
RUN="$SRC/configs/sum.ini --set sum.n=16000000 --set run.iterations=400 --set openmp.proc_bind=false --threads 1"

get() { "$H5GET" "$1" "$2" 2>/dev/null; }

# rank_pid JOB RANK: the process of that rank among mpirun's children (its environment says
# which; the name may be "exe" after the binding's re-execution of /proc/self/exe).
rank_pid() {
    launcher=$(pgrep -P "$1" -x "$(basename "$MPIRUN")" || echo "$1")
    for p in $(pgrep -P "$launcher"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && echo "$p"
    done
}

# stopped_run OUT: the run on 2 ranks, rank 1 stopped STOPS times once rank 0 reports progress
# (a tenth of the iterations done: both ranks are iterating, the allreduce couples their steps).
stopped_run() {
    # shellcheck disable=SC2086
    TOUCHSTONE_PROGRESS_DELAY=0 timeout 900 "$MPIRUN" --oversubscribe --bind-to none -np 2 "$TS" run $RUN \
        -o "$1" >"$OUT" 2>"$ERR" &
    job=$!
    while ! grep -q '^touchstone: progress: ' "$ERR" 2>/dev/null && kill -0 $job 2>/dev/null; do
        sleep 0.05
    done
    victim=$(rank_pid $job 1)
    [ -n "$victim" ] || fail "found no rank 1 among mpirun's children"
    k=0
    while [ -n "$victim" ] && [ $k -lt $STOPS ] && kill -STOP "$victim" 2>/dev/null; do
        sleep $STOP
        kill -CONT "$victim"
        sleep 0.1
        k=$((k + 1))
    done
    wait $job
    status=$?
    [ $status = 0 ] || { fail "2 ranks, rank 1 stopped $k times: exit status $status"; sed 's/^/    | /' "$ERR" | tail -8 >&2; }
}

# landed FILE: rank 1's iterations that held a stop (most of STOP long); its row of
# /mpi/rank_iteration follows rank 0's.
landed() {
    n=$(get "$1" /timings@n_iterations)
    get "$1" /mpi/rank_iteration | awk -v n="$n" -v s="$STOP" 'NR > n && $1 >= 0.9 * s { k++ } END { print k + 0 }'
}

attempt=1
while :; do
    stopped_run "$WORK/run.h5"
    [ $status = 0 ] || finish
    hits=$(landed "$WORK/run.h5")
    [ "$hits" -gt 0 ] && break
    echo "run $attempt: none of $k stops landed inside a timed step of rank 1 (it waited for rank 0): again" >&2
    [ $attempt -ge $ATTEMPTS ] && { fail "no stop landed inside a timed step of rank 1 in $ATTEMPTS runs"; finish; }
    attempt=$((attempt + 1))
done
F=$WORK/run.h5
n=$(get "$F" /timings@n_iterations)
kernel=$(get "$F" /timings/kernel)
own=$(get "$F" /mpi/ranks:kernel | tr '\n' ' ')
echo "$hits stop(s) of rank 1 inside its iterations; /timings/kernel $kernel s, own kernel times $own" >&2

# The kernel is the sum of the iterations, each iteration the slowest rank's, exactly.
get "$F" /timings/iteration >iteration
get "$F" /mpi/rank_iteration >rank_iteration
awk -v k="$kernel" '{ s += $1 } END { d = s - k; if (d < 0) d = -d; exit !(NR > 0 && d <= 1e-12 * k) }' iteration ||
    fail "/timings/kernel $kernel is not the sum of /timings/iteration"
awk -v n="$n" 'NR == FNR { it[NR] = $1; next }
    { i = (FNR - 1) % n + 1; if (!(i in most) || $1 > most[i]) most[i] = $1 }
    END { for (i = 1; i <= n; i++) if (most[i] != it[i]) { printf "iteration %d: %.17g, the slowest rank %.17g\n", i, it[i], most[i]; exit 1 } }' \
    iteration rank_iteration >bad || fail "/timings/iteration is not each iteration's slowest rank: $(cat bad)"
# Each rank's own kernel is the sum of its row, and at most the job's.
for r in 0 1; do
    mine=$(echo "$own" | cut -d' ' -f$((r + 1)))
    awk -v n="$n" -v r="$r" -v m="$mine" -v k="$kernel" 'NR > r * n && NR <= (r + 1) * n { s += $1 }
        END { d = s - m; if (d < 0) d = -d; exit !(d <= 1e-12 * m && m <= k) }' rank_iteration ||
        fail "rank $r: own kernel $mine is not the sum of its iterations, or above the job's $kernel"
done
# The point: the job's kernel holds the stop, rank 0's own does not.
rank0=$(echo "$own" | cut -d' ' -f1)
awk -v k="$kernel" -v z="$rank0" -v s="$STOP" 'BEGIN { exit !(k - z >= 0.6 * s) }' ||
    fail "/timings/kernel $kernel s is not most of a $STOP s stop above rank 0's own $rank0 s"

# Every other phase and the total: the slowest rank's, the largest of the rows.
for phase in allocation init combine result verify placement total; do
    job=$(get "$F" /timings/$phase)
    rows=$(get "$F" /mpi/ranks:$phase | tr '\n' ' ')
    echo "$rows" | awk -v j="$job" '{ m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i; exit !(NF == 2 && j == m) }' ||
        fail "/timings/$phase $job is not the largest of the ranks' own ($rows)"
done
[ "$(get "$F" /@schema_version)" = 4 ] || fail "the file does not say schema_version 4"

# One process: the kernel is the sum of its iterations too.
if run_ts 0 "without a launcher" run "$SRC/configs/sum.ini" --set sum.n=100000 --set run.iterations=20 --threads 2 \
    -q -o "$WORK/alone.h5"; then
    get "$WORK/alone.h5" /timings/iteration | awk -v k="$(get "$WORK/alone.h5" /timings/kernel)" '{ s += $1 }
        END { d = s - k; if (d < 0) d = -d; exit !(NR == 20 && d <= 1e-12 * k) }' ||
        fail "one process: /timings/kernel is not the sum of /timings/iteration"
fi
finish

#!/bin/sh
# Checkpoints across ranks (issue 14): a run on 4 ranks stopped by SIGUSR1 (mpirun forwards it
# to every rank; they agree on the iteration) leaves one checkpoint, which continues on 2 ranks,
# on 1 rank and without a launcher to the uninterrupted run's field and result, bitwise. A rank
# killed mid-run ends the job (bounded time, exit non-zero, no file under the final name), and
# the last periodic checkpoint still restarts.
# Every rank writes its block of the field into the one checkpoint (parallel HDF5) and reads
# back only its block: a point changed behind a right chunk checksum is caught by the ranks'
# digests added up on rank 0, and refused on every rank.
# Usage: test_checkpoint_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN H5GET H5_DOCTOR
. "$(dirname "$0")/lib.sh"
H5GET=${4:?path to h5_get}
DOCTOR=${5:?path to h5_doctor}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1
CONFIG="$SRC/configs/stencil2d.ini"
# Long enough that a signal lands inside the iterations; binding off, so that the ranks, which
# mpirun does not bind here, do not all stack their thread on core 0.
LONG="--set stencil.nx=160 --set stencil.ny=96 --set stencil.alpha=0.001 --set run.iterations=6000
      --set openmp.proc_bind=false --set output.write_field=true --threads 1"
# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference" run "$CONFIG" $LONG -o "$WORK/full.h5" -q || finish
want=$(h5_bits "$WORK/full.h5" /results/global)
[ "$want" = missing ] && { fail "uninterrupted reference: no /results/global"; finish; }

# start_ranks RANKS OUT ARGS...: the run in the background through mpirun, progress from the
# first iteration on; waits for its first progress line (a tenth of the iterations done).
start_ranks() {
    ranks=$1 out=$2
    shift 2
    # shellcheck disable=SC2086
    TOUCHSTONE_PROGRESS_DELAY=0 timeout 900 "$MPIRUN" --oversubscribe --bind-to none -np "$ranks" \
        "$TS" run "$CONFIG" $LONG -o "$out" "$@" >"$OUT" 2>"$ERR" &
    job=$!
    while ! grep -q '^touchstone: progress: ' "$ERR" 2>/dev/null && kill -0 $job 2>/dev/null; do
        sleep 0.05
    done
}

# Stopped on 4 ranks: exit 3 (rank 0's), one message, the checkpoint, an incomplete results file.
start_ranks 4 "$WORK/run.h5"
pkill -USR1 -P $job -x "$(basename "$MPIRUN")" 2>/dev/null || kill -USR1 $job
wait $job
status=$?
[ $status = 3 ] || { fail "4 ranks after SIGUSR1: exit status $status, expected 3"; sed 's/^/    | /' "$ERR" | tail -8 >&2; }
[ "$(grep -c '^touchstone: User defined signal 1: stopped after' "$ERR")" = 1 ] ||
    fail "4 ranks after SIGUSR1: not one message saying how to continue"
[ -s "$WORK/run.ckpt.h5" ] || { fail "4 ranks after SIGUSR1: no checkpoint"; finish; }
[ "$("$H5GET" "$WORK/run.h5" /@complete)" = 0 ] || fail "4 ranks after SIGUSR1: the results file is not incomplete"

# The one checkpoint continues on 2 ranks, on 1 and without a launcher, to the same bits.
for how in 2 1 alone; do
    cp "$WORK/run.ckpt.h5" "$WORK/from-$how.ckpt.h5"
    if [ $how = alone ]; then
        # shellcheck disable=SC2086
        run_ts 0 "restart without a launcher" run "$CONFIG" $LONG -q -o "$WORK/from-$how.h5" \
            --restart "$WORK/from-$how.ckpt.h5" || continue
    else
        # shellcheck disable=SC2086
        mpi_ts 0 "restart on $how ranks" $how run "$CONFIG" $LONG -q -o "$WORK/from-$how.h5" \
            --restart "$WORK/from-$how.ckpt.h5" || continue
    fi
    [ "$(h5_bits "$WORK/from-$how.h5" /results/global)" = "$want" ] ||
        fail "restart ($how): result $(h5_bits "$WORK/from-$how.h5" /results/global), uninterrupted $want"
    h5diff "$WORK/full.h5" "$WORK/from-$how.h5" /field /field >/dev/null 2>&1 ||
        fail "restart ($how): the field differs from the uninterrupted run's"
    [ "$("$H5GET" "$WORK/from-$how.h5" /job@restarted)" = 1 ] || fail "restart ($how): /job does not say restarted"
done

# A checkpoint the ranks refuse (written for another grid): said once, by rank 0, exit 2, and
# no MPI_ABORT (each rank read the file alone; the refusal is agreed before any rank ends).
# shellcheck disable=SC2086
mpi_ts 2 "restart of another grid on 3 ranks" 3 run "$CONFIG" $LONG --set stencil.ny=128 -q -o "$WORK/grid.h5" \
    --restart "$WORK/run.ckpt.h5" &&
    expect_in "$ERR" "^touchstone: error: $WORK/run\.ckpt\.h5: /config: checkpoint was written for stencil\.ny = 96, this run has stencil\.ny = 128; refusing to restart\$" \
        "another grid on 3 ranks: the reason, without a rank's name"
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "another grid on 3 ranks: not one error message"
expect_not_in "$ERR" "MPI_ABORT" "another grid on 3 ranks: the job was aborted"
head -c 3000 "$WORK/run.ckpt.h5" >"$WORK/cut.ckpt.h5"
# shellcheck disable=SC2086
mpi_ts 2 "restart of a truncated checkpoint on 3 ranks" 3 run "$CONFIG" $LONG -q -o "$WORK/cut.h5" \
    --restart "$WORK/cut.ckpt.h5" &&
    expect_in "$ERR" "^touchstone: error: cannot read checkpoint: $WORK/cut\.ckpt\.h5: " "truncated on 3 ranks: the reason"
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "truncated on 3 ranks: not one error message"
expect_not_in "$ERR" "MPI_ABORT" "truncated on 3 ranks: the job was aborted"

# SIGUSR1 to one rank alone: every rank stops after the same iteration, and rank 0, which did
# not get it, names the signal the other got. 200000 iterations (a few seconds on 2 ranks; 6000
# ended before a poll saw the first progress line on a quiet machine), so their own reference.
# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference of 200000 iterations" run "$CONFIG" $LONG --set run.iterations=200000 \
    -o "$WORK/full-one.h5" -q
want_one=$(h5_bits "$WORK/full-one.h5" /results/global)
start_ranks 2 "$WORK/one.h5" --set run.iterations=200000
rank1=$(pgrep -P "$(pgrep -P $job -x "$(basename "$MPIRUN")" || echo $job)" -x touchstone | sed -n 2p)
[ -n "$rank1" ] && kill -USR1 "$rank1"
wait $job
status=$?
[ -n "$rank1" ] || fail "SIGUSR1 to one rank: found no rank 1"
[ $status = 3 ] || { fail "SIGUSR1 to one rank: exit status $status, expected 3"; sed 's/^/    | /' "$ERR" | tail -8 >&2; }
expect_in "$ERR" "^touchstone: User defined signal 1: stopped after [0-9]+ of 200001 iterations; checkpoint $WORK/one\.ckpt\.h5; continue with: " \
    "SIGUSR1 to one rank: the signal named on rank 0"
expect_not_in "$ERR" "Unknown signal" "SIGUSR1 to one rank: a signal without a name"
# The command the message prints (mpirun's words first, read from rank 0's parent) continues
# the run, pasted as it is, to the uninterrupted bits.
again=$(sed -n 's/^touchstone: User defined signal 1: .*; continue with: //p' "$ERR")
case $again in
"$MPIRUN --oversubscribe --bind-to none -np 2 $TS run $CONFIG "*" --set run.iterations=200000 -o $WORK/one.h5 --restart $WORK/one.ckpt.h5") ;;
*) fail "SIGUSR1 to one rank: the command printed is not mpirun's and this run's: $again" ;;
esac
expect_run 0 "SIGUSR1 to one rank: the printed command" sh -c "$again" &&
    { [ "$(h5_bits "$WORK/one.h5" /results/global)" = "$want_one" ] || fail "SIGUSR1 to one rank: the continued result differs"; }

# A point of the field changed, its chunk checksum right: the ranks' digests do not add up to
# the stored one, and every rank refuses (exit 2, rank 0 says why, once; no results file).
cp "$WORK/run.ckpt.h5" "$WORK/point.ckpt.h5"
if "$DOCTOR" "$WORK/point.ckpt.h5" ckpt_field_point; then
    # shellcheck disable=SC2086
    mpi_ts 2 "restart of a changed field on 3 ranks" 3 run "$CONFIG" $LONG -q -o "$WORK/point.h5" \
        --restart "$WORK/point.ckpt.h5" &&
        expect_in "$ERR" "^touchstone: error: .*/field: the values are not those written \(the ranks' digest differs" \
            "changed field on 3 ranks: the reason"
    [ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "changed field on 3 ranks: not one error message"
    [ -e "$WORK/point.h5" ] && fail "changed field on 3 ranks: refused, yet a results file was written"
else
    fail "h5_doctor ckpt_field_point"
fi

# A thread's time changed: each rank checks its share of /thread_times' rows, and their digests
# do not add up to the stored one (row 0 is rank 0's share, the sum is checked on rank 0).
cp "$WORK/run.ckpt.h5" "$WORK/times.ckpt.h5"
if "$DOCTOR" "$WORK/times.ckpt.h5" ckpt_thread_time; then
    # shellcheck disable=SC2086
    mpi_ts 2 "restart of a changed thread time on 3 ranks" 3 run "$CONFIG" $LONG -q -o "$WORK/times.h5" \
        --restart "$WORK/times.ckpt.h5" &&
        expect_in "$ERR" "^touchstone: error: .*/thread_times: the values are not those written \(the ranks' digest differs" \
            "changed thread time on 3 ranks: the reason"
    [ -e "$WORK/times.h5" ] && fail "changed thread time on 3 ranks: refused, yet a results file was written"
else
    fail "h5_doctor ckpt_thread_time"
fi

# One rank killed: mpirun ends the job; no results file, no temporary left under its name;
# the periodic checkpoint written before the kill restarts to the same bits.
start_ranks 3 "$WORK/kill.h5" --set output.checkpoint_every=100
victim=$(pgrep -f -- "-o $WORK/kill.h5" | while read -r p; do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = touchstone ] && echo "$p"; done | sed -n 2p)
[ -n "$victim" ] && kill -KILL "$victim"
wait $job
status=$?
[ -n "$victim" ] || fail "SIGKILL: found no rank to kill"
[ $status = 124 ] && fail "SIGKILL of one rank: the job hung (ended by timeout after 300 s)"
[ $status = 0 ] && fail "SIGKILL of one rank: exit status 0"
[ -e "$WORK/kill.h5" ] && fail "SIGKILL of one rank: a results file under the final name"
cp "$WORK/kill.ckpt.h5" "$WORK/after-kill.ckpt.h5"
# shellcheck disable=SC2086
mpi_ts 0 "restart after the kill" 2 run "$CONFIG" $LONG -q -o "$WORK/after-kill.h5" \
    --restart "$WORK/after-kill.ckpt.h5" &&
    { [ "$(h5_bits "$WORK/after-kill.h5" /results/global)" = "$want" ] || fail "restart after the kill: result differs"; }
finish

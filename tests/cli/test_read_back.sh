#!/bin/sh
# Every file touchstone writes, touchstone reads back: one run file for every way a run can end
# (each kernel and variant complete, serial init, every NUMA policy, with and without the
# placement audits, stopped by a signal mid-run and during the warm-up, restarted on the same
# and on another thread count, stopped again after a restart, with periodic checkpoints), and
# each of them through report, compare --force and plot (all three kinds), which must exit 0.
# Runs are stopped deterministically: the fault library (tests/faults/faultfs.c) makes every
# checkpoint write take a while, and the signal is sent once the first checkpoint is in place,
# so the run is still where the test wants it (an iteration per checkpoint).
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
FAULTFS=${4:?path to libfaultfs.so}
PYTHON=${5:?path to the Python with matplotlib}
D=$WORK/runs
mkdir "$D"
FILES=""

# complete NAME ARGS...: a complete run into $D/NAME.h5 (SMALL sizes, one or two threads).
complete() {
    name=$1
    shift
    # shellcheck disable=SC2086
    run_ts 0 "run $name" run "$@" -o "$D/$name.h5" -q && FILES="$FILES $D/$name.h5"
}

# stop NAME CONFIG ARGS...: a run with a checkpoint after every iteration, each write slowed
# to 0.2 s; SIGUSR1 once the first checkpoint exists, so it stops within an iteration or two.
stop() {
    name=$1
    shift
    rm -f "$WORK/trace"
    # shellcheck disable=SC2086
    env LD_PRELOAD="$FAULTFS" FAULTFS_TRACE="$WORK/trace" FAULTFS_SLOW=200000:1073741824 \
        "$TS" run "$@" --set output.checkpoint_every=1 -o "$D/$name.h5" -q >"$OUT" 2>"$ERR" &
    pid=$!
    tries=0
    while ! grep -q " renamed $D/$name.ckpt.h5\$" "$WORK/trace" 2>/dev/null && [ $tries -lt 600 ] \
        && kill -0 $pid 2>/dev/null; do
        sleep 0.05
        tries=$((tries + 1))
    done
    kill -USR1 $pid 2>/dev/null || fail "$name: the run ended before SIGUSR1"
    wait $pid
    status=$?
    if [ $status -ne 3 ]; then
        fail "$name: exit status $status after SIGUSR1, expected 3"
        sed 's/^/    stderr: /' "$ERR" | head -5 >&2
        return 1
    fi
    [ -s "$D/$name.ckpt.h5" ] || { fail "$name: no checkpoint after the stop"; return 1; }
    cp "$D/$name.ckpt.h5" "$WORK/$name.ckpt.h5"
    FILES="$FILES $D/$name.h5"
}

S2=$SRC/configs/stencil2d.ini
S3=$SRC/configs/stencil3d.ini
# shellcheck disable=SC2086
{
    complete sum-reproducible "$SRC/configs/sum.ini" $SMALL --threads 2
    complete sum-fast "$SRC/configs/sum.ini" $SMALL --set sum.mode=fast --threads 2
    complete triad "$SRC/configs/triad.ini" $SMALL --threads 2
    complete triad-nt "$SRC/configs/triad.ini" $SMALL --set triad.nontemporal=true --threads 2
    complete stencil2d "$S2" $SMALL --threads 2
    complete stencil2d-tb3 "$S2" $SMALL --set stencil.time_block=3 --threads 2
    complete stencil2d-nt "$S2" $SMALL --set stencil.nontemporal=true --threads 2
    complete stencil2d-field "$S2" $SMALL --set output.write_field=true --threads 2
    complete stencil3d "$S3" $SMALL --threads 2
    complete stencil3d-tb2 "$S3" $SMALL --set stencil.time_block=2 --threads 2
    complete stencil3d-nt "$S3" $SMALL --set stencil.nontemporal=true --threads 2
    complete stencil3d-field "$S3" $SMALL --set output.write_field=true --threads 1
    complete serial-init "$S2" $SMALL --serial-init --threads 2
    for policy in interleave bind:0 preferred:0; do
        complete "policy-$(echo $policy | tr : -)" "$S2" $SMALL --set init.policy=$policy --threads 2
    done
    complete no-audit "$S2" $SMALL --set placement.audit=false --threads 2
    complete audit-at-end "$S2" $SMALL --set placement.at_end=true --threads 2
    complete checkpoint-every "$S2" $SMALL --set run.iterations=6 --set output.checkpoint_every=2 --threads 2
    complete no-warmup "$SRC/configs/sum.ini" $SMALL --set run.warmup=0 --threads 1

    # Stopped after a few timed iterations, then continued on one thread and on two: the
    # iterations before a restart on another thread count have no per-thread times.
    LONG="$SMALL --set run.warmup=0 --set run.iterations=40 --threads 1"
    stop stopped-mid "$S2" $LONG
    cp "$WORK/stopped-mid.ckpt.h5" "$D/same.ckpt.h5"
    complete same "$S2" $LONG --restart "$D/same.ckpt.h5"
    cp "$WORK/stopped-mid.ckpt.h5" "$D/other.ckpt.h5"
    complete other "$S2" $LONG --threads 2 --restart "$D/other.ckpt.h5"
    # ... and stopped again after that restart: incomplete, with unmeasured iterations.
    cp "$WORK/stopped-mid.ckpt.h5" "$D/stopped-again.ckpt.h5"
    stop stopped-again "$S2" $LONG --threads 2 --restart "$D/stopped-again.ckpt.h5"

    # Stopped during the warm-up: no timed iteration at all; continued on another thread count.
    WARM="$SMALL --set run.warmup=40 --set run.iterations=3 --threads 1"
    stop stopped-warmup "$S2" $WARM
    cp "$WORK/stopped-warmup.ckpt.h5" "$D/after-warmup.ckpt.h5"
    complete after-warmup "$S2" $WARM --threads 2 --restart "$D/after-warmup.ckpt.h5"
    stop stopped-warmup-sum "$SRC/configs/sum.ini" $SMALL --set run.warmup=40 --threads 1
}
rm -f "$D"/*.ckpt.h5

# A run whose file would hold more per-thread times than the reader takes is refused before it
# starts (without the refusal it runs for minutes and writes a file report refuses).
timeout 600 "$TS" run "$SRC/configs/sum.ini" $SMALL --set run.iterations=134217729 --threads 2 \
    -o "$WORK/too-long.h5" -q >"$OUT" 2>"$ERR"
status=$?
[ $status -eq 2 ] || fail "a run of 2 x 2^27 + 2 per-thread times: exit status $status, expected 2"
[ -e "$WORK/too-long.h5" ] && fail "a run whose file cannot be read back wrote it"
timeout 600 "$TS" check "$SRC/configs/sum.ini" $SMALL --set run.iterations=134217729 --threads 2 >"$OUT" 2>"$ERR"
status=$?
[ $status -eq 2 ] || fail "check of a run of 2 x 2^27 + 2 per-thread times: exit status $status, expected 2 as run"

# The stops landed where they were meant to (else the files below test less than they say).
[ "$("$H5GET" "$D/stopped-warmup.h5" /timings@n_iterations)" = 0 ] || fail "stopped-warmup: timed iterations were run"
[ "$("$H5GET" "$D/stopped-mid.h5" /@complete)" = 0 ] || fail "stopped-mid: the file is complete"

# Every file alone through report and compare (the first complete run as the reference), then
# all of them at once, and the three plots.
REF=$D/stencil2d.h5
# What does not apply reads "-" (text) or null (JSON), never "nan".
NAN='(^|[^A-Za-z])nan([^A-Za-z]|$)'
for f in $FILES; do
    run_ts 0 "report $(basename "$f")" report "$f" && expect_not_in "$OUT" "$NAN" "report $(basename "$f")"
    run_ts 0 "report --format json $(basename "$f")" report --format json "$f"
    run_ts 0 "compare --force $(basename "$f")" compare --force "$REF" vs "$f" &&
        expect_not_in "$OUT" "$NAN" "compare $(basename "$f")"
    run_ts 0 "show $(basename "$f")" show "$f" && expect_not_in "$OUT" "$NAN" "show $(basename "$f")"
    run_ts 0 "show --format json $(basename "$f")" show --format json "$f"
done
# shellcheck disable=SC2086
run_ts 0 "report of every file" report $FILES
# shellcheck disable=SC2086
run_ts 0 "compare --force of every file" compare --force $FILES
# Not under ASan (make test-asan): plot's own code reads and checks the files with compare's
# readers (run on every file above), then most of its time is tools/plot.py (h5py, matplotlib),
# which ASan does not see; cli.plot is left out there for the same reason.
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "under ASan: plot not tried (Python's time, no code of ours)"
elif "$PYTHON" -c 'import h5py, matplotlib' 2>/dev/null; then
    # shellcheck disable=SC2086
    run_ts 0 "plot scaling of every file" plot --kind scaling -o "$WORK/scaling.png" $FILES
    # shellcheck disable=SC2086
    run_ts 0 "plot init of every file" plot --kind init -o "$WORK/init.png" $FILES
    # A timeline draws at most four files: the ones with unmeasured or no timed iterations.
    for f in "$D/other.h5 $D/stopped-again.h5 $D/stopped-warmup.h5 $D/stopped-mid.h5" \
        "$D/after-warmup.h5 $D/stopped-warmup-sum.h5 $D/same.h5 $D/stencil3d-tb2.h5"; do
        # shellcheck disable=SC2086
        run_ts 0 "plot timeline of $f" plot --kind timeline -o "$WORK/timeline.png" --overwrite $f
    done
else
    echo "no h5py/matplotlib for $PYTHON: plot not tried"
fi
finish

#!/bin/sh
# Temporal blocking across ranks (issue 24): with stencil.time_block = k each rank holds halos k
# deep and exchanges them once per iteration (k steps, axis by axis so that edges and corners
# arrive); the field and /results of 2, 3, 4 and 8 ranks (odd sizes, explicit and auto
# mpi.dims, serial and parallel init, 1 and 2 threads a rank) are bitwise those of one process
# with the same k and with time_block = 1 (k times the steps). A checkpoint written at k = 3 on 3
# ranks restarts on 2 to the uninterrupted bits. A block thinner than k along an axis it shares
# is refused before any allocation, naming what works.
# Usage: test_time_block_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN H5GET
. "$(dirname "$0")/lib.sh"
H5GET=${4:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1

# same_as WHAT REFERENCE FILE: the field and sum of u^2 of FILE are REFERENCE's, bitwise.
same_as() {
    what=$1 ref=$2 got=$3
    h5diff "$ref" "$got" /field /field >"$WORK/diff.txt" 2>&1 ||
        { fail "$what: the field differs from $(basename "$ref")'s"; head -5 "$WORK/diff.txt" >&2; }
    want=$(h5_bits "$ref" /results/global)
    [ "$want" != missing ] && [ "$want" = "$(h5_bits "$got" /results/global)" ] ||
        fail "$what: sum of u^2 $(h5_bits "$got" /results/global), $(basename "$ref") $want"
}

# tb_case KERNEL RANKS K THREADS NAME ARGS...: one warm-up and two iterations of K steps on
# RANKS ranks against one process with time_block = K and with time_block = 1 (3K steps).
tb_case() {
    kernel=$1 ranks=$2 k=$3 threads=$4 name=$5
    shift 5
    set -- "$SRC/configs/$kernel.ini" "$@" --set output.write_field=true
    run_ts 0 "$name: one process, time_block 1" run "$@" --set run.warmup="$k" --set run.iterations=$((2 * k)) \
        --threads 2 -o "$WORK/$name-tb1.h5" -q || return
    run_ts 0 "$name: one process, time_block $k" run "$@" --set run.warmup=1 --set run.iterations=2 \
        --set stencil.time_block="$k" --threads 2 -o "$WORK/$name-alone.h5" -q || return
    mpi_ts 0 "$name on $ranks ranks" "$ranks" run "$@" --set run.warmup=1 --set run.iterations=2 \
        --set stencil.time_block="$k" --threads "$threads" -o "$WORK/$name-ranks.h5" || return
    expect_in "$OUT" "^  verified   PASSED" "$name on $ranks ranks: verified"
    expect_in "$OUT" "^  variant    temporal blocking: $k steps per iteration" "$name on $ranks ranks: the variant"
    same_as "$name on $ranks ranks against time_block 1" "$WORK/$name-tb1.h5" "$WORK/$name-ranks.h5"
    same_as "$name on $ranks ranks against one process" "$WORK/$name-alone.h5" "$WORK/$name-ranks.h5"
}

# decomposition NAME WANT: the rank grid the run recorded.
decomposition() {
    got=$("$H5GET" "$WORK/$1-ranks.h5" /mpi@decomposition 2>/dev/null)
    [ "$got" = "$2" ] || fail "$1: /mpi@decomposition '$got', want $2"
}

# 2D: a 2x2 grid (corners cross two cuts), auto on 2 ranks with 2 threads each, 3 ranks with
# serial init; 3D: 2x2x1 with 2 threads a rank (two rounds, the threads sharing each) and the
# wavefront in skewed y-tiles of 3 rows (a remainder, and y halos inside the tiles), 1x1x3,
# and 8 ranks as 2x2x2 (three rounds; every block exactly as thick as its halos along x: 3
# columns, halos 3 deep).
tb_case stencil2d 4 3 1 s2-2x2 --set stencil.nx=37 --set stencil.ny=29 --set mpi.dims=2x2
decomposition s2-2x2 2x2
tb_case stencil3d 4 2 2 s3-2x2x1 --set stencil.nx=17 --set stencil.ny=15 --set stencil.nz=9 --set mpi.dims=2x2x1 \
    --set stencil.block_y=3
# Under ASan (make test-asan sets ASAN_OPTIONS) the two above alone: the others run the same
# code on other sizes, and the normal pass checks their bits.
if [ -z "${ASAN_OPTIONS:-}" ]; then
    tb_case stencil2d 2 2 2 s2-auto --set stencil.nx=41 --set stencil.ny=23
    decomposition s2-auto 2x1
    tb_case stencil2d 3 4 1 s2-serial --serial-init --set stencil.nx=19 --set stencil.ny=45
    decomposition s2-serial 1x3
    tb_case stencil3d 3 4 1 s3-auto --serial-init --set stencil.nx=11 --set stencil.ny=9 --set stencil.nz=31
    decomposition s3-auto 1x1x3
    tb_case stencil3d 8 3 1 s3-8 --set stencil.nx=8 --set stencil.ny=13 --set stencil.nz=15 --set mpi.dims=2x2x2
fi

# check counts the deeper halos' buffers: rank 0 of 2x2 on 37 x 29 sends a face of 3 x 14 points
# and one of 22 x 3 (its x halo and boundary included), received alike: 1728 bytes.
mpi_ts 0 "check: time_block 3 on 2x2" 4 check "$SRC/configs/stencil2d.ini" --set stencil.nx=37 --set stencil.ny=29 \
    --set mpi.dims=2x2 --set stencil.time_block=3 &&
    expect_in "$OUT" "^  halos +1\.69 KiB +\(send and receive buffers of 2 faces, 3 layers deep\)" "check: the halos counted"

# Too thin: 3 ranks of 2 or 3 columns with halos 3 deep. Refused by run and check alike, exit 2,
# one message naming the rank, the sizes, a smaller time_block and the mpi.dims that fits.
THIN="--set stencil.nx=9 --set stencil.ny=40 --set mpi.dims=3x1 --set stencil.time_block=3"
for cmd in run check; do
    # shellcheck disable=SC2086
    mpi_ts 2 "$cmd: too thin for the time block" 3 $cmd "$SRC/configs/stencil2d.ini" $THIN -o "$WORK/thin.h5" &&
        expect_in "$ERR" "^touchstone: error: stencil2d on 3 ranks: 3 ranks as 3x1 leave rank 1 \(x coordinate 1\) 2 interior columns in x, fewer than its halo's 3 layers .*use at most 2 ranks along x or nx >= 11, or stencil\.time_block <= 2; mpi\.dims = 1x3 fits \(auto's choice\)" \
            "$cmd: too thin: what works"
    [ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "$cmd: too thin: not one error message"
done
[ -e "$WORK/thin.h5" ] && fail "too thin: refused, yet a results file was written"

# A checkpoint of time_block 3 on 3 ranks (stopped by SIGUSR1, which mpirun forwards to every
# rank) restarts on 2 ranks to the uninterrupted run's bits.
LONG="$SRC/configs/stencil2d.ini --set stencil.nx=161 --set stencil.ny=97 --set stencil.alpha=0.001
      --set stencil.time_block=3 --set run.iterations=3000 --set openmp.proc_bind=false
      --set output.write_field=true --threads 1"
# shellcheck disable=SC2086
run_ts 0 "time_block 3: uninterrupted reference" run $LONG -o "$WORK/full.h5" -q
# shellcheck disable=SC2086
TOUCHSTONE_PROGRESS_DELAY=0 timeout 900 "$MPIRUN" --oversubscribe --bind-to none -np 3 "$TS" run $LONG \
    -o "$WORK/stop.h5" >"$OUT" 2>"$ERR" &
job=$!
while ! grep -q '^touchstone: progress: ' "$ERR" 2>/dev/null && kill -0 $job 2>/dev/null; do
    sleep 0.05
done
pkill -USR1 -P $job -x "$(basename "$MPIRUN")" 2>/dev/null || kill -USR1 $job
wait $job
status=$?
if [ $status = 3 ] && [ -s "$WORK/stop.ckpt.h5" ]; then
    # shellcheck disable=SC2086
    mpi_ts 0 "time_block 3: restart of 3 ranks' checkpoint on 2" 2 run $LONG -q -o "$WORK/stop.h5" \
        --restart "$WORK/stop.ckpt.h5" &&
        same_as "time_block 3: restart on 2 ranks" "$WORK/full.h5" "$WORK/stop.h5"
elif [ $status = 0 ]; then
    fail "time_block 3 on 3 ranks: ended before SIGUSR1 stopped it (make the run longer)"
else
    fail "time_block 3 on 3 ranks after SIGUSR1: exit status $status, no checkpoint"
    sed 's/^/    | /' "$ERR" | tail -8 >&2
fi
finish

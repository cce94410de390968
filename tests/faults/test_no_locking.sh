#!/bin/sh
# File systems without locks (NFS without a lock daemon: flock fails with ENOLCK; Lustre
# mounted without flock: ENOSYS), emulated by libfaultfs. touchstone itself never locks: run,
# report, compare and --restart work without HDF5_USE_FILE_LOCKING and with it set to FALSE.
# A plain HDF5 reader (h5_get here, h5py or h5dump for a user) does lock, fails on ENOLCK, and
# works with HDF5_USE_FILE_LOCKING=FALSE: the advice of docs/reliability.md for NFS and Lustre.
. "$(dirname "$0")/lib.sh"
D=$WORK/out
mkdir "$D"
CFG=$SRC/configs/stencil2d.ini
LONG="--set stencil.nx=256 --set stencil.ny=256 --set stencil.alpha=0.001 --set run.iterations=20000 --threads 1"
SMALL_F="--set stencil.nx=128 --set stencil.ny=128 --set run.iterations=20 --threads 1"

# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference" run "$CFG" $LONG -o "$WORK/full.h5" -q || finish
full=$(bits "$WORK/full.h5" /results/global)

for setting in "" "HDF5_USE_FILE_LOCKING=FALSE"; do
    how="no locks (ENOLCK)${setting:+, $setting}"
    locks="FAULTFS_NOLOCK=ENOLCK FAULTFS_TRACE=$WORK/trace $setting"
    rm -f "$WORK/trace" "$D"/*
    # shellcheck disable=SC2086
    faulty $locks -- run "$CFG" $SMALL_F -o "$D/a.h5" -q
    expect_status 0 "$how: run"
    # shellcheck disable=SC2086
    faulty $locks -- run "$CFG" $SMALL_F --threads 2 -o "$D/b.h5" -q
    expect_status 0 "$how: second run"
    # shellcheck disable=SC2086
    faulty $locks -- report "$D"
    expect_status 0 "$how: report" && expect_in "$OUT" "a\.h5" "$how: report lists the runs"
    # shellcheck disable=SC2086
    faulty $locks -- compare "$D/a.h5" "$D/b.h5"
    expect_status 0 "$how: compare" && expect_in "$OUT" "identical" "$how: compare reads both results"
    grep -q flock "$WORK/trace" && fail "$how: touchstone called flock ($(grep -m1 flock "$WORK/trace"))"
    # shellcheck disable=SC2086
    stop_after_init "$how: stop" $locks -- run "$CFG" $LONG -o "$D/s.h5" -q
    expect_status 3 "$how: stop with a checkpoint"
    # shellcheck disable=SC2086
    faulty $locks -- run "$CFG" $LONG -o "$D/s.h5" -q --restart "$D/s.ckpt.h5"
    expect_status 0 "$how: restart" &&
        { [ "$(bits "$D/s.h5" /results/global)" = "$full" ] || fail "$how: the restarted result differs"; }
    grep -q flock "$WORK/trace" && fail "$how: touchstone called flock ($(grep -m1 flock "$WORK/trace"))"
done

# A plain HDF5 reader locks: it fails without the variable and reads with it.
env LD_PRELOAD="$FAULTFS" FAULTFS_NOLOCK=ENOLCK "$H5GET" "$D/s.h5" /results/global >"$OUT" 2>&1 &&
    fail "a plain HDF5 reader opened a file without locks; this test no longer shows why HDF5_USE_FILE_LOCKING=FALSE is needed"
env LD_PRELOAD="$FAULTFS" FAULTFS_NOLOCK=ENOLCK HDF5_USE_FILE_LOCKING=FALSE "$H5GET" "$D/s.h5" /results/global >"$OUT" 2>&1 ||
    fail "a plain HDF5 reader with HDF5_USE_FILE_LOCKING=FALSE cannot read without locks: $(cat "$OUT")"
# ENOSYS (flock not implemented) HDF5 1.10.7 and later ignore by themselves.
env LD_PRELOAD="$FAULTFS" FAULTFS_NOLOCK=ENOSYS "$H5GET" "$D/s.h5" /results/global >"$OUT" 2>&1 ||
    fail "a plain HDF5 reader cannot read where flock is not implemented (ENOSYS): $(cat "$OUT")"
finish

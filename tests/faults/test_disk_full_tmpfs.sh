#!/bin/sh
# faults.disk_full on a real full file system: a small tmpfs filled up to a few kB, so the
# kernel itself says ENOSPC, for the results file, a checkpoint on SIGUSR1, periodic
# checkpoints, and a file system out of inodes. Exit 2 with the path and "No space left on
# device", the previous files byte for byte as they were, and the space of the temporary file
# given back (df). Runs in a private mount namespace (mount_ns.sh), skipped where none is allowed.
. "$(dirname "$0")/mount_ns.sh"
. "$(dirname "$0")/lib.sh"
FS=$WORK/fs
mkdir "$FS"
mount -t tmpfs -o size=4m tmpfs "$FS" || { echo "SKIPPED: mount -t tmpfs failed"; exit 77; }
trap 'umount "$FS" 2>/dev/null; rm -rf "$WORK"' EXIT
CFG=$SRC/configs/stencil2d.ini

free_kb() { df -k "$FS" | awk 'NR == 2 { print $4 }'; }

# leave_free KB: fills the file system up to KB kB free (one filler file, grown and cut).
leave_free() {
    rm -f "$FS/filler"
    dd if=/dev/zero of="$FS/filler" bs=64k 2>/dev/null
    now=$(free_kb)
    size=$(wc -c <"$FS/filler")
    truncate -s $((size - ($1 - now) * 1024)) "$FS/filler"
}

# --- The results file -------------------------------------------------------------------------
SMALL_F="--set stencil.nx=128 --set stencil.ny=128 --set run.iterations=20 --set output.write_field=true --threads 1"
# shellcheck disable=SC2086
run_ts 0 "reference run on the tmpfs" run "$CFG" $SMALL_F -o "$FS/r.h5" -q || finish
cp "$FS/r.h5" "$WORK/r.saved"
leave_free 32
before=$(free_kb)
# shellcheck disable=SC2086
run_ts 2 "results file on a full tmpfs" run "$CFG" $SMALL_F -o "$FS/r.h5" -q --overwrite &&
    expect_in "$ERR" "^touchstone: error: cannot write output $FS/r\.h5: writing $FS/r\.h5$TMPNAME: No space left on device\$" \
        "results file on a full tmpfs: the message"
same_bytes "$WORK/r.saved" "$FS/r.h5" "results file on a full tmpfs"
no_temp_left "$FS" "results file on a full tmpfs"
[ "$(free_kb)" = "$before" ] || fail "results file on a full tmpfs: $before kB free before, $(free_kb) kB after"
# shellcheck disable=SC2086
run_ts 2 "no previous file, full tmpfs" run "$CFG" $SMALL_F -o "$FS/new.h5" -q
[ -e "$FS/new.h5" ] && fail "full tmpfs: a file appeared under the final name"
no_temp_left "$FS" "no previous file, full tmpfs"

# --- A checkpoint on SIGUSR1 --------------------------------------------------------------------
rm -f "$FS/filler" "$FS/r.h5"
LONG="--set stencil.nx=256 --set stencil.ny=256 --set stencil.alpha=0.001 --set run.iterations=20000 --threads 1"
# shellcheck disable=SC2086
stop_after_init "first stop on the tmpfs" -- run "$CFG" $LONG -o "$FS/s.h5" -q
expect_status 3 "first stop on the tmpfs" || finish
cp "$FS/s.ckpt.h5" "$WORK/ckpt.saved"
cp "$FS/s.h5" "$WORK/s.saved"
leave_free 32
# shellcheck disable=SC2086
stop_after_init "checkpoint on a full tmpfs" -- run "$CFG" $LONG -o "$FS/s.h5" -q --restart "$FS/s.ckpt.h5"
expect_status 2 "checkpoint on a full tmpfs" &&
    expect_in "$ERR" "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $FS/s\.ckpt\.h5: writing $FS/s\.ckpt\.h5$TMPNAME: No space left on device\$" \
        "checkpoint on a full tmpfs: the message"
same_bytes "$WORK/ckpt.saved" "$FS/s.ckpt.h5" "checkpoint on a full tmpfs: the previous checkpoint"
same_bytes "$WORK/s.saved" "$FS/s.h5" "checkpoint on a full tmpfs: the previous results file"
no_temp_left "$FS" "checkpoint on a full tmpfs"
rm -f "$FS/filler" "$FS/s.h5" "$FS/s.ckpt.h5"

# --- Periodic checkpoints -----------------------------------------------------------------------
# With the field in the results file too, so that it does not fit where the checkpoints did not.
PER="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=3000 --set output.checkpoint_every=1000 --set output.write_field=true --threads 1"
# shellcheck disable=SC2086
run_ts 0 "periodic reference" run "$CFG" $PER -o "$WORK/per.h5" -q || finish
per=$(bits "$WORK/per.h5" /results/global)
rm -f "$WORK/trace"
# shellcheck disable=SC2086
faulty FAULTFS_TRACE="$WORK/trace" -- run "$CFG" $PER -o "$WORK/size.h5" -q
ckpt_kb=$(awk '$3 == "fsync" { print int($4 / 1024) + 1; exit }' "$WORK/trace")
[ -n "$ckpt_kb" ] || { fail "periodic: no checkpoint in the trace of the reference"; finish; }
leave_free $((ckpt_kb + ckpt_kb / 2))
# shellcheck disable=SC2086
run_ts 2 "periodic checkpoints on a tmpfs that fills" run "$CFG" $PER -o "$FS/p.h5" -q &&
    expect_in "$ERR" "^touchstone: warning: 2 periodic checkpoints could not be written \(last: cannot write output $FS/p\.ckpt\.h5: writing $FS/p\.ckpt\.h5$TMPNAME: No space left on device\)\$" \
        "periodic checkpoints on a full tmpfs: the warning" &&
    expect_in "$ERR" "^touchstone: error: cannot write output $FS/p\.h5: writing $FS/p\.h5$TMPNAME: No space left on device\$" \
        "periodic checkpoints, then the results file on a full tmpfs: the error"
[ -e "$FS/p.h5" ] && fail "periodic, full tmpfs: a results file appeared"
no_temp_left "$FS" "periodic checkpoints on a full tmpfs"
[ "$(get "$FS/p.ckpt.h5" /@steps_done 2>/dev/null)" = 1000 ] ||
    fail "periodic, full tmpfs: the checkpoint holds $(get "$FS/p.ckpt.h5" /@steps_done 2>&1) steps, expected the first one's 1000"
rm -f "$FS/filler"
# shellcheck disable=SC2086
run_ts 0 "restart from the checkpoint that fitted" run "$CFG" $PER -o "$FS/p.h5" -q --restart "$FS/p.ckpt.h5" &&
    [ "$(bits "$FS/p.h5" /results/global)" != "$per" ] &&
    fail "restart from the periodic checkpoint on the tmpfs: the result differs from the uninterrupted one"

# --- Out of inodes: refused before the run, by the probe of the output directory ------------------
umount "$FS"
mount -t tmpfs -o size=1m,nr_inodes=2 tmpfs "$FS" || { fail "cannot mount a tmpfs with 2 inodes"; finish; }
i=0
while [ $i -lt 10 ] && touch "$FS/inode$i" 2>/dev/null; do i=$((i + 1)); done
# shellcheck disable=SC2086
run_ts 2 "no inode left" run "$CFG" $SMALL_F -o "$FS/i.h5" -q &&
    expect_in "$ERR" "^touchstone: error: cannot write output $FS/i\.h5: No space left on device\$" "no inode left: the message"
expect_not_in "$OUT" "result" "no inode left: the run must be refused before it starts"
finish

#!/bin/sh
# A full disk, a quota, an I/O error at fsync or close, a refused rename, while touchstone writes
# its results file or a checkpoint (on SIGUSR1 and periodic): exit status 2 with the path and the
# errno text, nothing under the final name that was not there before, no temporary file left,
# the previous file of that name byte for byte as it was, and a checkpoint that still restarts to
# the uninterrupted result. The faults come from libfaultfs (LD_PRELOAD), so this runs anywhere;
# faults.disk_full_tmpfs does the same on a real full tmpfs.
. "$(dirname "$0")/lib.sh"
D=$WORK/out
mkdir "$D"
CFG=$SRC/configs/stencil2d.ini

# --- The results file -------------------------------------------------------------------------
# With the field, so that the file is some 150 kB and a write fails in its middle.
SMALL_F="--set stencil.nx=128 --set stencil.ny=128 --set run.iterations=20 --set output.write_field=true --threads 1"
# shellcheck disable=SC2086
run_ts 0 "reference run" run "$CFG" $SMALL_F -o "$D/r.h5" -q || finish
cp "$D/r.h5" "$WORK/r.saved"
size=$(wc -c <"$D/r.h5")

# write_fails WHAT ERRNO_TEXT STAGE FAULTFS_VARS...: the write of r.h5 (--overwrite: it is
# there) fails; r.h5 survives.
write_fails() {
    what=$1 text=$2 stage=$3
    shift 3
    # shellcheck disable=SC2086
    faulty "$@" -- run "$CFG" $SMALL_F -o "$D/r.h5" -q --overwrite
    expect_status 2 "$what" || return
    expect_in "$ERR" "^touchstone: error: cannot write output $D/r\.h5: $stage $D/r\.h5$TMPNAME: $text\$" \
        "$what: the message names the output, the temporary file and the errno text"
    same_bytes "$WORK/r.saved" "$D/r.h5" "$what"
    no_temp_left "$D" "$what"
}
write_fails "disk full in the middle of the file" "No space left on device" writing FAULTFS_FULL_AFTER=$((size / 2))
write_fails "disk full at the first byte" "No space left on device" writing FAULTFS_FULL_AFTER=0
write_fails "disk full at the last byte" "No space left on device" writing FAULTFS_FULL_AFTER=$((size - 1))
write_fails "quota exceeded" "Disk quota exceeded" writing FAULTFS_FULL_AFTER=$((size / 3)) FAULTFS_ERRNO=EDQUOT
write_fails "I/O error at fsync (NFS reports delayed write errors there)" "Input/output error" writing \
    FAULTFS_FAIL=fsync FAULTFS_ERRNO=EIO
write_fails "I/O error at close" "Input/output error" writing FAULTFS_FAIL=close FAULTFS_ERRNO=EIO
write_fails "rename refused" "Permission denied" renaming FAULTFS_FAIL=rename FAULTFS_ERRNO=EACCES
write_fails "short writes on a slow disk, then full" "No space left on device" writing \
    FAULTFS_SLOW=0:1000 FAULTFS_FULL_AFTER=$((size - 5000))

# No previous file: none appears.
# shellcheck disable=SC2086
faulty FAULTFS_FULL_AFTER=$((size / 2)) -- run "$CFG" $SMALL_F -o "$D/new.h5" -q
expect_status 2 "disk full, no previous file"
[ -e "$D/new.h5" ] && fail "disk full: a file appeared under the final name $D/new.h5"
no_temp_left "$D" "disk full, no previous file"

# --- A checkpoint on SIGUSR1 ----------------------------------------------------------------------
LONG="--set stencil.nx=256 --set stencil.ny=256 --set stencil.alpha=0.001 --set run.iterations=20000 --threads 1"
# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference" run "$CFG" $LONG -o "$WORK/full.h5" -q || finish
full=$(bits "$WORK/full.h5" /results/global)

# shellcheck disable=SC2086
stop_after_init "first stop" -- run "$CFG" $LONG -o "$D/s.h5" -q
expect_status 3 "first stop (no fault)" || finish
cp "$D/s.ckpt.h5" "$WORK/ckpt.saved"
cp "$D/s.h5" "$WORK/s.saved"
before=$(get "$D/s.ckpt.h5" /@steps_done)

# Continued, stopped again, and the new checkpoint cannot be written: the one it continued from
# stays, byte for byte, and so does the results file of the first stop.
# shellcheck disable=SC2086
stop_after_init "checkpoint on a full disk" FAULTFS_FULL_AFTER=0 -- run "$CFG" $LONG -o "$D/s.h5" -q \
    --restart "$D/s.ckpt.h5"
if expect_status 2 "SIGUSR1, checkpoint on a full disk"; then
    expect_in "$ERR" "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $D/s\.ckpt\.h5: writing $D/s\.ckpt\.h5$TMPNAME: No space left on device\$" \
        "SIGUSR1, checkpoint on a full disk: the message"
fi
same_bytes "$WORK/ckpt.saved" "$D/s.ckpt.h5" "SIGUSR1, checkpoint on a full disk: the previous checkpoint"
same_bytes "$WORK/s.saved" "$D/s.h5" "SIGUSR1, checkpoint on a full disk: the previous results file"
no_temp_left "$D" "SIGUSR1, checkpoint on a full disk"

# Room for the checkpoint, not for the results file after it: the checkpoint is there, and the
# error says so and how to continue.
# shellcheck disable=SC2086
stop_after_init "results on a full disk" FAULTFS_FULL_ONLY=/s.h5.tmp. FAULTFS_FULL_AFTER=0 -- run "$CFG" $LONG -o "$D/s.h5" -q \
    --restart "$D/s.ckpt.h5"
if expect_status 2 "SIGUSR1, checkpoint written, results file on a full disk"; then
    expect_in "$ERR" "^touchstone: error: User defined signal 1: checkpoint $D/s\.ckpt\.h5 written \(continue with: $TS run $CFG .* -o $D/s\.h5 --restart $D/s\.ckpt\.h5\), but cannot write output $D/s\.h5: writing $D/s\.h5$TMPNAME: No space left on device\$" \
        "SIGUSR1, results file on a full disk: the message names the checkpoint"
fi
same_bytes "$WORK/s.saved" "$D/s.h5" "SIGUSR1, results file on a full disk: the previous results file"
no_temp_left "$D" "SIGUSR1, results file on a full disk"
grep -q " renamed $D/s.ckpt.h5\$" "$WORK/trace" || fail "SIGUSR1, results file on a full disk: no new checkpoint was written"
after=$(get "$D/s.ckpt.h5" /@steps_done)
[ "$after" -ge "$before" ] 2>/dev/null ||
    fail "SIGUSR1, results file on a full disk: the checkpoint holds $after steps, fewer than the $before before"
# shellcheck disable=SC2086
run_ts 0 "restart from the checkpoint written before the disk filled" run "$CFG" $LONG -o "$D/s.h5" -q \
    --restart "$D/s.ckpt.h5" &&
    [ "$(bits "$D/s.h5" /results/global)" != "$full" ] &&
    fail "restart after the full disk: result $(bits "$D/s.h5" /results/global) differs from the uninterrupted $full"

# --- Periodic checkpoints -----------------------------------------------------------------------
PER="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=3000 --set output.checkpoint_every=1000 --threads 1"
rm -f "$WORK/trace"
# shellcheck disable=SC2086
faulty FAULTFS_TRACE="$WORK/trace" -- run "$CFG" $PER -o "$WORK/per.h5" -q
expect_status 0 "periodic reference" || finish
per=$(bits "$WORK/per.h5" /results/global)
first=$(awk '$3 == "fsync" { print $4; exit }' "$WORK/trace")
[ -n "$first" ] || { fail "periodic reference: no checkpoint in the trace"; finish; }

# The disk fills after the first checkpoint: the others fail with a warning, the results file
# with an error; the first checkpoint is intact and continues to the same result.
# shellcheck disable=SC2086
faulty FAULTFS_FULL_AFTER=$((first + first / 2)) -- run "$CFG" $PER -o "$D/p.h5" -q
if expect_status 2 "periodic checkpoints on a disk that fills"; then
    expect_in "$ERR" "^touchstone: warning: 2 periodic checkpoints could not be written \(last: cannot write output $D/p\.ckpt\.h5: writing $D/p\.ckpt\.h5$TMPNAME: No space left on device\)\$" \
        "periodic checkpoints on a full disk: the warning"
    expect_in "$ERR" "^touchstone: error: cannot write output $D/p\.h5: writing $D/p\.h5$TMPNAME: No space left on device\$" \
        "periodic checkpoints, then the results file on a full disk: the error"
fi
[ -e "$D/p.h5" ] && fail "periodic, disk full: a results file appeared"
no_temp_left "$D" "periodic checkpoints on a full disk"
[ "$(get "$D/p.ckpt.h5" /@steps_done 2>/dev/null)" = 1000 ] ||
    fail "periodic, disk full: the checkpoint holds $(get "$D/p.ckpt.h5" /@steps_done 2>&1) steps, expected the first one's 1000"
# shellcheck disable=SC2086
run_ts 0 "restart from the last periodic checkpoint that fitted" run "$CFG" $PER -o "$D/p.h5" -q --restart "$D/p.ckpt.h5" &&
    [ "$(bits "$D/p.h5" /results/global)" != "$per" ] &&
    fail "restart from the periodic checkpoint: result differs from the uninterrupted one"

# A passing fault (one fsync fails): the run goes on, finishes, and keeps the warning in its file.
# shellcheck disable=SC2086
faulty FAULTFS_FAIL=fsync:2 FAULTFS_ERRNO=EIO -- run "$CFG" $PER -o "$D/q.h5" -q
if expect_status 0 "one periodic checkpoint fails, the disk recovers"; then
    expect_in "$ERR" "^touchstone: warning: 1 periodic checkpoint could not be written \(last: cannot write output $D/q\.ckpt\.h5: writing $D/q\.ckpt\.h5$TMPNAME: Input/output error\)\$" \
        "one periodic checkpoint fails: the warning"
    get "$D/q.h5" /warnings >"$WORK/warnings"
    expect_in "$WORK/warnings" "periodic checkpoint could not be written" "one periodic checkpoint fails: /warnings"
    [ "$(bits "$D/q.h5" /results/global)" = "$per" ] || fail "one periodic checkpoint fails: the result differs"
    [ -e "$D/q.ckpt.h5" ] && fail "one periodic checkpoint fails: the finished run left its checkpoint"
fi
no_temp_left "$D" "one periodic checkpoint fails"
finish

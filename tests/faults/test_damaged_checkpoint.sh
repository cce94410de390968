#!/bin/sh
# A checkpoint damaged on disk (a bad sector, a copy cut short, bits flipped on a network file
# system): --restart either refuses it (exit 2, a message naming it, no results file) or, when
# the damage hit bytes that do not matter, continues to the bits of the uninterrupted run.
# Never a crash, a hang, or a run that continues from a different field: the field is stored
# with a Fletcher32 checksum, so changed field bytes are refused. 16 bytes of 0xff or 0x3f at
# 64 places across the file, 12 truncations, and the two global-heap damages HDF5 1.10 crashes
# and hangs on. Then checkpoints altered so that every checksum still holds (chunks swapped,
# the field rewritten as float32, without its checksum or in other chunks, times changed, a
# step count that leaves nothing to compute, the old format): each is refused for its reason.
# check --restart judges the intact, the cut and the altered checkpoints as run --restart does.
. "$(dirname "$0")/lib.sh"
D=$WORK/out
mkdir "$D"
CFG=$SRC/configs/stencil2d.ini
ARGS="--set stencil.nx=128 --set stencil.ny=128 --set run.iterations=3000 --set output.checkpoint_every=1000 --set output.write_field=true --threads 1"

# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference" run "$CFG" $ARGS -o "$WORK/ref.h5" -q || finish
ref=$(bits "$WORK/ref.h5" /results/global)
bits "$WORK/ref.h5" /field/u >"$WORK/ref.field"

# The checkpoint of 1000 steps: the run is killed right after it is in place.
# shellcheck disable=SC2086
faulty FAULTFS_KILL=renamed:1 -- run "$CFG" $ARGS -o "$D/k.h5" -q
[ "$(get "$D/k.ckpt.h5" /@steps_done 2>/dev/null)" = 1000 ] || { fail "no checkpoint of 1000 steps to damage"; finish; }
cp "$D/k.ckpt.h5" "$WORK/good.ckpt.h5"
size=$(wc -c <"$WORK/good.ckpt.h5")

REFUSED=0 SAME=0 CHECKSUM=0
# restart_from FILE WHAT: the restart ends in a refusal or in the reference bits.
restart_from() {
    rm -f "$D/r.h5"
    # shellcheck disable=SC2086
    TOUCHSTONE_READ_TIMEOUT=${READ_TIMEOUT:-20} "$TS" run "$CFG" $ARGS -o "$D/r.h5" -q --restart "$1" >"$OUT" 2>"$ERR"
    status=$?
    case $status in
    0)
        if [ "$(bits "$D/r.h5" /results/global)" != "$ref" ]; then
            fail "$2: restart succeeded with result $(bits "$D/r.h5" /results/global), the uninterrupted run has $ref"
        elif ! bits "$D/r.h5" /field/u | cmp -s - "$WORK/ref.field"; then
            fail "$2: restart succeeded with the same result but a different field"
        else
            SAME=$((SAME + 1))
        fi
        ;;
    2)
        REFUSED=$((REFUSED + 1))
        grep -q "Fletcher32" "$ERR" && CHECKSUM=$((CHECKSUM + 1))
        expect_in "$ERR" "^touchstone: error: .*$1" "$2: the message names the checkpoint"
        [ -e "$D/r.h5" ] && fail "$2: refused, yet a results file was written"
        ;;
    *)
        fail "$2: exit status $status (a crash or worse), expected 0 or 2"
        sed 's/^/    stderr: /' "$ERR" | head -5 >&2
        ;;
    esac
}

# check_agrees FILE WHAT ARGS...: check --restart FILE judges the checkpoint as run --restart did
# just before (status in $status, message in $ERR): it reads every dataset and digest too.
check_agrees() {
    file=$1 what=$2 run_status=$status
    shift 2
    cp "$ERR" "$WORK/run.err"
    TOUCHSTONE_READ_TIMEOUT=${READ_TIMEOUT:-20} "$TS" check "$CFG" "$@" -o "$D/c.h5" -q --restart "$file" >"$OUT" 2>"$ERR"
    checked=$?
    if [ "$checked" -ne "$run_status" ]; then
        fail "$what: check --restart exits $checked where run --restart exits $run_status: $(tail -n 1 "$ERR")"
    elif [ "$run_status" -eq 2 ] && [ "$(tail -n 1 "$ERR")" != "$(tail -n 1 "$WORK/run.err")" ]; then
        fail "$what: check --restart says '$(tail -n 1 "$ERR")', run --restart '$(tail -n 1 "$WORK/run.err")'"
    fi
}

restart_from "$WORK/good.ckpt.h5" "the intact checkpoint"
# shellcheck disable=SC2086
check_agrees "$WORK/good.ckpt.h5" "the intact checkpoint" $ARGS
[ "$SAME" -eq 1 ] || { fail "the intact checkpoint does not restart to the reference"; finish; }
SAME=0

i=0
while [ $i -lt 64 ]; do
    at=$((i * (size - 16) / 63))
    cp "$WORK/good.ckpt.h5" "$WORK/bad.ckpt.h5"
    # 0xff makes NaNs, which the reader's range check refuses anyway; '?' (0x3f) makes finite
    # doubles near 5e-4 that only the checksum can tell from the real ones.
    byte='\377' && [ $((i % 2)) -eq 1 ] && byte='?'
    # shellcheck disable=SC2059
    printf "$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte$byte" |
        dd of="$WORK/bad.ckpt.h5" bs=1 seek=$at conv=notrunc status=none
    restart_from "$WORK/bad.ckpt.h5" "16 bytes of $([ "$byte" = "?" ] && echo 3f || echo ff) at byte $at"
    i=$((i + 1))
done
i=0
while [ $i -lt 12 ]; do
    len=$((i * size / 12))
    head -c $len "$WORK/good.ckpt.h5" >"$WORK/cut.ckpt.h5"
    restart_from "$WORK/cut.ckpt.h5" "cut to $len of $size bytes"
    # shellcheck disable=SC2086
    check_agrees "$WORK/cut.ckpt.h5" "cut to $len of $size bytes" $ARGS
    i=$((i + 1))
done
# Where HDF5 1.10 itself fails (tests/cli/h5_doctor.c): a damaged global heap makes it read out
# of bounds or loop forever. --restart reads the checkpoint in a child process first, so the
# run ends with a message, not a crash or a hang (it did crash before that).
DOCTOR=$(dirname "$H5GET")/h5_doctor
for how in heap_crash heap_loop; do
    cp "$WORK/good.ckpt.h5" "$WORK/$how.ckpt.h5"
    "$DOCTOR" "$WORK/$how.ckpt.h5" $how || { fail "h5_doctor $how"; continue; }
    READ_TIMEOUT=3 restart_from "$WORK/$how.ckpt.h5" "$how (HDF5's own failure)"
    # Under AddressSanitizer the reading child ends by the sanitizer's exit, not by SIGSEGV.
    why="(HDF5 crashed reading it \(Segmentation fault\)|HDF5 did not finish reading it in 3 s): the file is corrupted"
    [ -n "${ASAN_OPTIONS:-}" ] && why="(the process reading it failed: the file may be corrupted|HDF5 did not finish reading it in 3 s: the file is corrupted)"
    expect_in "$ERR" "^touchstone: error: checkpoint $WORK/$how\.ckpt\.h5: $why\$" "$how: the message"
done
[ "$CHECKSUM" -gt 0 ] || fail "no damage was caught by the field's checksum: is the field still checksummed?"

# A field of two chunks (1 MiB each: 256 rows of 512), checkpointed after 10 of 30 iterations.
BIG="--set stencil.nx=512 --set stencil.ny=384 --set run.iterations=30 --set output.checkpoint_every=10 --set output.write_field=true --threads 1"
# shellcheck disable=SC2086
faulty FAULTFS_KILL=renamed:1 -- run "$CFG" $BIG -o "$D/b.h5" -q
if [ "$(get "$D/b.ckpt.h5" /@steps_done 2>/dev/null)" = 10 ]; then
    # Moved away: a checkpoint under the output's checkpoint name belongs to that output.
    mv "$D/b.ckpt.h5" "$WORK/big.ckpt.h5"
    rm -f "$D/b.h5"
    # shellcheck disable=SC2086
    run_ts 0 "the intact two-chunk checkpoint" run "$CFG" $BIG -o "$D/b.h5" -q --restart "$WORK/big.ckpt.h5"
    # Format 3 (thread_times' digest of the whole array, before the ranks wrote their rows) is
    # still read, to the same bits.
    cp "$WORK/big.ckpt.h5" "$WORK/format3.ckpt.h5"
    if "$DOCTOR" "$WORK/format3.ckpt.h5" ckpt_format3; then
        # shellcheck disable=SC2086
        run_ts 0 "a checkpoint of format 3" run "$CFG" $BIG -o "$D/f3.h5" -q --restart "$WORK/format3.ckpt.h5" &&
            { [ "$(get "$D/f3.h5" /results/global)" = "$(get "$D/b.h5" /results/global)" ] ||
                fail "format 3: result $(get "$D/f3.h5" /results/global), format 4 $(get "$D/b.h5" /results/global)"; }
    else
        fail "h5_doctor ckpt_format3"
    fi
    # altered CASE PATTERN: h5_doctor's CASE makes a checkpoint --restart refuses with PATTERN.
    altered() {
        cp "$WORK/big.ckpt.h5" "$WORK/$1.ckpt.h5"
        "$DOCTOR" "$WORK/$1.ckpt.h5" "$1" || { fail "h5_doctor $1"; return; }
        rm -f "$D/r.h5"
        # shellcheck disable=SC2086
        run_ts 2 "$1" run "$CFG" $BIG -o "$D/r.h5" -q --restart "$WORK/$1.ckpt.h5" &&
            expect_in "$ERR" "^touchstone: error: $WORK/$1\.ckpt\.h5: $2" "$1: the reason"
        # shellcheck disable=SC2086
        check_agrees "$WORK/$1.ckpt.h5" "$1" $BIG
        [ -e "$D/r.h5" ] && fail "$1: refused, yet a results file was written"
    }
    altered ckpt_swap_chunks "/field: the values are not those written \(their digest differs from /field@digest\)"
    altered ckpt_float32 "/field: not stored as IEEE 64-bit little-endian doubles, as touchstone writes it"
    altered ckpt_no_checksum "/field: not stored with a Fletcher32 checksum as its only filter, as touchstone writes it"
    altered ckpt_other_chunks "/field: not chunked as touchstone writes it"
    altered ckpt_step_time "/step_times: the values are not those written"
    altered ckpt_tiny_time "/step_times: the values are not those written"
    altered ckpt_thread_time "/thread_times: the values are not those written"
    # Nothing left to compute: the run would "finish" with the checkpoint's field as its result.
    altered ckpt_steps_all "/@steps_done: 31 is out of range, expected 0\.\.30"
    altered ckpt_version1 "/@touchstone_checkpoint: checkpoint format 1, written by an older touchstone"
    altered ckpt_version2 "/@touchstone_checkpoint: checkpoint format 2, written by an older touchstone whose field"
    altered ckpt_field_point "/field: the values are not those written \(their digest differs from /field@digest\)"
else
    fail "no checkpoint of 10 steps of the two-chunk field"
fi
echo "damaged checkpoints: $REFUSED refused ($CHECKSUM by the field checksum), $SAME harmless and restarted to the same bits"
finish

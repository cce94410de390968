#!/bin/sh
# The output directory removed (rm -rf) or made read-only (a read-only bind mount over it)
# after the output probe at start-up, while the run is in its iterations or while it writes a
# checkpoint: for a checkpoint on SIGUSR1, periodic checkpoints and the results file at the
# end. Exit status 2 (never a crash), the path and the errno text in the message, nothing
# under a final name that was not there before, the previous files byte for byte as they were,
# no temporary file left where one can be removed, and where one cannot (the directory turned
# read-only in the middle of the write), the message names it. The run is paused (SIGSTOP) at
# the point of the fault, so where it lands does not depend on timing. Runs in a private mount
# namespace (mount_ns.sh), skipped where none is allowed.
. "$(dirname "$0")/mount_ns.sh"
. "$(dirname "$0")/lib.sh"
D=$WORK/out
trap 'umount "$D" 2>/dev/null; rm -rf "$WORK"' EXIT
CFG=$SRC/configs/stencil2d.ini
ENOENT="No such file or directory"
EROFS="Read-only file system"
# Long enough that a SIGUSR1 after the stop at the audit lands in the iterations; the ones that
# finish take a second or two.
BASE="--set stencil.nx=256 --set stencil.ny=256 --set stencil.alpha=0.001 --threads 1"
LONG="$BASE --set run.iterations=20000"
FINISH="$BASE --set run.iterations=30000"
PERIODIC="$FINISH --set output.checkpoint_every=5000"
CASES=0

# paused WHAT: waits until the run stopped itself at its next stop point (FAULTFS_STOP, given
# to start: the placement audit after init, the open of a checkpoint's temporary file). The
# fault then lands at that exact point whatever the machine's load: pausing it from here once
# its trace showed the point raced the run, which went on meanwhile. 1 if the run ended first.
paused() {
    while :; do
        state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
        [ "$state" = T ] && return 0
        if [ -z "$state" ] || [ "$state" = Z ]; then
            fail "$1: the run ended before its stop point"
            wait $pid
            return 1
        fi
        sleep 0.01
    done
}

# at_checkpoint WHAT: the run's stop is at its checkpoint's temporary file (else it is killed).
at_checkpoint() {
    grep -Eq " open $D/s\.ckpt\.h5$TMPNAME\$" "$WORK/trace" && return 0
    fail "$1: the run stopped elsewhere than at its checkpoint's temporary file: $(tail -n 2 "$WORK/trace" | tr '\n' '|')"
    kill -KILL $pid
    wait $pid
    return 1
}

# resume [SIGNAL]: sends SIGNAL (pending until the run continues), continues it, waits for it;
# status in $status.
resume() {
    [ -n "${1:-}" ] && kill -"$1" $pid
    kill -CONT $pid
    wait $pid
    status=$?
}

vanish() { rm -rf "$D"; }
make_readonly() { mount --bind "$D" "$D" && mount -o remount,bind,ro "$D"; }

# expect_error WHAT PATTERN: exit status 2, PATTERN on stderr, nothing on stdout (-q).
expect_error() {
    CASES=$((CASES + 1))
    expect_status 2 "$1" || return 1
    expect_in "$ERR" "$2" "$1: the message"
    [ -s "$OUT" ] && fail "$1: something on stdout: $(head -3 "$OUT")"
    return 0
}

# still_gone WHAT: touchstone wrote nothing anywhere once its directory was gone.
still_gone() {
    [ -e "$D" ] && fail "$1: $D was created again: $(ls -A "$D")"
    no_temp_left "$WORK" "$1"
}

# only_these WHAT NAME...: the directory holds exactly these names.
only_these() {
    what=$1
    shift
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    have=$(find "$D" -mindepth 1 -maxdepth 1 -exec basename {} \; | sort | tr '\n' ' ')
    [ "$have" = "$want" ] || fail "$what: $D holds '$have', expected '$want'"
}

# --- Removed ------------------------------------------------------------------------------------
mkdir "$D"
# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1 -- run "$CFG" $LONG -o "$D/s.h5" -q
if paused "removed, SIGUSR1"; then
    vanish
    resume USR1
    expect_error "removed, SIGUSR1" \
        "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $D/s\.ckpt\.h5: $ENOENT\$"
    still_gone "removed, SIGUSR1"
fi

mkdir "$D"
# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1 -- run "$CFG" $FINISH -o "$D/r.h5" -q
if paused "removed, the run finishes"; then
    vanish
    resume
    expect_error "removed, the run finishes" "^touchstone: error: cannot write output $D/r\.h5: $ENOENT\$"
    still_gone "removed, the run finishes"
fi

mkdir "$D"
# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1 -- run "$CFG" $PERIODIC -o "$D/p.h5" -q
if paused "removed, periodic checkpoints"; then
    vanish
    resume
    if expect_error "removed, periodic checkpoints" "^touchstone: error: cannot write output $D/p\.h5: $ENOENT\$"; then
        expect_in "$ERR" "^touchstone: warning: [0-9]+ periodic checkpoints? could not be written \(last: cannot write output $D/p\.ckpt\.h5: $ENOENT\)\$" \
            "removed, periodic checkpoints: a warning, and the run went on"
    fi
    still_gone "removed, periodic checkpoints"
fi

# Removed while the checkpoint is written (the run stops itself after the audit, takes SIGUSR1,
# and stops again once the checkpoint's temporary file is open: the second temporary file, the
# first being the output probe at start): its temporary file goes with the directory, and the
# rename says why.
mkdir "$D"
# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1,open:2 -- run "$CFG" $LONG -o "$D/s.h5" -q
if paused "removed mid-checkpoint" && kill -USR1 $pid && kill -CONT $pid && paused "removed mid-checkpoint" &&
    at_checkpoint "removed mid-checkpoint"; then
    vanish
    resume
    expect_error "removed mid-checkpoint" \
        "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $D/s\.ckpt\.h5: renaming $D/s\.ckpt\.h5$TMPNAME: $ENOENT\$"
    still_gone "removed mid-checkpoint"
fi

# --- Read-only ----------------------------------------------------------------------------------
# The files of a first stop sit in the directory: a results file and its checkpoint.
mkdir "$D"
# shellcheck disable=SC2086
stop_after_init "first stop" -- run "$CFG" $LONG -o "$D/s.h5" -q
expect_status 3 "first stop (no fault)" || finish
cp "$D/s.h5" "$WORK/s.saved"
cp "$D/s.ckpt.h5" "$WORK/ckpt.saved"

# untouched WHAT: the files of the first stop are as they were, and nothing else is there.
untouched() {
    same_bytes "$WORK/s.saved" "$D/s.h5" "$1: the previous results file"
    same_bytes "$WORK/ckpt.saved" "$D/s.ckpt.h5" "$1: the previous checkpoint"
    only_these "$1" s.h5 s.ckpt.h5
}

# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1 -- run "$CFG" $LONG -o "$D/s.h5" -q --restart "$D/s.ckpt.h5"
if paused "read-only, SIGUSR1" && make_readonly; then
    resume USR1
    expect_error "read-only, SIGUSR1" \
        "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $D/s\.ckpt\.h5: $EROFS\$"
    untouched "read-only, SIGUSR1"
    umount "$D"
fi

# The runs that do not continue the stop replace its files (--overwrite), if they can.
# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1 -- run "$CFG" $FINISH -o "$D/s.h5" -q --overwrite
if paused "read-only, the run finishes" && make_readonly; then
    resume
    expect_error "read-only, the run finishes" "^touchstone: error: cannot write output $D/s\.h5: $EROFS\$"
    untouched "read-only, the run finishes"
    umount "$D"
fi

# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1 -- run "$CFG" $PERIODIC -o "$D/s.h5" -q --overwrite
if paused "read-only, periodic checkpoints" && make_readonly; then
    resume
    if expect_error "read-only, periodic checkpoints" "^touchstone: error: cannot write output $D/s\.h5: $EROFS\$"; then
        expect_in "$ERR" "^touchstone: warning: [0-9]+ periodic checkpoints? could not be written \(last: cannot write output $D/s\.ckpt\.h5: $EROFS\)\$" \
            "read-only, periodic checkpoints: a warning, and the run went on"
    fi
    umount "$D"
    # A periodic checkpoint may have been written before the directory turned read-only.
    if ! cmp -s "$WORK/ckpt.saved" "$D/s.ckpt.h5"; then
        [ "$(get "$D/s.ckpt.h5" /@steps_done 2>/dev/null)" = 5000 ] ||
            fail "read-only, periodic checkpoints: $D/s.ckpt.h5 is neither the previous checkpoint nor the first periodic one"
        cp "$WORK/ckpt.saved" "$D/s.ckpt.h5"
    fi
    same_bytes "$WORK/s.saved" "$D/s.h5" "read-only, periodic checkpoints: the previous results file"
    only_these "read-only, periodic checkpoints" s.h5 s.ckpt.h5
fi

# Read-only while the checkpoint is written (stopped as above): the rename fails, and so does
# the removal of the temporary file; the message names it, for the user to delete.
# shellcheck disable=SC2086
start FAULTFS_STOP=audit:1,open:2 -- run "$CFG" $LONG -o "$D/s.h5" -q --restart "$D/s.ckpt.h5"
if paused "read-only mid-checkpoint" && kill -USR1 $pid && kill -CONT $pid && paused "read-only mid-checkpoint" &&
    at_checkpoint "read-only mid-checkpoint" && make_readonly; then
    resume
    tmp=$(awk '$3 == "open" && index($4, ".ckpt.h5.tmp.") { print $4 }' "$WORK/trace")
    expect_error "read-only mid-checkpoint" \
        "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $D/s\.ckpt\.h5: renaming $D/s\.ckpt\.h5$TMPNAME: $EROFS; removing $D/s\.ckpt\.h5$TMPNAME failed too: $EROFS\$"
    grep -qF "removing $tmp failed" "$ERR" || fail "read-only mid-checkpoint: the message does not name the file left, $tmp"
    same_bytes "$WORK/s.saved" "$D/s.h5" "read-only mid-checkpoint: the previous results file"
    same_bytes "$WORK/ckpt.saved" "$D/s.ckpt.h5" "read-only mid-checkpoint: the previous checkpoint"
    only_these "read-only mid-checkpoint" s.h5 s.ckpt.h5 "$(basename "$tmp")"
    umount "$D"
fi

echo "$CASES cases"
finish

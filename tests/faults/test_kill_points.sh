#!/bin/sh
# SIGKILL at every step of every file touchstone writes: after the temporary file is created,
# at its first byte, half-way, one byte short (an eighth for the results file), before fsync,
# before rename, after rename (before the directory is synced), for checkpoints and the
# results file, and right after the output probe. The kill comes from inside (libfaultfs
# raises SIGKILL at the exact event), so every point is hit every time. After each kill
# (lib.sh, after_kill): the file under the final name is the previous one or a complete new
# one, the newest checkpoint written is there and restarts to the bits (result and field) of
# an uninterrupted run. faults.kill_random kills from outside at random moments.
. "$(dirname "$0")/lib.sh"

# The uninterrupted run, traced: the bytes each write starts and ends at.
# shellcheck disable=SC2086
faulty FAULTFS_TRACE="$WORK/ref.trace" -- run "$KCFG" $KARGS -o "$WORK/ref.h5" -q
expect_status 0 "uninterrupted reference" || finish
kill_reference
ends=$(awk '$3 == "fsync" { printf "%s ", $4 }' "$WORK/ref.trace")
set -- $ends
[ $# -eq 5 ] || { fail "the reference wrote $# files, expected 4 checkpoints and the results file"; finish; }

# kill_at WHAT POINT: one run killed at POINT (FAULTFS_KILL), then after_kill.
kill_at() {
    rm -f "$WORK/trace"
    # shellcheck disable=SC2086
    faulty FAULTFS_TRACE="$WORK/trace" FAULTFS_KILL="$2" -- run "$KCFG" $KARGS -o "$KD/$KNAME.h5" -q --overwrite
    if [ "$status" -ne 137 ] || ! grep -q ' KILL ' "$WORK/trace"; then
        fail "$1 ($2): the run was not killed there (exit status $status)"
        return
    fi
    after_kill "killed at $1 ($2)"
    POINTS="$POINTS
  $1 ($2)"
}

POINTS=""
kill_at "the output probe, just created" open:1
start=0
w=1
for end in $ends; do
    if [ $w -le 4 ]; then file="checkpoint $w"; else file="results file"; fi
    size=$((end - start))
    kill_at "$file: temporary file created" open:$((w + 1))
    kill_at "$file: half written" byte:$((start + size / 2))
    if [ $w -le 4 ]; then
        kill_at "$file: all but its last byte" byte:$((end - 1))
    else # its size varies with the warnings a run has (under a busy CI, a run's file once ended
        # more than 4 kB before the reference's): an eighth short, tens of kB
        kill_at "$file: seven eighths written" byte:$((end - size / 8))
    fi
    kill_at "$file: renamed, directory not yet synced" renamed:$w
    # Every step for the first and last checkpoint and the results file.
    if [ $w -eq 1 ] || [ $w -ge 4 ]; then
        kill_at "$file: first byte" byte:$((start + 1))
        kill_at "$file: written, before fsync" fsync:$w
        kill_at "$file: synced and closed, before rename" rename:$w
    fi
    start=$end
    w=$((w + 1))
done

echo "kill points tested: $KILLS; restarts from a checkpoint: $RESTARTS (all bitwise identical unless FAILED above)"
echo "results file afterwards: previous file kept $KEPT_PREVIOUS times, complete new file $NEW_COMPLETE times"
echo "temporary files left by killed writers (never under a final name, removed): $TEMPS_LEFT"
echo "points:$POINTS"
[ "$KILLS" -ge 28 ] || fail "only $KILLS kill points were reached, expected 28"
finish

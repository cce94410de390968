#!/bin/sh
# Outputs that destroy or collide: a name that is not a regular file is refused before the run;
# an existing file is replaced only with --overwrite (or by the restart that continues it); the
# default name never collides (runs in the same second leave one file each); a finished run
# deletes only its own checkpoint; temporaries of dead runs on this host are removed, others'
# kept; %h and %p expand. Arguments: TOUCHSTONE SOURCE_DIR H5_GET FIXED_TIME_SO
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
FIXED=${4:?path to libfixed_time.so}
get() { "$H5GET" "$@"; }
CFG=$SRC/configs/stencil2d.ini
D=$WORK/out
mkdir "$D"

# A run that would take many minutes: refused names must be refused before it starts (the
# timeout is a guard against a run that was not refused, the refusal takes milliseconds).
HOURS="--set stencil.nx=2048 --set stencil.ny=2048 --set run.iterations=100000"

# refused WHAT PATH [ARGS...]: exit 2 before the run, naming PATH.
refused() {
    what=$1 path=$2
    shift 2
    # shellcheck disable=SC2086
    timeout 300 "$TS" run "$CFG" $HOURS -o "$path" "$@" >"$OUT" 2>"$ERR"
    status=$?
    if [ "$status" -ne 2 ]; then
        fail "$what: exit status $status, expected 2 before the run"
        sed 's/^/    stderr: /' "$ERR" | head -5 >&2
    fi
    expect_in "$ERR" "$path" "$what: the message names the path"
    [ -s "$OUT" ] && fail "$what: a refused run printed a summary"
}

# --- Names that are not regular files ---------------------------------------------------------
# A character device of our own (the same device as /dev/null when root may create it): the
# baseline would rename over it, and /dev/null itself must not be at stake in a test.
if mknod "$D/cdev" c 1 3 2>/dev/null; then
    refused "a character device (/dev/null's major and minor)" "$D/cdev"
    [ -c "$D/cdev" ] || fail "the character device was replaced"
    refused "a character device, even with --overwrite" "$D/cdev" --overwrite
    [ -c "$D/cdev" ] || fail "the character device was replaced with --overwrite"
    if mknod "$D/bdev" b 7 200 2>/dev/null; then
        refused "a block device" "$D/bdev" --overwrite
        [ -b "$D/bdev" ] || fail "the block device was replaced"
    fi
else
    refused "/dev/null" /dev/null --overwrite
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
fi
mkfifo "$D/fifo.h5"
refused "a FIFO" "$D/fifo.h5" --overwrite
[ -p "$D/fifo.h5" ] || fail "the FIFO was replaced"
mkdir "$D/dir.h5"
refused "a directory" "$D/dir.h5" --overwrite
[ -d "$D/dir.h5" ] || fail "the directory was replaced"
echo target >"$D/target"
ln -s target "$D/link.h5"
refused "a symbolic link (rename would replace the link)" "$D/link.h5" --overwrite
[ -L "$D/link.h5" ] && [ "$(cat "$D/target")" = target ] || fail "the link or its target changed"
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$D/sock.h5" 2>/dev/null; then
    refused "a socket" "$D/sock.h5" --overwrite
    [ -S "$D/sock.h5" ] || fail "the socket was replaced"
fi
# The checkpoint name next to the output is checked the same way.
mkfifo "$D/cf.ckpt.h5"
refused "a FIFO under the checkpoint name" "$D/cf.ckpt.h5" --overwrite
[ -p "$D/cf.ckpt.h5" ] || fail "the FIFO under the checkpoint name was replaced"
[ -e "$D/cf.h5" ] && fail "a run whose checkpoint name is a FIFO wrote its output"
find "$D" -name '*.tmp.*' | grep -q . && fail "refused runs left temporary files"

# --- A name given is never replaced without --overwrite ---------------------------------------
# shellcheck disable=SC2086
run_ts 0 "first run" run "$CFG" $SMALL -o "$D/a.h5" -q || finish
cp "$D/a.h5" "$WORK/a.saved"
refused "an existing output" "$D/a.h5"
expect_in "$ERR" "$D/a\.h5 exists; remove it, choose another -o, or add --overwrite to replace it" \
    "an existing output: the message says what to do"
cmp -s "$WORK/a.saved" "$D/a.h5" || fail "a refused run changed the existing $D/a.h5"
# shellcheck disable=SC2086
run_ts 2 "an existing output named in --set" run "$CFG" $SMALL --set output.file="$D/a.h5" -q
cmp -s "$WORK/a.saved" "$D/a.h5" || fail "a refused run (--set output.file) changed $D/a.h5"
# shellcheck disable=SC2086
run_ts 0 "--overwrite" run "$CFG" $SMALL --set init.seed=5 -o "$D/a.h5" -q --overwrite
cmp -s "$WORK/a.saved" "$D/a.h5" && fail "--overwrite did not replace $D/a.h5"
[ "$(get "$D/a.h5" /config@output.overwrite)" = true ] || fail "--overwrite is not recorded as output.overwrite in /config"
# shellcheck disable=SC2086
run_ts 0 "output.overwrite = true" run "$CFG" $SMALL -o "$D/a.h5" -q --set output.overwrite=true
echo "another program's file" >"$D/b.ckpt.h5"
refused "an existing checkpoint name" "$D/b.h5"
[ "$(cat "$D/b.ckpt.h5")" = "another program's file" ] || fail "a refused run changed $D/b.ckpt.h5"

# --- The default name: runs in the same second leave a file each ----------------------------
# time() fixed by the preload: every run below starts "in the same second".
T=$(date +%s)
same_second() { env LD_PRELOAD="$FIXED" FIXED_TIME="$T" "$@"; }
S=$WORK/same
mkdir "$S"
# shellcheck disable=SC2086
(cd "$S" && same_second "$TS" run "$CFG" $SMALL >"$WORK/first.out" 2>&1) || fail "first default-name run failed"
first=$(sed -n 's/^  output     \([^ ]*\).*/\1/p' "$WORK/first.out")
case $first in
touchstone-stencil2d-parallel-*.h5) ;;
*) fail "the default name is '$first'"; sed 's/^/    /' "$WORK/first.out" >&2; finish ;;
esac
stem=${first%.h5}
cp "$S/$first" "$WORK/first.saved"
# shellcheck disable=SC2086
(cd "$S" && same_second "$TS" run "$CFG" $SMALL >"$OUT" 2>"$ERR") || fail "second default-name run in the same second failed"
[ -s "$S/$stem-2.h5" ] || fail "the second run in the same second did not write $stem-2.h5: $(ls "$S" | tr '\n' ' ')"
cmp -s "$WORK/first.saved" "$S/$first" || fail "the second run replaced the first run's $first"
expect_in "$OUT" "^  output     $stem-2\.h5  \($first exists\)" "the summary names the numbered file and why"
expect_in "$ERR" "note: $first exists: this run writes $stem-2\.h5" "stderr notes the numbered name"
# Free means: neither the name nor its checkpoint name exists.
echo "not ours" >"$S/$stem-3.ckpt.h5"
# shellcheck disable=SC2086
(cd "$S" && same_second "$TS" run "$CFG" $SMALL -q 2>"$ERR") || fail "third default-name run failed"
[ -s "$S/$stem-4.h5" ] && [ ! -e "$S/$stem-3.h5" ] ||
    fail "with $stem-3.ckpt.h5 taken the third run should write $stem-4.h5: $(ls "$S" | tr '\n' ' ')"
[ "$(cat "$S/$stem-3.ckpt.h5")" = "not ours" ] || fail "the third run changed $stem-3.ckpt.h5"

# Two runs started together in the same second: two files, both complete, both exit 0.
P=$WORK/pair
mkdir "$P"
# shellcheck disable=SC2086
(cd "$P" && same_second "$TS" run "$CFG" $SMALL -q >/dev/null 2>"$WORK/p1.err") &
p1=$!
# shellcheck disable=SC2086
(cd "$P" && same_second "$TS" run "$CFG" $SMALL -q >/dev/null 2>"$WORK/p2.err") &
p2=$!
wait $p1 || fail "first of two simultaneous runs failed: $(cat "$WORK/p1.err")"
wait $p2 || fail "second of two simultaneous runs failed: $(cat "$WORK/p2.err")"
n=$(find "$P" -name '*.h5' | wc -l)
[ "$n" = 2 ] || fail "two simultaneous runs with the default name left $n file(s): $(ls "$P" | tr '\n' ' ')"
for f in "$P"/*.h5; do
    [ "$(get "$f" /@complete 2>/dev/null)" = 1 ] || fail "$f is not a complete run file"
done

# --- A name taken during the run: the run moves on, says so, exits 0 --------------------------
# long_run NAME ARGS...: starts a run writing a checkpoint every 1000 of 20000 iterations (a
# second or two); returns once its first checkpoint exists: the run is inside its iterations,
# with 19 times as many still to go. Under ASan (make test-asan sets ASAN_OPTIONS), where every
# iteration costs about 10 times as much, a tenth of them (100 of 2000): the same second or two,
# the same 19 checkpoints' time to go (the test there: 42 s -> 20 s, on a loaded 2-core machine).
LONGER="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=20000 --set output.checkpoint_every=1000 --threads 1"
[ -n "${ASAN_OPTIONS:-}" ] &&
    LONGER="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=2000 --set output.checkpoint_every=100 --threads 1"
long_run() {
    name=$1
    shift
    # shellcheck disable=SC2086
    "$TS" run "$CFG" $LONGER -o "$D/$name.h5" "$@" >"$OUT" 2>"$ERR" &
    pid=$!
    tries=0
    while [ ! -s "$D/$name.ckpt.h5" ] && [ $tries -lt 1200 ] && kill -0 $pid 2>/dev/null; do
        sleep 0.05
        tries=$((tries + 1))
    done
    [ -s "$D/$name.ckpt.h5" ] || fail "$name: no periodic checkpoint within a minute"
    kill -0 $pid 2>/dev/null || fail "$name: the run ended right after its first checkpoint; make it longer"
}
# finished NAME: waits for the run; exit 0 expected.
finished() {
    wait $pid
    status=$?
    [ $status -eq 0 ] || { fail "$1: exit status $status, expected 0"; sed 's/^/    /' "$ERR" | head -5 >&2; }
}

long_run late
kill -STOP $pid
echo "another run's results" >"$D/late.h5"
kill -CONT $pid
finished "output name taken during the run"
[ "$(cat "$D/late.h5")" = "another run's results" ] || fail "the run replaced late.h5, written by another during the run"
[ "$(get "$D/late-2.h5" /@complete 2>/dev/null)" = 1 ] || fail "the run did not write its results to late-2.h5"
expect_in "$ERR" "warning: $D/late\.h5 appeared during the run .* this run's results go to $D/late-2\.h5" \
    "output name taken during the run: the warning on stderr"
expect_in "$OUT" "output     $D/late-2\.h5  \(WARNING: $D/late\.h5 appeared during the run" "the summary warns"
get "$D/late-2.h5" /warnings >"$WORK/warnings" 2>&1
expect_in "$WORK/warnings" "late\.h5 appeared during the run" "the file's /warnings keep the move"
[ -e "$D/late.ckpt.h5" ] && fail "the run left its own checkpoint late.ckpt.h5"

# --- Only the run's own checkpoint is deleted ---------------------------------------------------
# A file put under the checkpoint name during the run is not this run's: its checkpoints move on
# with the name, and the foreign file survives the finished run.
long_run foreign
kill -STOP $pid
rm -f "$D/foreign.ckpt.h5"
echo "someone else's checkpoint" >"$D/foreign.ckpt.h5"
kill -CONT $pid
finished "checkpoint name taken during the run"
[ "$(cat "$D/foreign.ckpt.h5" 2>/dev/null)" = "someone else's checkpoint" ] ||
    fail "the finished run replaced or deleted foreign.ckpt.h5, which was not its checkpoint"
[ "$(get "$D/foreign-2.h5" /@complete 2>/dev/null)" = 1 ] || fail "the run did not move on to foreign-2.h5"
[ -e "$D/foreign-2.ckpt.h5" ] && fail "the run left its own checkpoint foreign-2.ckpt.h5"
[ -e "$D/foreign.h5" ] && fail "the run wrote foreign.h5 though its checkpoints had moved to foreign-2"

# With --overwrite the name is the run's, but a checkpoint it did not write stays.
echo "kept" >"$D/ow.ckpt.h5"
# shellcheck disable=SC2086
run_ts 0 "--overwrite, foreign checkpoint name" run "$CFG" $SMALL -o "$D/ow.h5" -q --overwrite
[ "$(cat "$D/ow.ckpt.h5" 2>/dev/null)" = kept ] || fail "a finished run deleted ow.ckpt.h5, which it never wrote"
# Its own periodic checkpoint is removed.
# shellcheck disable=SC2086
run_ts 0 "periodic checkpoints" run "$CFG" $SMALL --set output.checkpoint_every=1 -o "$D/own.h5" -q
[ -e "$D/own.ckpt.h5" ] && fail "a finished run left its own periodic checkpoint"

# --- The restart that continues a stopped run replaces its output ------------------------------
long_run stopped
kill -USR1 $pid
wait $pid
[ $? -eq 3 ] || fail "stopped: exit status after SIGUSR1 is not 3"
[ "$(get "$D/stopped.h5" /@complete)" = 0 ] || fail "stopped: no incomplete results file"
# shellcheck disable=SC2086
run_ts 2 "a restart with another output name that exists" run "$CFG" $LONGER -o "$D/a.h5" -q \
    --restart "$D/stopped.ckpt.h5"
# Another spelling of the checkpoint's path is the same file.
# shellcheck disable=SC2086
run_ts 0 "restart of the stopped run" run "$CFG" $LONGER -o "$D/stopped.h5" -q \
    --restart "$D/../out/stopped.ckpt.h5"
[ "$(get "$D/stopped.h5" /@complete)" = 1 ] || fail "the restart did not replace the stopped run's file"
[ -e "$D/stopped.ckpt.h5" ] && fail "the restarted run left the checkpoint it continued"
[ -e "$D/stopped-2.h5" ] && fail "the restart moved to stopped-2.h5 instead of replacing its own output"

# --- Temporary files of dead runs on this host ------------------------------------------------
host=$(uname -n | cut -d. -f1 | tr -c 'A-Za-z0-9_\n-' '_')
dead=$(cat /proc/sys/kernel/pid_max) # never a process id
T1=$D/t.h5.tmp.$host.$dead.0123456789abcdef
T2=$D/x.ckpt.h5.tmp.$host.$dead.fedcba9876543210
LIVE=$D/t.h5.tmp.$host.$$.0123456789abcdef
OTHER=$D/t.h5.tmp.otherhost.$dead.0123456789abcdef
ODD=$D/t.h5.tmp.$host.$dead.notrandom
for f in "$T1" "$T2" "$LIVE" "$OTHER" "$ODD"; do echo partial >"$f"; done
# shellcheck disable=SC2086
run_ts 0 "a run next to stale temporaries" run "$CFG" $SMALL -o "$D/t.h5" || finish
[ -e "$T1" ] && fail "a dead process's temporary results file on this host was not removed"
[ -e "$T2" ] && fail "a dead process's temporary checkpoint on this host was not removed"
[ -e "$LIVE" ] || fail "a live process's temporary file was removed"
[ -e "$OTHER" ] || fail "another host's temporary file was removed (its processes are not ours to see)"
[ -e "$ODD" ] || fail "a file that only looks like a temporary was removed"
expect_in "$ERR" "removed 2 temporary files" "the removal is noted"

# --- %h and %p ---------------------------------------------------------------------------------
# shellcheck disable=SC2086
run_ts 0 "%h and %p" run "$CFG" $SMALL -o "$D/run-%h-%p.h5" -q
find "$D" -name "run-$host-*.h5" | grep -Eq "/run-$host-[0-9]+\.h5\$" || fail "%h-%p did not expand to run-$host-<pid>.h5: $(ls "$D" | tr '\n' ' ')"
run_ts 0 "check accepts %h and %p" check "$CFG" --set output.file=x-%h-%p.h5 >/dev/null
run_ts 2 "check refuses %q" check "$CFG" --set output.file=x-%q.h5
finish

#!/bin/sh
# Limits and odd environments, for every command: an OpenMP environment the runtime would crash
# on or ignore, a small stack (ulimit -s), a file size limit (ulimit -f), a stop signal that
# comes before the run can act on it (made deterministic by sig_pending, which starts touchstone
# with the signal already pending), standard output that cannot be written (/dev/full, closed),
# Each ends with a message and
# its exit status, never a crash, a silent death or a quiet success on something else.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
SIGP=${4:?path to sig_pending}
get() { "$H5GET" "$@"; }
CFG=$SRC/configs/default.ini
S2D=$SRC/configs/stencil2d.ini
cd "$WORK" || exit 1

# with_ulimit "OPTIONS" CMD...: CMD under `ulimit OPTIONS` in a shell of its own.
with_ulimit() {
    opts=$1
    shift
    sh -c "ulimit $opts && exec \"\$@\"" with_ulimit "$@"
}

# nothing_in DIR WHAT: DIR is empty (no output, no temporary file); emptied for the next case.
nothing_in() {
    left=$(ls -A "$1")
    [ -z "$left" ] || fail "$2: left in $1: $left"
    rm -f "$1"/*
}

# A run file for report, compare and plot.
TINY="--set run.kernel=sum --set sum.n=1000 --set run.iterations=3"
# shellcheck disable=SC2086
run_ts 0 "a run file to read" run "$CFG" $TINY --overwrite -o "$WORK/r.h5" -q || finish
mkdir "$WORK/out"

# --- The OpenMP environment ----------------------------------------------------------------------
# libgomp read these when it was loaded: 65536 threads crashed it (SIGSEGV), 100G stacks ended the
# process with status 1, values it cannot parse it ignored for its default (OMP_PLACES and
# OMP_PROC_BIND too: the run recorded them as its binding). run, check, topo and advise (--check
# too) refuse them before any OpenMP call, naming the variable, its value and the limit.
for case in "OMP_NUM_THREADS=65536|1..4096" "OMP_NUM_THREADS=100000|1..4096" "OMP_NUM_THREADS=4,65536|1..4096" \
    "OMP_NUM_THREADS=65536,2|1..4096" "OMP_NUM_THREADS=0|1..4096" "OMP_NUM_THREADS=abc|1..4096" \
    "OMP_NUM_THREADS=-3|1..4096" "OMP_NUM_THREADS=4,,2|1..4096" "OMP_NUM_THREADS=99999999999999999999999|1..4096" \
    "OMP_THREAD_LIMIT=0|at least 1" "OMP_THREAD_LIMIT=many|at least 1" "OMP_STACKSIZE=100G|64K..1G" \
    "OMP_STACKSIZE=1T|64K..1G" "OMP_STACKSIZE=8K|64K..1G" "OMP_STACKSIZE=-1B|64K..1G" "GOMP_STACKSIZE=2G|64K..1G" \
    "OMP_PLACES=garbage|expected '\{' or a CPU number" "OMP_PLACES={|expected a CPU number" \
    "OMP_PLACES={99999}|CPU number 99999 out of range" "OMP_PLACES=cores(0)|refuses it" \
    "OMP_PLACES=!{0}|the place to remove is not in the list" "OMP_PLACES={0}:99999999:1|from 1 to 65535, not 99999999" \
    "OMP_PROC_BIND=maybe|expected false, true" "OMP_PROC_BIND=false,close|false and true stand alone"; do
    var=${case%%|*}
    limit=${case#*|}
    name=${var%%=*}
    value=${var#*=}
    for cmd in run check topo advise advise-check; do
        if [ $cmd = topo ] || [ $cmd = advise ]; then
            set -- $cmd
        elif [ $cmd = advise-check ]; then
            set -- advise --check
        else
            # shellcheck disable=SC2086
            set -- $cmd "$CFG" $TINY
            [ $cmd = run ] && set -- "$@" --overwrite -o "$WORK/out/env.h5"
        fi
        expect_run 2 "$cmd with $var" env "$var" "$TS" "$@" &&
            expect_in "$ERR" "^touchstone: error: $name=$(printf '%s' "$value" | sed 's/[].*+?(){}|^$[]/\\&/g'): .*$limit" \
                "$cmd with $var: the message names the variable, its value and the limit"
        nothing_in "$WORK/out" "$cmd with $var"
    done
done
# What the runtime reads as meant is accepted: blanks, a nested list, units, the limits themselves.
for var in "OMP_NUM_THREADS= 2 " "OMP_NUM_THREADS=2,1" "OMP_NUM_THREADS=" "OMP_THREAD_LIMIT=64" "OMP_STACKSIZE=64K" \
    "OMP_STACKSIZE= 1 g" "GOMP_STACKSIZE=512k" "OMP_PLACES={0}" "OMP_PROC_BIND=spread,close"; do
    # shellcheck disable=SC2086
    expect_run 0 "run with $var" env "$var" "$TS" run "$CFG" $TINY --overwrite -o "$WORK/ok.h5" -q
    expect_run 0 "topo with $var" env "$var" "$TS" topo
done
expect_run 0 "topo with OMP_NUM_THREADS=4096, the most" env OMP_NUM_THREADS=4096 "$TS" topo --format json &&
    expect_in "$OUT" '"num_threads": 4096' "topo with OMP_NUM_THREADS=4096 reports 4096 threads"
# --- The stack (ulimit -s) -------------------------------------------------------------------------
# Every command at a small soft limit: touchstone raises it to what it needs (docs/reliability.md, "Limits").
# Before, main alone took 157 KB (the parsed command line and config) and a run 165 KiB more.
# every_command DIR: calls `each WHAT ARGS...` for every command, with its files in DIR.
every_command() {
    each "--version" --version
    each "--help" --help
    each "check" check "$CFG" $TINY
    each "topo" topo
    each "run" run "$CFG" $TINY -o "$1/run.h5" -q
    each "report" report "$WORK/r.h5"
    each "compare" compare "$WORK/r.h5" "$WORK/r.h5"
    each "plot" plot "$WORK/r.h5" -o "$1/p.png"
}
each() {
    what=$1
    shift
    expect_run 0 "$what at ulimit -S -s 64" with_ulimit "-S -s 64" "$TS" "$@"
}
mkdir "$WORK/stack"
every_command "$WORK/stack"
[ -s "$WORK/stack/run.h5" ] && [ -s "$WORK/stack/p.png" ] || fail "ulimit -S -s 64: run or plot wrote no file"
# Below what touchstone needs, with a hard limit that forbids raising it: a refusal, not a crash.
each() {
    what=$1
    shift
    expect_run 2 "$what at ulimit -s 200" with_ulimit "-s 200" "$TS" "$@" &&
        expect_in "$ERR" "^touchstone: error: touchstone needs [0-9]+ KiB of stack, but the stack limit is 200 KiB and its hard limit 200 KiB: raise it \(ulimit -s [0-9]+\)\$" \
            "$what at ulimit -s 200: the message"
}
mkdir "$WORK/stack2"
every_command "$WORK/stack2"
nothing_in "$WORK/stack2" "ulimit -s 200"
# OpenMP puts ~124 bytes per thread it creates on the starting thread's stack: 1024 threads at a
# soft limit of 100 KiB work (the limit is raised for them) ...
# shellcheck disable=SC2086
expect_run 0 "run, 1024 threads at ulimit -S -s 100" with_ulimit "-S -s 100" env OMP_NUM_THREADS=1024 "$TS" run "$CFG" $TINY \
    -o "$WORK/stack/t.h5" -q
expect_run 0 "topo, 1024 threads at ulimit -S -s 100" with_ulimit "-S -s 100" env OMP_NUM_THREADS=1024 "$TS" topo
# ... and 4096 under a hard limit of 600 KiB are refused, naming the threads.
# shellcheck disable=SC2086
for cmd in "run $CFG $TINY -o $WORK/stack2/t.h5 -q" "topo"; do
    # shellcheck disable=SC2086
    expect_run 2 "${cmd%% *}, 4096 threads at ulimit -s 600" with_ulimit "-s 600" env OMP_NUM_THREADS=4096 "$TS" $cmd &&
        expect_in "$ERR" "^touchstone: error: 4096 OpenMP threads need [0-9]+ KiB of stack, but the stack limit is 600 KiB" \
            "${cmd%% *}, 4096 threads at ulimit -s 600: the message"
done
nothing_in "$WORK/stack2" "4096 threads at ulimit -s 600"

# --- The file size (ulimit -f, in 512-byte blocks) -----------------------------------------------
# SIGXFSZ used to kill the writer (status 153, no message, its temporary file left). Now the write
# fails with EFBIG as on a full disk: status 2, the path and the errno text, the temporary file
# removed, a previous file byte for byte as it was.
TMPNAME='\.tmp\.[^./]+\.[0-9]+\.[0-9a-f]{16}'
F="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=3 --threads 1"
mkdir "$WORK/fs"
# shellcheck disable=SC2086
run_ts 0 "the previous results file" run "$S2D" $F --overwrite -o "$WORK/fs/f.h5" -q && cp "$WORK/fs/f.h5" "$WORK/f.saved"
# shellcheck disable=SC2086
expect_run 2 "results file over ulimit -f" with_ulimit "-f 400" "$TS" run "$S2D" $F --set output.write_field=true \
    --overwrite -o "$WORK/fs/f.h5" -q &&
    expect_in "$ERR" "^touchstone: error: cannot write output $WORK/fs/f\.h5: writing $WORK/fs/f\.h5$TMPNAME: File too large\$" \
        "results file over ulimit -f: the message"
cmp -s "$WORK/f.saved" "$WORK/fs/f.h5" || fail "results file over ulimit -f: the previous file changed"
[ "$(ls "$WORK/fs")" = f.h5 ] || fail "results file over ulimit -f: left in the directory: $(ls "$WORK/fs")"
# A checkpoint on SIGUSR1 (pending from the start: the run stops after its first iteration):
# exit 2, the previous checkpoint and results file intact.
# shellcheck disable=SC2086
expect_run 3 "the previous checkpoint" "$SIGP" USR1 "$TS" run "$S2D" $F --overwrite -o "$WORK/fs/f.h5" -q
cp "$WORK/fs/f.h5" "$WORK/f.saved"
cp "$WORK/fs/f.ckpt.h5" "$WORK/ckpt.saved"
# shellcheck disable=SC2086
expect_run 2 "checkpoint over ulimit -f" with_ulimit "-f 400" "$SIGP" USR1 "$TS" run "$S2D" $F --overwrite -o "$WORK/fs/f.h5" -q &&
    expect_in "$ERR" "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $WORK/fs/f\.ckpt\.h5: writing $WORK/fs/f\.ckpt\.h5$TMPNAME: File too large\$" \
        "checkpoint over ulimit -f: the message"
cmp -s "$WORK/f.saved" "$WORK/fs/f.h5" || fail "checkpoint over ulimit -f: the previous results file changed"
cmp -s "$WORK/ckpt.saved" "$WORK/fs/f.ckpt.h5" || fail "checkpoint over ulimit -f: the previous checkpoint changed"
[ "$(ls "$WORK/fs" | tr '\n' ' ')" = "f.ckpt.h5 f.h5 " ] || fail "checkpoint over ulimit -f: left: $(ls "$WORK/fs")"
rm -f "$WORK/fs"/*
# Periodic checkpoints (the field, 512 KiB) over the limit: a warning, and the results file (46 kB)
# is written.
# shellcheck disable=SC2086
expect_run 0 "periodic checkpoints over ulimit -f" with_ulimit "-f 400" "$TS" run "$S2D" $F --set output.checkpoint_every=1 \
    -o "$WORK/fs/p.h5" -q &&
    expect_in "$ERR" "^touchstone: warning: 3 periodic checkpoints could not be written \(last: cannot write output $WORK/fs/p\.ckpt\.h5: writing $WORK/fs/p\.ckpt\.h5$TMPNAME: File too large\)\$" \
        "periodic checkpoints over ulimit -f: the warning"
[ "$(ls "$WORK/fs")" = p.h5 ] || fail "periodic checkpoints over ulimit -f: left: $(ls "$WORK/fs")"
# Standard output over the limit.
expect_run 2 "--help over ulimit -f" with_ulimit "-f 1" sh -c '"$0" --help >"$1"' "$TS" "$WORK/fs/help.txt" &&
    expect_in "$ERR" "^touchstone: error: cannot write to standard output: File too large\$" "--help over ulimit -f: the message"

# --- Stop signals before the run is ready ------------------------------------------------------------
# A signal in the first milliseconds killed the run without a word. The stop signals are blocked
# from main's first line and across the binding's re-execution, and caught as the run starts: one
# that came before is pending then, and stops the run after its first iteration like any stop.
SIG="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=50 --set run.warmup=0 --threads 1"
# shellcheck disable=SC2086
run_ts 0 "uninterrupted reference" run "$S2D" $SIG --overwrite -o "$WORK/ref.h5" -q || finish
ref=$(get -x "$WORK/ref.h5" /results/global)
mkdir "$WORK/sig"
# pending SIGNAL NAME WHAT ENV...: a run started with SIGNAL pending stops like any stop, and its
# checkpoint restarts to the uninterrupted result.
pending() {
    sig=$1 name=$2 what=$3
    shift 3
    rm -f "$WORK/sig"/*
    # shellcheck disable=SC2086
    expect_run 3 "$what" env "$@" "$SIGP" "$sig" "$TS" run "$S2D" $SIG $BIND --overwrite -o "$WORK/sig/s.h5" -q || return
    expect_in "$ERR" "^touchstone: $name: stopped after 1 of 50 iterations; checkpoint $WORK/sig/s\.ckpt\.h5; continue with: $TS run $S2D .*-o $WORK/sig/s\.h5 --restart $WORK/sig/s\.ckpt\.h5\$" \
        "$what: the message"
    [ "$(get "$WORK/sig/s.h5" /@complete)" = 0 ] || fail "$what: the results file is not marked incomplete"
    [ "$(get "$WORK/sig/s.ckpt.h5" /@steps_done)" = 1 ] || fail "$what: the checkpoint does not hold 1 step"
    # The command the message gives, pasted as it is.
    again=$(sed -n 's/^touchstone: .*; continue with: //p' "$ERR")
    expect_run 0 "$what: restart" sh -c "$again" &&
        [ "$(get -x "$WORK/sig/s.h5" /results/global)" = "$ref" ] || fail "$what: the restart differs from the uninterrupted run"
    [ -e "$WORK/sig/s.ckpt.h5" ] && fail "$what: the finished restart left its checkpoint"
}
# Pending across the binding's re-execution (a binding of the config's other than the defaults,
# nothing in the environment) ...
BIND="--set openmp.proc_bind=spread"
pending USR1 "User defined signal 1" "SIGUSR1 pending across the re-execution" -u OMP_PLACES -u OMP_PROC_BIND
# ... and without one: the defaults, given to the OpenMP runtime as it starts (app/early.c), or
# both variables set.
BIND=
pending INT "Interrupt" "SIGINT pending, the default binding" -u OMP_PLACES -u OMP_PROC_BIND
pending TERM "Terminated" "SIGTERM pending, no re-execution" OMP_PLACES=cores OMP_PROC_BIND=close
# SIGTERM at any moment once touchstone's own code runs: it blocks the stop signals before the
# libraries' start-up code (.preinit_array), so from the moment /proc shows SIGTERM blocked or
# caught, a SIGTERM after any delay stops the run with its message and status 3. The point is
# observed, not guessed: the verdict does not depend on where the signal lands. (Before it,
# in the dynamic loader, no program can catch a signal: docs/how-it-works.md.)
sigterm_mask() { # PID: SIGTERM's bit of SigBlk | SigCgt, 0 while the process is not touchstone yet
    [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$(readlink -f "$TS")" ] || { echo 0; return; }
    blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
    cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
    echo $(((0x${blk:-0} | 0x${cgt:-0}) & 0x4000))
}
EARLY="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=20000 --set run.warmup=0 --threads 1"
for delay in 0 0.001 0.003 0.005 0.01 0.03; do
    rm -f "$WORK/sig"/*
    # shellcheck disable=SC2086
    "$TS" run "$S2D" $EARLY -o "$WORK/sig/e.h5" -q >"$OUT" 2>"$ERR" &
    pid=$!
    while [ "$(sigterm_mask $pid)" = 0 ] && kill -0 $pid 2>/dev/null; do :; done
    sleep $delay
    kill -TERM $pid 2>/dev/null || fail "SIGTERM $delay s after it is blocked: the run had ended"
    wait $pid
    status=$?
    [ $status = 3 ] || { fail "SIGTERM $delay s after it is blocked: exit status $status, expected 3"; sed 's/^/    | /' "$ERR" >&2; }
    expect_in "$ERR" "^touchstone: Terminated: stopped after [0-9]+ of 20000 iterations; checkpoint $WORK/sig/e\.ckpt\.h5; continue with: " \
        "SIGTERM $delay s after it is blocked: the message"
done
# A second signal still kills at once: sig_pending sends it when the run, having taken the first,
# blocks writing to stderr (a full pipe).
rm -f "$WORK/sig"/*
# shellcheck disable=SC2086
expect_run $((128 + 10)) "a second SIGUSR1 kills" "$SIGP" --again USR1 "$TS" run "$S2D" $SIG --overwrite -o "$WORK/sig/s.h5" -q

# --- Standard output that cannot be written ------------------------------------------------------------
# `check > /dev/full` exited 0 having written nothing. Every command that prints to stdout fails
# with status 2 and the errno text.
each() {
    what=$1
    shift
    expect_run 2 "$what > /dev/full" sh -c '"$@" >/dev/full' sh "$TS" "$@" &&
        expect_in "$ERR" "^touchstone: error: .*(standard output|stdout|print the table): No space left on device\$" \
            "$what > /dev/full: the message"
}
mkdir "$WORK/full"
each "--version" --version
each "--help" --help
each "run --help" run --help
each "check" check "$CFG" $TINY
each "topo" topo
each "run" run "$CFG" $TINY --overwrite -o "$WORK/full/run.h5"
each "report" report "$WORK/r.h5"
each "compare" compare "$WORK/r.h5" "$WORK/r.h5"
expect_run 2 "--version, stdout closed" sh -c '"$0" --version >&-' "$TS" &&
    expect_in "$ERR" "^touchstone: error: cannot write to standard output: Bad file descriptor\$" "--version, stdout closed: the message"
# A stopped run keeps its status 3 (a job script requeues on it) and says both.
# shellcheck disable=SC2086
expect_run 3 "stopped run > /dev/full" sh -c '"$@" >/dev/full' sh "$SIGP" USR1 "$TS" run "$S2D" $SIG --overwrite -o "$WORK/full/s.h5" &&
    expect_in "$ERR" "^touchstone: error: cannot write to standard output: No space left on device\$" \
        "stopped run > /dev/full: the message"

finish

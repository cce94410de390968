#!/bin/sh
# Usage: memcheck.sh TOUCHSTONE SOURCE_DIR VALGRIND SUPPRESSIONS
#
# Every command a user types, on the default config made small, under valgrind's memcheck:
# run (two ways), check, topo, compare, report (table and --html), a run a signal stops with a
# checkpoint and its --restart, bad input (an unknown config key, a truncated run file), and
# survey. Each must show
# no memcheck error (invalid read or write, uninitialised value, bad free, ...) and nothing
# "definitely lost", in touchstone and in the children it forks to read files, and must end
# with touchstone's own exit status. "possibly lost" and "still reachable" are not errors:
# libgomp's thread pool and HDF5's free lists live until exit (see touchstone.supp).
#
# valgrind's --error-exitcode=99 replaces the exit status when it found an error; touchstone
# never exits 99, so 99 means memcheck and anything else is touchstone's own status, which is
# compared with the expected one. The logs are checked too: a forked reading child has a log
# of its own, and its error must be named as such, not as "the file may be corrupted".
set -u

TS=${1:?usage: memcheck.sh TOUCHSTONE SOURCE_DIR VALGRIND SUPPRESSIONS}
SRC=${2:?}
VALGRIND=${3:?}
SUPP=${4:?}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-memcheck.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OUT=$WORK/stdout
ERR=$WORK/stderr
FAILURES=0
N=0

fail() {
    echo "FAILED: $*" >&2
    FAILURES=$((FAILURES + 1))
}

command -v "$VALGRIND" >/dev/null 2>&1 || {
    echo "FAILED: valgrind not found ($VALGRIND); scripts/setup-deps.sh --test installs it" >&2
    exit 1
}
[ -x "$TS" ] || { echo "FAILED: no touchstone binary at $TS" >&2; exit 1; }

# Both binding variables set: touchstone applies them without re-executing itself through
# /proc/self/exe (app/binding.c), so every line of the run is under memcheck without
# --trace-children. The runs below assert it ("(environment)" in the summary).
export OMP_PLACES=cores OMP_PROC_BIND=close
# valgrind runs one thread at a time: a libgomp thread spinning at a barrier burns the time
# slice the other one needs. Passive waiting sleeps in the kernel instead; same code paths.
export OMP_WAIT_POLICY=passive
# hwloc's x86 (CPUID) backend disables itself under valgrind with a note on stderr; leave it
# out up front. The Linux sysfs backend it falls back to describes the same machine.
export HWLOC_COMPONENTS=-x86
unset OMP_NUM_THREADS TOUCHSTONE_BINDING

CFG=$SRC/configs/default.ini
SMALL="--set stencil.nx=64 --set stencil.ny=48 --set run.iterations=3"

# memcheck ARGS...: becomes touchstone ARGS under memcheck (in a subshell: `( memcheck ... ) &`
# leaves $! the pid of the process itself, for signals), logging to vg.$N.PID.log.
memcheck() {
    exec "$VALGRIND" --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=30 \
        --suppressions="$SUPP" --log-file="$WORK/vg.$N.%p.log" "$TS" "$@"
}

# vg ARGS...: touchstone ARGS under memcheck, in the foreground; status in $status.
vg() {
    N=$((N + 1))
    (memcheck "$@") >"$OUT" 2>"$ERR"
    status=$?
}

# verdict EXPECTED DESCRIPTION: the last vg run's status and every log it left (the
# process and its forked children) are clean. Returns 1 when not.
verdict() {
    expected=$1
    what=$2
    ok=0
    logs=$(ls "$WORK/vg.$N."*.log 2>/dev/null)
    [ -n "$logs" ] || { fail "$what: valgrind wrote no log (did it run? status $status)"; sed 's/^/    stderr: /' "$ERR" >&2; return 1; }
    for log in $logs; do
        if ! grep -q "ERROR SUMMARY: 0 errors" "$log" || grep -Eq "definitely lost: [1-9]" "$log"; then
            fail "$what: memcheck errors (log $(basename "$log"), below)"
            sed 's/^/    | /' "$log" >&2
            ok=1
        fi
    done
    if [ "$status" -eq 99 ]; then
        [ $ok -ne 0 ] || fail "$what: valgrind exit status 99 (memcheck errors) but clean logs"
        ok=1
    elif [ "$status" -ne "$expected" ]; then
        fail "$what: touchstone exit status $status, expected $expected"
        sed 's/^/    stderr: /' "$ERR" | head -20 >&2
        ok=1
    fi
    return $ok
}

expect_in() {
    if ! grep -Eq -- "$2" "$1"; then
        fail "$3: expected /$2/ in $(basename "$1")"
        sed 's/^/    | /' "$1" | head -20 >&2
    fi
}

# run: the default config, small; two threads, first touch in parallel.
# shellcheck disable=SC2086
vg run "$CFG" $SMALL --threads 2 -o "$WORK/a.h5"
if verdict 0 "run"; then
    expect_in "$OUT" "verified +PASSED" "run: verified"
    expect_in "$OUT" "OMP_PLACES=cores \(environment\), OMP_PROC_BIND=close \(environment\)" \
        "run: binding taken from the environment, without re-executing outside valgrind"
fi

# The other run paths: one thread, serial init, the field stored, a second placement audit.
# shellcheck disable=SC2086
vg run "$CFG" $SMALL --threads 1 --serial-init --set output.write_field=true --set placement.at_end=true \
    -o "$WORK/b.h5" -q
verdict 0 "run, serial init, field, audit at end"

# shellcheck disable=SC2086
vg check "$CFG" $SMALL
verdict 0 "check" && expect_in "$OUT" "^nx = 64 +; --set" "check: prints the resolved config"

vg topo --threads 2
verdict 0 "topo" && expect_in "$OUT" "warnings:" "topo: the full report"
vg topo --threads 2 --format json
verdict 0 "topo --format json" && expect_in "$OUT" '"openmp"' "topo --format json: the openmp object"

vg compare "$WORK/a.h5" "$WORK/b.h5"
verdict 0 "compare" && expect_in "$OUT" "b\.h5" "compare: both runs"

mkdir "$WORK/runs"
cp "$WORK/a.h5" "$WORK/b.h5" "$WORK/runs/"
vg report "$WORK/runs"
verdict 0 "report" && expect_in "$OUT" "b\.h5" "report: both runs"
vg report --html "$WORK/report.html" "$WORK/runs"
verdict 0 "report --html" && expect_in "$WORK/report.html" 'id="run-b"' "report --html: both runs"

# A run a signal stops: a checkpoint after every iteration (slow under valgrind, so the
# signal arrives long before the 1000 iterations end), SIGUSR1 once the first exists: exit 3
# and the checkpoint. Then --restart finishes it without
# periodic checkpoints (not a key that decides the result, so it may change).
CKPT="--set stencil.nx=64 --set stencil.ny=48 --set run.iterations=1000 --threads 2"
N=$((N + 1))
# shellcheck disable=SC2086
(memcheck run "$CFG" $CKPT --set output.checkpoint_every=1 -o "$WORK/c.h5" -q) >"$OUT" 2>"$ERR" &
pid=$!
tries=0
while [ ! -s "$WORK/c.ckpt.h5" ] && [ $tries -lt 1200 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.05
    tries=$((tries + 1))
done
if [ ! -s "$WORK/c.ckpt.h5" ] && kill -0 $pid 2>/dev/null; then
    fail "stopped run: no periodic checkpoint within 60 s"
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
else
    kill -USR1 $pid 2>/dev/null # when the run already ended, its status says how
    wait $pid
    status=$?
    if verdict 3 "run stopped by SIGUSR1"; then
        expect_in "$ERR" "User defined signal 1: stopped after [0-9]+ of 1001 iterations; checkpoint .*c\\.ckpt\\.h5" \
            "stopped run: names its checkpoint"
        [ -s "$WORK/c.ckpt.h5" ] || fail "stopped run: no checkpoint"
        # shellcheck disable=SC2086
        vg run "$CFG" $CKPT -o "$WORK/c.h5" -q --restart "$WORK/c.ckpt.h5"
        verdict 0 "--restart from the checkpoint" && [ -e "$WORK/c.ckpt.h5" ] &&
            fail "--restart: a finished run left its checkpoint behind"
    fi
fi

# Bad input: an unknown key (exit 2 before anything runs), and a truncated run file, read by
# HDF5 in the forked child, whose error paths must free what they allocated too.
# shellcheck disable=SC2086
vg run "$CFG" $SMALL --set stencil.nxx=64 -o "$WORK/bad.h5"
verdict 2 "run with an unknown config key" && expect_in "$ERR" "unknown key 'nxx'" "unknown key: named"
head -c 4096 "$WORK/a.h5" >"$WORK/truncated.h5"
vg compare "$WORK/a.h5" "$WORK/truncated.h5"
verdict 2 "compare with a truncated run file" && expect_in "$ERR" "truncated\.h5" "truncated file: named"

if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES check(s) failed" >&2
    exit 1
fi
# survey: the battery at a tiny size, stopped after two runs as an interrupt would (its runs are
# children of their own, exec'ed outside memcheck; the survey, its forks reading the run files
# back and its file written twice under it; the NUMA matrix engine has its own tests), then its
# file read back.
TOUCHSTONE_SURVEY_SCALE=0.005 TOUCHSTONE_SURVEY_STOP_AFTER=2 vg survey --quick -o "$WORK/survey"
verdict 3 "survey --quick, stopped after 2 runs" && expect_in "$OUT" "survey file: $WORK/survey/survey.h5" "survey: its summary"
vg survey --dump -o "$WORK/survey"
verdict 0 "survey --dump" && expect_in "$OUT" "^complete 0$" "survey --dump: the partial survey read back"

echo "memcheck: $N touchstone processes (and their reading children) clean"

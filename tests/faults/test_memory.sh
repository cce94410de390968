#!/bin/sh
# Memory limits (prlimit --as, --data): a problem bigger than the limit is refused up front,
# before the output probe, before anything is allocated, with the numbers and the limit's name;
# a limit that passes that check but leaves too little for what comes after (the arrays' mmap,
# the file assembled in memory, a checkpoint, periodic checkpoints, OpenMP's threads) still
# ends with exit status 2 and a message that says memory ran out, never a crash, never a file
# under the final name, no temporary file left. Sweeps of the limit in 1-4 MiB steps walk
# through every allocation in turn, wherever this machine's libraries put its thresholds.
# Not tested here: a cgroup memory.max, which would take creating a child cgroup of the one
# the test runs in (tests/topo/test_limits.c reads fake cgroup trees instead).
. "$(dirname "$0")/lib.sh"
D=$WORK/out
mkdir "$D"
CFG=$SRC/configs/default.ini
MIB=1048576
CASES=0
# What a failed allocation may say, after "touchstone: error: ": our errno text, HDF5's words
# (a dataset that cannot grow the file in memory), or the exit hook's, after libgomp gave up.
NOMEM='(Cannot allocate memory|out of memory|unable to allocate memory|for lack of memory)'

# limited LIMIT_OPTION -- ARGS...: touchstone under prlimit with the fault library tracing to
# $WORK/trace; output in $OUT/$ERR, status in $status.
limited() {
    opt=$1
    shift 2
    rm -f "$WORK/trace"
    prlimit "$opt" env LD_PRELOAD="$FAULTFS" FAULTFS_TRACE="$WORK/trace" "$TS" "$@" >"$OUT" 2>"$ERR"
    status=$?
}

# nothing_written WHAT: no file under the output's directory, final or temporary.
nothing_written() {
    left=$(ls -A "$D")
    [ -z "$left" ] || fail "$1: files left in $D: $left"
    rm -f "$D"/*
}

# error_is_last WHAT: the last line on stderr is the error (nothing crashed after it).
error_is_last() {
    tail -n 1 "$ERR" | grep -q '^touchstone: error: ' ||
        fail "$1: stderr does not end with the error: $(tail -n 1 "$ERR")"
}

# --- Refused up front ------------------------------------------------------------------------------
# refused WHAT LIMIT_OPTION LIMIT_NAME KERNEL ARGS...: exit 2 with the numbers, and nothing done:
# no output probe, no init (the trace of the fault library stays empty), nothing written.
refused() {
    what=$1 opt=$2 name=$3 kernel=$4
    shift 4
    limited "$opt" -- run "$CFG" --set run.kernel="$kernel" "$@" -o "$D/r.h5" -q
    CASES=$((CASES + 1))
    expect_status 2 "$what" || return
    expect_in "$ERR" "^touchstone: error: $kernel needs [0-9.]+ [MG]iB \([0-9] arrays? of [0-9.]+ [MG]iB, and [0-9.]+ [KM]iB for the times of [0-9]+ iterations x [0-9]+ threads, the threads' records and the results file(, [0-9.]+ MiB this process maps \(libraries, heap, start-up\) and [0-9]+ threads? stack and heap of [0-9.]+ MiB)?; [0-9]+ bytes\) but $name allows only 512 MiB \(536870912 bytes\); reduce the problem size\$" \
        "$what: the message names the need and the limit"
    [ "$(wc -l <"$ERR")" -eq 1 ] || fail "$what: more than the error on stderr"
    [ -s "$WORK/trace" ] && fail "$what: refused only after it started: $(tr '\n' '|' <"$WORK/trace" | cut -c1-200)"
    nothing_written "$what"
}
LIM512=$((512 * MIB))
refused "stencil2d over RLIMIT_AS" --as=$LIM512 "RLIMIT_AS \(ulimit -v\)" stencil2d --set stencil.nx=8192 --set stencil.ny=8192
refused "stencil3d over RLIMIT_AS" --as=$LIM512 "RLIMIT_AS \(ulimit -v\)" stencil3d --set stencil.nx=512 --set stencil.ny=512 \
    --set stencil.nz=256
refused "sum over RLIMIT_AS" --as=$LIM512 "RLIMIT_AS \(ulimit -v\)" sum --set sum.n=100000000
refused "triad over RLIMIT_AS" --as=$LIM512 "RLIMIT_AS \(ulimit -v\)" triad --set triad.n=30000000
refused "stencil2d over RLIMIT_DATA" --data=$LIM512 "RLIMIT_DATA \(ulimit -d\)" stencil2d --set stencil.nx=8192 \
    --set stencil.ny=8192

# check says the same, exit 2.
prlimit --as=$LIM512 "$TS" check "$CFG" --set stencil.nx=8192 --set stencil.ny=8192 >"$OUT" 2>"$ERR"
status=$?
CASES=$((CASES + 1))
if expect_status 2 "check over RLIMIT_AS"; then
    expect_in "$OUT" "^  limit EXCEEDED +512 MiB  \(RLIMIT_AS \(ulimit -v\): needs 1\.[0-9]+ GiB, with [0-9.]+ MiB for the process's libraries, heap and start-up and 1 thread stack and heap of [0-9.]+ MiB\)\$" \
        "check over RLIMIT_AS: the limit table"
    expect_in "$ERR" "^touchstone: error: stencil2d needs 1(\.[0-9]+)? GiB .* RLIMIT_AS \(ulimit -v\) allows only 512 MiB" \
        "check over RLIMIT_AS: the error"
fi

# --- check and run agree ------------------------------------------------------------------------
# The per-iteration times (warm-up + iterations, and threads x iterations) and the file assembled
# from them are counted with the arrays: 10^8 iterations of a 1000-element sum need GiBs, which
# check called "16 KiB ... ok" before run refused them. Both refuse now, with the same message.
MANY="--set run.kernel=sum --set sum.n=1000 --set run.iterations=100000000 --set openmp.threads=2"
for lim in --as --data; do
    # shellcheck disable=SC2086
    prlimit $lim=$LIM512 "$TS" check "$CFG" $MANY >"$OUT" 2>"$ERR"
    status=$?
    CASES=$((CASES + 1))
    expect_status 2 "check, 10^8 iterations under prlimit $lim" &&
        expect_in "$OUT" "^  timings +2.24 GiB +\(100000001 steps; 100000000 iterations x 2 threads\)\$" \
            "check, 10^8 iterations under prlimit $lim: the timings"
    cp "$ERR" "$WORK/check.err"
    # shellcheck disable=SC2086
    limited $lim=$LIM512 -- run "$CFG" $MANY -o "$D/many.h5" -q
    CASES=$((CASES + 1))
    expect_status 2 "run, 10^8 iterations under prlimit $lim" &&
        expect_in "$ERR" "^touchstone: error: sum needs [0-9.]+ GiB \(1 array of 7.81 KiB, and [0-9.]+ GiB for the times of 100000000 iterations x 2 threads, the threads' records and the results file, [0-9.]+ MiB this process maps \(libraries, heap, start-up\) and 1 thread stack and heap of [0-9.]+ MiB; [0-9]+ bytes\) but RLIMIT_(AS|DATA) .* allows only 512 MiB \(536870912 bytes\); reduce run.iterations or the threads\$" \
            "run, 10^8 iterations under prlimit $lim: the message"
    cmp -s "$ERR" "$WORK/check.err" || fail "check and run under prlimit $lim refuse with different messages"
    [ -s "$WORK/trace" ] && fail "run, 10^8 iterations under prlimit $lim: refused only after it started"
    nothing_written "run, 10^8 iterations under prlimit $lim"
done
# What check calls ok, run runs.
# shellcheck disable=SC2086
prlimit --as=$LIM512 "$TS" check "$CFG" $MANY --set run.iterations=1000 >"$OUT" 2>"$ERR"
status=$?
CASES=$((CASES + 1))
expect_status 0 "check, 1000 iterations under prlimit --as"
# shellcheck disable=SC2086
limited --as=$LIM512 -- run "$CFG" $MANY --set run.iterations=1000 -o "$D/few.h5" -q
CASES=$((CASES + 1))
expect_status 0 "run, 1000 iterations under prlimit --as"
rm -f "$D"/*

# A library that ends the process itself (libgomp cannot create 256 threads of 8 MiB stacks):
# every command says so with status 2, not libgomp's 1 (a failed verification here).
prlimit --as=$((256 * MIB)) "$TS" topo --threads 256 >"$OUT" 2>"$ERR"
status=$?
CASES=$((CASES + 1))
expect_status 2 "topo when libgomp cannot create its threads" &&
    expect_in "$ERR" "^touchstone: error: a library ended the command \(its message is above\)" \
        "topo when libgomp cannot create its threads: the message"

# --- The arrays fit, the process does not: refused up front ----------------------------------------
# A limit 1 MiB above the arrays: the libraries, the heap, the threads' stacks and the file
# take more than that 1 MiB. check and run count them (ts_run_plan_need), so the run is refused
# before it starts, with check's message, instead of failing in an array's mmap.
# arrays_fail WHAT KERNEL BYTES ARGS...: BYTES for all arrays.
arrays_fail() {
    what=$1 kernel=$2 bytes=$3
    shift 3
    prlimit --as=$((bytes + MIB)) "$TS" check "$CFG" --set run.kernel="$kernel" "$@" -o "$D/r.h5" -q >"$OUT" 2>"$WORK/check.err"
    limited --as=$((bytes + MIB)) -- run "$CFG" --set run.kernel="$kernel" "$@" -o "$D/r.h5" -q
    CASES=$((CASES + 1))
    expect_status 2 "$what" || return
    expect_in "$ERR" "^touchstone: error: $kernel needs .* this process maps \(libraries, heap, start-up\) .* but RLIMIT_AS \(ulimit -v\) allows only" \
        "$what: the message counts the process's own mappings"
    cmp -s "$ERR" "$WORK/check.err" || fail "$what: check and run refuse with different messages"
    [ -s "$WORK/trace" ] && fail "$what: refused only after it started: $(tr '\n' '|' <"$WORK/trace" | cut -c1-200)"
    nothing_written "$what"
}
arrays_fail "stencil2d arrays, 2 threads" stencil2d $((512 * MIB)) --set stencil.nx=8192 --set stencil.ny=4096 --threads 2
arrays_fail "triad arrays, 1 thread" triad $((3 * 8 * 20000000)) --set triad.n=20000000 --threads 1

# --- Sweeps: the limit in small steps, through every later allocation ------------------------------
# sweep WHAT FROM_MIB STEP_MIB TO_MIB ARGS...: stencil2d with its field in the file under
# --as=FROM, FROM+STEP, ... until a run finishes. Every run below that ends with status 2 and a
# message that memory ran out (or, below what the dynamic loader needs, ld.so's status 127, or
# libnuma's 1 when it runs out in its constructor, before touchstone's main), leaves no file; the
# run that finishes writes the complete, right result. Sets ARRAYS_OK_MIB: the first limit whose
# run got past the arrays (its failure was writing the file). At every limit, what check calls
# ok, run runs: a limit either refuses the run up front or lets it finish.
sweep() {
    sw=$1 mib=$2 step=$3 to=$4
    shift 4
    SWEEPS=$((SWEEPS + 1)) # a reference file per sweep: an existing output is never replaced
    run_ts 0 "$sw: reference" run "$CFG" "$@" --set output.write_field=true -o "$WORK/ref$SWEEPS.h5" -q || return
    ref=$(bits "$WORK/ref$SWEEPS.h5" /results/global)
    n_arrays=0 n_file=0 n_other=0 n_loader=0 ARRAYS_OK_MIB=""
    while [ "$mib" -le "$to" ]; do
        at="$sw, --as=$mib MiB"
        prlimit --as=$((mib * MIB)) "$TS" check "$CFG" "$@" --set output.write_field=true -o "$D/r.h5" -q >/dev/null 2>&1
        checked=$?
        limited --as=$((mib * MIB)) -- run "$CFG" "$@" --set output.write_field=true -o "$D/r.h5" -q
        CASES=$((CASES + 1))
        # What check calls ok, run runs (or a library or the loader ends it before touchstone's
        # main, which check, run under the same limit, then did not pass either).
        [ "$checked" -eq 0 ] && [ "$status" -ne 0 ] &&
            fail "$at: check said ok, run ended with $status: $(tail -n 1 "$ERR")"
        if [ "$status" -eq 0 ]; then
            if [ "$(get "$D/r.h5" /@complete 2>/dev/null)" != 1 ] || [ "$(bits "$D/r.h5" /results/global)" != "$ref" ]; then
                fail "$at: finished, but $D/r.h5 is not the complete run"
            fi
            no_temp_left "$D" "$at"
            rm -f "$D"/*
            break
        elif [ $((n_arrays + n_file + n_other)) -eq 0 ] &&
            { { [ "$status" -eq 127 ] && grep -q 'error while loading shared libraries' "$ERR"; } ||
                { [ "$status" -eq 1 ] && grep -q '^Out of memory allocating bitmask' "$ERR"; }; }; then
            n_loader=$((n_loader + 1)) # too tight to start at all: not touchstone's to report
        elif expect_status 2 "$at"; then
            error_is_last "$at"
            if grep -Eq "^touchstone: error: cannot write output $D/r\.h5: .*$NOMEM" "$ERR"; then
                n_file=$((n_file + 1))
                [ -n "$ARRAYS_OK_MIB" ] || ARRAYS_OK_MIB=$mib
            elif grep -Eq "^touchstone: error: array [0-9] of stencil2d: cannot map .*: Cannot allocate memory\$" "$ERR"; then
                n_arrays=$((n_arrays + 1))
            elif grep -Eq "^touchstone: error: (.*$NOMEM|stencil2d needs .* allows only)" "$ERR"; then
                n_other=$((n_other + 1))
            else
                fail "$at: the message does not say that memory ran out"
                sed 's/^/    stderr: /' "$ERR" | head -5 >&2
            fi
            nothing_written "$at"
        fi
        rm -f "$D"/*
        mib=$((mib + step))
    done
    [ "$mib" -le "$to" ] || fail "$sw: no limit up to $to MiB let the run finish"
    echo "$sw: up to $mib MiB: $n_loader too tight to load, $n_other early, $n_arrays in the arrays, $n_file writing the file"
    [ $((n_other + n_arrays + n_file)) -gt 0 ] || fail "$sw: no limit refused the run; start the sweep lower"
}
SWEEPS=0
# 1 MiB steps through two 2 MiB arrays; 2 MiB steps through two 8 MiB arrays and OpenMP's second
# thread; a field larger than HDF5_WORKING_MEMORY (io/ts_h5_write.c), so that the file in memory
# itself fails to grow. Its check counts that field twice (the file in memory and its copy), more
# than the libraries take: where the arrays' mmap would fail, the run is refused up front.
sweep "sweep, 1 thread" 6 1 400 --set stencil.nx=512 --set stencil.ny=512 --set run.iterations=2 --threads 1
sweep "sweep, 2 threads" 16 2 400 --set stencil.nx=1024 --set stencil.ny=1024 --set run.iterations=2 --threads 2
BIG_GRID="--set stencil.nx=1536 --set stencil.ny=1536 --threads 1"
# shellcheck disable=SC2086
sweep "sweep, 18 MiB field" 36 4 600 $BIG_GRID --set run.iterations=2
# The cases below need a limit under which the run computes and then cannot assemble a file:
# check and run count the file (twice, with HDF5's working memory), so normally none exists.
[ -n "$ARRAYS_OK_MIB" ] || { echo "no limit let the run compute and then fail to write: the checkpoint cases are not reachable"; finish; }

# --- Checkpoints under the limit where the arrays just fitted -----------------------------------
# The run computes, the checkpoint (with its 18 MiB field) cannot be assembled.
LIM=$((ARRAYS_OK_MIB * MIB))
rm -f "$WORK/trace"
# shellcheck disable=SC2086
prlimit --as=$LIM env LD_PRELOAD="$FAULTFS" FAULTFS_TRACE="$WORK/trace" "$TS" run "$CFG" $BIG_GRID \
    --set run.iterations=100000 -o "$D/s.h5" -q >"$OUT" 2>"$ERR" &
pid=$!
wait_for "$WORK/trace" ' audit ' $pid || fail "SIGUSR1 under --as=$ARRAYS_OK_MIB MiB: the run never reached its iterations"
kill -USR1 $pid 2>/dev/null || fail "SIGUSR1 under --as=$ARRAYS_OK_MIB MiB: the run ended before SIGUSR1"
wait $pid
status=$?
CASES=$((CASES + 1))
if expect_status 2 "SIGUSR1 under --as=$ARRAYS_OK_MIB MiB"; then
    expect_in "$ERR" "^touchstone: error: User defined signal 1 stopped the run, but its checkpoint could not be written: cannot write output $D/s\.ckpt\.h5: .*$NOMEM" \
        "SIGUSR1 under --as=$ARRAYS_OK_MIB MiB: the message"
    error_is_last "SIGUSR1 under --as=$ARRAYS_OK_MIB MiB"
fi
nothing_written "SIGUSR1 under --as=$ARRAYS_OK_MIB MiB"

# Periodic checkpoints fail with a warning and the run goes on; then the results file, with the
# field as they hold it, fails too.
# shellcheck disable=SC2086
limited --as=$LIM -- run "$CFG" $BIG_GRID --set run.iterations=20 --set output.checkpoint_every=5 \
    --set output.write_field=true -o "$D/p.h5" -q
CASES=$((CASES + 1))
if expect_status 2 "periodic checkpoints under --as=$ARRAYS_OK_MIB MiB"; then
    expect_in "$ERR" "^touchstone: warning: [0-9] periodic checkpoints? could not be written \(last: cannot write output $D/p\.ckpt\.h5: .*$NOMEM.*\)\$" \
        "periodic checkpoints under --as=$ARRAYS_OK_MIB MiB: the warning"
    expect_in "$ERR" "^touchstone: error: cannot write output $D/p\.h5: .*$NOMEM" \
        "periodic checkpoints under --as=$ARRAYS_OK_MIB MiB: then the results file"
    error_is_last "periodic checkpoints under --as=$ARRAYS_OK_MIB MiB"
fi
nothing_written "periodic checkpoints under --as=$ARRAYS_OK_MIB MiB"

echo "$CASES cases"
finish

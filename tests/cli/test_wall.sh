#!/bin/sh
# Where a run's wall time went (/timings startup, reexec, setup, plan, finish, wall, write; issue 28):
# every phase is recorded and none is negative; the phases and the work, which do not overlap,
# fit in the wall time, and the wall time and the file's assembly (write) in what a clock
# outside saw from before the fork to after the exit; the binding's re-execution is counted
# exactly when there was one (the default binding needs none: test_binding.sh); the summary's
# time line says the file's split. Invariants only: no speed is judged.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND

get() { "$H5GET" "$WORK/$1" "$2"; }
# CLOCK_MONOTONIC, the clock the run's times are on.
now() { python3 -c 'import time; print("%.9f" % time.monotonic())'; }

# timed NAME DESCRIPTION ARGS...: a run into NAME.h5, with the outside clock around it in
# $WORK/NAME.outside.
timed() {
    name=$1
    what=$2
    shift 2
    t0=$(now)
    run_ts 0 "$what" run "$SRC/configs/stencil2d.ini" $SMALL -o "$WORK/$name.h5" "$@" || return 1
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.9f\n", b - a }' >"$WORK/$name.outside"
}

# check NAME: the invariants of one file.
check() {
    name=$1
    for phase in startup reexec setup plan finish wall checkpoint allocation init placement kernel result combine verify; do
        v=$(get "$name.h5" "/timings/$phase") || { fail "$name: no /timings/$phase"; continue; }
        awk -v v="$v" 'BEGIN { exit !(v >= 0) }' || fail "$name: /timings/$phase = $v is negative"
    done
    warmup=$(get "$name.h5" /timings/warmup | awk '{ s += $1 } END { printf "%.17g", s + 0 }')
    sum=0
    for phase in startup reexec setup plan allocation init placement kernel result combine verify checkpoint finish; do
        sum=$(awk -v s="$sum" -v v="$(get "$name.h5" "/timings/$phase")" 'BEGIN { printf "%.17g", s + v }')
    done
    sum=$(awk -v s="$sum" -v w="$warmup" 'BEGIN { printf "%.17g", s + w }')
    wall=$(get "$name.h5" /timings/wall)
    outside=$(cat "$WORK/$name.outside")
    awk -v s="$sum" -v w="$wall" 'BEGIN { exit !(s <= w + 1e-6) }' ||
        fail "$name: the phases add up to $sum s, more than the wall time $wall s: some overlap"
    awk -v w="$wall" -v o="$outside" 'BEGIN { exit !(w > 0 && w <= o) }' ||
        fail "$name: wall time $wall s, but $outside s passed outside from before the fork to the exit"
    awk -v v="$(get "$name.h5" /timings/startup)" 'BEGIN { exit !(v > 0) }' ||
        fail "$name: no time from the process's start to main"
    # write: from taking wall to the file assembled, set last into the file itself; it ends
    # before the outside clock does (the bytes stored and the exit still follow).
    write=$(get "$name.h5" /timings/write)
    awk -v v="$write" 'BEGIN { exit !(v > 0) }' || fail "$name: /timings/write = $write: assembling the file not measured"
    awk -v w="$wall" -v wr="$write" -v o="$outside" 'BEGIN { exit !(w + wr <= o) }' ||
        fail "$name: wall $wall s + write $write s, more than the $outside s that passed outside"
    # The summary (kept in the file) says the same split.
    share=$(awk -v w="$wall" -v s="$sum" -v st="$(get "$name.h5" /timings/startup)" \
        -v re="$(get "$name.h5" /timings/reexec)" -v se="$(get "$name.h5" /timings/setup)" \
        -v pl="$(get "$name.h5" /timings/plan)" -v pa="$(get "$name.h5" /timings/placement)" \
        -v fi="$(get "$name.h5" /timings/finish)" -v ck="$(get "$name.h5" /timings/checkpoint)" \
        'BEGIN { printf "%.1f", 100 * (w - (s - st - re - se - pl - pa - fi - ck)) / w }')
    get "$name.h5" /summary >"$WORK/$name.summary"
    expect_in "$WORK/$name.summary" "^  time       [0-9.]+ s from start to the file; outside the work $share%:" \
        "$name: the summary's time line"
}

# A binding of the config's other than the defaults is applied by re-executing touchstone: counted.
timed config "binding from the config" --set openmp.proc_bind=spread && check config
awk -v v="$(get config.h5 /timings/reexec)" 'BEGIN { exit !(v > 0) }' ||
    fail "binding from the config: the re-execution is not counted (/timings/reexec = 0)"
expect_in "$OUT" "re-execution [0-9.]+%" "binding from the config: the time line names the re-execution"

# The environment carries it: one process, no re-execution.
OMP_PLACES=cores OMP_PROC_BIND=close timed environment "binding from the environment" && check environment
[ "$(get environment.h5 /timings/reexec)" = 0 ] ||
    fail "binding from the environment: /timings/reexec is $(get environment.h5 /timings/reexec), not 0"
expect_not_in "$OUT" "re-execution" "binding from the environment: no re-execution in the time line"
# The defaults' values, but the user's: app/early.c leaves them alone, and the source says so.
[ "$(get environment.h5 /threads@OMP_PLACES_source)" = environment ] ||
    fail "binding from the environment: recorded as from '$(get environment.h5 /threads@OMP_PLACES_source)'"
finish

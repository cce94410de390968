# Shared by the faults.* tests, on top of tests/cli/lib.sh (run_ts, expect_in, fail, finish).
# Usage: . "$(dirname "$0")/lib.sh" "$@"   (arguments: TOUCHSTONE SOURCE_DIR H5_GET FAULTFS_SO)
. "$(dirname "$0")/../cli/lib.sh"
H5GET=${3:?path to h5_get}
FAULTFS=${4:?path to libfaultfs.so}
get() { "$H5GET" "$@"; }
# A temporary file's name after the final one (io/ts_file_place.c), as a grep -E pattern:
# .tmp.<this host up to its first '.'>.<pid>.<16 hex digits>.
HOST=$(uname -n | cut -d. -f1 | tr -c 'A-Za-z0-9_\n-' '_')
TMPNAME="\\.tmp\\.$HOST\\.[0-9]+\\.[0-9a-f]{16}"

# faulty VAR=VALUE... -- ARGS...: touchstone with the fault library preloaded and the FAULTFS_*
# variables given, output in $OUT/$ERR, status in $status.
faulty() {
    vars=""
    while [ "$1" != "--" ]; do
        vars="$vars $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    env LD_PRELOAD="$FAULTFS" $vars "$TS" "$@" >"$OUT" 2>"$ERR"
    status=$?
}

# expect_status N WHAT: the last faulty run ended with status N.
expect_status() {
    if [ "$status" -ne "$1" ]; then
        fail "$2: exit status $status, expected $1"
        sed 's/^/    stderr: /' "$ERR" | head -20 >&2
        return 1
    fi
    return 0
}

# no_temp_left DIR WHAT: a failed write removes its temporary file.
no_temp_left() {
    left=$(find "$1" -maxdepth 1 -name '*.tmp.*' | head -3)
    [ -z "$left" ] || fail "$2: temporary file(s) left behind: $left"
}

# same_bytes SAVED FILE WHAT: FILE is byte for byte the copy saved before the fault.
same_bytes() {
    if [ ! -e "$2" ]; then
        fail "$3: $2 is gone (it must survive a failed write untouched)"
    elif ! cmp -s "$1" "$2"; then
        fail "$3: $2 changed (it must survive a failed write untouched)"
    fi
}

# Exact bits of a dataset, for bitwise comparisons (h5_get -x prints %a).
bits() { get -x "$1" "$2" 2>/dev/null; }

# wait_for FILE PATTERN PID [TENTHS]: polls until a line of FILE matches PATTERN (a trace of
# the fault library), while the process PID lives; 1 on time-out (default 60 s) or its end.
wait_for() {
    tries=0
    limit=${4:-600}
    while ! grep -Eq -- "$2" "$1" 2>/dev/null; do
        kill -0 "$3" 2>/dev/null || return 1
        [ $tries -lt "$limit" ] || return 1
        sleep 0.1
        tries=$((tries + 1))
    done
    return 0
}

# start FAULTFS_VARS... -- ARGS...: touchstone in the background with the fault library tracing
# to $WORK/trace; its process is $pid.
start() {
    rm -f "$WORK/trace"
    vars="FAULTFS_TRACE=$WORK/trace"
    while [ "$1" != "--" ]; do
        vars="$vars $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    env LD_PRELOAD="$FAULTFS" $vars "$TS" "$@" >"$OUT" 2>"$ERR" &
    pid=$!
}

# stop_after_init WHAT FAULTFS_VARS... -- ARGS...: starts touchstone with the fault library,
# sends SIGUSR1 once the placement audit after init has run, waits; status in $status.
stop_after_init() {
    what=$1
    shift
    start "$@"
    wait_for "$WORK/trace" ' audit ' $pid || fail "$what: the run never reached its iterations"
    kill -USR1 $pid 2>/dev/null || fail "$what: the run ended before SIGUSR1; make it longer"
    wait $pid
    status=$?
}

# --- After a SIGKILL -----------------------------------------------------------------------------
# The killed run (faults.kill_points, faults.kill_random): its directory KD, output name KNAME
# (without .h5), config KCFG and arguments KARGS, with a checkpoint every KEVERY iterations.
KD=$WORK/out
KNAME=k
KCFG=$SRC/configs/stencil2d.ini
KEVERY=1000
KARGS="--set stencil.nx=256 --set stencil.ny=256 --set run.iterations=4000 --set output.checkpoint_every=$KEVERY --set output.write_field=true --threads 1"

# kill_reference: after the test's uninterrupted run wrote $WORK/ref.h5, its bits (REF_GLOBAL,
# $WORK/ref.field), and the file that sits under the final name before every killed run:
# another run's complete file ($WORK/prev.saved), which the killed runs replace (--overwrite).
# The trace of a killed run is $WORK/trace.
kill_reference() {
    REF_GLOBAL=$(bits "$WORK/ref.h5" /results/global)
    bits "$WORK/ref.h5" /field/u >"$WORK/ref.field"
    mkdir -p "$KD"
    # shellcheck disable=SC2086
    run_ts 0 "previous file" run "$KCFG" $KARGS --set run.iterations=10 --set output.checkpoint_every=0 \
        -o "$WORK/prev.saved" -q || finish
    cp "$WORK/prev.saved" "$KD/$KNAME.h5"
}
KILLS=0
RESTARTS=0
TEMPS_LEFT=0
KEPT_PREVIOUS=0
NEW_COMPLETE=0

# after_kill WHAT: every file under a final name is complete, the results file is the previous
# one or a complete new one, the checkpoint is the newest one written and restarts to the
# bits of the uninterrupted run, and that restart removes the killed writer's temporary file
# (a dead process on this host); then the directory is reset for the next kill.
after_kill() {
    what=$1
    x=$KD/$KNAME.h5
    ck=$KD/$KNAME.ckpt.h5
    KILLS=$((KILLS + 1))
    if [ ! -e "$x" ]; then
        fail "$what: the previous results file $x vanished"
    elif ! cmp -s "$WORK/prev.saved" "$x"; then
        # Replaced: only by a complete file, renamed into place.
        if ! "$TS" report "$x" >"$WORK/report.out" 2>&1; then
            fail "$what: $x is neither the previous file nor a valid run file"
            sed 's/^/    /' "$WORK/report.out" | head -5 >&2
        elif [ "$(get "$x" /@complete)" != 1 ] || [ "$(bits "$x" /results/global)" != "$REF_GLOBAL" ]; then
            fail "$what: $x is a new file but not the complete run (complete=$(get "$x" /@complete))"
        else
            NEW_COMPLETE=$((NEW_COMPLETE + 1))
        fi
    else
        KEPT_PREVIOUS=$((KEPT_PREVIOUS + 1))
    fi
    # A writer killed mid-write leaves its temporary file (never a final name): count.
    temps=$(find "$KD" -maxdepth 1 -name '*.tmp.*' | wc -l)
    TEMPS_LEFT=$((TEMPS_LEFT + temps))
    # The newest checkpoint: as many as the trace saw renamed, one more if the kill came between
    # the rename and its trace line.
    renamed=$(grep -c " renamed $ck\$" "$WORK/trace" 2>/dev/null)
    renamed=${renamed:-0} # no trace: killed before the fault library started
    last=$(tail -n 1 "$WORK/trace" 2>/dev/null | cut -d' ' -f3-)
    if [ -e "$ck" ]; then
        steps=$(get "$ck" /@steps_done 2>/dev/null)
        if [ "$steps" != $((renamed * KEVERY)) ] && ! { [ "$last" = "rename $ck" ] && [ "$steps" = $(((renamed + 1) * KEVERY)) ]; }; then
            fail "$what: the checkpoint holds ${steps:-no} steps; the newest written was $((renamed * KEVERY))"
        fi
        RESTARTS=$((RESTARTS + 1))
        # shellcheck disable=SC2086
        if run_ts 0 "$what: restart from the checkpoint" run "$KCFG" $KARGS -o "$x" -q --restart "$ck"; then
            [ "$(bits "$x" /results/global)" = "$REF_GLOBAL" ] ||
                fail "$what: restart from $steps steps gave $(bits "$x" /results/global), the uninterrupted run $REF_GLOBAL"
            bits "$x" /field/u >"$WORK/field"
            cmp -s "$WORK/field" "$WORK/ref.field" || fail "$what: restart from $steps steps: the final field differs"
            left=$(find "$KD" -maxdepth 1 -name '*.tmp.*' | head -3)
            [ -z "$left" ] || fail "$what: the restart left the killed writer's temporary file(s): $left"
        fi
    elif [ "$renamed" -gt 0 ] && ! grep -q " unlink $ck\$" "$WORK/trace"; then
        fail "$what: $renamed checkpoint(s) were written, none is left"
    fi
    rm -f "$KD"/*.tmp.* "$ck"
    cp "$WORK/prev.saved" "$x"
}

# phase_of TRACE: where the trace of a killed run stops, in words.
phase_of() {
    awk -v name="$KD/$KNAME" '
        { ev = $3; arg = $4 }
        ev == "audit" { p = "kernel" }
        ev == "assemble" { p = (arg == name ".h5") ? "results file assembly (in memory)" : "checkpoint assembly (in memory)" }
        ev == "open" && index(arg, name ".ckpt.h5.tmp.") == 1 { p = "checkpoint write" }
        ev == "open" && index(arg, name ".h5.tmp.") == 1 && p != "" { p = "results file write" }
        ev == "renamed" { p = (arg == name ".h5") ? "after the results file" : "kernel" }
        END { print (p == "" ? "init" : p) }' "$1" 2>/dev/null || echo init
}

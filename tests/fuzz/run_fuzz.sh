#!/bin/sh
# One bounded libFuzzer run of a harness, and the verdict on what it found:
#   run_fuzz.sh NAME HARNESS SEEDS WORK SECONDS TOUCHSTONE SOURCE_DIR
# fuzz.NAME in build-fuzz (`make test`: 10 s, `make fuzz`: 60 s). The corpus starts from the
# seeds and the regression cases; libFuzzer runs in fork mode so that it goes on after a crash
# and keeps every crashing input (WORK/NAME/crash-*, timeout-*, leak-*, oom-*).
#
# Every input found is replayed for its stack and sorted by whose code failed:
#  - ours (touchstone, the harness's checks, a leak): the test fails, and prints how to keep the
#    input as a regression case (tests/fuzz/regressions/NAME/);
#  - HDF5's own (the first frame outside the sanitizer runtime and libc is in libhdf5, or, with
#    HDF5's static archive linked in, in one of its H5* functions): a known
#    weakness of HDF5 1.10 on corrupted files (io/ts_run_isolate.c). The harness reads in
#    process for coverage; the input is then given to the command that reads such files,
#    which reads it in a child process: it must end with a message (exit 2) or with the
#    answer (exit 0), never crash or hang. HDF5 fails in the harness under limits the command
#    does not have (ASan's checks, 2 GB of RSS, a 256 MB malloc limit, 5 s), so the same
#    bytes may read there; what the child sends back is validated like any file.
set -u
NAME=$1 HARNESS=$2 SEEDS=$3 WORK=$4 SECONDS_=$5 TS=$6 SRC=$7
DIR=$WORK/$NAME
rm -rf "$DIR"
mkdir -p "$DIR/corpus" "$DIR/found"
REGRESSIONS=$SRC/tests/fuzz/regressions/$NAME
[ -d "$REGRESSIONS" ] || REGRESSIONS=

# The product's command for a file HDF5 itself fails on (empty: the harness has no such file).
product_reads() {
    case $NAME in
    run_read) "$TS" report "$1" ;;
    checkpoint)
        # As a checkpoint of the first case of checkpoint_cases.h; a mismatch is a message too.
        "$TS" run "$SRC/configs/stencil2d.ini" --set stencil.nx=64 --set stencil.ny=48 \
            --set run.iterations=3 --threads 1 -q -o "$DIR/restart.h5" --restart "$1"
        ;;
    *) return 2 ;;
    esac
}

# Sanitizer reports are errors: the first one ends the process. Leaks are checked after every
# input (libFuzzer's -detect_leaks), which names the input; not at exit, where a leak has no
# input to show (fork mode files it as an empty crash) and HDF5's caches are still held.
# HDF5 asks malloc for absurd sizes on some corrupted files and copes with NULL.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:leak_check_at_exit=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# libFuzzer's timeout handler allocates: when its alarm lands inside malloc (HDF5 spends seconds
# allocating on some corrupted files), the job deadlocks in ASan's allocator and fork mode
# waits for it forever (seen in a 300 s run of run_read). A wall clock bounds every libFuzzer
# process, in its own process group, which timeout kills whole.
LATE=${FUZZ_LATE:-60} # seconds; FUZZ_LATE overrides it
# shellcheck disable=SC2086
timeout -k 5 $((SECONDS_ + LATE)) "$HARNESS" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$SECONDS_" -timeout=5 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$DIR/found/" \
    -print_final_stats=1 "$DIR/corpus" "$SEEDS" $REGRESSIONS >"$DIR/fuzz.log" 2>&1
fuzz_status=$?
# timeout's status when it had to stop the command: 124 after SIGTERM, 137 after SIGKILL.
killed_by_timeout() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }
if killed_by_timeout "$fuzz_status"; then
    echo "fuzz.$NAME: libFuzzer had not ended $LATE s after its time was up (a job deadlocked in its timeout handler); killed, the inputs it kept are judged below"
    fuzz_status=0
fi
execs=$(sed -n 's/.*stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$DIR/fuzz.log" | tail -n 1)
[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*exec\/s.*/\1/p' "$DIR/fuzz.log" | tail -n 1)
corpus=$(find "$DIR/corpus" -type f | wc -l)
echo "fuzz.$NAME: ${execs:-?} executions in $SECONDS_ s, corpus $corpus inputs"

# The first frame of a replay outside the sanitizer runtime, libc and libFuzzer's own code (an
# out-of-memory report lists the biggest live allocations, libFuzzer's own first: its
# operator new called from main). Frames without a function name are skipped: ours are built
# with debug information and always have one, while HDF5's archive has no names for its static
# functions (a loop inside H5HG__cache_heap_deserialize showed as a bare address above it).
first_frame() {
    grep -E '^ *#[0-9]+ ' "$1" | grep ' in ' |
        grep -Ev 'libclang_rt|compiler-rt|/libc\.so|libc\.so\.6|csu/|sysdeps/|libstdc\+\+|__interceptor_|__asan_|__asan::|__sanitizer|fuzzer::|libFuzzer| in (malloc|calloc|realloc|free|strdup|main) ' |
        head -n 1
}

# replay INPUT [HARNESS_ARGS...]: the input run alone for its stack, into INPUT.replay, its status
# in replay_status. A replay that hangs past the wall clock (the same deadlock) is tried once
# more; the deadlock depends on timing.
replay() {
    replayed=$1
    shift
    for try in 1 2; do
        timeout -k 5 $((20 + LATE)) "$HARNESS" -runs=1 -timeout=20 -rss_limit_mb=2048 "$@" "$replayed" \
            >"$replayed.replay" 2>&1
        replay_status=$?
        killed_by_timeout "$replay_status" || return 0
        echo "(replay $try of $(basename "$replayed") hung past $((20 + LATE)) s and was killed)" >>"$DIR/hung.log"
    done
}

OURS=0 HDF5=0 ALONE=0
for input in "$DIR"/found/*; do
    [ -f "$input" ] || continue
    replay "$input"
    frame=$(first_frame "$input.replay")
    # Over the RSS limit with the live heap small (the memory was allocated and freed, or
    # the report shows libFuzzer's own context only): the culprit is the big allocation, which
    # a malloc limit stops with its stack.
    if [ -z "$frame" ] && grep -q 'libFuzzer: out-of-memory (used' "$input.replay"; then
        replay "$input" -malloc_limit_mb=256
        frame=$(first_frame "$input.replay")
    fi
    [ -z "$frame" ] && [ "$replay_status" -ne 0 ] && frame="(no stack; replay status $replay_status)"
    case $frame in
    *libhdf5* | *" in H5"[A-Z]*)
        HDF5=$((HDF5 + 1))
        TOUCHSTONE_READ_TIMEOUT=10 product_reads "$input" >"$input.product" 2>&1
        status=$?
        case $status in
        2) outcome=$(grep '^touchstone: ' "$input.product" | tail -n 1) ;;
        0) outcome="touchstone read it (exit 0)" ;;
        *) outcome= ;;
        esac
        if [ -z "$outcome" ]; then
            OURS=$((OURS + 1))
            echo "FAILED: $input: HDF5 fails on it inside the harness, and touchstone's own read ended with status $status, neither 2 with a message nor 0:" >&2
            sed 's/^/    | /' "$input.product" | head -10 >&2
        else
            where=$(echo "$frame" | sed -n 's/.* in \([A-Za-z0-9_]*\) .*/\1/p')
            echo "fuzz.$NAME: $(basename "$input"): in HDF5 (${where:-libhdf5}); $outcome"
        fi
        ;;
    '')
        # No report on a replay alone: the failure needed the state earlier inputs left (a
        # leak seen at the end of a fork-mode job). Shown, not counted: nothing to keep.
        ALONE=$((ALONE + 1))
        echo "fuzz.$NAME: $(basename "$input") does not fail when replayed alone"
        ;;
    *)
        OURS=$((OURS + 1))
        echo "FAILED: fuzz.$NAME found $input; keep it with: cp $input $SRC/tests/fuzz/regressions/$NAME/" >&2
        grep -E 'ERROR|fuzz check failed|runtime error|SUMMARY' "$input.replay" | head -5 | sed 's/^/    | /' >&2
        grep -E '^ *#[0-9]+ ' "$input.replay" | head -12 | sed 's/^/    | /' >&2
        ;;
    esac
done
if [ "$ALONE" -gt 0 ]; then
    # Fork mode's log does not say which report belongs to which input.
    echo "fuzz.$NAME: the run's first error reports (fork mode does not tie them to inputs):"
    grep -E 'ERROR|SUMMARY' "$DIR/fuzz.log" | head -3 | sed 's/^/    | /'
fi
# libFuzzer's own failure without an input to show (it could not start, a seed crashed at load).
if [ "$fuzz_status" -ne 0 ] && [ "$OURS" -eq 0 ] && [ "$HDF5" -eq 0 ]; then
    echo "FAILED: libFuzzer ended with status $fuzz_status:" >&2
    tail -n 20 "$DIR/fuzz.log" | sed 's/^/    | /' >&2
    exit 1
fi
echo "fuzz.$NAME: $OURS input(s) that break touchstone's promises, $HDF5 on which HDF5 itself fails (contained)"
[ "$OURS" -eq 0 ]

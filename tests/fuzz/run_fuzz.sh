#!/bin/sh
# libFuzzer on one harness, and the verdict on what it found:
#   run_fuzz.sh explore NAME HARNESS WORK TOUCHSTONE SOURCE_DIR RUNS SEEDS...
#   run_fuzz.sh random  NAME HARNESS WORK TOUCHSTONE SOURCE_DIR SECONDS SEEDS...
# SEEDS: directories of inputs (the regression cases, the seeds).
#
# explore (fuzz.NAME, `make test`): the same commit gives the same run, so the same verdict.
# libFuzzer starts from the seed files in a fixed order (sorted paths; seeds.sh makes their
# bytes the same on every run), with a fixed -seed, for RUNS executions, in one process (no
# fork mode), and no limit that load can reach decides anything: -timeout is minutes for
# inputs that take milliseconds, and memory is limited per allocation (-malloc_limit_mb). The
# first input that fails ends the run; it is judged below. Every run prints the same line:
# executions, coverage, new inputs and a digest of them.
# random (fuzz.NAME.random, `make fuzz`): SECONDS of fork mode, which goes on after a crash
# and keeps every failing input (WORK/NAME/found/crash-*, timeout-*, leak-*, oom-*), from the
# seeds and the files of real runs; where new findings come from.
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
#    does not have (ASan's checks, a 2 GB RSS and malloc limit, the per-input timeout), so the
#    same bytes may read there; what the child sends back is validated like any file.
set -u
MODE=$1 NAME=$2 HARNESS=$3 WORK=$4 TS=$5 SRC=$6 BUDGET=$7
shift 7
case $MODE in
explore | random) ;;
*)
    echo "run_fuzz.sh: mode $MODE is neither explore nor random" >&2
    exit 2
    ;;
esac
DIR=$WORK/$NAME
rm -rf "$DIR"
mkdir -p "$DIR/corpus" "$DIR/found"

# The product's command for a file HDF5 itself fails on (empty: the harness has no such file).
product_reads() {
    case $NAME in
    run_read) "$TS" report "$1" ;;
    checkpoint)
        # As a checkpoint of the first case of checkpoint_cases.h; a mismatch is a message too.
        "$TS" run "$SRC/configs/stencil2d.ini" --set stencil.nx=64 --set stencil.ny=48 \
            --set run.iterations=3 --threads 1 -q -o "$DIR/restart.h5" --restart "$1"
        ;;
    survey_read)
        mkdir -p "$DIR/survey" && cp "$1" "$DIR/survey/survey.h5" && "$TS" survey --dump -o "$DIR/survey"
        ;;
    *) return 2 ;;
    esac
}

# Sanitizer reports are errors: the first one ends the process. Leaks are checked after every
# input (libFuzzer's -detect_leaks), which names the input; not at exit, where a leak has no
# input to show (fork mode files it as an empty crash) and HDF5's caches are still held.
# HDF5 asks malloc for absurd sizes on some corrupted files and copes with NULL: in explore
# mode ASan returns NULL above 2000 MB (max_allocation_size_mb), a limit on memory that ends
# nothing, where libFuzzer's -malloc_limit_mb would end the run.
ASAN_DEFAULT=detect_leaks=1:leak_check_at_exit=0:allocator_may_return_null=1
[ "$MODE" = explore ] && ASAN_DEFAULT=$ASAN_DEFAULT:max_allocation_size_mb=2000
export ASAN_OPTIONS="${ASAN_OPTIONS:-$ASAN_DEFAULT}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
[ "$MODE" = explore ] && export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$SRC/tests/fuzz/hdf5_leaks.supp:print_suppressions=0}"

# timeout's status when it had to stop the command: 124 after SIGTERM, 137 after SIGKILL.
killed_by_timeout() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }
# Executions a libFuzzer log reports (its final statistics; else its last numbered status line,
# "#N\t..." or, in fork mode, "#N: ...", not a "pulse": libFuzzer prints those by the clock).
executions() {
    n=$(sed -n 's/.*stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$1" | tail -n 1)
    [ -n "$n" ] || n=$(grep -Ev 'pulse' "$1" | sed -n 's/^#\([0-9]*\)[:[:space:]].*/\1/p' | tail -n 1)
    echo "${n:-0}"
}

# libFuzzer's timeout handler allocates: when its alarm lands inside malloc (HDF5 spends seconds
# allocating on some corrupted files), the job deadlocks in ASan's allocator and fork mode
# waits for it forever (seen in a 300 s run of run_read). A wall clock bounds every libFuzzer
# process, in its own process group, which timeout kills whole. In explore mode it is 25
# minutes, for a run that takes seconds: only such a deadlock reaches it (CTest's limit is 30).
LATE=${FUZZ_LATE:-60} # seconds
if [ "$MODE" = explore ]; then
    # The seed files by sorted path (libFuzzer reads a directory in readdir's order, which
    # differs between file systems; -seed_inputs keeps the order given, a list of paths joined
    # by commas). Then libFuzzer shuffles them with its -seed and runs them smallest first:
    # the same order every run.
    find "$@" -type f ! -name '.*' | LC_ALL=C sort >"$DIR/seeds.list"
    if grep -q , "$DIR/seeds.list"; then
        echo "FAILED: a seed path holds a comma, which -seed_inputs cannot take:" >&2
        grep , "$DIR/seeds.list" >&2
        exit 1
    fi
    INPUT_TIMEOUT=60 # seconds, for inputs that take milliseconds: a hang, not a slow machine
    # An input that fails ends libFuzzer (without fork mode). One that is not ours (HDF5's own,
    # judged below) should not end the exploration: a next part starts, from the seeds and
    # every input found so far, with the next -seed, for the executions left; at most
    # SEGMENTS parts. Each part's new inputs go to a directory of their own that starts empty
    # (libFuzzer would read a directory's files in readdir's order), then join the corpus.
    SEGMENTS=8
    segment=0 executed=0 fuzz_status=0
    while [ "$segment" -lt "$SEGMENTS" ] && [ "$executed" -lt "$BUDGET" ]; do
        segment=$((segment + 1))
        log=$DIR/part$segment.log
        mkdir -p "$DIR/new"
        { cat "$DIR/seeds.list"; find "$DIR/corpus" -type f | LC_ALL=C sort; } | paste -sd , | tr -d '\n' \
            >"$DIR/inputs"
        # No words from the values the code compares (-use_cmp): they include addresses (a
        # pointer tested against NULL is a comparison of two integers), which ASLR draws anew
        # every run, so the mutations, and all that follows, differed between two runs.
        # No slow-unit report either (libFuzzer writes one for an input past 10 s, and counted it
        # a finding): a 0.2 s input of survey_read took 14 s on a loaded machine and failed the
        # test. Past -timeout an input is a hang, judged as one.
        timeout -k 5 1500 "$HARNESS" -seed=$segment -runs=$((BUDGET - executed)) -use_cmp=0 -use_memmem=0 \
            -timeout=$INPUT_TIMEOUT -report_slow_units=$((INPUT_TIMEOUT * 10)) -rss_limit_mb=2048 -max_len=65536 -reload=0 \
            -artifact_prefix="$DIR/found/$segment-" -print_final_stats=1 -seed_inputs="@$DIR/inputs" "$DIR/new" \
            >"$log" 2>&1
        fuzz_status=$?
        executed=$((executed + $(executions "$log")))
        find "$DIR/new" -type f -exec mv {} "$DIR/corpus/" \;
        cat "$log" >>"$DIR/fuzz.log"
        if killed_by_timeout "$fuzz_status"; then
            echo "fuzz.$NAME: libFuzzer had not ended by its wall clock (deadlocked in its timeout handler); killed, the inputs it kept are judged below"
            fuzz_status=0
            break
        fi
        # Nothing found: the executions are done, or libFuzzer failed without an input to show.
        ls "$DIR/found/$segment-"* >/dev/null 2>&1 || break
        fuzz_status=0
        # An input of the corpus that failed as the next part reloaded it (it had passed when
        # found: HDF5's state after other inputs decides some of its failures) would end every
        # part after: it leaves the corpus. libFuzzer names both by the input's SHA-1.
        for found in "$DIR/found/$segment-"*; do
            sha=${found##*-}
            [ -f "$DIR/corpus/$sha" ] && mkdir -p "$DIR/dropped" && mv "$DIR/corpus/$sha" "$DIR/dropped/"
        done
    done
    # What two runs of the same commit agree on: libFuzzer names a new input by its SHA-1.
    cov=$(grep -E '^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|DONE)' "$DIR/fuzz.log" | tail -n 1 |
        sed -n 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/p')
    corpus=$(find "$DIR/corpus" -type f | wc -l)
    digest=$(find "$DIR/corpus" -type f -printf '%f\n' | LC_ALL=C sort | sha256sum | cut -c1-16)
    echo "fuzz.$NAME: $executed executions of $BUDGET in $segment part(s) (seeds 1..$segment, $(wc -l <"$DIR/seeds.list") seed files), ${cov:-no coverage line}, $corpus new inputs (digest $digest)"
else
    INPUT_TIMEOUT=20 # for a replay; fork mode's jobs have 5 s
    timeout -k 5 $((BUDGET + LATE)) "$HARNESS" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$BUDGET" -timeout=5 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$DIR/found/" \
        -print_final_stats=1 "$DIR/corpus" "$@" >"$DIR/fuzz.log" 2>&1
    fuzz_status=$?
    if killed_by_timeout "$fuzz_status"; then
        echo "fuzz.$NAME: libFuzzer had not ended $LATE s after its time was up (a job deadlocked in its timeout handler); killed, the inputs it kept are judged below"
        fuzz_status=0
    fi
    corpus=$(find "$DIR/corpus" -type f | wc -l)
    echo "fuzz.$NAME: $(executions "$DIR/fuzz.log") executions in $BUDGET s, corpus $corpus inputs"
fi

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
        timeout -k 5 $((INPUT_TIMEOUT + LATE)) "$HARNESS" -runs=1 -timeout=$INPUT_TIMEOUT -rss_limit_mb=2048 "$@" "$replayed" \
            >"$replayed.replay" 2>&1
        replay_status=$?
        killed_by_timeout "$replay_status" || return 0
        echo "(replay $try of $(basename "$replayed") hung past $((INPUT_TIMEOUT + LATE)) s and was killed)" >>"$DIR/hung.log"
    done
}

OURS=0 HDF5=0 ALONE=0
for input in "$DIR"/found/*; do
    [ -f "$input" ] || continue
    if [ "$MODE" = explore ]; then
        # The part that found it stopped on it: its log ends with the report (a replay would
        # wait out a hang's -timeout once more).
        part=$(basename "$input")
        cp "$DIR/part${part%%-*}.log" "$input.replay"
        replay_status=1
    else
        replay "$input"
    fi
    frame=$(first_frame "$input.replay")
    # Over the RSS limit with the live heap small (the memory was allocated and freed, or
    # the report shows libFuzzer's own context only): the culprit is the big allocation, which
    # a malloc limit stops with its stack. ASan itself refuses it too: libFuzzer's malloc hook
    # runs only once ASan has made the allocation, whose shadow alone (2.6 GB for HDF5's 21 GB
    # on a corrupted vlen length) crosses the RSS limit first, and that report names no frame.
    if [ -z "$frame" ] && grep -q 'libFuzzer: out-of-memory (used' "$input.replay"; then
        saved_asan=$ASAN_OPTIONS
        export ASAN_OPTIONS="$saved_asan:allocator_may_return_null=0:max_allocation_size_mb=256"
        replay "$input" -malloc_limit_mb=256
        export ASAN_OPTIONS="$saved_asan"
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

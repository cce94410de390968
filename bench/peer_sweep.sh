#!/bin/sh
# bench/peer_sweep.sh: the survey's sweep and mixes sections (issue 26, item 4) against
# likwid-bench, measured side by side.
#
# touchstone's side is one point of a section as the section measures it (tests/bench/
# sweep_point.c: kernels/ts_mix.h on the NUMA engine, its buffers bound to node 0 and their
# pages counted, the median of 5 timed steps after a warm-up, a small working set swept PASSES
# times a step). likwid-bench's side is its widest kernel (AVX-512, AVX or SSE) at the same
# working set in bytes (over all its arrays) and thread count, pinned to the first CPUs as the
# engine binds to node 0's first cores, run LIKWID_RUNS times for as many iterations as one of
# touchstone's steps has passes: the median of those runs (each its mean over its iterations)
# against touchstone's median step. Both count the explicit bytes (no write-allocate): likwid's
# "Data volume" is its working set times its iterations, its working set the bytes over all its
# arrays, as touchstone's. Pages alike: touchstone asks 2 MiB pages for its buffers (madvise),
# where likwid-bench takes what the THP mode gives its posix_memalign'ed arrays (4 KiB pages under
# "madvise"), so likwid runs with a preloaded shim of the script's own (built here; LIKWID_HUGE=0
# leaves it out) that asks 2 MiB pages for every allocation of 2 MiB or more, before it is
# first touched.
#
# Rows: the sweep's read (sum) against likwid's sum, by 1 thread and by THREADS, with the working
# set in L1 (half of it), in L2 (half), in the LLC (a quarter) and in memory (8x the LLC); the
# mixes (THREADS threads, 8x the LLC) against the likwid kernel with the same reads:writes and
# stores: read/load, 3:1/triad (a = b c + d), 2:1/stream (a = b s + c), 1:1/copy, store/store,
# and with non-temporal stores 2:1/stream_mem, 1:1/copy_mem, store/store_mem (likwid has no
# non-temporal triad: 3:1's row with them is left out). A ratio is touchstone over likwid per
# round, pairs alternating in every round, its median and min-max over ROUNDS rounds; the goal
# is 0.95. A benchmark, not a test: it always exits 0.
#
# The quiet check is bench/run.sh's (bench/quiet.sh, bench/README.md "A quiet node"): a
# disturbed pair is tried again (REPEATS_MAX, 3) and left out; QUIET_CHECK=0 keeps every try
# (a loaded machine), QUIET_WAIT (30 s) bounds the wait for a quiet second before a round.
#
# Environment: ROUNDS (5), THREADS (every CPU), L1_BYTES (49152), L2_BYTES (1048576), LLC_BYTES
# (33554432: VMs hide their caches; the sweep section's inferred sizes are the ones to give),
# LIKWID_RUNS (5: likwid-bench runs per try, their median taken), LIKWID_HUGE (1: likwid's
# arrays on 2 MiB pages, as touchstone's), BUILD (build/), CC (cc), ONLY (a shell pattern of row
# names), QUIET_CHECK (1), REPEATS_MAX (3), QUIET_WAIT (30).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "bench: $*" >&2; }
# shellcheck source=bench/quiet.sh
. "$ROOT/bench/quiet.sh"
# shellcheck source=bench/likwid_pages.sh
. "$ROOT/bench/likwid_pages.sh"

ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-$(nproc)}
L1_BYTES=${L1_BYTES:-49152}
L2_BYTES=${L2_BYTES:-1048576}
LLC_BYTES=${LLC_BYTES:-33554432}
LIKWID_RUNS=${LIKWID_RUNS:-5}
LIKWID_HUGE=${LIKWID_HUGE:-1}
CC=${CC:-cc}
ONLY=${ONLY:-*}
BUILD=${BUILD:-$ROOT/build}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-peer-sweep.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

"$ROOT/scripts/setup-deps.sh" --bench >&2 || say "could not install the bench packages (see above)"
if [ ! -d "$BUILD" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null || say "cmake configure failed"
fi
cmake --build "$BUILD" --target bench_sweep_point bench_watch -j "$(nproc)" >/dev/null 2>&1 || say "build failed"
POINT=$BUILD/tests/bench/bench_sweep_point
WATCH=$BUILD/bench/bench_watch
[ -x "$POINT" ] || { say "no $POINT: nothing to measure"; exit 0; }

quiet_setup "$ROOT"

# The widest likwid kernels this CPU runs.
case " $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null) " in
*" avx512f "*) W=avx512 ;;
*" avx "*) W=avx ;;
*" sse2 "*) W=sse ;;
*) W="" ;;
esac
lw() { [ -n "$W" ] && echo "${1}_$W" || echo "$1"; }
lw_mem() { [ -n "$W" ] && echo "${1}_mem_$W" || echo "${1}_mem"; }
LIKWID=""
if ! command -v likwid-bench >/dev/null 2>&1; then
    say "likwid-bench is not installed: touchstone's side only"
elif likwid-bench -t "$(lw sum)" -w S0:1MB:1 -i 2 2>/dev/null | grep -q 'MByte/s'; then
    LIKWID=likwid-bench
else
    say "likwid-bench cannot run here: touchstone's side only"
fi

# likwid-bench's arrays on 2 MiB pages, as touchstone's buffers (bench/likwid_pages.sh).
LIKWID_SHIM="" LIKWID_PAGES="not run"
[ -z "$LIKWID" ] || likwid_pages_shim "$WORK" "$CC"

# likwid_run THREADS ARGS...: one likwid-bench run under the quiet check, with the shim when built;
# prints its GB/s (1e9 B/s).
likwid_run() {
    l_threads=$1
    shift
    likwid_paged watched "$l_threads" likwid-bench "$@" 2>/dev/null | awk '/^MByte\/s:/ { printf "%.4f\n", $2 / 1000 }'
}

# rows: NAME|MIX|STORES|BYTES|THREADS|LIKWID_TEST
MEM=$((8 * LLC_BYTES))
rows() {
    for t in 1 "$THREADS"; do
        [ "$t" = 1 ] || [ "$THREADS" != 1 ] || continue
        echo "sweep read in L1, $t thread(s)|read|normal|$((L1_BYTES / 2 * t))|$t|$(lw sum)"
        echo "sweep read in L2, $t thread(s)|read|normal|$((L2_BYTES / 2 * t))|$t|$(lw sum)"
        echo "sweep read in the LLC, $t thread(s)|read|normal|$((LLC_BYTES / 4))|$t|$(lw sum)"
        echo "sweep read from memory, $t thread(s)|read|normal|$MEM|$t|$(lw sum)"
    done
    echo "mixes read (load)|read|normal|$MEM|$THREADS|$(lw load)"
    echo "mixes 3:1 (triad)|3:1|normal|$MEM|$THREADS|$(lw triad)"
    echo "mixes 2:1 (stream)|2:1|normal|$MEM|$THREADS|$(lw stream)"
    echo "mixes 1:1 (copy)|1:1|normal|$MEM|$THREADS|$(lw copy)"
    echo "mixes store (store)|store|normal|$MEM|$THREADS|$(lw store)"
    echo "mixes 2:1 NT (stream_mem)|2:1|nt|$MEM|$THREADS|$(lw_mem stream)"
    echo "mixes 1:1 NT (copy_mem)|1:1|nt|$MEM|$THREADS|$(lw_mem copy)"
    echo "mixes store NT (store_mem)|store|nt|$MEM|$THREADS|$(lw_mem store)"
}

# One try of row I: touchstone (its median of 5 steps, each of PASSES sweeps sized by the
# section's rule), then likwid-bench LIKWID_RUNS times with as many iterations as touchstone's
# step has passes (the same bytes as one step), the median of its runs: like against like, a
# median of short timings on both sides (one long likwid run's mean takes in every preemption
# of a busy machine, a median of short steps does not).
row_try() { # I MIX STORES BYTES THREADS TEST
    line=$(watched "$5" "$POINT" "$2" "$3" "$4" "$5" 0 5 2>/dev/null)
    ts=$(echo "$line" | awk '/^gbs/ { print $2 }')
    iters=$(echo "$line" | awk '/^gbs/ { print $9 }')
    ref=""
    if [ -n "$LIKWID" ] && [ -n "$iters" ]; then
        k=0
        : >"$WORK/likwid.runs"
        while [ "$k" -lt "$LIKWID_RUNS" ]; do
            likwid_run "$5" -t "$6" -w "S0:${4}B:$5" -i "$iters" >>"$WORK/likwid.runs"
            k=$((k + 1))
        done
        ref=$(spread <"$WORK/likwid.runs" | awk '{ print $1 }')
    fi
    measured "$WORK/$1.ref" "$ref"
    measured "$WORK/$1.ts" "$ts"
    echo "likwid ${ref:-n/a} touchstone ${ts:-failed} (${iters:-?} passes a step)"
}

LOAD_START=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
say "$THREADS threads; L1 $L1_BYTES B, L2 $L2_BYTES B, LLC $LLC_BYTES B; $ROUNDS rounds; likwid-bench ${LIKWID:-off}, its arrays $LIKWID_PAGES"
round=1
while [ "$round" -le "$ROUNDS" ]; do
    quiet_before
    i=0
    rows | while IFS='|' read -r name mix stores bytes t test; do
        i=$((i + 1))
        # shellcheck disable=SC2254 # ONLY is a pattern on purpose
        case "$name" in $ONLY) ;; *) continue ;; esac
        attempt "row$i" "$name" row_try "$i" "$mix" "$stores" "$bytes" "$t" "$test"
    done
    round=$((round + 1))
done

MIN_QUIET=$((ROUNDS < 3 ? ROUNDS : 3))
stats() {
    s=$(kept "$1" | spread)
    [ -n "$s" ] || { echo "n/a"; return; }
    echo "$s" | awk '{ printf "%.1f (%.1f-%.1f)", $1, $2, $3 }'
}
echo "touchstone peer_sweep, $(date -u +%Y-%m-%d), $(uname -n): $THREADS threads, $ROUNDS rounds," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average ${LOAD_START:-?} at the start," \
    "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?) after the rounds; THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
    "touchstone asks 2 MiB pages, likwid-bench's arrays are $LIKWID_PAGES; $(quiet_summary)"
echo
echo "| row | bytes | threads | likwid kernel | touchstone GB/s median (min-max) | likwid GB/s median (min-max) | ratio (min-max over rounds) | goal | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
i=0
rows | while IFS='|' read -r name mix stores bytes t test; do
    i=$((i + 1))
    # shellcheck disable=SC2254
    case "$name" in $ONLY) ;; *) continue ;; esac
    echo "| $name | $bytes | $t | $test | $(stats "$WORK/$i.ts") | $(stats "$WORK/$i.ref") |" \
        "$(ratio_text "$WORK/$i.ts" "$WORK/$i.ref") | $(target_text "$WORK/$i.ts" "$WORK/$i.ref" 0.95 "$MIN_QUIET") |" \
        "$(quiet_count "row$i" "$MIN_QUIET") |"
done
exit 0

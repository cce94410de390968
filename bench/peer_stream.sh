#!/bin/sh
# bench/peer_stream.sh: the survey's stream section against STREAM itself (issue 26, item 4).
#
# touchstone's side is the survey's stream section in --full (STREAM's four kernels on arrays
# bound to the node, the best of 10 trials after a warm-up, MB/s (10^6 B/s) by STREAM's byte
# counts, 16 B per element for Copy and Scale, 24 for Add and Triad), all cores of the CPU node,
# local memory. By default its measure is run by tests/bench/stream_section.c with a last-level
# cache of LLC_MB (128: arrays of 512 MiB), since the host of a VM may have a far larger cache
# than hwloc shows (the 2-core Zen 5 VM ran Copy at 70-78 GB/s on 128 MiB arrays, 10-15 GB/s on
# 1 GiB ones: bench/README.md); VIA_SURVEY=1 runs `touchstone survey --sections stream --full`
# instead (the same code, its arrays sized from the LLC the survey knows, 32 MiB assumed). The peer
# is McCalpin's stream.c built here, in a temporary folder, with the same array size
# (STREAM_ARRAY_SIZE), the same counted trials (NTIMES = 11: STREAM leaves the first out), the
# compiler flags of touchstone's Release build (-O3 -march=native -ffp-contract=off) and
# -fopenmp: the two Triad loops are then the same instructions (until 2026-12-05 the script left
# -ffp-contract=off out, and STREAM's Triad was a fused multiply-add where touchstone's is a
# multiply and an add; no difference in rate was measurable, bench/README.md), run with
# OMP_NUM_THREADS = the cores and OMP_PLACES=cores OMP_PROC_BIND=close (one thread per core, as
# the section binds them). Both sides keep the OpenMP runtime's default wait policy: with
# OMP_WAIT_POLICY=passive on touchstone's side alone (as this script once set), its threads slept
# at every trial's barrier and woke late: about half its rate on 16 MiB arrays (in a cache).
# STREAM's source is not in this repository: STREAM_SRC names a stream.c, else it is read from a
# snapshot of github.com/jeffhammond/STREAM (a git directory,
# STREAM_GIT); without either the script says so and exits 0. STREAM's licence (its header and
# LICENSE.txt: free to use and redistribute, results from a modified source or not run by its
# Run Rules must be labelled as such) covers this use: the figures here are a comparison, not
# STREAM results.
#
# The two sides alternate, ROUNDS (5) times, the order swapped each round; per round the ratio
# touchstone / STREAM of each kernel's best rate; the table gives each side's median and range
# and the median ratio with its range. Goal: >= 0.95. Every run (the section, both STREAM
# builds) is watched by bench_watch and judged by the rule a run judges itself by (bench/quiet.sh,
# bench/README.md "A quiet node"; with VIA_SURVEY=1 the survey's own DISTURBED too): a round with
# a disturbed run is tried again (REPEATS_MAX, 3) and left out, unless QUIET_CHECK=0; QUIET_WAIT
# (30 s) bounds the wait for a quiet second before a round. A benchmark, not a test: it exits 0.
#
# Environment: ROUNDS (5), BUILD (build/), LLC_MB (128), VIA_SURVEY (0), THREADS (nproc: the
# cores, on a machine without SMT), CC (cc), STREAM_SRC, STREAM_GIT
# (/work/.mirror/jeffhammond+STREAM/repo), QUIET_CHECK (1), REPEATS_MAX (3), QUIET_WAIT (30).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "peer_stream: $*" >&2; }
# shellcheck source=bench/quiet.sh
. "$ROOT/bench/quiet.sh"
ROUNDS=${ROUNDS:-5}
BUILD=${BUILD:-$ROOT/build}
THREADS=${THREADS:-$(nproc)}
CC=${CC:-cc}
STREAM_GIT=${STREAM_GIT:-/work/.mirror/jeffhammond+STREAM/repo}
LLC_MB=${LLC_MB:-128}
VIA_SURVEY=${VIA_SURVEY:-0}
TS=$BUILD/app/touchstone
SECTION=$BUILD/tests/bench/bench_stream_section # the section's measure (tests/bench/stream_section.c)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-peer-stream.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

if [ "$VIA_SURVEY" = 1 ]; then
    [ -x "$TS" ] || { say "no $TS: build touchstone first (BUILD=...)"; exit 0; }
else
    cmake --build "$BUILD" --target bench_stream_section >/dev/null 2>&1 || {
        say "cannot build bench_stream_section in $BUILD"
        exit 0
    }
fi
cmake --build "$BUILD" --target bench_watch >/dev/null 2>&1 || say "cannot build bench_watch in $BUILD"
WATCH=$BUILD/bench/bench_watch
quiet_setup "$ROOT"
if [ -n "${STREAM_SRC:-}" ] && [ -r "$STREAM_SRC" ]; then
    cp "$STREAM_SRC" "$WORK/stream.c"
    origin="$STREAM_SRC"
elif git --git-dir="$STREAM_GIT" show HEAD:stream.c >"$WORK/stream.c" 2>/dev/null; then
    origin="jeffhammond/STREAM at $(git --git-dir="$STREAM_GIT" rev-parse --short HEAD)"
else
    say "no STREAM source: set STREAM_SRC to a stream.c (McCalpin's, e.g. from github.com/jeffhammond/STREAM)"
    say "or STREAM_GIT to a git directory of that repository; nothing measured"
    exit 0
fi

# touchstone's side, one round: "COPY SCALE ADD TRIAD MIB DISTURBED" (all cores, local memory;
# DISTURBED the survey's own verdict, 1 or 0, or - when the driver has none). Round 0, which
# sizes STREAM's arrays, is not watched; the others run under bench_watch (watched).
ts_round() {
    dir="$WORK/ts$1"
    w=watched
    [ "$1" != 0 ] || w=unwatched
    if [ "$VIA_SURVEY" = 1 ]; then
        $w "$THREADS" "$TS" survey --sections stream --full -o "$dir" >"$dir.out" 2>"$dir.err" || {
            say "touchstone survey failed (round $1): $(tail -n 1 "$dir.err")"
            return 1
        }
        awk '$1 == "stream" && /Copy/ {
                line = $0
                d = line ~ /DISTURBED/ ? 1 : 0
                sub(/.*Copy /, "", line); c = line + 0
                sub(/.*Scale /, "", line); s = line + 0
                sub(/.*Add /, "", line); a = line + 0
                sub(/.*Triad /, "", line); t = line + 0
                m = $0; sub(/ MiB arrays.*/, "", m); sub(/.* /, "", m)
                print c, s, a, t, m, d; found = 1; exit }
            END { if (!found) exit 1 }' "$dir.out"
        return
    fi
    $w "$THREADS" "$SECTION" $((LLC_MB * 1048576)) full >"$dir.out" 2>"$dir.err"
    rc=$?
    [ "$rc" -eq 1 ] && say "STREAM's check failed in touchstone's section (round $1): $(grep '^note' "$dir.out")"
    [ "$rc" -le 1 ] || { say "the section failed (round $1): $(tail -n 1 "$dir.err")"; return 1; }
    awk '$1 == "row" { if ($3 > t) { t = $3; delete r } if ($3 == t) r[$2] = $4; bytes = $6 }
        END { if (!("Triad" in r)) exit 1; print r["Copy"], r["Scale"], r["Add"], r["Triad"], bytes / 1048576, "-" }' \
        "$dir.out"
}

# STREAM's side, BINARY ROUND: "COPY SCALE ADD TRIAD" (its Best Rate MB/s lines).
# shellcheck disable=SC2317 # called by stream_round
stream_one() {
    out="$WORK/$1.$2.out"
    export OMP_NUM_THREADS="$THREADS" OMP_PLACES=cores OMP_PROC_BIND=close # in $(stream_round R)'s subshell
    watched "$THREADS" "$WORK/$1" >"$out" 2>&1 || {
        say "$1 failed (round $2)"
        return 1
    }
    grep -q "Solution Validates" "$out" || say "$1's own check failed in round $2"
    awk '$1 == "Copy:" { c = $2 } $1 == "Scale:" { s = $2 } $1 == "Add:" { a = $2 } $1 == "Triad:" { t = $2 }
        END { if (t == "") exit 1; print c, s, a, t }' "$out"
}

# unwatched THREADS COMMAND...: runs COMMAND (stdin /dev/null) outside the quiet check.
# shellcheck disable=SC2317 # called through $w
unwatched() {
    shift
    "$@" </dev/null
}

# Both builds of STREAM: "COPY SCALE ADD TRIAD" of the huge-page one, then the plain one's.
# shellcheck disable=SC2317 # called by round_try
stream_round() {
    h=$(stream_one stream_thp "$1") && p=$(stream_one stream "$1") && echo "$h $p"
}

# A first touchstone round sets the arrays' size STREAM is built with.
first=$(ts_round 0) || exit 0
mib=$(echo "$first" | awk '{ print $5 }')
elems=$((mib * 1048576 / 8))
# STREAM's arrays are static (.bss): under THP mode madvise they get 4 KiB pages, where the
# section asks 2 MiB ones. The second build links a constructor of ours (not a change to
# stream.c) that asks huge pages for the whole .bss before main first touches it: like for like.
cat >"$WORK/thp.c" <<'EOC'
#include <stdint.h>
#include <sys/mman.h>
extern char __bss_start, _end;
__attribute__((constructor)) static void bss_huge(void)
{
    uintptr_t b = ((uintptr_t)&__bss_start + 4095) & ~(uintptr_t)4095, e = (uintptr_t)&_end & ~(uintptr_t)4095;
    if (e > b)
        madvise((void *)b, e - b, MADV_HUGEPAGE);
}
EOC
# Three arrays past 2 GiB of static data need the medium code model (STREAM's own advice).
model=
[ $((3 * elems * 8)) -ge 2147483648 ] && model=-mcmodel=medium
for v in stream stream_thp; do
    extra=
    [ "$v" = stream_thp ] && extra="$WORK/thp.c"
    # shellcheck disable=SC2086 # extra, model: one word or none
    if ! "$CC" -O3 -march=native -ffp-contract=off -fopenmp $model -DSTREAM_ARRAY_SIZE="$elems" -DNTIMES=11 "$WORK/stream.c" $extra \
        -o "$WORK/$v" 2>"$WORK/cc.err"; then
        say "cannot build STREAM: $(head -n 3 "$WORK/cc.err")"
        exit 0
    fi
done
say "STREAM from $origin, $elems elements (${mib} MiB) per array, $THREADS threads; $ROUNDS rounds"

# One try of round $round, the order swapped each round: each kernel's best rate of the section
# (ts.K), of STREAM with 2 MiB pages (thp.K) and as built (plain.K), K = 1..4 (Copy Scale Add
# Triad); a section that says it was disturbed is a disturbed try too.
# shellcheck disable=SC2317 # called by attempt
round_try() {
    t="" s=""
    if [ $((round % 2)) -eq 1 ]; then
        t=$(ts_round "$round") && s=$(stream_round "$round")
    else
        s=$(stream_round "$round") && t=$(ts_round "$round")
    fi
    if [ -z "$t" ] || [ -z "$s" ]; then
        echo "failed"
        return
    fi
    echo "$t" | awk '{ exit $6 != 1 }' && echo "the section: its own verdict DISTURBED" >>"$WORK/verdict"
    for k in 1 2 3 4; do
        measured "$WORK/ts.$k" "$(echo "$t" | cut -d' ' -f"$k")"
        measured "$WORK/thp.$k" "$(echo "$s" | cut -d' ' -f"$k")"
        measured "$WORK/plain.$k" "$(echo "$s" | cut -d' ' -f"$((k + 4))")"
    done
    echo "touchstone $(echo "$t" | cut -d' ' -f1-4) | STREAM (2 MiB pages) $(echo "$s" | cut -d' ' -f1-4) | STREAM as built $(echo "$s" | cut -d' ' -f5-8)"
}

LOAD_START=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
round=1
while [ "$round" -le "$ROUNDS" ]; do
    quiet_before
    attempt stream "STREAM's kernels" round_try
    round=$((round + 1))
done

MIN_QUIET=$((ROUNDS < 3 ? ROUNDS : 3))
stats() {
    s=$(kept "$1" | spread)
    [ -n "$s" ] || { echo "n/a"; return; }
    echo "$s" | awk '{ printf "%.0f (%.0f-%.0f)", $1, $2, $3 }'
}
host=$(hostname)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "touchstone peer_stream, $(date -u +%Y-%m-%d), $host ($cpu): STREAM from $origin, $THREADS threads, ${mib} MiB per array," \
    "$ROUNDS rounds, load average ${LOAD_START:-?} at the start, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?) after"
echo "THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null): touchstone asks 2 MiB pages; STREAM as built takes what the mode gives its static arrays, STREAM 2 MiB pages asks them for its .bss"
echo
echo "| kernel | touchstone MB/s median (min-max) | STREAM 2 MiB pages MB/s | ratio (min-max over rounds) | goal | STREAM as built MB/s | ratio (min-max) | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
k=1
for name in Copy Scale Add Triad; do
    echo "| $name | $(stats "$WORK/ts.$k") | $(stats "$WORK/thp.$k") | $(ratio_text "$WORK/ts.$k" "$WORK/thp.$k") |" \
        "$(target_text "$WORK/ts.$k" "$WORK/thp.$k" 0.95 "$MIN_QUIET") | $(stats "$WORK/plain.$k") |" \
        "$(ratio_text "$WORK/ts.$k" "$WORK/plain.$k") | $(quiet_count stream "$MIN_QUIET") |"
    k=$((k + 1))
done
echo
quiet_summary
echo
exit 0

#!/bin/sh
# bench/peer_latency.sh: the survey's loaded_latency and c2c sections against plain programs,
# measured side by side in interleaved rounds (issue 26 item 4).
#
#   - the loaded-latency curve's idle point (topo/ts_loaded_latency.c: the chase of
#     kernels/ts_chase.h on the node's first core, memory on that node, 4 KiB pages) against
#     bench/plain_chase.c (i = next[i], one index a line) on the same CPU, the same buffer size
#     (CHASE_MB, 10^6 bytes) and pages, CHASE_STEPS steps a repetition, 5 repetitions: the
#     median ns a step;
#   - the core-to-core engine on one pair (topo/ts_c2c.c with kernels/ts_pingpong.h: CPU_A
#     initiates, CPU_B answers) against bench/plain_pingpong.c on the same two CPUs, SAMPLES
#     samples of ROUNDS_PP round trips each: the median one-way ns.
#
# The ratio is the peer's latency over the section's (>= 0.95: touchstone is no slower), the
# median of the per-round ratios with their range. Every measurement runs under bench_watch and
# is judged by the rule a run judges itself by (bench/quiet.sh); a disturbed pair is tried again
# (REPEATS_MAX, 3) and left out, unless QUIET_CHECK=0. A benchmark, not a test: it exits 0.
#
# Environment: ROUNDS (7), CHASE_MB (64: the sections' floor, 8x the LLC when hwloc knows it),
# CHASE_STEPS (2^20), NODE (0), CPU_A, CPU_B (the first two CPUs allowed), ROUNDS_PP (1000),
# SAMPLES (31), BUILD (build/), QUIET_CHECK (1), REPEATS_MAX (3), QUIET_WAIT (30).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "bench: $*" >&2; }
# shellcheck source=bench/quiet.sh
. "$ROOT/bench/quiet.sh"

ROUNDS=${ROUNDS:-7}
CHASE_MB=${CHASE_MB:-64}
CHASE_STEPS=${CHASE_STEPS:-1048576}
NODE=${NODE:-0}
ROUNDS_PP=${ROUNDS_PP:-1000}
SAMPLES=${SAMPLES:-31}
BUILD=${BUILD:-$ROOT/build}
cpus=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
first=$(echo "$cpus" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); a = r[1]; b = n > 1 ? r[2] : r[1]
    for (c = a; c <= b && k < 2; c++) { printf "%s ", c; k++ } } }')
CPU_A=${CPU_A:-$(echo "$first" | awk '{ print $1 }')}
CPU_B=${CPU_B:-$(echo "$first" | awk '{ print $2 }')}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-peer-latency.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null || say "cmake configure failed"
fi
cmake --build "$BUILD" --target bench_latency_peers bench_plain_chase bench_plain_pingpong bench_watch -j "$(nproc)" \
    >/dev/null 2>&1 || say "build failed"
PEERS=$BUILD/tests/bench/bench_latency_peers # the sections' engines (tests/bench/latency_peers.c)
PLAIN_CHASE=$BUILD/bench/bench_plain_chase
PLAIN_PP=$BUILD/bench/bench_plain_pingpong
WATCH=$BUILD/bench/bench_watch
[ -x "$PEERS" ] || { say "no $PEERS: nothing to measure"; exit 0; }

quiet_setup "$ROOT"

LOAD_START=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
BYTES=$((CHASE_MB * 1000000))

# One try of the idle chase: the section's engine, then the plain chase on the engine's CPU.
chase_pair() {
    out=$(watched 1 "$PEERS" idle "$BYTES" "$CHASE_STEPS" 5 "$NODE" 2>/dev/null)
    engine=$(echo "$out" | awk '/^latency/ { print $2 }')
    cpu=$(echo "$out" | awk '/^latency/ { print $5 }')
    measured "$WORK/chase.ts" "$engine"
    plain=""
    if [ -n "$cpu" ]; then
        plain=$(watched 1 "$PLAIN_CHASE" "$BYTES" "$CHASE_STEPS" 5 "$cpu" 2>/dev/null | awk '/^latency/ { print $2 }')
        measured "$WORK/chase.plain" "$plain"
        echo "$cpu" >"$WORK/chase.cpu"
    fi
    echo "section ${engine:-failed} ns, plain chase ${plain:-failed} ns"
}

# One try of the ping-pong: the plain one first this time, then the section's engine.
pingpong_pair() {
    plain=$(watched 2 "$PLAIN_PP" "$CPU_A" "$CPU_B" "$ROUNDS_PP" "$SAMPLES" 2>/dev/null | awk '/^pingpong/ { print $2 }')
    measured "$WORK/pp.plain" "$plain"
    engine=$(watched 2 "$PEERS" c2c "$CPU_A" "$CPU_B" "$ROUNDS_PP" "$SAMPLES" 2>/dev/null | awk '/^pingpong/ { print $2 }')
    measured "$WORK/pp.ts" "$engine"
    echo "section ${engine:-failed} ns, plain ping-pong ${plain:-failed} ns"
}

round=1
while [ "$round" -le "$ROUNDS" ]; do
    quiet_before
    attempt chase "idle chase" chase_pair
    [ -n "$CPU_B" ] && attempt pp "ping-pong" pingpong_pair
    round=$((round + 1))
done

MIN_QUIET=$((ROUNDS < 3 ? ROUNDS : 3))
stats() {
    s=$(kept "$1" | spread)
    [ -n "$s" ] || { echo "n/a"; return; }
    echo "$s" | awk '{ printf "%.2f (%.2f-%.2f)", $1, $2, $3 }'
}
echo "touchstone peer_latency, $(date -u +%Y-%m-%d), $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $ROUNDS rounds," \
    "load average ${LOAD_START:-?} at the start, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?) after"
echo
echo "| row | peer ns median (min-max) | section ns median (min-max) | ratio peer/section (min-max over rounds) | target | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| idle chase, $CHASE_MB MB, 4 KiB pages, node $NODE, CPU $(cat "$WORK/chase.cpu" 2>/dev/null || echo ?): bench/plain_chase.c against loaded_latency's idle point |" \
    "$(stats "$WORK/chase.plain") | $(stats "$WORK/chase.ts") | $(ratio_text "$WORK/chase.plain" "$WORK/chase.ts") |" \
    "$(target_text "$WORK/chase.plain" "$WORK/chase.ts" 0.95 "$MIN_QUIET") | $(quiet_count chase "$MIN_QUIET") |"
if [ -n "$CPU_B" ]; then
    echo "| ping-pong CPUs $CPU_A-$CPU_B, $SAMPLES x $ROUNDS_PP round trips: bench/plain_pingpong.c against c2c's pair |" \
        "$(stats "$WORK/pp.plain") | $(stats "$WORK/pp.ts") | $(ratio_text "$WORK/pp.plain" "$WORK/pp.ts") |" \
        "$(target_text "$WORK/pp.plain" "$WORK/pp.ts" 0.95 "$MIN_QUIET") | $(quiet_count pp "$MIN_QUIET") |"
else
    echo "| ping-pong | one CPU allowed: no pair | n/a | n/a | 0.95 | n/a |"
fi
echo
quiet_summary
echo
exit 0

#!/bin/sh
# bench/run.sh at a tiny size: it runs, exits 0 and prints its table, one row per kernel, and
# says so when likwid-bench cannot run. Never a timing threshold: the numbers are not checked,
# and the quiet check is off (QUIET_CHECK=0: every try judged and counted, kept, none repeated),
# so that a loaded machine neither fails the test nor makes it longer; tests/bench/test_quiet.sh
# holds the check's logic to fixed numbers.
BUILD=${1:?build directory}
SRC=${2:?source directory}
OUT=$(mktemp)
ERR=$(mktemp)
trap 'rm -f "$OUT" "$ERR"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

QUIET_CHECK=0 ROUNDS=1 GB_PER_RUN=1 OVERHEAD_RUNS=1 BUILD="$BUILD" sh "$SRC/bench/run.sh" 4 >"$OUT" 2>"$ERR"
status=$?
[ "$status" -eq 0 ] || fail "bench/run.sh exited $status, expected 0 always"
grep -q '^| kernel | likwid test | likwid GB/s median (min-max) | touchstone GB/s median (min-max) | ratio (min-max over rounds) | target | quiet rounds |$' "$OUT" \
    || fail "no table header"
# The quiet check judged every try (the rule of a run's summary) and says so in the heading and at the end.
grep -q '^machine: quiet check off (QUIET_CHECK=0): [0-9]* tries of [0-9]* pairs, [0-9]* of them disturbed' "$OUT" \
    || fail "no machine line with the quiet check's count in the heading"
grep -q '^machine, the whole bench: quiet check off (QUIET_CHECK=0): ' "$OUT" || fail "no machine line for the whole bench"
# Whatever the load, every try could be judged: touchstone show gave each run's verdict, and
# bench_watch its facts for every other command ("not known" would mean it could not).
! grep -q 'not known' "$ERR" || fail "a try the quiet check could not judge: $(grep -m1 -o 'not known[^;)]*' "$ERR")"
# likwid-bench's arrays on 2 MiB pages, as touchstone's (bench/likwid_pages.sh's shim built and used).
if grep -q 'rounds; likwid-bench likwid-bench' "$ERR"; then
    grep -q 'likwid-bench likwid-bench, its arrays asked 2 MiB pages too (LIKWID_HUGE=1)$' "$ERR" \
        || fail "likwid-bench ran without the huge-page shim: $(grep -m1 'its arrays' "$ERR")"
fi
# Every row gives its ratio with the spread over rounds, and its tries.
awk -F'|' '/^\| kernel \| likwid test/ { on = 1; next } /^$/ { on = 0 } on && /^\| (sum|triad|stencil)/ && ($6 !~ /^ [0-9.]+ \([0-9.]+-[0-9.]+\) $/ || $8 !~ /^ [0-9]+ of 1 tries quiet \(check off: all kept\) $/) { bad = 1 }
    END { exit bad }' "$OUT" || fail "a row without its ratio's spread or its tries"
for row in 'sum (reproducible)' 'sum (fast)' 'sum, one accumulator' 'triad' 'triad, streaming stores' \
    'stencil2d' 'stencil3d' 'stencil2d, time_block' 'stencil3d, time_block' \
    "sum (reproducible), [0-9]* MB in LLC, threads' own time | sum[^|]* | [^|]* | [^|]* | [^|]* | 0.70 " \
    "sum (fast), [0-9]* MB in LLC, threads' own time | sum[^|]* | [^|]* | [^|]* | [^|]* | 0.90 "; do
    grep -q "^| $row" "$OUT" || fail "no row for $row"
done
# The grid as a cube (issue 25's shape) has its row.
grep -q '^| stencil3d [0-9]*x[0-9]*x[0-9]*, a cube' "$OUT" || fail "no stencil3d row for the cube"
# Planes twice the L2 are y-blocked, and the row says how many rows per block the run chose.
grep -q '^| stencil3d [0-9]*x[0-9]*x[0-9]*, large planes, y-blocked: [0-9]* rows per block |' "$OUT" \
    || fail "no large-plane stencil3d row naming its y-block"
# Every touchstone measurement ran: its column has a number in every row.
awk -F'|' '/^\| (sum|triad|stencil)/ && $5 !~ /[0-9]/ { bad = 1 } END { exit bad }' "$OUT" \
    || fail "a touchstone measurement is missing (n/a in the touchstone column)"
# Temporal blocking against the grid in cache (issue 25, item 2): a row for each block depth,
# the time-blocked run and the plain sweep in the L2 both measured, their ratio with its spread
# and a verdict on the 0.8.
awk -F'|' '/^\| kernel \| time-blocked GB\/s/ { on = 1; next } /^$/ { on = 0 }
    on && /^\| stencil3d [0-9]*x[0-9]*x[0-9]*, time_block [0-9]/ { n++
        if ($3 !~ /[0-9]/ || $4 !~ /[0-9]/ || $5 !~ /^ [0-9.]+ \([0-9.]+-[0-9.]+\) $/ || $6 !~ /^ 0\.80 (met|NOT met|unclear) $/) bad = 1 }
    END { exit bad || n != 2 }' "$OUT" || fail "no pair of in-cache rows with both sides, the ratio's spread and a verdict"
grep -q '^overhead: ' "$OUT" || fail "no overhead line for the default run"
# Ranks against threads (issue 14): a row per kernel, both sides measured (the ratio column,
# checked above), the two sides' results compared; the default run under mpirun -np 1.
for row in 'stencil2d' 'stencil3d' 'sum (reproducible)'; do
    grep -q "^| ${row}[^|]*, [0-9]* ranks x 1 thread | .* | the same bits in [0-9]* of [0-9]* pairs" "$OUT" \
        || fail "no ranks-against-threads row for $row with the same result on ranks as on threads"
done
grep -q '^under mpirun .*overhead ' "$OUT" || fail "no overhead line for the default run under mpirun"
# Across ranks (issue 24): the halo exchange overlapped or not, both measured with their halo shares.
for row in 'stencil2d' 'stencil3d'; do
    awk -F'|' -v r="$row" 'index($2, " " r " ") == 1 && NF == 9 && $3 ~ /[0-9]/ && $4 ~ /[0-9]/ && $5 ~ /[0-9]/ && $6 ~ /[0-9]/ \
        { found = 1 } END { exit !found }' "$OUT" || fail "no halo overlap row for $row with both sides and their halo shares"
done
# Time blocks across ranks (issue 24): time_block k against 1 on one rank and on ranks, every
# side measured (halos k deep across ranks), both speed-ups and their ratio.
for row in 'stencil2d' 'stencil3d'; do
    awk -F'|' -v r="$row" 'index($2, " " r " ") == 1 && NF == 12 && $4 ~ /[0-9]/ && $5 ~ /[0-9]/ && $7 ~ /[0-9]/ \
        && $8 ~ /[0-9]/ && $10 ~ /[0-9]/ { found = 1 } END { exit !found }' "$OUT" ||
        fail "no time-block row for $row with one rank and ranks measured and the speed-ups compared"
done
# The NUMA matrix (issue 16): every cell's read and triad against likwid-bench, the engine's
# column measured; the idle latency against the plain chase, both columns measured.
for k in read triad; do
    awk -F'|' -v k="$k" '$2 ~ "^ matrix cell \\([0-9]+, [0-9]+\\) " k ", " && $5 ~ /[0-9]/ { found = 1 } END { exit !found }' "$OUT" \
        || fail "no NUMA matrix $k row with the engine's GB/s"
done
awk -F'|' '$2 ~ /plain_chase/ && $3 ~ /[0-9]/ && $4 ~ /[0-9]/ && $5 ~ /[0-9]/ { found = 1 } END { exit !found }' "$OUT" \
    || fail "no NUMA matrix latency row with both chases measured and their ratio"
# Without a usable likwid-bench the script must say why, not leave the column silently empty.
if awk -F'|' '/^\| sum \(reproducible\)/ { exit $4 ~ /n\/a/ ? 0 : 1 }' "$OUT"; then
    grep -q 'likwid-bench' "$ERR" || fail "likwid column empty but no word on likwid-bench on stderr"
fi
# bench/peer_latency.sh (issue 26: loaded_latency and c2c against the plain chase and ping-pong),
# tiny: both rows measured on both sides, each with its ratio.
QUIET_CHECK=0 ROUNDS=1 CHASE_MB=2 CHASE_STEPS=10000 ROUNDS_PP=100 SAMPLES=3 BUILD="$BUILD" \
    sh "$SRC/bench/peer_latency.sh" >>"$OUT" 2>>"$ERR" || fail "bench/peer_latency.sh exited non-zero"
awk -F'|' '$2 ~ /plain_chase.c against loaded_latency/ && $3 ~ /[0-9]/ && $4 ~ /[0-9]/ && $5 ~ /[0-9]/ { found = 1 }
    END { exit !found }' "$OUT" || fail "no peer_latency chase row with both sides and their ratio"
if [ "$(nproc)" -gt 1 ]; then
    awk -F'|' '$2 ~ /plain_pingpong.c against c2c/ && $3 ~ /[0-9]/ && $4 ~ /[0-9]/ && $5 ~ /[0-9]/ { found = 1 }
        END { exit !found }' "$OUT" || fail "no peer_latency ping-pong row with both sides and their ratio"
fi
if [ "$failures" -ne 0 ]; then
    sed 's/^/    /' "$OUT" "$ERR" >&2
    exit 1
fi
echo "bench/run.sh and bench/peer_latency.sh ran and printed their tables"

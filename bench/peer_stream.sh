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
# compiler flags of touchstone's Release build (-O3 -march=native) and -fopenmp, run with
# OMP_NUM_THREADS = the cores and OMP_PLACES=cores OMP_PROC_BIND=close (one thread per core, as
# the section binds them). STREAM's source is not in this repository: STREAM_SRC names a
# stream.c, else it is read from a snapshot of github.com/jeffhammond/STREAM (a git directory,
# STREAM_GIT); without either the script says so and exits 0. STREAM's licence (its header and
# LICENSE.txt: free to use and redistribute, results from a modified source or not run by its
# Run Rules must be labelled as such) covers this use: the figures here are a comparison, not
# STREAM results.
#
# The two sides alternate, ROUNDS (5) times, the order swapped each round; per round the ratio
# touchstone / STREAM of each kernel's best rate; the table gives each side's median and range
# and the median ratio with its range. Goal: >= 0.95. The section's own disturbed flag is shown
# per round (the survey's rule); STREAM is not watched. A benchmark, not a test: it exits 0.
#
# Environment: ROUNDS (5), BUILD (build/), LLC_MB (128), VIA_SURVEY (0), THREADS (nproc: the
# cores, on a machine without SMT), CC (cc), STREAM_SRC, STREAM_GIT
# (/work/.mirror/jeffhammond+STREAM/repo).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "peer_stream: $*" >&2; }
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
# DISTURBED 1, 0, or - when not known: the driver does not watch).
ts_round() {
    dir="$WORK/ts$1"
    if [ "$VIA_SURVEY" = 1 ]; then
        OMP_WAIT_POLICY=passive "$TS" survey --sections stream --full -o "$dir" >"$dir.out" 2>"$dir.err" || {
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
    OMP_WAIT_POLICY=passive "$SECTION" $((LLC_MB * 1048576)) full >"$dir.out" 2>"$dir.err"
    rc=$?
    [ "$rc" -eq 1 ] && say "STREAM's check failed in touchstone's section (round $1): $(grep '^note' "$dir.out")"
    [ "$rc" -le 1 ] || { say "the section failed (round $1): $(tail -n 1 "$dir.err")"; return 1; }
    awk '$1 == "row" { if ($3 > t) { t = $3; delete r } if ($3 == t) r[$2] = $4; bytes = $6 }
        END { if (!("Triad" in r)) exit 1; print r["Copy"], r["Scale"], r["Add"], r["Triad"], bytes / 1048576, "-" }' \
        "$dir.out"
}

# STREAM's side, BINARY ROUND: "COPY SCALE ADD TRIAD" (its Best Rate MB/s lines).
stream_one() {
    out="$WORK/$1.$2.out"
    OMP_NUM_THREADS=$THREADS OMP_PLACES=cores OMP_PROC_BIND=close "$WORK/$1" >"$out" 2>&1 || {
        say "$1 failed (round $2)"
        return 1
    }
    grep -q "Solution Validates" "$out" || say "$1's own check failed in round $2"
    awk '$1 == "Copy:" { c = $2 } $1 == "Scale:" { s = $2 } $1 == "Add:" { a = $2 } $1 == "Triad:" { t = $2 }
        END { if (t == "") exit 1; print c, s, a, t }' "$out"
}

# Both builds of STREAM: "COPY SCALE ADD TRIAD" of the huge-page one, then the plain one's.
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
    if ! "$CC" -O3 -march=native -fopenmp $model -DSTREAM_ARRAY_SIZE="$elems" -DNTIMES=11 "$WORK/stream.c" $extra \
        -o "$WORK/$v" 2>"$WORK/cc.err"; then
        say "cannot build STREAM: $(head -n 3 "$WORK/cc.err")"
        exit 0
    fi
done
say "STREAM from $origin, $elems elements (${mib} MiB) per array, $THREADS threads; $ROUNDS rounds"

: >"$WORK/rounds"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    ok=0
    if [ $((r % 2)) -eq 1 ]; then
        if t=$(ts_round "$r") && s=$(stream_round "$r"); then ok=1; fi
    else
        if s=$(stream_round "$r") && t=$(ts_round "$r"); then ok=1; fi
    fi
    if [ "$ok" = 1 ]; then
        echo "$r $t $s" >>"$WORK/rounds"
        say "round $r: touchstone $t | STREAM (2 MiB pages, as built) $s"
    fi
    r=$((r + 1))
done

host=$(hostname)
model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "STREAM peer: $(date -u +%Y-%m-%d) on $host ($model), $THREADS threads, ${mib} MiB per array, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null): touchstone asks 2 MiB pages; STREAM as built takes what the mode gives its static arrays, STREAM 2 MiB pages asks them for its .bss"
awk -v rounds="$ROUNDS" '
    function sort(v, n,   i, j, x) { for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j > 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x } }
    function med(v, n) { sort(v, n); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    { n++; dist += $7; watched = $7 != "-"
      for (k = 0; k < 4; k++) {
          ts[k, n] = $(2 + k); st[k, n] = $(8 + k); ratio[k, n] = $(2 + k) / $(8 + k)
          sp[k, n] = $(12 + k); rp[k, n] = $(2 + k) / $(12 + k) } }
    END {
        if (n == 0) { print "no round measured"; exit }
        split("Copy Scale Add Triad", name, " ")
        printf "%-6s %22s %22s %22s %22s %s\n", "kernel", "touchstone MB/s", "STREAM 2 MiB pages", "ratio (range)",
            "STREAM as built", "ratio (range)"
        for (k = 0; k < 4; k++) {
            for (i = 1; i <= n; i++) { a[i] = ts[k, i]; b[i] = st[k, i]; q[i] = ratio[k, i]; c[i] = sp[k, i]; p[i] = rp[k, i] }
            ma = med(a, n); amin = a[1]; amax = a[n]
            mb = med(b, n); mq = med(q, n); qmin = q[1]; qmax = q[n]
            mc = med(c, n); mp = med(p, n); pmin = p[1]; pmax = p[n]
            goal = (qmin >= 0.95) ? "goal 0.95 met (2 MiB pages)" : (mq >= 0.95) ? "goal 0.95: median met" : "goal 0.95 not met"
            printf "%-6s %8.0f (%5.0f-%5.0f) %8.0f %13s %6.3f (%.3f-%.3f) %8.0f %13s %6.3f (%.3f-%.3f) %s\n", name[k + 1], ma,
                amin, amax, mb, "", mq, qmin, qmax, mc, "", mp, pmin, pmax, goal
        }
        printf "%d rounds of %d measured; touchstone'"'"'s section disturbed in %s\n", n, rounds, watched ? dist : "(not watched)"
    }' "$WORK/rounds"
exit 0

#!/bin/sh
# bench/run.sh [SIZE_MB]: touchstone's kernels against the machine, measured side by side.
#
# For each kernel, likwid-bench (hand-written AVX-512/AVX kernels) and touchstone run on the
# same working set (SIZE_MB megabytes, 10^6 bytes, over all arrays) and thread count,
# alternately, ROUNDS times; one table then gives each side's GB/s (median, min-max) and the
# median of the per-round ratios with their range. A benchmark, not a test: it always exits 0.
#
# It measures a quiet node or says it could not (bench/quiet.sh, bench/README.md "A quiet
# node"): every measurement is judged by the rule a run judges itself by, touchstone's by its
# file, the others' by bench_watch; a disturbed pair is tried again (REPEATS_MAX, 3) and left
# out of every median; a target is "unclear" when the ratio's range over the kept rounds is
# wider than its gap to the goal. QUIET_CHECK=0 keeps every try; QUIET_WAIT (30 s) bounds the
# wait for a quiet second before each round.
#
# Bytes are counted the same way on both sides. likwid-bench counts the streams it names and
# never a write-allocate: sum 8 B/element, stream 24 B (read b, c, write a), copy 16 B (read,
# write), the *_mem variants the same with streaming stores. touchstone's sum and triad use
# those very models. A stencil update moves what a copy element moves (read u, write u', and
# the write-allocate read of u' that touchstone's 24 B/update includes), so its reference is
# likwid's copy GB/s times 24/16: the 24 B/update roofline. With streaming stores the
# stencils count 16 B/update against copy_mem, whose 16 B are then all the traffic. Each side's
# GB/s is its mean over the timed iterations (likwid-bench reports no other); the in-LLC sum
# rows named "threads' own time" take touchstone's over its slowest thread's own time, as
# likwid-bench times its threads (no barrier per sweep; bench/README.md). Both sides' arrays
# are on 2 MiB pages: touchstone asks them, and likwid-bench runs with a preloaded shim that asks
# them for its arrays (bench/likwid_pages.sh; LIKWID_HUGE=0 leaves it out).
#
# Environment: ROUNDS (5), THREADS (every CPU), LLC_MB (the last-level cache in MB: sysfs's
# L3 size when it is plausible, see bench/README.md; cpuid in VMs can claim anything),
# TIME_BLOCK (8, stencil2d's temporal blocking), TIME_BLOCK_3D (4, stencil3d's), GB_PER_RUN
# (20: the data each measurement moves, which sets its iterations), OVERHEAD_RUNS (5), BUILD
# (build/), LIKWID_HUGE (1), CC (cc: builds the shim), ONLY. Rows marked "report" have no
# target in issue 6, only the ratio. The default SIZE_MB, 20 x LLC_MB, makes each stencil grid
# 10x the LLC. stencil3d's planes are sized from
# the L2 so that its wavefront, 2(TIME_BLOCK_3D + 2) planes, fits in 3/4 of it; the "a cube"
# row is the same grid as a cube; the "large planes" row has planes twice the L2, where the
# layer condition needs stencil3d's y-blocks.
#
# Temporal blocking against the grid in cache (issue 25, item 2): the cube at TIME_BLOCK_3D and
# at 8 steps a block against the plain sweep (time_block = 1) of the same rows on a grid whose
# two copies fit half the L2, alternately; a table gives both sides and the per-round ratio,
# held to 0.8 as the other targets are.
#
# Ranks against threads (issue 14): stencil2d, stencil3d (the grids above) and sum run on
# THREADS ranks of 1 thread each (mpirun --map-by core --bind-to core: a core each) and on 1
# rank of THREADS threads (mpirun --bind-to none, the config's OpenMP binding), alternately;
# a second table gives both sides' GB/s (from /timings/kernel, under ranks the job's: the sum of
# each iteration's slowest rank), the median per-round ratio (ranks over threads) and
# whether the two sides' results (/results/global) were the same bits in every round. The
# overhead runs of a default run alternate between no launcher (MPI linked, never started:
# the single-node program) and mpirun -np 1 --bind-to none (the launcher, MPI_Init, the
# gathers to rank 0); no build without MPI exists to compare against. MPIRUN names the
# launcher (mpirun on the PATH); without one that runs, those rows say n/a.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "bench: $*" >&2; }
# shellcheck source=bench/quiet.sh
. "$ROOT/bench/quiet.sh"
# shellcheck source=bench/likwid_pages.sh
. "$ROOT/bench/likwid_pages.sh"

# A cache's size in bytes from sysfs (index3 = L3, index2 = L2), or nothing.
cache_bytes() {
    awk '/K$/ { sub(/K$/, ""); print $1 * 1024; exit } /M$/ { sub(/M$/, ""); print $1 * 1048576; exit }' \
        "/sys/devices/system/cpu/cpu0/cache/index$1/size" 2>/dev/null
}
if [ -z "${LLC_MB:-}" ]; then
    llc=$(cache_bytes 3)
    LLC_MB=$(awk -v b="${llc:-0}" 'BEGIN { print int(b / 1e6 + 0.5) }')
    # The Zen 5 VM's cpuid claimed 508 MiB of L3 per core, where one CCD has 32 MiB (measured).
    if [ "$LLC_MB" -lt 1 ] || [ "$LLC_MB" -gt 512 ]; then
        say "sysfs gives no plausible L3 size (${LLC_MB} MB): assuming 32 MB; set LLC_MB to the measured one"
        LLC_MB=32
    fi
fi
L2_BYTES=$(cache_bytes 2)
L2_BYTES=${L2_BYTES:-1048576}
SIZE_MB=${1:-$((20 * LLC_MB))}
ROUNDS=${ROUNDS:-5}
ONLY=${ONLY:-*} # a shell pattern: measure only the rows whose name matches ("stencil2d*")
THREADS=${THREADS:-$(nproc)}
TIME_BLOCK=${TIME_BLOCK:-8}
TIME_BLOCK_3D=${TIME_BLOCK_3D:-4}
BUILD=${BUILD:-$ROOT/build}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

# --- tools: likwid (through the project's set-up script), touchstone, the baseline ---------
"$ROOT/scripts/setup-deps.sh" --bench >&2 || say "could not install the bench packages (see above)"
if [ ! -x "$BUILD/app/touchstone" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null || say "cmake configure failed"
fi
cmake --build "$BUILD" --target touchstone bench_baseline bench_plain_chase bench_numa_cells bench_wall bench_watch -j "$(nproc)" >/dev/null 2>&1 \
    || say "build failed"
TS=$BUILD/app/touchstone
BASELINE=$BUILD/bench/bench_baseline
CELLS=$BUILD/tests/bench/bench_numa_cells # the NUMA matrix engine (tests/bench/numa_cells.c)
PLAIN_CHASE=$BUILD/bench/bench_plain_chase
WALL=$BUILD/bench/bench_wall # seconds from fork to wait (bench/wall.c)
WATCH=$BUILD/bench/bench_watch # what else the machine did around a command (bench/watch.c)
[ -x "$TS" ] || { say "no touchstone binary in $BUILD; nothing to measure"; exit 0; }

# --- the quiet check (bench/quiet.sh, bench/README.md "A quiet node") -------------------------
# Every measurement is judged by the rule a run judges itself by; a pair (or group) of the round
# with a disturbed measurement is tried again, at most REPEATS_MAX more times, and a disturbed
# try never enters a median. QUIET_CHECK=0 judges and counts but keeps every try and repeats
# none (for tests at tiny sizes on a loaded machine). Before each round the script waits up to
# QUIET_WAIT seconds for a second in which other processes leave the CPUs alone.
quiet_setup "$ROOT"

# ts_judged FILE: notes in the try's verdict when the run of FILE says it was disturbed.
ts_judged() {
    t_why=$("$TS" show --format json "$1" 2>/dev/null | quiet_json_judge) || echo "touchstone: $t_why" >>"$WORK/verdict"
}


# mpirun for the rank rows. touchstone takes itself for launched when one of these variables
# is set (docs/more-than-one-node.md): unset, so that the runs without mpirun stay single-node
# even when this script itself runs in a job step. Open MPI refuses root without the other two.
unset OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=${MPIRUN:-$(command -v mpirun)}
if [ -z "$MPIRUN" ]; then
    say "no mpirun on the PATH (set MPIRUN): the rank rows and the launched overhead say n/a"
elif ! why=$("$MPIRUN" --bind-to none -np 1 true </dev/null 2>&1); then
    say "$MPIRUN cannot start a process here ($(echo "$why" | head -n 2 | tr '\n' ' ')): the rank rows say n/a"
    MPIRUN=""
fi

# The widest likwid kernels this CPU runs.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
case " $flags " in
*" avx512f "*) W=avx512; FMA=avx512_fma ;;
*" avx "*) W=avx; FMA=avx_fma ;;
*) W=""; FMA="" ;;
esac
lw() { [ -n "$W" ] && echo "${1}_$W" || echo "$1"; }
LIKWID=""
if ! command -v likwid-bench >/dev/null 2>&1; then
    say "likwid-bench is not installed: measuring touchstone and the baseline only"
elif ! why=$(likwid-bench -t "$(lw sum)" -w S0:1MB:1 -i 2 2>&1 >/dev/null) \
    || ! likwid-bench -t "$(lw sum)" -w S0:1MB:1 -i 2 2>/dev/null | grep -q 'MByte/s'; then
    say "likwid-bench cannot run here ($(echo "$why" | head -n 2 | tr '\n' ' ')): measuring touchstone and the baseline only"
else
    LIKWID=likwid-bench
fi
# likwid-bench's arrays on 2 MiB pages, as touchstone's buffers (bench/likwid_pages.sh).
LIKWID_SHIM="" LIKWID_PAGES="not run"
[ -z "$LIKWID" ] || likwid_pages_shim "$WORK" "${CC:-cc}"

# --- sizes ---------------------------------------------------------------------------------
BYTES=$((SIZE_MB * 1000000))
CACHED_MB=$((LLC_MB / 4)) # fits in the LLC with room to spare: where latency, not memory, binds
GB_PER_RUN=${GB_PER_RUN:-20}
iterations() { awk -v mb="$1" -v gb="$GB_PER_RUN" 'BEGIN { n = int(gb * 1000 / mb); print (n < 10 ? 10 : (n > 5000 ? 5000 : n)) }'; }
root() { awk -v n="$1" -v k="$2" -v cap="$3" 'BEGIN { r = int(n ^ (1 / k) + 1e-9); r = r > cap ? cap : r; print (r < 3 ? 3 : r) }'; }
per_grid=$((BYTES / 16)) # points per grid: two grids of doubles
nx2=$(root "$per_grid" 2 4096)
ny2=$((per_grid / nx2)); [ "$ny2" -lt 3 ] && ny2=3
# The wavefront keeps 2(TIME_BLOCK_3D + 2) planes per thread: they must fit in 3/4 of the L2.
plane_cap=$(awk -v l2="$L2_BYTES" -v k="$TIME_BLOCK_3D" 'BEGIN { n = int(sqrt(0.75 * l2 / (2 * (k + 2)) / 8) / 8) * 8; print (n > 128 ? 128 : (n < 8 ? 8 : n)) }')
nx3=$(root "$per_grid" 3 "$plane_cap")
nz3=$((per_grid / nx3 / nx3)); [ "$nz3" -lt 3 ] && nz3=3
# Large planes, twice the L2 each (a multiple of 64 points wide): three of them do not fit, so
# only stencil3d's y-blocks keep the layer condition; the rows per block are read from its file.
# A cube, the issue-25 shape (400^3 there): planes as large as the grid makes them, y-blocked
# where three do not fit the plan's cache.
nxc=$(root "$per_grid" 3 4096)
nzc=$((per_grid / nxc / nxc)); [ "$nzc" -lt 3 ] && nzc=3
nxb=$(awk -v l2="$L2_BYTES" 'BEGIN { n = sqrt(2 * l2 / 8); n = int((n + 63) / 64) * 64; print n }')
# The plain sweep's grid in cache (issue 25, item 2's yardstick): the cube's rows, 24 a plane
# (a plane then is a whole number of cache lines, so the sweep takes three planes a pass where
# the CPU has them: the faster code in cache), and as many planes a thread as keep its share of
# both grids within half its core's L2 (at least 3); the iterations move GB_PER_RUN by the
# 24 B/update model, as the other rows.
cache_ny=24
cache_planes=$(awk -v l2="$L2_BYTES" -v nx="$nxc" -v ny="$cache_ny" 'BEGIN { p = int(l2 / 2 / (2 * 8 * nx * ny)); print (p < 3 ? 3 : p) }')
cache_nz=$((THREADS * cache_planes + 2))
cache_iters=$(awk -v gb="$GB_PER_RUN" -v u="$(((nxc - 2) * (cache_ny - 2) * (cache_nz - 2)))" 'BEGIN { n = int(gb * 1e9 / (24 * u)); print (n < 10 ? 10 : n) }')
nzb=$((per_grid / nxb / nxb)); [ "$nzb" -lt 3 ] && nzb=3

# --- measurements: each prints one GB/s figure, or nothing when it failed ------------------
likwid_gbs() { # TEST SIZE_MB SCALE
    [ -n "$LIKWID" ] || return 0
    likwid_paged watched "$THREADS" likwid-bench -t "$1" -w "S0:${2}MB:$THREADS" -i "$ITERS" 2>/dev/null \
        | awk -v s="$3" '/^MByte\/s:/ { printf "%.4f\n", $2 * s / 1000 }'
}

# h5 FILE -d|-a PATH: the sum of the numbers in that dataset or attribute (of any rank: h5dump's
# "(i,j):" positions are not numbers).
h5() {
    h5dump -m %.17g "$2" "$3" "$1" 2>/dev/null | awk '/DATA \{/ { on = 1; next } on && /\}/ { exit }
        on { gsub(/\([0-9,]+\):/, " "); gsub(/,/, " "); for (i = 1; i <= NF; i++) s += $i } END { printf "%.17g\n", s }'
}

# LAUNCH (a launcher's command line, word-split; none by default) and RUN_THREADS (THREADS)
# say how it starts; the run's /results/global goes to $WORK/result, its digits exact.
# shellcheck disable=SC2317 # the measurements are called through the rows' command column
# The mean is the file's: the whole problem's units per iteration, times the timed iterations it
# did, over /timings/kernel, which across ranks is the job's (each iteration's slowest rank,
# summed; docs/hdf5-schema.md), never rank 0's own.
touchstone_gbs() { # CONFIG ARGS...: the mean GB/s over the timed iterations, by the kernel's byte model
    config=$1
    shift
    rm -f "$WORK/run.h5" "$WORK/result" # the last row's: touchstone never replaces an existing file by itself
    # mpirun hands its standard input to rank 0: keep it off the rows' pipe.
    # shellcheck disable=SC2086
    if ! ${LAUNCH:-} "$TS" run "$ROOT/configs/$config" --threads "${RUN_THREADS:-$THREADS}" --set run.iterations="$ITERS" \
        --set placement.audit=false -o "$WORK/run.h5" -q "$@" </dev/null >"$WORK/ts.out" 2>&1; then
        say "touchstone ${LAUNCH:+$LAUNCH }$config $* failed: $(tail -n 1 "$WORK/ts.out")"
        return 0
    fi
    # %.17g prints a double's every bit; the digits are compared as text, never as numbers.
    ts_judged "$WORK/run.h5"
    h5dump -m %.17g -d /results/global "$WORK/run.h5" 2>/dev/null | awk '/\(0\):/ { print $2; exit }' >"$WORK/result"
    units=$(h5 "$WORK/run.h5" -a /results/units_per_iteration)
    bytes=$(h5 "$WORK/run.h5" -a /results/bytes_per_unit)
    seconds=$(h5 "$WORK/run.h5" -d /timings/kernel)
    # TIMED=threads: the slowest thread's own time instead (below).
    [ "${TIMED:-}" != threads ] || seconds=$(h5_slowest_row "$WORK/run.h5" /timings/thread_iteration)
    timed=$(h5 "$WORK/run.h5" -a /timings/n_iterations)
    if ! awk -v u="$units" -v b="$bytes" -v s="$seconds" -v n="$timed" 'BEGIN { exit !(u > 0 && b > 0 && s > 0 && n > 0) }'; then
        say "touchstone $config $*: cannot read its timings with h5dump (units '$units', bytes '$bytes', seconds '$seconds', iterations '$timed')"
        return 0
    fi
    # The rows per spatial block it chose, for the table's row name ($i: the row being measured).
    h5 "$WORK/run.h5" -a /results/block_y >"$WORK/$i.block"
    awk -v u="$units" -v b="$bytes" -v s="$seconds" -v n="$timed" 'BEGIN { printf "%.4f\n", u * b * n / s * 1e-9 }'
}

# h5_slowest_row FILE DATASET: the largest sum of a row of a 2D dataset (h5dump starts each
# line with the position "(row,column):" of its first number).
h5_slowest_row() {
    h5dump -m %.17g -d "$2" "$1" 2>/dev/null | awk '/DATA \{/ { on = 1; next } on && /\}/ { exit }
        on { if ($1 ~ /^\(/) { r = $1; sub(/^\(/, "", r); sub(/,.*/, "", r); sub(/^ *\([0-9,]+\): */, "") }
             gsub(/,/, " "); for (i = 1; i <= NF; i++) s[r] += $i }
        END { m = 0; for (r in s) if (s[r] > m) m = s[r]; printf "%.17g\n", m }'
}

# touchstone_own_gbs CONFIG ARGS...: as touchstone_gbs, over the slowest thread's own time
# (/timings/thread_iteration summed), as likwid-bench times its threads: each runs its sweeps
# without waiting for the others, where touchstone's iteration ends at a barrier. In the LLC a
# sweep takes ~100 us, and a barrier per sweep (two threads meeting, on a loaded machine
# one waiting for the other's preemption) weighs on the barrier-to-barrier mean, not on the
# sum's own speed.
# shellcheck disable=SC2317
touchstone_own_gbs() {
    TIMED=threads
    touchstone_gbs "$@"
    TIMED=""
}

# shellcheck disable=SC2317
baseline_gbs() { # SIZE_MB
    [ -x "$BASELINE" ] || return 0
    OMP_NUM_THREADS=$THREADS OMP_PLACES=cores OMP_PROC_BIND=close watched "$THREADS" "$BASELINE" $(($1 * 125000)) "$ITERS" 2>/dev/null \
        | awk '/^GB\/s/ { print $2 }'
}

# --- the rows: name | likwid test | its scale | target ratio | touchstone measurement -------
NT_GRID="--set stencil.nontemporal=true"
rows() {
    cat <<EOF
sum (reproducible)|$(lw sum)|1|0.90|touchstone_gbs sum.ini --set sum.n=$((BYTES / 8))
sum (fast)|$(lw sum)|1|0.97|touchstone_gbs sum.ini --set sum.n=$((BYTES / 8)) --set sum.mode=fast
sum, one accumulator (bench/baseline.c)|$(lw sum)|1|-|baseline_gbs $SIZE_MB
sum (reproducible), ${CACHED_MB} MB in LLC|$(lw sum)|1|-|touchstone_gbs sum.ini --set sum.n=$((CACHED_MB * 125000))
sum (reproducible), ${CACHED_MB} MB in LLC, threads' own time|$(lw sum)|1|0.70|touchstone_own_gbs sum.ini --set sum.n=$((CACHED_MB * 125000))
sum (fast), ${CACHED_MB} MB in LLC, threads' own time|$(lw sum)|1|0.90|touchstone_own_gbs sum.ini --set sum.n=$((CACHED_MB * 125000)) --set sum.mode=fast
sum, one accumulator, ${CACHED_MB} MB in LLC|$(lw sum)|1|-|baseline_gbs $CACHED_MB
triad|$(lw stream)${FMA:+_fma}|1|0.97|touchstone_gbs triad.ini --set triad.n=$((BYTES / 24))
triad, streaming stores|$(lw stream_mem)|1|-|touchstone_gbs triad.ini --set triad.n=$((BYTES / 24)) --set triad.nontemporal=true
stencil2d ${nx2}x${ny2}|$(lw copy)|1.5|0.90|touchstone_gbs stencil2d.ini --set stencil.nx=$nx2 --set stencil.ny=$ny2
stencil2d, streaming stores|$(lw copy_mem)|1|report|touchstone_gbs stencil2d.ini --set stencil.nx=$nx2 --set stencil.ny=$ny2 $NT_GRID
stencil3d ${nx3}x${nx3}x${nz3}|$(lw copy)|1.5|0.90|touchstone_gbs stencil3d.ini --set stencil.nx=$nx3 --set stencil.ny=$nx3 --set stencil.nz=$nz3
stencil3d, streaming stores|$(lw copy_mem)|1|report|touchstone_gbs stencil3d.ini --set stencil.nx=$nx3 --set stencil.ny=$nx3 --set stencil.nz=$nz3 $NT_GRID
stencil3d ${nxc}x${nxc}x${nzc}, a cube|$(lw copy)|1.5|0.90|touchstone_gbs stencil3d.ini --set stencil.nx=$nxc --set stencil.ny=$nxc --set stencil.nz=$nzc
stencil3d ${nxb}x${nxb}x${nzb}, large planes|$(lw copy)|1.5|0.90|touchstone_gbs stencil3d.ini --set stencil.nx=$nxb --set stencil.ny=$nxb --set stencil.nz=$nzb
stencil2d, time_block $TIME_BLOCK|$(lw copy)|1.5|1.30|touchstone_gbs stencil2d.ini --set stencil.nx=$nx2 --set stencil.ny=$ny2 --set stencil.time_block=$TIME_BLOCK
stencil3d, time_block $TIME_BLOCK_3D|$(lw copy)|1.5|1.30|touchstone_gbs stencil3d.ini --set stencil.nx=$nx3 --set stencil.ny=$nx3 --set stencil.nz=$nz3 --set stencil.time_block=$TIME_BLOCK_3D
EOF
}

# --- temporal blocking against the grid in cache (issue 25, item 2) ------------------------
# name | target ratio | the time-blocked run's arguments. Each against the plain sweep
# (time_block = 1) of the same rows with the grid in the L2 (cache_nz planes of cache_ny rows,
# above): how close the blocked kernel comes to the rate the core reaches when nothing comes from
# beyond its L2. The best such rate measured on these hosts was the plain sweep's (bench/README.md).
CUBE="stencil3d.ini --set stencil.nx=$nxc --set stencil.ny=$nxc --set stencil.nz=$nzc"
cache_rows() {
    cat <<EOF
stencil3d ${nxc}x${nxc}x${nzc}, time_block $TIME_BLOCK_3D|0.80|$CUBE --set stencil.time_block=$TIME_BLOCK_3D
stencil3d ${nxc}x${nxc}x${nzc}, time_block 8|0.80|$CUBE --set stencil.time_block=8
EOF
}

# One try of in-cache row J: the time-blocked run, then the plain sweep in the L2.
cache_round() { # J ARGS...
    j=$1
    shift
    # touchstone_gbs keeps a run's rows per block in $WORK/$i.block: the tiled run's in c$j.block.
    tiled=$(i="c$j" && touchstone_gbs "$@")
    measured "$WORK/c$j.tiled" "$tiled"
    cached=$(i="c$j.l2" ITERS=$cache_iters && touchstone_gbs stencil3d.ini --set stencil.nx="$nxc" \
        --set stencil.ny="$cache_ny" --set stencil.nz="$cache_nz")
    measured "$WORK/c$j.cached" "$cached"
    echo "time-blocked ${tiled:-failed}, the plain sweep in the L2 ${cached:-failed}"
}

# --- ranks against threads: name | target ratio | touchstone's arguments ---------------------
# The same grids and array as the rows above; the ranks split the stencils along their slowest
# axis (mpi.dims = auto), where a face is contiguous, and sum into contiguous slices.
RANKS=$THREADS
ONE_RANK="--bind-to none -np 1"
MANY_RANKS="--map-by core --bind-to core -np $RANKS"
rank_rows() {
    cat <<EOF
stencil2d ${nx2}x${ny2}, $RANKS ranks x 1 thread|0.90|stencil2d.ini --set stencil.nx=$nx2 --set stencil.ny=$ny2
stencil3d ${nx3}x${nx3}x${nz3}, $RANKS ranks x 1 thread|0.90|stencil3d.ini --set stencil.nx=$nx3 --set stencil.ny=$nx3 --set stencil.nz=$nz3
sum (reproducible), $RANKS ranks x 1 thread|0.95|sum.ini --set sum.n=$((BYTES / 8))
EOF
}

# One try of rank row J: 1 rank x THREADS threads, then RANKS ranks x 1 thread. A pair is
# kept only when both ran, with both results.
ranks_round() { # J CONFIG ARGS...
    j=$1
    shift
    LAUNCH="$MPIRUN $ONE_RANK" RUN_THREADS=$THREADS
    one=$(touchstone_gbs "$@")
    one_result=$(cat "$WORK/result" 2>/dev/null)
    LAUNCH="$MPIRUN $MANY_RANKS" RUN_THREADS=1
    many=$(touchstone_gbs "$@")
    many_result=$(cat "$WORK/result" 2>/dev/null)
    LAUNCH="" RUN_THREADS=""
    if [ -n "$one" ] && [ -n "$many" ]; then
        measured "$WORK/r$j.one" "$one"
        measured "$WORK/r$j.many" "$many"
        measured "$WORK/r$j.results" "${one_result:-none} ${many_result:-none}"
    fi
    echo "1 x $THREADS: ${one:-failed}, $RANKS x 1: ${many:-failed}"
}

# --- across ranks: the halo exchange overlapped or not, time blocks (issue 24) --------------
# stencil2d and stencil3d on RANKS ranks x 1 thread, the grids above. Overlap: the interior
# computed while the faces travel (the default) against TOUCHSTONE_HALO_OVERLAP=0 (the exchange,
# then the whole sweep), alternately; each side's GB/s and halo share (the ranks' seconds in the
# exchange over their iteration seconds, /mpi). Time blocks: the row's time_block (halos that
# deep, one exchange a block) against 1, on RANKS ranks and on 1 rank of THREADS threads; the
# speed-up with ranks against the one without.
halo_rows() {
    cat <<EOF
stencil2d ${nx2}x${ny2}|$TIME_BLOCK|stencil2d.ini --set stencil.nx=$nx2 --set stencil.ny=$ny2
stencil3d ${nx3}x${nx3}x${nz3}|$TIME_BLOCK_3D|stencil3d.ini --set stencil.nx=$nx3 --set stencil.ny=$nx3 --set stencil.nz=$nz3
EOF
}

# The last run's halo share in percent: its ranks' seconds in the exchange over their iteration
# seconds, both summed over every rank and timed iteration (what the run's summary prints).
halo_share() {
    awk -v h="$(h5 "$WORK/run.h5" -d /mpi/rank_halo_iteration)" -v t="$(h5 "$WORK/run.h5" -d /mpi/rank_iteration)" \
        'BEGIN { if (t > 0) printf "%.2f\n", 100 * h / t }'
}

# measure_into FILE SHARE_FILE -- CONFIG ARGS...: one touchstone_gbs under LAUNCH, its GB/s
# appended to FILE (its halo share to SHARE_FILE unless that is empty); prints the GB/s or "failed".
measure_into() {
    file=$1 share_file=$2
    shift 3
    gbs=$(touchstone_gbs "$@")
    if [ -n "$gbs" ]; then
        measured "$file" "$gbs"
        [ -z "$share_file" ] || measured "$share_file" "$(halo_share)"
    fi
    echo "${gbs:-failed}"
}

# Tries of halo row J: overlap on and off on RANKS ranks (one pair), then time_block 1 and K
# on 1 rank and on RANKS ranks (a group of four: the speed-up with ranks against the one
# without is a ratio of ratios of one round).
halo_overlap() { # J CONFIG ARGS...
    j=$1
    shift
    RUN_THREADS=1 LAUNCH="$MPIRUN -x TOUCHSTONE_HALO_OVERLAP=1 $MANY_RANKS"
    on=$(measure_into "$WORK/h$j.on" "$WORK/h$j.on_share" -- "$@")
    LAUNCH="$MPIRUN -x TOUCHSTONE_HALO_OVERLAP=0 $MANY_RANKS"
    off=$(measure_into "$WORK/h$j.off" "$WORK/h$j.off_share" -- "$@")
    LAUNCH="" RUN_THREADS=""
    echo "overlap $on, without $off"
}
halo_blocks() { # J K CONFIG ARGS...
    j=$1 k=$2
    shift 2
    RUN_THREADS=$THREADS LAUNCH="$MPIRUN $ONE_RANK"
    one1=$(measure_into "$WORK/h$j.one1" "" -- "$@")
    onek=$(measure_into "$WORK/h$j.onek" "" -- "$@" --set stencil.time_block="$k")
    RUN_THREADS=1 LAUNCH="$MPIRUN $MANY_RANKS"
    many1=$(measure_into "$WORK/h$j.many1" "" -- "$@")
    manyk=$(measure_into "$WORK/h$j.manyk" "" -- "$@" --set stencil.time_block="$k")
    LAUNCH="" RUN_THREADS=""
    echo "time_block $k against 1: 1 x $THREADS $onek/$one1, $RANKS x 1 $manyk/$many1"
}

LOAD_START=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null) # the machine's load, for the table's heading
say "$THREADS threads, $SIZE_MB MB per kernel (LLC $LLC_MB MB, L2 $((L2_BYTES >> 10)) KiB), $ROUNDS rounds; likwid-bench ${LIKWID:-off}, its arrays $LIKWID_PAGES"
# One try of main row I: likwid-bench, then touchstone (or the baseline).
row_try() { # I TEST SIZE_MB SCALE COMMAND...
    i=$1 r_test=$2 r_mb=$3 r_scale=$4
    shift 4
    ref=$(likwid_gbs "$r_test" "$r_mb" "$r_scale")
    ts=$("$@")
    measured "$WORK/$i.ref" "$ref"
    measured "$WORK/$i.ts" "$ts"
    echo "likwid ${ref:-n/a} touchstone ${ts:-failed}"
}

round=1
while [ "$round" -le "$ROUNDS" ]; do
    quiet_before
    i=0
    rows | while IFS='|' read -r name test scale target cmd; do
        i=$((i + 1))
        # shellcheck disable=SC2254 # ONLY is a pattern on purpose
        case "$name" in $ONLY) ;; *) continue ;; esac
        case "$name" in *LLC*) mb=$CACHED_MB ;; *) mb=$SIZE_MB ;; esac
        ITERS=$(iterations "$mb")
        # shellcheck disable=SC2086 # the row's command is words
        attempt "row$i" "$name" row_try "$i" "$test" "$mb" "$scale" $cmd
    done
    j=0
    cache_rows | while IFS='|' read -r name target args; do
        j=$((j + 1))
        # shellcheck disable=SC2254
        case "$name" in $ONLY) ;; *) continue ;; esac
        ITERS=$(iterations "$SIZE_MB")
        # shellcheck disable=SC2086 # the arguments are words
        attempt "c$j" "$name against the grid in the L2" cache_round "$j" $args
    done
    j=0
    rank_rows | while IFS='|' read -r name target args; do
        j=$((j + 1))
        # shellcheck disable=SC2254
        case "$name" in $ONLY) ;; *) continue ;; esac
        [ -n "$MPIRUN" ] || continue
        ITERS=$(iterations "$SIZE_MB")
        # shellcheck disable=SC2086 # the arguments are words
        attempt "r$j" "$name" ranks_round "$j" $args
    done
    j=0
    halo_rows | while IFS='|' read -r name k args; do
        j=$((j + 1))
        # shellcheck disable=SC2254
        case "$name, $RANKS ranks halo" in $ONLY) ;; *) continue ;; esac
        [ -n "$MPIRUN" ] || continue
        ITERS=$(iterations "$SIZE_MB")
        # shellcheck disable=SC2086 # the arguments are words
        attempt "h$j.overlap" "$name on $RANKS ranks" halo_overlap "$j" $args
        # shellcheck disable=SC2086
        attempt "h$j.blocks" "$name, time blocks" halo_blocks "$j" "$k" $args
    done
    round=$((round + 1))
done

# --- the table -------------------------------------------------------------------------------
# Every figure below is over the kept tries only (quiet ones, or all with QUIET_CHECK=0); a
# ratio is the median of the per-round ratios with their min-max, and a target's verdict is
# "unclear" when that spread is larger than the gap between the median and the goal, or when
# fewer than MIN_QUIET rounds were kept (bench/quiet.sh, verdict).
MIN_QUIET=$((ROUNDS < 3 ? ROUNDS : 3))
stats() { # FILE [DIGITS]: "median (min-max)" of its kept values, 2 digits after the point
    s=$(kept "$1" | spread)
    [ -n "$s" ] || { echo "n/a"; return; }
    echo "$s" | awk -v d="${2:-2}" '{ f = "%." d "f"; printf f " (" f "-" f ")", $1, $2, $3 }'
}
# The load average and the probes before the rounds, for the heading.
probes_text() {
    [ -s "$WORK/probes" ] || return 0
    awk '{ n++; w += $3; busy += $2 == "busy" } END { printf "; before the rounds: %d of %d quiet within the wait, %d s waited", n - busy, n, w }' "$WORK/probes"
}

echo "touchstone bench, $(date -u +%Y-%m-%d), $(uname -n): $THREADS threads, $SIZE_MB MB per kernel, $ROUNDS rounds, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
    "load average ${LOAD_START:-?} at the start, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?) after the rounds"
echo "machine: $(quiet_summary)$(probes_text) (the rounds of the tables up to the NUMA matrix; the last line covers the whole bench)"
echo
echo "| kernel | likwid test | likwid GB/s median (min-max) | touchstone GB/s median (min-max) | ratio (min-max over rounds) | target | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
i=0
rows | while IFS='|' read -r name test scale target cmd; do
    i=$((i + 1))
    label=$test
    [ "$scale" = 1.5 ] && label="$test x 24/16"
    block=$(cat "$WORK/$i.block" 2>/dev/null)
    case $block in '' | 0) ;; *) name="$name, y-blocked: $block rows per block" ;; esac
    echo "| $name | $label | $(stats "$WORK/$i.ref") | $(stats "$WORK/$i.ts") | $(ratio_text "$WORK/$i.ts" "$WORK/$i.ref") |" \
        "$(target_text "$WORK/$i.ts" "$WORK/$i.ref" "$target" "$MIN_QUIET") | $(quiet_count "row$i" "$MIN_QUIET") |"
done

# Streaming stores against write-allocate, from the same rounds.
# In elements or updates per second: the streamed stencils count 16 B per update, not 24.
gain() { # STREAMED_ROW CACHED_ROW BYTES_RATIO
    r=$(ratios "$WORK/$1.ts" "$WORK/$2.ts" | awk -v b="$3" '{ print $1 * b }' | spread)
    [ -n "$r" ] || { echo n/a; return; }
    echo "$r" | awk '{ printf "%.3f (%.3f-%.3f)\n", $1, $2, $3 }'
}
echo
echo "streaming stores over write-allocate (touchstone, elements or lattice updates per second, median of" \
    "per-round ratios, min-max): triad $(gain 7 6 1), stencil2d $(gain 9 8 1.5), stencil3d $(gain 11 10 1.5)"

# Temporal blocking against the grid in cache, from the same rounds.
echo
echo "temporal blocking against the grid in cache (issue 25, item 2): stencil3d time-blocked against the plain sweep" \
    "(time_block = 1) on ${nxc}x${cache_ny}x${cache_nz}, $cache_planes planes a thread, both grids within half the L2" \
    "($((L2_BYTES >> 10)) KiB a core); GB/s by the same 24 B/update model on both sides, so the ratio is one of updates per second"
echo
echo "| kernel | time-blocked GB/s median (min-max) | in the L2 GB/s median (min-max) | ratio (min-max over rounds) | target | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- |"
j=0
cache_rows | while IFS='|' read -r name target args; do
    j=$((j + 1))
    block=$(cat "$WORK/c$j.block" 2>/dev/null)
    case $block in '' | 0) ;; *) name="$name, skewed y-tiles: $block rows per tile" ;; esac
    echo "| $name | $(stats "$WORK/c$j.tiled") | $(stats "$WORK/c$j.cached") | $(ratio_text "$WORK/c$j.tiled" "$WORK/c$j.cached") |" \
        "$(target_text "$WORK/c$j.tiled" "$WORK/c$j.cached" "$target" "$MIN_QUIET") | $(quiet_count "c$j" "$MIN_QUIET") |"
done

# Ranks against threads, from the same rounds.
echo
echo "ranks against threads, alternately on the same data: $RANKS ranks x 1 thread (mpirun $MANY_RANKS)" \
    "against 1 rank x $THREADS threads (mpirun $ONE_RANK, the config's OpenMP binding)"
echo
echo "| kernel | 1 rank x $THREADS threads GB/s median (min-max) | $RANKS ranks x 1 thread GB/s median (min-max) | ratio (min-max over rounds) | target | results | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
j=0
rank_rows | while IFS='|' read -r name target args; do
    j=$((j + 1))
    # Every pair's two results, digit for digit: disturbed pairs too (bits do not depend on time).
    same=n/a
    if [ -s "$WORK/r$j.results" ]; then
        same=$(awk '$2 == "none" || $3 == "none" { missing++; next } $2 == $3 { eq++; v = $2; next } { ne++; d = $2 " against " $3 }
            END { n = eq + ne; if (ne) printf "DIFFER in %d of %d pairs (%s)", ne, n, d
                  else if (n) printf "the same bits in %d of %d pairs (%s)", eq, n, v; else printf "n/a"
                  if (missing) printf ", %d pairs without a result", missing }' "$WORK/r$j.results")
    fi
    echo "| $name | $(stats "$WORK/r$j.one") | $(stats "$WORK/r$j.many") | $(ratio_text "$WORK/r$j.many" "$WORK/r$j.one") |" \
        "$(target_text "$WORK/r$j.many" "$WORK/r$j.one" "$target" "$MIN_QUIET") | $same | $(quiet_count "r$j" "$MIN_QUIET") |"
done

# The halo exchange and time blocks across ranks, from the same rounds.
echo
echo "across ranks: the halo exchange overlapped with the interior (the default) or not (TOUCHSTONE_HALO_OVERLAP=0), both on" \
    "$RANKS ranks x 1 thread (mpirun $MANY_RANKS); halo share: the ranks' seconds in the exchange over their iteration seconds"
echo
echo "| kernel | overlapped GB/s median (min-max) | halo share % | not overlapped GB/s median (min-max) | halo share % | ratio (min-max over rounds) | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
j=0
halo_rows | while IFS='|' read -r name k args; do
    j=$((j + 1))
    echo "| $name | $(stats "$WORK/h$j.on") | $(stats "$WORK/h$j.on_share") | $(stats "$WORK/h$j.off") |" \
        "$(stats "$WORK/h$j.off_share") | $(ratio_text "$WORK/h$j.on" "$WORK/h$j.off") | $(quiet_count "h$j.overlap" "$MIN_QUIET") |"
done
echo
echo "time blocks across ranks: time_block k (halos k deep, one exchange a block) against 1, on 1 rank x $THREADS" \
    "threads and on $RANKS ranks x 1 thread; speed-up: median of the per-round ratios"
echo
echo "| kernel | k | 1 x $THREADS: time_block 1 GB/s | time_block k GB/s | speed-up | $RANKS x 1: time_block 1 GB/s | time_block k GB/s | speed-up | with ranks over without | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
j=0
halo_rows | while IFS='|' read -r name k args; do
    j=$((j + 1))
    ratios_by_round "$WORK/h$j.onek" "$WORK/h$j.one1" >"$WORK/h$j.sp1"
    ratios_by_round "$WORK/h$j.manyk" "$WORK/h$j.many1" >"$WORK/h$j.spn"
    echo "| $name | $k | $(stats "$WORK/h$j.one1") | $(stats "$WORK/h$j.onek") | $(stats "$WORK/h$j.sp1" 3) | $(stats "$WORK/h$j.many1") |" \
        "$(stats "$WORK/h$j.manyk") | $(stats "$WORK/h$j.spn" 3) | $(ratio_text "$WORK/h$j.spn" "$WORK/h$j.sp1") | $(quiet_count "h$j.blocks" "$MIN_QUIET") |"
done

# --- the NUMA matrix (issue 16) --------------------------------------------------------------
# Its bandwidth cells against likwid-bench, and its idle latency against the obvious chase, in
# alternate rounds like the rows above. For every cell (CPU node c, memory node m) the engine's
# threads (one per core of c, bench_numa_cells) sweep arrays of MATRIX_KB kB each (SIZE_MB / 3:
# triad's three arrays hold the working set of the triad row), MATRIX_REPS sweeps per kernel,
# and likwid-bench runs the same number of threads of NUMA domain M<c> on streams placed in
# M<m> (-w M<c>:SIZE:THREADS-0:M<m>[,1:M<m>,2:M<m>], SIZE the working set over all streams: one array for
# sum, three for stream), -i MATRIX_REPS. The engine's figure is the median of its sweeps,
# likwid's the mean over its iterations, both by the same byte model (8 B per element for sum,
# 24 B for triad/stream). likwid's M domains are numbered as the OS numbers nodes when every
# node has memory. The latency: a chase of CHASE_MB (min(SIZE_MB, max(8 x LLC_MB, 64)) MB) on
# 4 KiB pages, CHASE_STEPS steps (2^21) per repetition, 5 repetitions, on the first CPU of the
# first cell's CPU node with the memory on that node; the engine's ts_numa_latency_measure
# against bench/plain_chase.c, the median ns per step of each.
# shellcheck disable=SC2194,SC2254 # ONLY is a pattern on purpose, matched against a fixed name
case "matrix" in $ONLY) MATRIX_ON=1 ;; *) MATRIX_ON=0 ;; esac
MATRIX_KB=$((SIZE_MB * 1000 / 3))
MATRIX_REPS=$(iterations $((SIZE_MB / 3 > 0 ? SIZE_MB / 3 : 1)))
[ "$MATRIX_REPS" -gt 64 ] && MATRIX_REPS=64
CHASE_MB=$((8 * LLC_MB > 64 ? 8 * LLC_MB : 64))
[ "$CHASE_MB" -gt "$SIZE_MB" ] && CHASE_MB=$SIZE_MB
CHASE_STEPS=${CHASE_STEPS:-2097152}
if [ "$MATRIX_ON" = 1 ] && [ ! -x "$CELLS" ]; then
    say "no $CELLS (cmake --build $BUILD --target bench_numa_cells): the matrix rows say n/a"
    MATRIX_ON=0
fi
# One try of the matrix cells: the engine's run over every cell, then likwid-bench per cell.
matrix_cells() {
    if ! watched "$THREADS" "$CELLS" cells $((MATRIX_KB * 1000)) "$MATRIX_REPS" >"$WORK/cells.out" 2>"$WORK/cells.err"; then
        echo "the matrix engine failed: $(tail -n 1 "$WORK/cells.err")"
        return 0
    fi
    said=""
    # cell C M threads T cpus LIST read MEDIAN BEST triad MEDIAN BEST bytes B placed R T
    while read -r _ c m _ t _ cpus _ read _ _ triad _ _ _ _ placed_read placed_triad; do
        echo "$c $m $t $cpus" >>"$WORK/mx.cells"
        echo "$placed_read $placed_triad" >>"$WORK/mx.$c.$m.placed"
        measured "$WORK/mx.$c.$m.read.ts" "$read"
        measured "$WORK/mx.$c.$m.triad.ts" "$triad"
        lread="" ltriad=""
        if [ -n "$LIKWID" ]; then
            lread=$(likwid_paged watched "$t" likwid-bench -t "$(lw sum)" -w "M$c:${MATRIX_KB}kB:$t-0:M$m" -i "$MATRIX_REPS" 2>/dev/null \
                | awk '/^MByte\/s:/ { printf "%.4f\n", $2 / 1000 }')
            ltriad=$(likwid_paged watched "$t" likwid-bench -t "$(lw stream)${FMA:+_fma}" -w "M$c:$((3 * MATRIX_KB))kB:$t-0:M$m,1:M$m,2:M$m" \
                -i "$MATRIX_REPS" 2>/dev/null | awk '/^MByte\/s:/ { printf "%.4f\n", $2 / 1000 }')
            measured "$WORK/mx.$c.$m.read.ref" "$lread"
            measured "$WORK/mx.$c.$m.triad.ref" "$ltriad"
        fi
        said="$said${said:+; }cell ($c, $m): read $read likwid ${lread:-n/a}, triad $triad likwid ${ltriad:-n/a}"
    done <"$WORK/cells.out"
    echo "$said"
}
# One try of the idle latency: the engine, then the plain chase, on the first cell's node.
matrix_latency() {
    first=$(head -n 1 "$WORK/cells.out" 2>/dev/null)
    [ -n "$first" ] || { echo "no cell to chase on"; return 0; }
    node=$(echo "$first" | awk '{ print $2 }')
    cpu=$(echo "$first" | awk '{ sub(/[^0-9].*/, "", $7); print $7 }')
    echo "$node $cpu" >"$WORK/mx.latency.where"
    engine=$(watched 1 "$CELLS" latency $((CHASE_MB * 1000000)) "$CHASE_STEPS" 5 "$node" "$node" 2>/dev/null \
        | awk '/^latency/ { print $2 }')
    measured "$WORK/mx.latency.ts" "$engine"
    plain=""
    if [ -x "$PLAIN_CHASE" ]; then
        plain=$(watched 1 "$PLAIN_CHASE" $((CHASE_MB * 1000000)) "$CHASE_STEPS" 5 "$cpu" 2>/dev/null | awk '/^latency/ { print $2 }')
        measured "$WORK/mx.latency.plain" "$plain"
    fi
    echo "engine ${engine:-failed} ns, plain chase ${plain:-failed} ns"
}
if [ "$MATRIX_ON" = 1 ]; then
    round=1
    while [ "$round" -le "$ROUNDS" ]; do
        quiet_before
        attempt mx "matrix cells" matrix_cells
        attempt mx.latency "matrix latency" matrix_latency
        round=$((round + 1))
    done
fi
echo
echo "NUMA matrix cells against likwid-bench, alternately: each cell's threads (one per core of the CPU node) on" \
    "arrays of $MATRIX_KB kB on the memory node, $MATRIX_REPS sweeps; the engine's median sweep against likwid's mean"
echo
echo "| matrix cell (CPU node, memory node) | likwid test | likwid GB/s median (min-max) | matrix GB/s median (min-max) | ratio (min-max over rounds) | target | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
if [ -s "$WORK/mx.cells" ]; then
    sort -u "$WORK/mx.cells" | sort -n -k1,1 -k2,2 | while read -r c m t cpus; do
        placed=$(awk '$1 != 1 || $2 != 1 { bad = 1 } END { print bad ? "" : "all pages on the node" }' "$WORK/mx.$c.$m.placed")
        for k in read triad; do
            test=$(lw sum)
            [ "$k" = triad ] && test="$(lw stream)${FMA:+_fma}"
            echo "| matrix cell ($c, $m) $k, $t threads on CPUs $cpus${placed:+, $placed} | $test | $(stats "$WORK/mx.$c.$m.$k.ref") |" \
                "$(stats "$WORK/mx.$c.$m.$k.ts") | $(ratio_text "$WORK/mx.$c.$m.$k.ts" "$WORK/mx.$c.$m.$k.ref") |" \
                "$(target_text "$WORK/mx.$c.$m.$k.ts" "$WORK/mx.$c.$m.$k.ref" 0.95 "$MIN_QUIET") | $(quiet_count mx "$MIN_QUIET") |"
        done
    done
else
    echo "| matrix cells | $(lw sum) | n/a | n/a | n/a | 0.95 | n/a |"
fi
echo
where=$(cat "$WORK/mx.latency.where" 2>/dev/null)
echo "| matrix idle latency, $CHASE_MB MB chase, 4 KiB pages${where:+, node ${where% *}, CPU ${where#* }} | plain chase ns median (min-max) | matrix ns median (min-max) | ratio (min-max over rounds) | target | quiet rounds |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| bench/plain_chase.c (i = next[i]) against ts_numa_latency_measure | $(stats "$WORK/mx.latency.plain") | $(stats "$WORK/mx.latency.ts") |" \
    "$(ratio_text "$WORK/mx.latency.ts" "$WORK/mx.latency.plain") | $(target_text "$WORK/mx.latency.ts" "$WORK/mx.latency.plain" 0.95-1.05 "$MIN_QUIET") |" \
    "$(quiet_count mx.latency "$MIN_QUIET") |"

# --- touchstone's own overhead in a default run ---------------------------------------------
# Everything but the work (allocation, init, warm-up, kernel, result pass, combine, verify)
# counts, measured from outside (bench_wall: from before the fork to after the wait) and split by the file's
# own account (/timings: startup, reexec, setup, plan, placement, finish and wall, from the
# process's start to writing the file): what is left is what falls between the phases, and
# after /timings/wall the write itself and the exit. The median of OVERHEAD_RUNS runs, since
# one run on a shared host proves little. Each run without a launcher (the single-node program:
# MPI linked, its libraries mapped, never started) is followed by one under mpirun -np 1 (the
# same run as one rank of a launched job: mpirun's start and end, MPI_Init and MPI_Finalize).
# There is no build without MPI to set beside them. Target (issue 28): under 2%.
OVERHEAD_RUNS=${OVERHEAD_RUNS:-5}
# default_run OUT [LAUNCHER...]: one default run, judged by its own file; writes one line to OUT:
# wall kernel warm-up init allocation verify combine+result audit startup reexec setup plan finish file_wall write
default_run() {
    out=$1
    shift
    f=$WORK/default.h5
    rm -f "$f"
    "$WALL" "$WORK/wall" "$@" "$TS" run "$ROOT/configs/default.ini" -o "$f" -q </dev/null >/dev/null 2>&1 \
        || { rm -f "$f"; return 1; }
    ts_judged "$f"
    line="$(cat "$WORK/wall")"
    for d in kernel warmup init allocation verify; do line="$line $(h5 "$f" -d /timings/$d)"; done
    line="$line $(awk -v c="$(h5 "$f" -d /timings/combine)" -v r="$(h5 "$f" -d /timings/result)" 'BEGIN { print c + r }')"
    for d in placement startup reexec setup plan finish wall write; do line="$line $(h5 "$f" -d /timings/$d)"; done
    echo "$line" >"$out"
}
overhead_s() { awk '{ print $1 - ($2 + $3 + $4 + $5 + $6 + $7) }' "$1"; } # FILE: its run's
# The kept runs of FILE, each with its overhead in % in front and its work at the end, by overhead.
by_overhead() { kept "$1" | awk '{ work = $2 + $3 + $4 + $5 + $6 + $7; print 100 * ($1 - work) / $1, $0, work }' | sort -g; }
# One try of overhead pair N: a default run without a launcher, then (with one) under mpirun.
overhead_try() {
    default_run "$WORK/o1" || { echo "the default run failed"; return 0; }
    measured "$WORK/overhead" "$(cat "$WORK/o1")"
    [ -n "$MPIRUN" ] || { echo "overhead $(overhead_s "$WORK/o1") s"; return 0; }
    # shellcheck disable=SC2086 # the launcher's options are words
    if default_run "$WORK/o2" "$MPIRUN" $ONE_RANK; then
        measured "$WORK/overhead_mpi" "$(cat "$WORK/o2")"
        measured "$WORK/overhead_pairs" "$(overhead_s "$WORK/o1") $(overhead_s "$WORK/o2")"
    fi
    echo "overhead $(overhead_s "$WORK/o1") s, under mpirun $(overhead_s "$WORK/o2" 2>/dev/null) s"
}
n=0
MIN_QUIET_OVERHEAD=$((OVERHEAD_RUNS < 3 ? OVERHEAD_RUNS : 3))
while [ "$n" -lt "$OVERHEAD_RUNS" ]; do
    n=$((n + 1))
    round=$n
    attempt overhead "overhead run $n/$OVERHEAD_RUNS" overhead_try
done
if [ -n "$(kept "$WORK/overhead")" ]; then
    by_overhead "$WORK/overhead" | awk -v runs="$(kept "$WORK/overhead" | wc -l)" -v quiet="$(quiet_count overhead "$MIN_QUIET_OVERHEAD")" '{ row[NR] = $0 } END {
        split(row[int((NR + 1) / 2)], v, " ")
        # v: 1 overhead %, 2 wall, 3 kernel, 4 warm-up, 5 init, 6 allocation, 7 verify, 8 combine+result,
        # 9 audit, 10 startup, 11 reexec, 12 setup, 13 plan, 14 finish, 15 file wall, 16 write, 17 work
        wall = v[2]; work = v[17]; over = wall - work
        between = v[15] - work - v[9] - v[10] - v[11] - v[12] - v[13] - v[14]
        pct = 100 * over / wall
        printf "\ndefault run (configs/default.ini, the median of %d runs by overhead): %.3f s wall; kernel %.3f s + warm-up %.3f s, init %.3f s, allocation %.3f s, verify %.3f s, result pass and combine %.3f s\n", runs, wall, v[3], v[4], v[5], v[6], v[7], v[8]
        printf "overhead: %.1f ms = %.2f%% of the run (target < 2%%: %s): process start to main %.1f ms, the binding re-execution %.1f ms, setup %.1f ms, plan %.1f ms, audit %.1f ms, finish %.1f ms, between phases %.1f ms, the summary and the file assembled %.1f ms (the file'"'"'s /timings); storing the file and exit %.1f ms (the outside clock after /timings/wall and write)\n", 1000 * over, pct, pct < 2 ? "met" : "NOT met", 1000 * v[10], 1000 * v[11], 1000 * v[12], 1000 * v[13], 1000 * v[9], 1000 * v[14], 1000 * between, 1000 * v[16], 1000 * (wall - v[15] - v[16])
        split(row[1], lo, " "); split(row[NR], hi, " ")
        printf "overhead over the %d runs: %.2f%% to %.2f%% (%s)\n", NR, lo[1], hi[1], quiet }'
    if [ -n "$(kept "$WORK/overhead_pairs")" ]; then
        pairs=$(kept "$WORK/overhead_pairs" | wc -l)
        launcher=$(kept "$WORK/overhead_pairs" | awk '{ print $2 - $1 }' | sort -g | awk '{ v[NR] = $1 } END {
            printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        by_overhead "$WORK/overhead_mpi" \
            | awk -v pairs="$pairs" -v launcher="$launcher" -v how="$ONE_RANK" '{ row[NR] = $0 } END {
            split(row[int((NR + 1) / 2)], v, " "); split(row[1], lo, " "); split(row[NR], hi, " ")
            printf "under mpirun %s (one rank, each run right after one of the above; median of %d by overhead): %.3f s wall, overhead %.3f s = %.2f%% (%.2f%% to %.2f%%); the launch costs %.3f s a run over no launcher (median of %d pairs): mpirun, MPI_Init and MPI_Finalize\n", how, NR, v[2], v[2] - v[17], v[1], lo[1], hi[1], launcher, pairs }'
    elif [ -n "$MPIRUN" ]; then
        echo "default run under mpirun $ONE_RANK failed: launched overhead not measured"
    fi
elif [ -s "$WORK/overhead" ]; then
    echo
    echo "default run: no quiet run ($(quiet_count overhead "$MIN_QUIET_OVERHEAD")): overhead not measured on a quiet node"
else
    echo
    echo "default run failed: overhead not measured"
fi
echo
echo "machine, the whole bench: $(quiet_summary)$(probes_text); load average ${LOAD_START:-?} at the start," \
    "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?) at the end"
exit 0

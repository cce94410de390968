#!/bin/sh
# Seed corpora of the fuzz harnesses, made at test time (nothing binary is committed):
#   seeds.sh fixed FUZZ_SEEDS SOURCE_DIR OUT_DIR
#   seeds.sh fresh TOUCHSTONE SOURCE_DIR OUT_DIR
# fixed (fuzz.seeds: the replays and the deterministic exploration of `make test`): the same
# bytes on every run and machine at one commit. config: every file in configs/, alone and
# followed by --set overrides; cli: command lines of the README; run_read and checkpoint:
# files written by touchstone's writers from fixed records (fuzz_seeds.c); survey_read: survey
# files from fixed records (fuzz_seeds.c).
# fresh (fuzz.seeds.fresh: `make fuzz` only): run files of real touchstone runs of each kernel
# (timings, host and start time differ every time), and one as a checkpoint seed.
set -eu
MODE=$1
OUT=$4
SRC=$3
rm -rf "$OUT"
mkdir -p "$OUT/config" "$OUT/cli" "$OUT/run_read" "$OUT/checkpoint" "$OUT/survey_read"

if [ "$MODE" = fresh ]; then
    TS=$2
    # The runs only make seed files. LLVM 14's LeakSanitizer tracer crashes now and then at the
    # exit of a libomp run on a loaded machine ("Tracer caught signal 11", exit 1: seen in the
    # survey's triad runs, not reproducible alone); leaks are checked by make test's gcc ASan pass.
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export ASAN_OPTIONS
    # --threads 2 binds nothing on a 1-CPU box and still writes two threads' timings.
    run() {
        name=$1
        shift
        "$TS" run "$@" --threads 2 -q -o "$OUT/run_read/$name.h5" >/dev/null
    }
    run sum "$SRC/configs/sum.ini" --set sum.n=100000 --set run.iterations=3
    run triad "$SRC/configs/triad.ini" --set triad.n=100000 --set run.iterations=3 --set placement.audit=false
    run stencil2d "$SRC/configs/stencil2d.ini" --set stencil.nx=64 --set stencil.ny=48 --set run.iterations=3 \
        --set output.write_field=true
    run stencil3d "$SRC/configs/stencil3d.ini" --set stencil.nx=16 --set stencil.ny=12 --set stencil.nz=8 \
        --set run.iterations=2 --set placement.at_end=true
    cp "$OUT/run_read/sum.h5" "$OUT/checkpoint/run-sum.h5"
    # A real survey at a tiny size (docs/survey.md, "For tests"), complete and stopped after 2 runs.
    TOUCHSTONE_SURVEY_SCALE=0.005 "$TS" survey --quick -o "$OUT/s1" >/dev/null 2>&1
    TOUCHSTONE_SURVEY_SCALE=0.005 TOUCHSTONE_SURVEY_STOP_AFTER=2 "$TS" survey --quick -o "$OUT/s2" >/dev/null 2>&1 || true
    cp "$OUT/s1/survey.h5" "$OUT/survey_read/complete.h5"
    cp "$OUT/s2/survey.h5" "$OUT/survey_read/partial.h5"
    rm -rf "$OUT/s1" "$OUT/s2"
    ls -l "$OUT"/* >&2
    exit 0
fi
[ "$MODE" = fixed ] || {
    echo "seeds.sh: mode $MODE is neither fixed nor fresh" >&2
    exit 2
}
SEEDS=$2

# The harnesses split their input at NUL bytes; here '|' stands for NUL.
nul() { printf '%s' "$1" | tr '|' '\000'; }
SMALL='sum.n=100000|triad.n=100000|stencil.nx=64|stencil.ny=48|stencil.nz=16|run.iterations=3'
for ini in "$SRC"/configs/*.ini; do
    name=$(basename "$ini" .ini)
    cp "$ini" "$OUT/config/$name"
    { cat "$ini"; nul "|$SMALL|openmp.places={0:2},{2:2}|init.policy=bind:0|output.file=%k-%t.h5"; } \
        >"$OUT/config/$name-set"
done

n=0
for line in \
    'run|configs/default.ini' \
    'run|configs/stencil2d.ini|--serial-init|--threads|8|--set|stencil.nx=1024|-o|out-%k.h5|-q' \
    'run|--restart|run.ckpt.h5|configs/sum.ini|--set=sum.n=1e6' \
    'check|configs/triad.ini|--set|triad.nontemporal=true' \
    'topo|--format|json|--threads|4' \
    'topo|configs/sum.ini|--set|openmp.places=threads|--format=text' \
    'compare|a.h5|b.h5|c.h5|--format|markdown|--force' \
    'report|runs/|--format=csv' \
    'plot|runs|-o|scaling.png|--kind|timeline|--size|1200x800' \
    'check|--keys' 'check|--keys|configs/sum.ini' 'run|--keys' \
    '--help' '--version' 'run|-h'; do
    n=$((n + 1))
    nul "$line" >"$OUT/cli/cmd$n"
done

"$SEEDS" "$OUT"
ls -l "$OUT"/* >&2

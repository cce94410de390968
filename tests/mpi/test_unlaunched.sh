#!/bin/sh
# One binary for one node and for many (issue 14): started without a launcher, touchstone never
# starts MPI and prints what it always printed; started by mpirun on one rank, it runs as it
# does alone, to the same result, and says which MPI started it.
# Usage: test_unlaunched.sh TOUCHSTONE SOURCE_DIR MPIRUN MPI_SPY H5_GET
. "$(dirname "$0")/lib.sh"
SPY=${4:?path to mpi_spy.so}
H5GET=${5:?path to h5_get}
SPIED=$WORK/mpi-init-calls

# 1. Without a launcher, no command starts MPI (the spy records every MPI_Init*).
for command in "--version" "check $SRC/configs/sum.ini" "topo" "topo $SRC/configs/sum.ini" \
    "run $SRC/configs/sum.ini $SMALL -o $WORK/spied.h5"; do
    # shellcheck disable=SC2086
    LD_PRELOAD=$SPY MPI_SPY=$SPIED run_ts 0 "touchstone $command, not launched" $command
    [ -e "$SPIED" ] && fail "touchstone $command started MPI without a launcher: $(cat "$SPIED")"
    rm -f "$SPIED"
done
expect_not_in "$OUT" "^ranks|MPI" "run without a launcher: no trace of MPI in the summary"

# 2. Under mpirun the spy sees MPI start, once per rank and after the binding re-execution
#    (sum.ini binds through openmp.places, so run re-executes itself first: one pid).
MPI_ARGS="-x LD_PRELOAD=$SPY -x MPI_SPY=$SPIED"
mpi_ts 0 "run on one rank under the spy" 1 run "$SRC/configs/sum.ini" $SMALL -o "$WORK/spied1.h5"
MPI_ARGS=""
expect_in "$OUT" "OMP_PLACES=cores \(config\)" "run on one rank: the config's binding applied (by the re-execution)"
[ "$(grep -c '^MPI_Init_thread ' "$SPIED" 2>/dev/null)" = 1 ] ||
    fail "mpirun -np 1 run: expected one MPI_Init_thread, the spy saw: $(cat "$SPIED" 2>/dev/null || echo nothing)"

# 3. topo: the report of one launched rank is the unlaunched report, then a section of ranks.
#    Bound threads (one a core), so that where each runs does not change between the two.
export OMP_PLACES=cores OMP_PROC_BIND=close
run_ts 0 "topo, not launched" topo --threads 1 && cp "$OUT" "$WORK/topo-alone"
if mpi_ts 0 "topo on one rank" 1 topo --threads 1; then
    sed '/^ranks (/,$d' "$OUT" >"$WORK/topo-rank0"
    # The blank line before the section belongs to the section.
    printf '\n' >>"$WORK/topo-alone"
    cmp -s "$WORK/topo-alone" "$WORK/topo-rank0" ||
        fail "topo on one rank: the report differs from the unlaunched one: $(diff "$WORK/topo-alone" "$WORK/topo-rank0" | head -8)"
    expect_in "$OUT" "^ranks \(" "topo on one rank: the section of ranks"
    expect_in "$OUT" "^  world +1 rank on 1 host" "topo on one rank: the world's size"
    expect_in "$OUT" "^  MPI +Open MPI.*MPI_THREAD_(FUNNELED|SERIALIZED|MULTIPLE)" "topo on one rank: the MPI library and its thread level"
    expect_in "$OUT" "^  launcher +OMPI_COMM_WORLD_SIZE=1" "topo on one rank: how the launcher was recognised"
    # --version names, without starting MPI, the library the ranks report (one call: ts_dist_library_version).
    cp "$OUT" "$WORK/topo-ranks"
    run_ts 0 "--version" --version && library=$(sed -n 's/^MPI  *//p' "$OUT") &&
        grep -qF "  MPI       $library (MPI_THREAD_" "$WORK/topo-ranks" ||
        fail "--version's MPI line '${library:-}' is not the library topo on one rank reports: $(grep '^  MPI' "$WORK/topo-ranks")"
fi
unset OMP_PLACES OMP_PROC_BIND

# 4. check: the same output launched on one rank as alone (but for the memory available now;
# one output name, as the default's %t changes with the second).
run_ts 0 "check, not launched" check "$SRC/configs/stencil2d.ini" -o "$WORK/c.h5" && grep -v MemAvailable "$OUT" >"$WORK/check-alone"
mpi_ts 0 "check on one rank" 1 check "$SRC/configs/stencil2d.ini" -o "$WORK/c.h5" && grep -v MemAvailable "$OUT" >"$WORK/check-rank" &&
    { cmp -s "$WORK/check-alone" "$WORK/check-rank" || fail "check on one rank prints other than check alone: $(diff "$WORK/check-alone" "$WORK/check-rank" | head -6)"; }

# 5. run of sum on one rank: verified, its file written, the result bitwise the unlaunched one's.
run_ts 0 "sum, not launched" run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$WORK/alone.h5"
alone=$(result_of)
if mpi_ts 0 "sum on one rank" 1 run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$WORK/rank.h5"; then
    expect_in "$OUT" "^  verified +PASSED" "sum on one rank: verified"
    [ "$(result_of)" = "$alone" ] || fail "sum on one rank: result $(result_of) differs from the unlaunched $alone"
    [ -s "$WORK/rank.h5" ] || fail "sum on one rank: no file $WORK/rank.h5"
    a=$("$H5GET" -x "$WORK/alone.h5" /results/global) b=$("$H5GET" -x "$WORK/rank.h5" /results/global)
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "sum on one rank: /results/global $b in the file, $a alone"
fi
finish

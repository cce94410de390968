#!/bin/sh
# Several ranks: topo lists every thread of every rank in rank order; a problem too small for
# the ranks, and check, refused with one message and exit 2 from rank 0 (the others exit 0),
# no file; a rank that fails alone ends the whole job.
# Usage: test_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN
. "$(dirname "$0")/lib.sh"

# topo on 2, 3 and 4 ranks of 2 threads each: the world's size, and two rows for every rank.
for ranks in 2 3 4; do
    mpi_ts 0 "topo on $ranks ranks" "$ranks" topo --threads 2 || continue
    expect_in "$OUT" "^  world +$ranks ranks on 1 host" "topo on $ranks ranks: the world's size"
    [ "$(grep -c '^touchstone .* topo: ' "$OUT")" = 1 ] || fail "topo on $ranks ranks: not one report (rank 0's)"
    rows=$(awk '/^ranks \(/ { in_ranks = 1; next } in_ranks && /^$/ { in_ranks = 0 }
                in_ranks && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { count[$2]++ }
                END { for (r in count) printf "%s:%d\n", r, count[r] }' "$OUT" | sort -n | tr '\n' ' ')
    want=$(r=0; while [ "$r" -lt "$ranks" ]; do printf '%d:2 ' "$r"; r=$((r + 1)); done)
    [ "$rows" = "$want" ] || fail "topo on $ranks ranks: rows per rank '$rows', expected '$want'"
    # Every rank's binding warnings, named by rank: with binding off, each has one.
    for r in $(seq 0 $((ranks - 1))); do
        expect_in "$OUT" "^  rank $r \(.*\): warning: binding is off" "topo on $ranks ranks: rank $r's warnings"
    done
done

# The JSON report of several ranks is not built yet: refused like run.
mpi_ts 2 "topo --format json on 2 ranks" 2 topo --format json
[ "$(grep -c 'not built yet (issue 14)' "$ERR")" = 1 ] || fail "topo --format json on 2 ranks: not one refusal"

# A size too small for the ranks: refused before any allocation, exit 2, one message (rank
# 0's) with the numbers, nothing written. 600 elements are 2 blocks of 512: not 3 ranks' worth.
cd "$WORK" || exit 1
mpi_ts 2 "sum of 600 on 3 ranks" 3 run "$SRC/configs/sum.ini" --set sum.n=600 -o "$WORK/small.h5"
[ "$(grep -c '^touchstone: error: sum on 3 ranks: 600 elements are 2 blocks of 512, fewer than the ranks' "$ERR")" = 1 ] ||
    { fail "sum of 600 on 3 ranks: expected the refusal once"; sed 's/^/    | /' "$ERR" | head -12 >&2; }
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "sum of 600 on 3 ranks: more than one error message"
ls "$WORK" | grep -q '\.h5' && fail "sum of 600 on 3 ranks: a file was written: $(ls "$WORK")"
mpi_ts 2 "stencil2d 5 x 4 on 5 ranks" 5 run "$SRC/configs/stencil2d.ini" --set stencil.nx=5 --set stencil.ny=4 \
    -o "$WORK/small.h5"
expect_in "$ERR" "^touchstone: error: stencil2d on 5 ranks: 5 ranks as .* leave 0 interior" \
    "stencil2d 5 x 4 on 5 ranks: the refusal names the ranks and the points"
ls "$WORK" | grep -q '\.h5' && fail "stencil2d 5 x 4 on 5 ranks: a file was written: $(ls "$WORK")"
# Memory: the parts of the ranks on one machine together against the machine's limits. 10M
# elements are 76 MiB: each of 2 ranks' halves fits in SLURM_MEM_PER_NODE=60, both do not.
MPI_ARGS="-x SLURM_MEM_PER_NODE=60"
mpi_ts 2 "sum of 76 MiB on 2 ranks of a 60 MiB node" 2 run "$SRC/configs/sum.ini" --set sum.n=10000000 \
    -o "$WORK/mem.h5"
expect_in "$ERR" "^touchstone: error: rank [01] of 2 \(.*\): sum: the 2 ranks on this machine need 7[0-9.]+ MiB together \(this one 3[0-9.]+ MiB; .*\) but SLURM_MEM_PER_NODE=60 MB allows only 60 MiB" \
    "sum on 2 ranks of a 60 MiB node: refused with the ranks' total"
[ -e "$WORK/mem.h5" ] && fail "sum on 2 ranks of a 60 MiB node: a file was written"
MPI_ARGS=""
mpi_ts 2 "check on 2 ranks" 2 check "$SRC/configs/sum.ini"
[ "$(grep -c '^touchstone: error: touchstone check on 2 ranks: checking a run across ranks is not built yet' "$ERR")" = 1 ] ||
    fail "check on 2 ranks: expected the refusal once"
[ -s "$OUT" ] && fail "check on 2 ranks: printed a report: $(head -3 "$OUT")"

# A rank that fails alone, after MPI started (rank 1's stack limit is too small for its
# threads; rank 0 waits for it in the gather): its message names it, MPI_Abort ends the job
# with exit status 2 instead of leaving rank 0 waiting. timeout(1) only turns a hang into a
# failure with a message; no time is measured.
timeout 120 "$MPIRUN" --oversubscribe --bind-to none -np 1 "$TS" topo --threads 2 : \
    -np 1 sh -c "ulimit -s 400 && exec \"\$0\" topo --threads 4000" "$TS" >"$OUT" 2>"$ERR"
status=$?
[ "$status" = 124 ] && fail "a rank failing alone: the job hung (killed by timeout after 120 s)"
[ "$status" = 2 ] || fail "a rank failing alone: mpirun exit status $status, expected 2"
expect_in "$ERR" "^touchstone: error: rank 1 of 2 \(.*\): 4000 OpenMP threads need .* of stack" \
    "a rank failing alone: its message, named by rank"
# (mpirun's own "MPI_ABORT was invoked" banner is not checked: Open MPI 4.1 loses it at times.)
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "a rank failing alone: not one error message"
finish

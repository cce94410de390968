#!/bin/sh
# Several ranks: topo summarises the host and lists the threads of the first 16 ranks in rank
# order (every rank's with --all-ranks), as text and as one JSON document; check shows the
# run's split over the ranks; a problem too small for the ranks refused by run and check with
# one message and exit 2 from rank 0 (the others exit 0), no file; a rank that fails alone
# ends the whole job.
# Usage: test_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN
. "$(dirname "$0")/lib.sh"

# topo on 2, 3 and 17 ranks of 2 threads each: the world's size, the host summarised in one
# line (made on the machine's first rank), and two rows for every rank listed: every rank up
# to 16, then the first 16 and one line for the others (issue 24: rank 0 holds no row of them).
for ranks in 2 3 17; do
    mpi_ts 0 "topo on $ranks ranks" "$ranks" topo --threads 2 || continue
    expect_in "$OUT" "^  world +$ranks ranks on 1 host" "topo on $ranks ranks: the world's size"
    [ "$(grep -c '^touchstone .* topo: ' "$OUT")" = 1 ] || fail "topo on $ranks ranks: not one report (rank 0's)"
    expect_in "$OUT" "^  hosts +host [^:]+: $ranks ranks, $((2 * ranks)) threads \(2 a rank\) on [0-9]+ of [0-9]+ CPUs, [0-9]+ of [0-9]+ cores; NUMA nodes [0-9]" \
        "topo on $ranks ranks: the host's summary"
    [ "$(grep -c '^  hosts ' "$OUT")" = 1 ] || fail "topo on $ranks ranks: not one line of hosts"
    rows=$(awk '/^ranks \(/ { in_ranks = 1; next } in_ranks && /^$/ { in_ranks = 0 }
                in_ranks && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { count[$2]++ }
                END { for (r in count) printf "%s:%d\n", r, count[r] }' "$OUT" | sort -n | tr '\n' ' ')
    listed=$((ranks < 16 ? ranks : 16))
    want=$(r=0; while [ "$r" -lt "$listed" ]; do printf '%d:2 ' "$r"; r=$((r + 1)); done)
    [ "$rows" = "$want" ] || fail "topo on $ranks ranks: rows per rank '$rows', expected '$want'"
    if [ "$ranks" -gt 16 ]; then
        expect_in "$OUT" "^ranks \(every thread of the first 16 of $ranks ranks," "topo on $ranks ranks: the section's title"
        expect_in "$OUT" "^  \($((ranks - 16)) more ranks not listed: touchstone topo --all-ranks lists every thread of every rank\)\$" \
            "topo on $ranks ranks: the ranks not listed"
    fi
    # Every rank's binding warnings: with binding off, each has one, and they are one line
    # naming every rank (issue 24).
    expect_in "$OUT" "^  $ranks of $ranks ranks \(ranks 0-$((ranks - 1)); host [^)]*\): warning: binding is off" \
        "topo on $ranks ranks: the ranks' warning"
    [ "$(grep -cE '^  [^ ].*\): warning: binding is off' "$OUT")" = 1 ] ||
        fail "topo on $ranks ranks: not one line of binding off in the ranks' warnings"
done

# The JSON report of several ranks: one document (rank 0's), the machine as one rank's, plus
# the world, every rank with its threads (--all-ranks: accepted; 3 ranks are listed either way,
# one launch of more than 16 ranks above is enough of this test's time), and the warnings
# across ranks (3 ranks of 2 threads on 2 CPUs: more threads than cores on the host).
MPI_ARGS="-x OMP_PLACES=cores"
if mpi_ts 0 "topo --format json --all-ranks on 3 ranks" 3 topo --format json --threads 2 --all-ranks; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mpi"]["size"] == 3 and d["mpi"]["hosts"] == 1 and d["mpi"]["kernels"] == 1, d["mpi"]
assert d["mpi"]["shared_kernel"] is False, d["mpi"]
assert d["mpi"]["launcher"].startswith("OMPI_COMM_WORLD_SIZE="), d["mpi"]
assert "hwloc_version" in d and d["openmp"]["num_threads"] == 2, "the machine and rank 0 as alone"
ranks = d["ranks"]
assert len(ranks) == 3, len(ranks)
for r, rank in enumerate(ranks):
    assert rank["rank"] == r and rank["local_rank"] == r and rank["host"] == d["host"], rank
    assert rank["num_threads"] == 2 and [t["thread"] for t in rank["threads"]] == [0, 1], rank
    for t in rank["threads"]:
        assert t["cpu"] >= 0 and t["core"] >= 0 and t["node"] >= 0 and t["place_cpus"], t
assert len({r["boot_id"] for r in ranks}) == 1
kinds = [w["kind"] for w in d["rank_warnings"]]
assert "warning" in kinds and any("6 threads on" in w["text"] for w in d["rank_warnings"]), d["rank_warnings"]
' "$OUT" || fail "topo --format json --all-ranks on 3 ranks: not the document expected"
fi
MPI_ARGS=""
# One rank launched: the report of a process alone, no world in it.
mpi_ts 0 "topo --format json on 1 rank" 1 topo --format json --threads 1 && cp "$OUT" "$WORK/one-rank.json"
if run_ts 0 "topo --format json alone" topo --format json --threads 1; then
    python3 -c '
import json, sys
one, alone = (json.load(open(f)) for f in sys.argv[1:3])
assert list(one) == list(alone) and "ranks" not in one, (list(one), list(alone))
' "$WORK/one-rank.json" "$OUT" || fail "topo --format json on 1 rank: not the keys of a process alone"
fi

# check on 4 ranks as 2 x 2 (mpi.dims): the decomposition and every rank's interior points,
# printed once, by rank 0; run's split: 33 x 20 has 31 x 18 interior points.
if mpi_ts 0 "check stencil2d on 4 ranks" 4 check "$SRC/configs/stencil2d.ini" --set stencil.nx=33 \
    --set stencil.ny=20 --set mpi.dims=2x2; then
    [ "$(grep -c ': valid$' "$OUT")" = 1 ] || fail "check on 4 ranks: not one report (rank 0's)"
    expect_in "$OUT" "^ranks: 4 on 1 host; the 33x20 grid as 2x2 blocks \(mpi.dims = given\)" \
        "check on 4 ranks: the decomposition"
    expect_in "$OUT" "^  rank 0 \(.*\): x 1-16, y 1-9: 144 points, " "check on 4 ranks: rank 0's part"
    expect_in "$OUT" "^  rank 1 \(.*\): x 17-31, y 1-9: 135 points, " "check on 4 ranks: rank 1's part"
    expect_in "$OUT" "^  rank 2 \(.*\): x 1-16, y 10-18: 144 points, " "check on 4 ranks: rank 2's part"
    expect_in "$OUT" "^  rank 3 \(.*\): x 17-31, y 10-18: 135 points, .*; its machine's 4 ranks " \
        "check on 4 ranks: rank 3's part"
    expect_in "$OUT" "^  machine .*\(the 4 ranks on .* together" "check on 4 ranks: the machine's total"
    expect_not_in "$OUT" "REFUSED" "check on 4 ranks: a part refused"
fi

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
expect_in "$ERR" "^touchstone: error: stencil2d on 5 ranks: no rank grid of 5 ranks fits the grid 5x4, .*: at most 4 ranks fit, as mpi.dims = 2x2$" \
    "stencil2d 5 x 4 on 5 ranks: the refusal names the ranks, the points and what fits"
ls "$WORK" | grep -q '\.h5' && fail "stencil2d 5 x 4 on 5 ranks: a file was written: $(ls "$WORK")"
# Memory: the parts of the ranks on one machine together against the machine's limits. 10M
# elements are 76 MiB: each of 2 ranks' halves fits in SLURM_MEM_PER_NODE=60, both do not.
MPI_ARGS="-x SLURM_MEM_PER_NODE=60"
mpi_ts 2 "sum of 76 MiB on 2 ranks of a 60 MiB node" 2 run "$SRC/configs/sum.ini" --set sum.n=10000000 \
    -o "$WORK/mem.h5"
# Both ranks refuse: one message for the job (a rank named when their messages differ), exit 2
# from rank 0, no MPI_Abort (the ranks agree on the status after each stage of the run).
expect_in "$ERR" "^touchstone: error: (rank [01] of 2 \(.*\): )?sum: the 2 ranks on this machine need 1[0-9][0-9.]+ MiB together \(this one [45][0-9.]+ MiB; .*\) but SLURM_MEM_PER_NODE=60 MB allows only 60 MiB" \
    "sum on 2 ranks of a 60 MiB node: refused with the ranks' total"
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "sum on 2 ranks of a 60 MiB node: not one error message"
expect_not_in "$ERR" "MPI_ABORT" "sum on 2 ranks of a 60 MiB node: the job aborted"
[ -e "$WORK/mem.h5" ] && fail "sum on 2 ranks of a 60 MiB node: a file was written"
MPI_ARGS=""
# check refuses what run refuses, with run's message: too small (every rank alike) ...
mpi_ts 2 "check sum of 600 on 3 ranks" 3 check "$SRC/configs/sum.ini" --set sum.n=600
[ "$(grep -c '^touchstone: error: sum on 3 ranks: 600 elements are 2 blocks of 512, fewer than the ranks' "$ERR")" = 1 ] ||
    fail "check sum of 600 on 3 ranks: expected run's refusal once"
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "check sum of 600 on 3 ranks: more than one error message"
[ -s "$OUT" ] && fail "check sum of 600 on 3 ranks: printed a report: $(head -3 "$OUT")"
# ... an output run cannot write (its directory missing: rank 0 writes the files), refused by
# check as by run, once, exit 2 ...
mpi_ts 2 "check with an output in a missing directory on 3 ranks" 3 check "$SRC/configs/sum.ini" -o "$WORK/nodir/x.h5" &&
    expect_in "$ERR" "^touchstone: error: rank 0 of 3 \(.*\): cannot write output $WORK/nodir/x\.h5: No such file or directory\$" \
        "check, output in a missing directory on 3 ranks: run's reason"
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "check, output in a missing directory on 3 ranks: not one error message"
expect_not_in "$ERR" "MPI_ABORT" "check, output in a missing directory on 3 ranks: the job aborted"
# ... and the memory of the ranks on one machine together: the parts shown, both refused, one
# error naming a rank (agreed: exit 2 from rank 0, no MPI_Abort).
MPI_ARGS="-x SLURM_MEM_PER_NODE=60"
if mpi_ts 2 "check sum of 76 MiB on 2 ranks of a 60 MiB node" 2 check "$SRC/configs/sum.ini" --set sum.n=10000000; then
    expect_in "$OUT" "^ranks: 2 on 1 host; 10000000 elements in 2 slices of whole blocks of 512" \
        "check on a 60 MiB node: the slices"
    expect_in "$OUT" "^  rank 1 \(.*\): elements 5000192-9999999: 4999808 elements, .*REFUSED\$" \
        "check on a 60 MiB node: rank 1's part, refused"
    expect_in "$OUT" "^  limit EXCEEDED +60 MiB  \(SLURM_MEM_PER_NODE=60 MB\)" "check on a 60 MiB node: the limit"
    expect_in "$ERR" "^touchstone: error: rank 0 of 2 \(.*\): sum: the 2 ranks on this machine need 1[0-9][0-9.]+ MiB together .* \(and 1 more rank refused\)\$" \
        "check on a 60 MiB node: refused with the ranks' total"
    [ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "check on a 60 MiB node: not one error message"
    expect_not_in "$ERR" "MPI_ABORT" "check on a 60 MiB node: the job aborted"
fi
MPI_ARGS=""
# ... the limit on rank 1 alone: its refusal is the first, its message (found by a reduction and
# a broadcast, not a line of every rank gathered) named by rank 1.
if expect_run 2 "check sum of 76 MiB, the 60 MiB limit on rank 1 alone" timeout 600 "$MPIRUN" --oversubscribe \
    --bind-to none -np 1 "$TS" check "$SRC/configs/sum.ini" --set sum.n=10000000 : \
    -np 1 env SLURM_MEM_PER_NODE=60 "$TS" check "$SRC/configs/sum.ini" --set sum.n=10000000; then
    expect_in "$ERR" "^touchstone: error: rank 1 of 2 \(.*\): sum: the 2 ranks on this machine need .* but SLURM_MEM_PER_NODE=60 MB allows only 60 MiB .*; use fewer ranks per node, more nodes, or a smaller problem\$" \
        "the limit on rank 1 alone: rank 1's message"
    [ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "the limit on rank 1 alone: not one error message"
fi

# Rank 0 holds the other ranks' rows (app/run_world.c), counted in its part before anything is
# allocated, but not their times per iteration, which each rank writes into the file itself.
# 3,000,000 iterations on 4 ranks: about 0.25 GiB of rank 0's own; when it held the others'
# times too, 1 GiB, and rank 0 alone under ulimit -d 400000 (KiB) was refused. Now it fits: the
# check (the run's plan, computing nothing) passes there. (Not under ASan: its shadow memory
# does not start under ulimit -d.)
BIG="--set stencil.nx=64 --set stencil.ny=64 --set run.iterations=3000000 --threads 1"
if [ -z "${ASAN_OPTIONS:-}" ]; then
    # shellcheck disable=SC2086
    mpi_ts 0 "check of 3000000 iterations on 4 ranks" 4 check "$SRC/configs/stencil2d.ini" $BIG &&
        expect_in "$OUT" "^  other ranks +[0-9.]+ KiB +\(rank 0: the rows of 4 ranks; their threads' rows and times per iteration each rank writes itself\)" \
            "check on 4 ranks: rank 0's part counts the other ranks' rows, in KiB, not their times"
    # shellcheck disable=SC2086
    expect_run 0 "rank 0 under ulimit -d 400000, the others' times not its to hold" timeout 600 "$MPIRUN" \
        --oversubscribe --bind-to none -np 1 sh -c 'ulimit -d 400000 && exec "$0" "$@"' "$TS" check \
        "$SRC/configs/stencil2d.ini" $BIG : -np 3 "$TS" check "$SRC/configs/stencil2d.ini" $BIG
fi

# A rank that fails alone, after MPI started (rank 1's stack limit is too small for its
# threads; rank 0 waits for it in the gather): its message names it, MPI_Abort ends the job
# with exit status 2 instead of leaving rank 0 waiting. timeout(1) only turns a hang into a
# failure with a message; no time is measured.
timeout 600 "$MPIRUN" --oversubscribe --bind-to none -np 1 "$TS" topo --threads 2 : \
    -np 1 sh -c "ulimit -s 400 && exec \"\$0\" topo --threads 4000" "$TS" >"$OUT" 2>"$ERR"
status=$?
[ "$status" = 124 ] && fail "a rank failing alone: the job hung (killed by timeout after 120 s)"
[ "$status" = 2 ] || fail "a rank failing alone: mpirun exit status $status, expected 2"
expect_in "$ERR" "^touchstone: error: rank 1 of 2 \(.*\): 4000 OpenMP threads need .* of stack" \
    "a rank failing alone: its message, named by rank"
# (mpirun's own "MPI_ABORT was invoked" banner is not checked: Open MPI 4.1 loses it at times.)
[ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "a rank failing alone: not one error message"
finish

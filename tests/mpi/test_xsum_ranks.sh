#!/bin/sh
# The rank partials combined by reductions (issue 24, item 4): sum (reproducible) and both
# stencils on 1, 2, 3, 5 and 7 ranks of one thread give the one-process result to the bit (the
# exact accumulators merged by MPI_Allreduce in whatever tree it builds, every rank rounding the
# same sum), and the verification judged across ranks by reductions: the counts of every part,
# the method's "; over the parts of N ranks". One rank whose part is wrong (a perturbed sin on
# rank 1 alone) fails the job: exit 1, rank 0's two error lines, the file written and failed.
# Usage: test_xsum_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN H5GET PERTURB_SIN
. "$(dirname "$0")/lib.sh"
H5GET=${4:?path to h5_get}
PERTURB=${5:?path to the perturbing library (tests/cli/perturb_sin.c)}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1
# Tiny, and wide enough for 7 ranks: 7 x 1 grids of ranks, 40 blocks of 512 for the sum.
SIZES="--set sum.n=20000 --set sum.mode=reproducible --set stencil.nx=37 --set stencil.ny=19 --set stencil.nz=9"
SIZES="$SIZES --set run.iterations=3 --set run.warmup=1 --threads 1"

# Under ASan (make test-asan sets ASAN_OPTIONS) one odd count: the normal pass checks them all.
RANK_COUNTS="1 2 3 5 7"
[ -n "${ASAN_OPTIONS:-}" ] && RANK_COUNTS=5
for kernel in sum stencil2d stencil3d; do
    # shellcheck disable=SC2086
    run_ts 0 "$kernel in one process" run "$SRC/configs/$kernel.ini" $SIZES -o "$WORK/$kernel-alone.h5" || continue
    want=$(h5_bits "$WORK/$kernel-alone.h5" /results/global)
    [ "$want" = missing ] && { fail "$kernel in one process: no /results/global"; continue; }
    points=$("$H5GET" "$WORK/$kernel-alone.h5" /verification@checked)
    for ranks in $RANK_COUNTS; do
        f=$WORK/$kernel-$ranks.h5
        # shellcheck disable=SC2086
        mpi_ts 0 "$kernel on $ranks ranks" "$ranks" run "$SRC/configs/$kernel.ini" $SIZES -o "$f" || continue
        expect_in "$OUT" "^  verified   PASSED" "$kernel on $ranks ranks: verified"
        got=$(h5_bits "$f" /results/global)
        [ "$got" = "$want" ] || fail "$kernel on $ranks ranks: result $got, in one process $want (bitwise)"
        [ "$("$H5GET" "$f" /verification@passed)" = 1 ] || fail "$kernel on $ranks ranks: /verification@passed"
        [ "$("$H5GET" "$f" /verification@failures)" = 0 ] || fail "$kernel on $ranks ranks: /verification@failures"
        [ "$ranks" = 1 ] && continue
        "$H5GET" "$f" /verification@method | grep -q "; over the parts of $ranks ranks\$" ||
            fail "$kernel on $ranks ranks: method '$("$H5GET" "$f" /verification@method)'"
        # Every part's values counted once: the stencils' grid points are the one process's; a
        # sum's parts check their elements, and rank 0 the combined result.
        checked=$("$H5GET" "$f" /verification@checked)
        [ "$kernel" = sum ] && points=20001
        [ "$checked" = "$points" ] || fail "$kernel on $ranks ranks: $checked values checked, want $points"
        # The centre point's value comes from the rank that holds it, the same as one process's.
        [ "$kernel" = sum ] || [ "$(h5_bits "$f" /verification/observed)" = "$(h5_bits "$WORK/$kernel-alone.h5" /verification/observed)" ] ||
            fail "$kernel on $ranks ranks: /verification/observed differs from the one process's"
        # Every rank recorded its own partial and the time it spent combining.
        n=$("$H5GET" "$f" /mpi/ranks:reduction | awk '$1 >= 0 { n++ } END { print n + 0 }')
        [ "$n" = "$ranks" ] || fail "$kernel on $ranks ranks: $n of $ranks ranks with a reduction time"
    done
done

# Rank 1 alone starts off its eigenmode: its part fails, and with it the job, as rank 0 says.
cat >"$WORK/rank1-perturbed.sh" <<EOF
#!/bin/sh
[ "\${OMPI_COMM_WORLD_RANK:-}" = 1 ] && export LD_PRELOAD="$PERTURB"
exec "$TS" "\$@"
EOF
chmod +x "$WORK/rank1-perturbed.sh"
f=$WORK/perturbed.h5
TS_SAVED=$TS
TS=$WORK/rank1-perturbed.sh
# shellcheck disable=SC2086
mpi_ts 1 "stencil2d on 3 ranks, rank 1 perturbed" 3 run "$SRC/configs/stencil2d.ini" $SIZES -o "$f"
TS=$TS_SAVED
[ "$(grep -c '^touchstone: error: verification failed: every grid point .*; over the parts of 3 ranks$' "$ERR")" = 1 ] ||
    { fail "rank 1 perturbed: expected rank 0's one 'verification failed' line"; sed 's/^/    | /' "$ERR" | head -5 >&2; }
expect_in "$ERR" "^touchstone: error: error [0-9.e+-]* > tolerance [0-9.e+-]* \\([1-9][0-9]* of 703 values outside\\)\$" \
    "rank 1 perturbed: the error, the tolerance and the counts over all parts (37 x 19 points)"
expect_in "$OUT" "verified   FAILED" "rank 1 perturbed: the summary says FAILED"
[ "$("$H5GET" "$f" /verification@passed)" = 0 ] || fail "rank 1 perturbed: the file says passed"
[ "$("$H5GET" "$f" /verification@checked)" = 703 ] || fail "rank 1 perturbed: /verification@checked"
finish

#!/bin/sh
# Runs across ranks (issue 14): on 2 to 4 ranks (more ranks than cores: oversubscribed) every
# kernel is verified and its result is the unlaunched run's to the bit; the stencils' field after
# k iterations on R ranks, odd splits included, is the one-process field to the bit (halos); the
# file has one row per thread of every rank and the /mpi group; mpi.dims = auto takes the rank grid
# that fits the grid's shape (1009 x 5 on 5 ranks: 5x1, not MPI_Dims_create's 1x5) and records it.
# Usage: test_run_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN H5GET
. "$(dirname "$0")/lib.sh"
H5GET=${4:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1
SIZES="--set sum.n=300000 --set triad.n=200000 --set stencil.nx=70 --set stencil.ny=45 --set stencil.nz=13"
SIZES="$SIZES --set run.iterations=3 --set run.warmup=1"

# Under ASan (make test-asan sets ASAN_OPTIONS) the odd split alone: its memory errors are the
# others' too, and the normal pass checks the bits of every count.
RANK_COUNTS="2 3 4"
[ -n "${ASAN_OPTIONS:-}" ] && RANK_COUNTS=3
for kernel in sum triad stencil2d stencil3d; do
    # shellcheck disable=SC2086
    run_ts 0 "$kernel without a launcher" run "$SRC/configs/$kernel.ini" $SIZES --threads 2 \
        -o "$WORK/$kernel-alone.h5" || continue
    want=$(h5_bits "$WORK/$kernel-alone.h5" /results/global)
    [ "$want" = missing ] && { fail "$kernel without a launcher: no /results/global"; continue; }
    for ranks in $RANK_COUNTS; do # one rank: mpi.unlaunched
        threads=$((ranks == 2 ? 2 : 1))
        # shellcheck disable=SC2086
        mpi_ts 0 "$kernel on $ranks ranks x $threads threads" "$ranks" run "$SRC/configs/$kernel.ini" $SIZES \
            --threads "$threads" -o "$WORK/$kernel-$ranks.h5" || continue
        expect_in "$OUT" "^  verified   PASSED" "$kernel on $ranks ranks: verified"
        got=$(h5_bits "$WORK/$kernel-$ranks.h5" /results/global)
        [ "$got" = "$want" ] || fail "$kernel on $ranks ranks: result $got, without a launcher $want (bitwise)"
        rows=$("$H5GET" "$WORK/$kernel-$ranks.h5" /threads/table:rank | sort -n | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
        want_rows=$(r=0; while [ "$r" -lt "$ranks" ]; do printf '%d:%d ' "$r" "$threads"; r=$((r + 1)); done)
        if [ "$ranks" -gt 1 ]; then
            [ "$rows" = "$want_rows" ] || fail "$kernel on $ranks ranks: /threads rows per rank '$rows', want '$want_rows'"
            size=$("$H5GET" "$WORK/$kernel-$ranks.h5" /mpi@size)
            [ "$size" = "$ranks" ] || fail "$kernel on $ranks ranks: /mpi@size '$size'"
        fi
        # stencil2d.ini binds with the defaults, which each rank's OpenMP runtime is given as it
        # starts (app/early.c): rank 0 (whose times the file holds) was not re-executed.
        if [ "$kernel" = stencil2d ]; then
            [ "$("$H5GET" "$WORK/$kernel-$ranks.h5" /timings/reexec)" = 0 ] &&
                [ "$("$H5GET" "$WORK/$kernel-$ranks.h5" /threads@OMP_PLACES_source)" = config ] ||
                fail "$kernel on $ranks ranks: the default binding re-executed, or not from the config"
        fi
    done
done

# Halos: the field after 4 iterations on odd splits equals the one-process field bitwise.
# 3 ranks on 129 x 65 (auto: 3x1, the fewest halo points); 5 ranks on 17 x 9 x 31 (1x1x5).
field_case() {
    kernel=$1 ranks=$2 name=$3
    shift 3
    run_ts 0 "$name without a launcher" run "$SRC/configs/$kernel.ini" "$@" --set run.iterations=4 \
        --set output.write_field=true --threads 2 -o "$WORK/$name-alone.h5" || return
    mpi_ts 0 "$name on $ranks ranks" "$ranks" run "$SRC/configs/$kernel.ini" "$@" --set run.iterations=4 \
        --set output.write_field=true --threads "$RANK_THREADS" -o "$WORK/$name-$ranks.h5" || return
    expect_in "$OUT" "^  verified   PASSED" "$name on $ranks ranks: verified"
    h5diff "$WORK/$name-alone.h5" "$WORK/$name-$ranks.h5" /field /field >"$WORK/diff.txt" 2>&1 ||
        { fail "$name on $ranks ranks: the field differs from the one-process field"; head -5 "$WORK/diff.txt" >&2; }
    alone=$(h5_bits "$WORK/$name-alone.h5" /results/global)
    [ "$alone" != missing ] && [ "$alone" = "$(h5_bits "$WORK/$name-$ranks.h5" /results/global)" ] ||
        fail "$name on $ranks ranks: sum of u^2 differs from the one-process result"
}
RANK_THREADS=1
field_case stencil2d 3 "129x65" --set stencil.nx=129 --set stencil.ny=65
field_case stencil3d 5 "17x9x31" --set stencil.nx=17 --set stencil.ny=9 --set stencil.nz=31
field_case stencil3d 4 "20x18x11" --set stencil.nx=20 --set stencil.ny=18 --set stencil.nz=11
for case in 129x65-3:3x1 17x9x31-5:1x1x5 20x18x11-4:2x2x1; do
    got=$("$H5GET" "$WORK/${case%:*}.h5" /mpi@decomposition 2>/dev/null)
    [ "$got" = "${case#*:}" ] || fail "${case%-*} on auto dims: /mpi@decomposition '$got', want ${case#*:}"
done
# 1009 x 5 has 3 interior rows: auto takes 5 x 1 (MPI_Dims_create's 1 x 5 was refused), bitwise.
field_case stencil2d 5 "1009x5" --set stencil.nx=1009 --set stencil.ny=5 --set mpi.dims=auto
[ "$("$H5GET" "$WORK/1009x5-5.h5" /mpi@decomposition)" = 5x1 ] || fail "1009x5 on 5 ranks: /mpi@decomposition"
# Two threads a rank share the faces' copies and, by default, both halves of the overlapped
# step (the points that read no halo while the faces travel, then the rim; here with streaming
# stores); with TOUCHSTONE_HALO_OVERLAP=0 the exchange finishes before the whole step: the same
# bits either way.
RANK_THREADS=2
field_case stencil3d 4 "t2-20x18x11" --set stencil.nx=20 --set stencil.ny=18 --set stencil.nz=11 \
    --set stencil.nontemporal=true
MPI_ARGS="-x TOUCHSTONE_HALO_OVERLAP=0"
field_case stencil2d 3 "no-overlap-129x65" --set stencil.nx=129 --set stencil.ny=65
MPI_ARGS=""
RANK_THREADS=1
# An explicit rank grid (mpi.dims, x first): 2 x 2 in 2D, the file says which.
field_case stencil2d 4 "2x2-on-33x20" --set stencil.nx=33 --set stencil.ny=20 --set mpi.dims=2x2
[ "$("$H5GET" "$WORK/2x2-on-33x20-4.h5" /mpi@decomposition)" = 2x2 ] || fail "mpi.dims = 2x2: /mpi@decomposition"
# dims whose product is not the rank count: refused by every rank alike, exit 2, one message that
# names the rank grid that works (8192 x 8192 on 2 ranks: auto's 1x2).
mpi_ts 2 "mpi.dims = 3x1 on 2 ranks" 2 run "$SRC/configs/stencil2d.ini" --set mpi.dims=3x1 -o "$WORK/bad.h5"
[ "$(grep -c '^touchstone: error: stencil2d on 2 ranks: ' "$ERR")" = 1 ] ||
    { fail "mpi.dims = 3x1 on 2 ranks: expected one refusal"; sed 's/^/    | /' "$ERR" | head -5 >&2; }
expect_in "$ERR" "^touchstone: error: stencil2d on 2 ranks: dims 3x1 make 3 ranks, but the run has 2; mpi.dims = 1x2 fits \(auto's choice\)" \
    "mpi.dims = 3x1 on 2 ranks: the suggestion"
[ -e "$WORK/bad.h5" ] && fail "mpi.dims = 3x1 on 2 ranks: a file was written"
finish

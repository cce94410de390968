#!/bin/sh
# The kernel variants the config selects reach the kernels and the record: sum.mode = fast
# verifies on any thread count; the sum records the vectors the CPU gave it; streaming stores,
# stencil3d blocking and time_block give the plain kernels' result bit for bit; the variant and
# the rows per block are printed and stored.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}

for threads in 1 2 3 4; do
    # shellcheck disable=SC2086
    run_ts 0 "fast sum on $threads threads" run "$SRC/configs/sum.ini" $SMALL --set sum.n=100003 \
        --set sum.mode=fast --threads "$threads" -o "$WORK/f$threads.h5" && expect_in "$OUT" "variant    fast:" "fast sum variant line"
done

# The sum's vector variant is the CPU's, chosen at run time (Linux lists avx512f only when the
# kernel enables its registers, as the run's check requires), and the file records it. The bits
# never depend on it (tests/kernels/test_block_sum.c).
if grep -qw avx512f /proc/cpuinfo; then lanes="AVX-512"; else lanes="portable vectors"; fi
for mode in fast reproducible; do
    # shellcheck disable=SC2086
    run_ts 0 "$mode sum, its vector variant" run "$SRC/configs/sum.ini" $SMALL --set sum.n=5000 --set sum.mode=$mode \
        --threads 2 -o "$WORK/lanes-$mode.h5" || continue
    expect_in "$OUT" "variant    $mode: .*; $lanes" "$mode sum: the variant line names the CPU's vectors ($lanes)"
    case $("$H5GET" "$WORK/lanes-$mode.h5" /results@variant) in
    "$mode: "*"; $lanes"*) ;;
    *) fail "$mode sum: /results@variant is '$("$H5GET" "$WORK/lanes-$mode.h5" /results@variant)', without '$lanes'" ;;
    esac
done

# The variant's result, printed to 17 digits, must be the plain kernel's. Each pair of runs
# writes files of its own ($p, $v): an existing output is never replaced.
PAIRS=0
same_result() { # DESCRIPTION PLAIN_ARGS VARIANT_ARGS (word lists)
    PAIRS=$((PAIRS + 1))
    p=$WORK/p$PAIRS.h5 v=$WORK/v$PAIRS.h5
    # shellcheck disable=SC2086
    run_ts 0 "$1 (plain)" run $2 -o "$p" || return
    want=$(result_of)
    # shellcheck disable=SC2086
    run_ts 0 "$1" run $3 -o "$v" || return
    [ "$(result_of)" = "$want" ] || fail "$1: result $(result_of) differs from the plain kernel's $want"
}
S3="$SRC/configs/stencil3d.ini --set stencil.nx=17 --set stencil.ny=29 --set stencil.nz=11 --threads 3"
S2="$SRC/configs/stencil2d.ini --set stencil.nx=129 --set stencil.ny=65 --threads 2"
T="$SRC/configs/triad.ini --set triad.n=100003"
same_result "triad, streaming stores" "$T" "$T --set triad.nontemporal=true"
same_result "stencil2d, streaming stores" "$S2 --set run.iterations=5" "$S2 --set run.iterations=5 --set stencil.nontemporal=on"
same_result "stencil3d in blocks of 4 rows" "$S3 --set run.iterations=5" "$S3 --set run.iterations=5 --set stencil.block_y=4"
# time_block k: warm-up and iterations are k steps each, so 1 + 2 iterations of 3 steps are 9 steps.
same_result "stencil2d, time_block 3" "$S2 --set run.warmup=1 --set run.iterations=8" \
    "$S2 --set run.warmup=1 --set run.iterations=2 --set stencil.time_block=3"
same_result "stencil3d, time_block 4" "$S3 --set run.warmup=0 --set run.iterations=8" \
    "$S3 --set run.warmup=0 --set run.iterations=2 --set stencil.time_block=4"
expect_in "$OUT" "variant    temporal blocking: 4 steps per iteration" "time_block variant line"

# The rows per block the automatic choice made are recorded; unblocked runs record 0. 16 rows fit
# (at least 16: kernels/stencil_sweep.c), so 38 rows make 3 blocks, cut evenly: 13, 13 and 12,
# not 16, 16 and a sliver of 6.
run_ts 0 "wide stencil3d" run "$SRC/configs/stencil3d.ini" --set stencil.nx=8192 --set stencil.ny=40 \
    --set stencil.nz=4 --set run.iterations=1 -o "$WORK/w.h5"
[ "$("$H5GET" "$WORK/w.h5" /results@block_y)" = 13 ] || fail "block_y of an 8192-wide grid: $("$H5GET" "$WORK/w.h5" /results@block_y), expected 13"
expect_in "$OUT" "y-blocked: 13 of 38 rows per block" "blocked variant line"
# stencil3d's rows are the CPU's too: AVX-512 on CPUs that have it (kernels/stencil_wide.c),
# else the portable ones; the file records which ran. The bits never depend on it
# (tests/kernels/test_stencil_rows.c).
if grep -qw avx512f /proc/cpuinfo; then rows="AVX-512 rows"; else rows="portable rows"; fi
case $("$H5GET" "$WORK/w.h5" /results@variant) in
*"; $rows") ;;
*) fail "stencil3d: /results@variant is '$("$H5GET" "$WORK/w.h5" /results@variant)', not ending in '; $rows'" ;;
esac
[ "$("$H5GET" "$v" /results@block_y)" = 0 ] || fail "an unblocked run records block_y $("$H5GET" "$v" /results@block_y)"
# Three planes a pass only where the planes are whole cache lines apart (8192 x 40 doubles): with
# 41 x 41 planes two of the three planes' stores would split lines, and each plane goes alone.
if [ "$rows" = "AVX-512 rows" ]; then
    expect_in "$OUT" "three planes a pass" "three planes a pass on 8192 x 40 planes"
    run_ts 0 "planes not a whole number of lines" run "$SRC/configs/stencil3d.ini" --set stencil.nx=41 --set stencil.ny=41 \
        --set stencil.nz=6 --set run.iterations=1 -o "$WORK/odd.h5"
    case $("$H5GET" "$WORK/odd.h5" /results@variant) in
    *"three planes a pass"*) fail "41 x 41 planes taken three a pass: $("$H5GET" "$WORK/odd.h5" /results@variant)" ;;
    esac
fi
# time_block 4 on 400-wide planes: skewed y-tiles of 2(4 + 2) strips of tile + 5 rows, 38 400
# bytes a row of strips, within what the wavefront may fill (kernels/stencil_wavefront.c): 3/4
# of the L2's first MiB and half of the rest. With a 1 MiB L2, 786,432 bytes: 20 rows of strips,
# tiles of 15, so 38 rows make 3 tiles, cut evenly to 13, 13 and 12; with 2 MiB, 1,310,720
# bytes: 34 rows, tiles of 29, two of 19. 88 x 88 planes fit whole (the bench's time-block row).
L2=$(getconf LEVEL2_CACHE_SIZE 2>/dev/null)
TILE=$(awk -v l2="${L2:-0}" 'BEGIN { b = 786432 + (l2 > 1048576 ? int((l2 - 1048576) / 2) : 0)
    fit = int(b / 38400) - 5; n = int((38 + fit - 1) / fit); print int((38 + n - 1) / n) }')
run_ts 0 "time_block 4, 400-wide planes" run "$SRC/configs/stencil3d.ini" --set stencil.nx=400 --set stencil.ny=40 \
    --set stencil.nz=5 --set stencil.time_block=4 --set run.iterations=1 -o "$WORK/t.h5"
[ "$("$H5GET" "$WORK/t.h5" /results@block_y)" = "$TILE" ] || fail "tiles of a 400-wide grid: $("$H5GET" "$WORK/t.h5" /results@block_y) rows, expected $TILE (L2 ${L2:-unknown} bytes)"
expect_in "$OUT" "variant    temporal blocking: 4 steps per iteration, per-thread wavefronts, skewed y-tiles: $TILE of 38 rows per tile" "tiled variant line"
# 5 planes are too few for the wavefront's rings (kernels/stencil_wave_levels.c); 20 are enough.
run_ts 0 "time_block 4, 20 planes" run "$SRC/configs/stencil3d.ini" --set stencil.nx=400 --set stencil.ny=40 \
    --set stencil.nz=20 --set stencil.time_block=4 --set run.iterations=1 -o "$WORK/t20.h5"
expect_in "$OUT" "variant    temporal blocking: 4 steps per iteration, per-thread wavefronts, inner steps in L2 rings, skewed y-tiles: $TILE of 38 rows per tile" "ring variant line"
run_ts 0 "time_block 4, 88 x 88 planes" run "$SRC/configs/stencil3d.ini" --set stencil.nx=88 --set stencil.ny=88 \
    --set stencil.nz=5 --set stencil.time_block=4 --set run.iterations=1 -o "$WORK/t88.h5"
[ "$("$H5GET" "$WORK/t88.h5" /results@block_y)" = 0 ] || fail "88 x 88 planes in tiles of $("$H5GET" "$WORK/t88.h5" /results@block_y) rows, expected whole planes"

# shellcheck disable=SC2086
run_ts 2 "streaming stores with temporal blocking" run "$SRC/configs/stencil2d.ini" $SMALL \
    --set stencil.nontemporal=true --set stencil.time_block=2 -o "$WORK/x.h5" \
    && expect_in "$ERR" "stencil.nontemporal = true with stencil.time_block = 2" "refusal names both keys"
finish

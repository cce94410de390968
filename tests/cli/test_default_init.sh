#!/bin/sh
# The acceptance run: configs/default.ini with and without --serial-init both verify and write
# files whose /results agree bitwise; the file holds every group of the schema.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
# Under ASan (make test-asan sets ASAN_OPTIONS) the same runs on a quarter of the grid, a tenth
# of the iterations: the same code (2 arrays of 32 MiB, huge pages for both threads), 10 times
# slower a step there; the assertions hold for any size, and the Release pass runs the file as it is.
SIZE=
[ -n "${ASAN_OPTIONS:-}" ] && SIZE="--set stencil.nx=2048 --set stencil.ny=2048 --set run.iterations=10"

# shellcheck disable=SC2086
run_ts 0 "default.ini, parallel init" run "$SRC/configs/default.ini" $SIZE -o "$WORK/parallel.h5"
expect_in "$OUT" "init       parallel first touch" "parallel init reported"
# shellcheck disable=SC2086
run_ts 0 "default.ini, serial init" run "$SRC/configs/default.ini" $SIZE --serial-init -o "$WORK/serial.h5"
expect_in "$OUT" "init       serial first touch" "serial init reported"

for run in parallel serial; do
    for path in /results/global /results/thread_partials /results/node_partials /results/node_ids; do
        "$H5GET" -x "$WORK/$run.h5" $path >>"$WORK/$run.txt" || fail "cannot read $path of the $run run"
    done
    [ "$("$H5GET" "$WORK/$run.h5" /verification@passed)" = 1 ] || fail "$run run not verified in the file"
done
cmp -s "$WORK/parallel.txt" "$WORK/serial.txt" || {
    fail "serial and parallel /results differ"
    diff "$WORK/parallel.txt" "$WORK/serial.txt" >&2
}

h5dump -H "$WORK/parallel.h5" >"$WORK/header.txt" 2>&1 || fail "h5dump cannot read the run file"
for group in config environment topology threads timings results verification; do
    expect_in "$WORK/header.txt" "GROUP \"$group\"" "group /$group present"
done
expect_not_in "$WORK/header.txt" "GROUP \"field\"" "no /field unless output.write_field = true"
finish

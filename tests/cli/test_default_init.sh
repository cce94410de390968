#!/bin/sh
# The acceptance run: configs/default.ini with and without --serial-init both verify and write
# files whose /results agree bitwise; the file holds every group of the schema.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}

run_ts 0 "default.ini, parallel init" run "$SRC/configs/default.ini" -o "$WORK/parallel.h5"
expect_in "$OUT" "init       parallel first touch" "parallel init reported"
run_ts 0 "default.ini, serial init" run "$SRC/configs/default.ini" --serial-init -o "$WORK/serial.h5"
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

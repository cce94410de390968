#!/bin/sh
# The acceptance run: configs/default.ini with and without --serial-init both verify and write
# files whose /results agree bitwise; the file holds every group of the schema.
. "$(dirname "$0")/lib.sh"
PROBE=${3:?path to h5_results}

run_ts 0 "default.ini, parallel init" run "$SRC/configs/default.ini" -o "$WORK/parallel.h5"
expect_in "$OUT" "init       parallel first touch" "parallel init reported"
run_ts 0 "default.ini, serial init" run "$SRC/configs/default.ini" --serial-init -o "$WORK/serial.h5"
expect_in "$OUT" "init       serial first touch" "serial init reported"

"$PROBE" "$WORK/parallel.h5" >"$WORK/parallel.txt" || fail "cannot read /results of the parallel run"
"$PROBE" "$WORK/serial.h5" >"$WORK/serial.txt" || fail "cannot read /results of the serial run"
expect_in "$WORK/parallel.txt" "^/verification/passed 1$" "parallel run verified in the file"
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

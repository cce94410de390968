#!/bin/sh
# The reader on truncated and corrupted copies of a real run file, in memory: refused with the
# file named, or read with sane values; never a crash (tests/io/read_sweep.c).
. "$(dirname "$0")/../cli/lib.sh"
SWEEP=${3:?path to read_sweep}

# shellcheck disable=SC2086
run_ts 0 "a run to damage" run "$SRC/configs/stencil2d.ini" $SMALL -o "$WORK/run.h5" -q || finish
"$SWEEP" "$WORK/run.h5" || fail "read_sweep (exit status $?)"
finish

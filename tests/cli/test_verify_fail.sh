#!/bin/sh
# A run whose result is wrong exits 1, says so as an error, and still writes its file (marked failed).
# The fault comes from outside: a preloaded sin() that is off by 1e-9 (argument 3: the library).
. "$(dirname "$0")/lib.sh"
PRELOAD=${3:?path to the perturbing library}

# shellcheck disable=SC2086
LD_PRELOAD=$PRELOAD run_ts 1 "perturbed stencil2d" run "$SRC/configs/stencil2d.ini" $SMALL -o "$WORK/bad.h5"
expect_in "$ERR" "^touchstone: error: verification failed" "failure is reported as an error (touchstone: error:) on stderr"
expect_in "$OUT" "verified   FAILED" "summary says FAILED"
[ -s "$WORK/bad.h5" ] || fail "a failed verification must still write its file"

# The same run without the fault verifies (the fault, not the config, caused the failure).
# shellcheck disable=SC2086
run_ts 0 "unperturbed stencil2d" run "$SRC/configs/stencil2d.ini" $SMALL -o "$WORK/good.h5"
finish

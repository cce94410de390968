#!/bin/sh
# `touchstone check`: the resolved config and its memory; problems too big are refused before allocating.
. "$(dirname "$0")/lib.sh"

run_ts 0 "check default.ini" check "$SRC/configs/default.ini"
expect_in "$OUT" "^kernel = stencil2d" "check prints the resolved kernel"
expect_in "$OUT" "^\[openmp\]" "check prints sections"
expect_in "$OUT" "^memory needed: 256.[0-9]+ MiB\$" "check prints the memory the default needs"
expect_in "$OUT" "^  arrays +256 MiB +\(2 arrays of 128 MiB\)\$" "check prints the arrays' share"
expect_in "$OUT" "^  timings +[0-9.]+ KiB +\(101 steps; 100 iterations x [0-9]+ threads\)\$" "check prints the timings' share"
expect_in "$OUT" "MemAvailable" "check names the limits it checked"

run_ts 0 "check with --set" check "$SRC/configs/default.ini" --set run.kernel=triad --set triad.n=1000
expect_in "$OUT" "^kernel = triad" "--set changes the resolved kernel"
expect_in "$OUT" "^  arrays +23.44 KiB +\(3 arrays of 7.81 KiB\)\$" "triad memory = 3 arrays"

run_ts 2 "check a problem bigger than memory" check "$SRC/configs/default.ini" --set run.kernel=sum --set sum.n=1e12
expect_in "$ERR" "sum needs 7.28 TiB \(1 array of 7.28 TiB, and [0-9.]+ KiB for the times of 100 iterations x [0-9]+ threads, the threads' records and the results file; 80000000[0-9]{5} bytes\) but .* allows only .*; reduce the problem size\$" "too big for memory: the numbers"

# A run that cannot fit is refused before allocating or writing anything.
cd "$WORK" || exit 1
run_ts 2 "run a problem bigger than memory" run "$SRC/configs/default.ini" --set stencil.nx=1000000 --set stencil.ny=1000000 -o big.h5
expect_in "$ERR" "stencil2d needs .* allows only" "too big for memory at run time"
[ ! -e big.h5 ] || fail "a refused run wrote big.h5"

run_ts 2 "unstable alpha" check "$SRC/configs/default.ini" --set stencil.alpha=0.3
expect_in "$ERR" "alpha" "unstable alpha is named"
finish

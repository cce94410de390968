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

# check takes every option of run, with the same meaning: the command line about to be submitted.
run_ts 0 "check with run's options" check "$SRC/configs/default.ini" --threads 3 --serial-init -o 'out-%k.h5' \
    --set stencil.nx=64
expect_in "$OUT" "^threads = 3 +; --set #1$" "check --threads sets openmp.threads"
expect_in "$OUT" "^mode = serial +; --set #2$" "check --serial-init sets init.mode"
expect_in "$OUT" "^file = out-%k.h5 +; --set #3$" "check -o sets output.file"
run_ts 0 "check --output= and -oFILE" check "$SRC/configs/default.ini" --output=a.h5 -ob.h5
expect_in "$OUT" "^file = b.h5 +; --set #2$" "the last -o wins, as in run"
run_ts 0 "check --quiet" check "$SRC/configs/default.ini" --quiet
[ ! -s "$OUT" ] || fail "check --quiet printed on stdout: $(head -1 "$OUT")"
run_ts 0 "check -q still warns" check "$SRC/configs/default.ini" -q --set sum.n=5
expect_in "$ERR" "warning: \[sum\] n = 5 \(--set #1\) has no effect: kernel stencil2d does not read it" "check -q warns of sum.n"
[ ! -s "$OUT" ] || fail "check -q printed on stdout"
run_ts 2 "check -q still fails" check "$SRC/configs/default.ini" -q --threads 5000

# --restart: the checkpoint must be there and be an HDF5 file.
run_ts 2 "check --restart of a missing file" check "$SRC/configs/default.ini" --restart "$WORK/nope.ckpt.h5"
expect_in "$ERR" "^touchstone: error: --restart $WORK/nope.ckpt.h5: cannot read the checkpoint: No such file or directory$" "missing checkpoint"
run_ts 2 "check --restart of a config" check "$SRC/configs/default.ini" --restart "$SRC/configs/sum.ini"
expect_in "$ERR" "--restart $SRC/configs/sum.ini: not an HDF5 file" "checkpoint that is not HDF5"
run_ts 2 "check --restart of a directory" check "$SRC/configs/default.ini" --restart "$WORK"
expect_in "$ERR" "--restart $WORK: not a regular file" "checkpoint that is a directory"
# shellcheck disable=SC2086
run_ts 0 "a run to restart from" run "$SRC/configs/sum.ini" $SMALL -q -o "$WORK/r.h5"
run_ts 0 "check --restart of an HDF5 file" check "$SRC/configs/sum.ini" --restart "$WORK/r.h5"
expect_in "$OUT" "^restart from $WORK/r.h5: an HDF5 file, readable" "check --restart says what it checked"
finish

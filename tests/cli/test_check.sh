#!/bin/sh
# `touchstone check`: the resolved config and its memory; problems too big are refused before allocating.
. "$(dirname "$0")/lib.sh"
SIGP=${3:?path to sig_pending}

run_ts 0 "check default.ini" check "$SRC/configs/default.ini"
expect_in "$OUT" "^kernel = stencil2d" "check prints the resolved kernel"
expect_in "$OUT" "^\[openmp\]" "check prints sections"
expect_in "$OUT" "^memory needed: 27[0-9].[0-9]+ MiB\$" "check prints the memory the default needs"
expect_in "$OUT" "^  arrays +256 MiB +\(2 arrays of 128 MiB\)\$" "check prints the arrays' share"
expect_in "$OUT" "^  timings +[0-9.]+ KiB +\(101 steps; 100 iterations x [0-9]+ threads\)\$" "check prints the timings' share"
expect_in "$OUT" "MemAvailable" "check names the limits it checked"

run_ts 0 "check with --set" check "$SRC/configs/default.ini" --set run.kernel=triad --set triad.n=1000
expect_in "$OUT" "^kernel = triad" "--set changes the resolved kernel"
expect_in "$OUT" "^  arrays +23.44 KiB +\(3 arrays of 7.81 KiB\)\$" "triad memory = 3 arrays"

run_ts 2 "check a problem bigger than memory" check "$SRC/configs/default.ini" --set run.kernel=sum --set sum.n=1e12
expect_in "$ERR" "sum needs 7.28 TiB \(1 array of 7.28 TiB, and [0-9.]+ MiB for the times of 100 iterations x [0-9]+ threads, the threads' records and the results file; 80000[0-9]{8} bytes\) but .* allows only .*; reduce the problem size\$" "too big for memory: the numbers"

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

# A memory limit from the environment that is not a number cannot be kept: refused by check and
# run alike, naming the variable (neither used nor ignored in silence).
expect_run 2 "check under SLURM_MEM_PER_NODE=abc" env SLURM_MEM_PER_NODE=abc "$TS" check "$SRC/configs/sum.ini"
expect_in "$ERR" "^touchstone: error: SLURM_MEM_PER_NODE='abc' is not a whole number, as Slurm writes it: the memory limit it sets cannot be kept; unset it or give the number\$" \
    "SLURM_MEM_PER_NODE=abc named"
expect_run 2 "run under SLURM_MEM_PER_NODE=abc" env SLURM_MEM_PER_NODE=abc "$TS" run "$SRC/configs/sum.ini" -o "$WORK/slurm-mem.h5"
expect_in "$ERR" "^touchstone: error: SLURM_MEM_PER_NODE='abc' is not" "run: SLURM_MEM_PER_NODE=abc named"
[ -e "$WORK/slurm-mem.h5" ] && fail "run under SLURM_MEM_PER_NODE=abc wrote a file"
expect_run 2 "check under SLURM_MEM_PER_CPU=12x" env SLURM_MEM_PER_CPU=12x SLURM_CPUS_ON_NODE=2 "$TS" check "$SRC/configs/sum.ini"
expect_in "$ERR" "^touchstone: error: SLURM_MEM_PER_CPU='12x' is not" "SLURM_MEM_PER_CPU=12x named"
expect_run 2 "check under SLURM_CPUS_ON_NODE=two" env SLURM_MEM_PER_CPU=100 SLURM_CPUS_ON_NODE=two "$TS" check "$SRC/configs/sum.ini"
expect_in "$ERR" "^touchstone: error: SLURM_CPUS_ON_NODE='two' is not" "SLURM_CPUS_ON_NODE=two named"
expect_run 0 "check under SLURM_MEM_PER_NODE=0 (Slurm's --mem=0: the whole node)" env SLURM_MEM_PER_NODE=0 "$TS" check "$SRC/configs/sum.ini"

# The output judged as run judges it: a directory that is not there, a name that is taken.
run_ts 2 "check with an output in a missing directory" check "$SRC/configs/sum.ini" -o "$WORK/nodir/x.h5"
expect_in "$ERR" "^touchstone: error: cannot write output $WORK/nodir/x\.h5: No such file or directory\$" \
    "check: output in a missing directory"
: >"$WORK/taken.h5"
run_ts 2 "check with an output that exists" check "$SRC/configs/sum.ini" -o "$WORK/taken.h5"
expect_in "$ERR" "^touchstone: error: $WORK/taken\.h5 exists; remove it, choose another -o, or add --overwrite to replace it\$" \
    "check: output that exists"
run_ts 0 "check with --overwrite" check "$SRC/configs/sum.ini" -o "$WORK/taken.h5" --overwrite
expect_in "$OUT" "^output $WORK/taken\.h5, its checkpoint $WORK/taken\.ckpt\.h5: the directory takes files\$" \
    "check: the output it judged"
[ -s "$WORK/taken.h5" ] && fail "check wrote into the output"
ls "$WORK" | grep -q '\.tmp\.\|probe' && fail "check left a file of its own in the output's directory"

# --restart: the checkpoint read as run --restart reads it, with run's messages.
run_ts 2 "check --restart of a missing file" check "$SRC/configs/default.ini" --restart "$WORK/nope.ckpt.h5"
expect_in "$ERR" "^touchstone: error: cannot read checkpoint: cannot read $WORK/nope.ckpt.h5: No such file or directory$" "missing checkpoint"
run_ts 2 "check --restart of a config" check "$SRC/configs/default.ini" --restart "$SRC/configs/sum.ini"
expect_in "$ERR" "cannot read checkpoint: $SRC/configs/sum.ini: not an HDF5 file" "checkpoint that is not HDF5"
run_ts 2 "check --restart of a directory" check "$SRC/configs/default.ini" --restart "$WORK"
expect_in "$ERR" "cannot read checkpoint: cannot read $WORK: Is a directory" "checkpoint that is a directory"
# shellcheck disable=SC2086
run_ts 0 "a run to restart from" run "$SRC/configs/sum.ini" $SMALL -q -o "$WORK/r.h5"
run_ts 2 "check --restart of a results file" check "$SRC/configs/sum.ini" --restart "$WORK/r.h5"
expect_in "$ERR" "not a touchstone checkpoint" "check --restart refuses a results file as run does"
# A checkpoint of this run (a SIGUSR1 pending from the start stops it after its first
# iteration): read whole; cut short, refused as run refuses it.
# shellcheck disable=SC2086
expect_run 3 "a stopped run" "$SIGP" USR1 "$TS" run "$SRC/configs/sum.ini" $SMALL -q -o "$WORK/s.h5"
# shellcheck disable=SC2086
run_ts 0 "check --restart of its checkpoint" check "$SRC/configs/sum.ini" $SMALL --restart "$WORK/s.ckpt.h5"
expect_in "$OUT" "^restart from $WORK/s.ckpt.h5: a checkpoint of this run after 1 of [0-9]+ iterations, every dataset and its digest read\$" \
    "check --restart says what it read"
head -c "$(($(wc -c <"$WORK/s.ckpt.h5") - 2000))" "$WORK/s.ckpt.h5" >"$WORK/cut.ckpt.h5"
# shellcheck disable=SC2086
run_ts 2 "check --restart of a truncated checkpoint" check "$SRC/configs/sum.ini" $SMALL --restart "$WORK/cut.ckpt.h5"
expect_in "$ERR" "^touchstone: error: cannot read checkpoint: $WORK/cut.ckpt.h5: " "truncated checkpoint refused"
finish

#!/bin/bash
# shellcheck disable=SC2086,SC1091,SC2015  # $SMALL, $RUN: option lists; lib.sh is next to this file
# jobs/binding.sbatch with 2 CPUs: close, spread, unbound and the deliberately wrong one-core
# run. The stacked-threads warning must be in the one-core file and its part of the log, never
# in close or spread; unbound warns that binding is off.
. "$(dirname "$0")/lib.sh" "$@"

id=$(submit -c 2 "$JOBS/binding.sbatch" "$SRC/configs/stencil2d.ini" $SMALL) || finish
wait_jobs 90 "$id"
log=binding-$id.log
expect_job_ok "$id" "$log"
# With touchstone compare, the script ends with the four runs side by side.
if has_command compare; then
    expect_in "$log" "==> comparison" "binding.sbatch compares the four runs"
fi

for b in close spread unbound one-core; do
    f=results/binding-$id-$b.h5
    expect_verified "$f" "$b" || show_log "$log"
    expect_h5 "$f" /results@n_threads 2 "$b: 2 threads"
done
close=results/binding-$id-close.h5
spread=results/binding-$id-spread.h5
unbound=results/binding-$id-unbound.h5
onecore=results/binding-$id-one-core.h5

expect_h5 "$close" /threads@OMP_PROC_BIND close "close"
expect_h5 "$spread" /threads@OMP_PROC_BIND spread "spread"
expect_h5 "$unbound" /threads@OMP_PROC_BIND false "unbound"
for f in "$close" "$spread"; do
    expect_no_warning "$f" "$STACKED" "$(basename "$f"): srun -c 2 gives each thread a core"
    [ "$(h5 "$f" /threads/table:core | sort -u | wc -l)" -eq 2 ] || fail "$(basename "$f"): threads not on 2 cores"
done
expect_warning "$unbound" "binding is off" "unbound run"
# The wrong one: srun without -c gives the step one CPU; all threads stack on it, loudly.
expect_warning "$onecore" "ALL 2 THREADS ARE ON ONE CORE" "one-core run"
expect_warning "$onecore" "2 threads but only 1 CPU available" "one-core run"
[ "$(h5 "$onecore" /threads/table:core | sort -u | wc -l)" -eq 1 ] || fail "one-core: threads not on one core"

# ... and in the log, where a user looks first: in the one-core part, not in close or spread.
# (The unbound run may land both threads on one core by chance: that is what unbound means,
# so it is not held to "no stacking".)
sed -n '/^==> one-core/,/^binding.sbatch: one-core/p' "$log" >one-core.txt
expect_in one-core.txt "ALL 2 THREADS ARE ON ONE CORE" "the stacked warning in the one-core part of the log"
sed -n '/^==> close/,/^==> unbound/p' "$log" >close-spread.txt
if grep -Eq "$STACKED" close-spread.txt; then
    fail "a stacked warning in the log of close or spread:"
    grep -E "$STACKED" close-spread.txt >&2
fi
finish

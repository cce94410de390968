#!/bin/sh
# Binding: config values applied before the runtime starts, environment wins and is reported,
# and bad bindings warn loudly on stderr and in the file.
. "$(dirname "$0")/lib.sh"
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS SLURM_JOB_ID

# Defaults (cores, close) on 2 threads: applied from the config, no warnings (sum's own size only:
# the other kernels' keys of $SMALL would warn that they have no effect).
run_ts 0 "default binding" run "$SRC/configs/sum.ini" --set sum.n=100000 --set run.iterations=3 --threads 2 --set openmp.places=cores --set openmp.proc_bind=close -o "$WORK/a.h5"
expect_in "$OUT" "OMP_PLACES=cores \(config\), OMP_PROC_BIND=close \(config\)" "config binding applied and reported"
# (The small problem fits in the caches, and says so: that warning is not about binding.)
grep "warning" "$ERR" | grep -v "warning: the arrays (.*) fit in the" >"$WORK/other.txt"
[ -s "$WORK/other.txt" ] && fail "a sane binding gives no warnings: $(head -3 "$WORK/other.txt")"
expect_in "$OUT" "t0 cpu[0-9]+/core0/node[0-9]+, t1 cpu[0-9]+/core1/" "default binding: threads on separate cores"
# The defaults were given to the OpenMP runtime as it started (app/early.c answers its getenv):
# one process. Fails when the runtime did not ask with getenv (a libgomp that walks environ):
# the run then re-executes as for any other binding.
scalar() { h5dump -d "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): \(.*\)$/\1/p' | head -n 1; }
[ "$(scalar "$WORK/a.h5" /timings/reexec)" = 0 ] ||
    fail "default binding: re-executed (/timings/reexec = '$(scalar "$WORK/a.h5" /timings/reexec)'): the runtime did not take the defaults at its start"
# What environ held when the run recorded it, which a process it starts would inherit: the
# answer is never put in the environment.
h5dump -A -g /environment "$WORK/a.h5" >"$WORK/environment.txt" 2>&1 || fail "h5dump could not read /environment"
expect_not_in "$WORK/environment.txt" "OMP_PLACES|OMP_PROC_BIND" "default binding: the defaults left in the environment"
# Only `run` is answered: topo reads the variables from the environment, which has none.
run_ts 0 "topo" topo "$SRC/configs/sum.ini" --threads 2
expect_in "$OUT" "OMP_PLACES +cores +-> [0-9]+ places \(config\)" "topo: the config's places"
expect_not_in "$OUT" "OMP_PLACES .*\(environment\)" "topo: the defaults taken for the environment's"

# Other places than the defaults: applied by re-executing, as before.
run_ts 0 "places threads" run "$SRC/configs/sum.ini" --set sum.n=100000 --set run.iterations=2 --threads 2 \
    --set openmp.places=threads --set openmp.proc_bind=close -o "$WORK/threads.h5"
expect_in "$OUT" "OMP_PLACES=threads \(config\), OMP_PROC_BIND=close \(config\)" "places threads: applied from the config"
expect_in "$OUT" "t0 cpu[0-9]+/core[0-9]+/node[0-9]+, t1 cpu" "places threads: the threads ran"
[ "$(scalar "$WORK/threads.h5" /timings/reexec)" != 0 ] || fail "places threads: not re-executed (/timings/reexec = 0)"

# A re-execution marker this process did not set (jobs/check-binding.sh's TOUCHSTONE_BINDING=strict,
# or one inherited from another touchstone, with another pid) is ignored with a warning, and the
# config's binding is still applied.
for marker in strict "pid=1;places=config;proc_bind=config;cpus=0;OMP_PROC_BIND=;OMP_PLACES="; do
    TOUCHSTONE_BINDING="$marker" run_ts 0 "stale marker $marker" run "$SRC/configs/sum.ini" --set sum.n=100000 \
        --set run.iterations=2 --threads 2 --set openmp.places=cores -o "$WORK/marker.h5" --overwrite
    expect_in "$ERR" "warning: TOUCHSTONE_BINDING=.* is not the marker of this process's own re-execution" \
        "stale marker $marker: warned"
    expect_in "$OUT" "OMP_PLACES=cores \(config\), OMP_PROC_BIND=spread \(config\)" "stale marker $marker: the config's binding applied"
done

# A marker with this very pid whose values the environment does not hold: the re-execution went
# wrong, and re-executing again could loop forever; refused (sh's pid is touchstone's: exec keeps it).
expect_run 2 "a marker of this pid that does not match" timeout 60 sh -c \
    'exec env TOUCHSTONE_BINDING="pid=$$;places=config;proc_bind=config;cpus=0;OMP_PROC_BIND=close;OMP_PLACES=threads" "$@"' \
    sh "$TS" run "$SRC/configs/sum.ini" --set sum.n=100000 --threads 2 -q -o "$WORK/own.h5" &&
    expect_in "$ERR" "error: the re-executed touchstone does not find the binding it applied" "a marker of this pid that does not match: the message"

# Only one variable in the environment: the runtime already bound this process to one place
# before touchstone re-executed itself to apply the other; the threads must still spread.
for var in OMP_PLACES=cores OMP_PROC_BIND=close; do
    # shellcheck disable=SC2086
    env $var "$TS" run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$WORK/one-var-${var%%=*}.h5" >"$OUT" 2>"$ERR" \
        || fail "$var: run failed"
    expect_in "$OUT" "t0 cpu[0-9]+/core0/node[0-9]+, t1 cpu[0-9]+/core1/" "$var in the environment: threads on separate cores"
    expect_not_in "$ERR" "ONE CORE|only 1 CPU" "$var in the environment: no stacking"
done

# All threads on one core: impossible to miss.
# shellcheck disable=SC2086
OMP_PLACES='{0}' run_ts 0 "stacked threads" run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$WORK/b.h5"
expect_in "$ERR" "warning: ALL 2 THREADS ARE ON ONE CORE" "stacked threads warning"
expect_in "$ERR" "OMP_PLACES=\{0\} from the environment overrides openmp.places = cores" "environment override reported"
# The places, not the process, are short of CPUs: the warnings say so and do not blame srun.
expect_in "$ERR" "2 threads but OMP_PLACES=\{0\} gives them only 1 CPU \(0\) of the $(nproc) this process may use" \
    "OMP_PLACES={0}: the places named as the cause"
expect_in "$ERR" "ALL 2 THREADS ARE ON ONE CORE .*OMP_PLACES=\{0\} gives them only CPU 0" "OMP_PLACES={0}: the stacked line names the places"
expect_not_in "$ERR" "only 1 CPU available|srun|taskset" "OMP_PLACES={0}: neither the mask nor srun is blamed"
expect_in "$OUT" "OMP_PLACES=\{0\} \(environment\)" "summary names the environment as the source"
h5dump -d /warnings "$WORK/b.h5" >"$WORK/warnings.txt" 2>&1 || fail "h5dump could not read /warnings"
expect_in "$WORK/warnings.txt" "ALL 2 THREADS ARE ON ONE CORE" "the warning is in the file"

# Binding off.
# shellcheck disable=SC2086
run_ts 0 "binding off" run "$SRC/configs/sum.ini" $SMALL --threads 2 --set openmp.proc_bind=false -o "$WORK/c.h5"
expect_in "$ERR" "binding is off" "binding off warning"

# More threads than CPUs.
ncpu=$(nproc)
# shellcheck disable=SC2086
run_ts 0 "oversubscribed" run "$SRC/configs/sum.ini" $SMALL --threads $((ncpu + 1)) -o "$WORK/d.h5"
expect_in "$ERR" "$((ncpu + 1)) threads but only $ncpu CPUs" "oversubscription warning"

# OMP_PLACES naming a CPU the process may not use: named, with what to change.
missing_cpu=$((ncpu + 3))
# shellcheck disable=SC2086
OMP_PLACES="{0},{$missing_cpu}" run_ts 0 "place outside the mask" run "$SRC/configs/sum.ini" $SMALL --threads 1 -o "$WORK/e.h5"
expect_in "$ERR" "OMP_PLACES names CPU $missing_cpu that this process may not use" "places outside the mask"
# What the runtime applied is recorded as it says, not as the variable reads.
attr() { h5dump -a "/threads/$2" "$1" 2>/dev/null | sed -n 's/^ *(0): "\(.*\)"$/\1/p'; }
[ "$(attr "$WORK/e.h5" OMP_PLACES)" = "{0},{$missing_cpu}" ] || fail "OMP_PLACES not recorded as given: '$(attr "$WORK/e.h5" OMP_PLACES)'"
[ "$(attr "$WORK/e.h5" OMP_PLACES_applied)" = "{0}" ] ||
    fail "OMP_PLACES_applied is '$(attr "$WORK/e.h5" OMP_PLACES_applied)', not the runtime's {0}"
[ "$(attr "$WORK/c.h5" OMP_PROC_BIND_applied)" = false ] || fail "proc_bind false: OMP_PROC_BIND_applied is '$(attr "$WORK/c.h5" OMP_PROC_BIND_applied)'"
[ -z "$(attr "$WORK/c.h5" OMP_PLACES_applied)" ] || fail "proc_bind false: the runtime has places '$(attr "$WORK/c.h5" OMP_PLACES_applied)'"
[ "$(attr "$WORK/a.h5" OMP_PROC_BIND_applied)" = close ] || fail "OMP_PROC_BIND_applied is '$(attr "$WORK/a.h5" OMP_PROC_BIND_applied)', not the config's close"

# A task with one CPU and two threads (srun without -c, taskset): both on one core, loudly.
# shellcheck disable=SC2086
taskset -c 0 "$TS" run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$WORK/f.h5" >"$OUT" 2>"$ERR" \
    || fail "one-CPU mask: the run failed"
expect_in "$ERR" "2 threads but only 1 CPU available \(the process's affinity mask: 0\)" "one-CPU mask: oversubscription named"
expect_in "$ERR" "ALL 2 THREADS ARE ON ONE CORE" "one-CPU mask: stacked warning"
expect_in "$ERR" "only 1 CPU available.*taskset" "one-CPU mask outside Slurm: taskset named"
expect_not_in "$ERR" "OMP_PLACES=" "one-CPU mask: the places are not blamed"
# The same mask in a Slurm job: srun without -c, and both fixes the docs give.
# shellcheck disable=SC2086
SLURM_JOB_ID=4242 taskset -c 0 "$TS" run "$SRC/configs/sum.ini" $SMALL --threads 2 -o "$WORK/g.h5" >"$OUT" 2>"$ERR" \
    || fail "one-CPU mask under Slurm: the run failed"
expect_in "$ERR" "only 1 CPU available.*srun -c \\\$SLURM_CPUS_PER_TASK, or export SRUN_CPUS_PER_TASK=\\\$SLURM_CPUS_PER_TASK" \
    "one-CPU mask under Slurm: srun -c and SRUN_CPUS_PER_TASK named"
# OMP_PROC_BIND=primary keeps both threads in the first place: named as the cause.
# shellcheck disable=SC2086
run_ts 0 "primary" run "$SRC/configs/sum.ini" $SMALL --threads 2 --set openmp.proc_bind=primary -o "$WORK/h.h5"
expect_in "$ERR" "ALL 2 THREADS ARE ON ONE CORE .*OMP_PROC_BIND=primary keeps every thread" "proc_bind primary named"

# The effective values are recorded with their source.
h5dump -A -g /threads "$WORK/a.h5" >"$WORK/threads.txt" 2>&1 || fail "h5dump could not read /threads"
expect_in "$WORK/threads.txt" "OMP_PLACES_source" "binding source recorded in /threads"
finish

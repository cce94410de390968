#!/bin/sh
# What distorts results, recorded in every run (/environment) and shown by compare: the real
# conditions of this machine, and fake /proc and /sys trees (TOUCHSTONE_CONDITIONS_ROOT, for
# tests) that turn NUMA balancing on, which must make the run audit placement again after the
# iterations and count the pages that moved (none on this machine, whose kernel moves none:
# the fake tree only says balancing is on).
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND
get() { "$H5GET" "$WORK/$1" "$2"; }
RUN="run $SRC/configs/sum.ini $SMALL --threads 2 --overwrite"
KEYS="numa_balancing thp_enabled thp_defrag zone_reclaim_mode cpufreq_governor cpu_mhz smt smt_active load_average
others_busy_percent cpuset memory_limit_mib numa_free_mib"

# This machine: every key recorded, none empty; numa_balancing as the kernel says.
run_ts 0 "a run on this machine" $RUN -o "$WORK/real.h5" -q
for key in $KEYS; do
    value=$(get real.h5 "/environment@$key") || { fail "/environment@$key missing"; continue; }
    [ -n "$value" ] || fail "/environment@$key is empty"
done
REAL=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo unknown)
[ "$(get real.h5 /environment@numa_balancing)" = "$REAL" ] \
    || fail "numa_balancing recorded as $(get real.h5 /environment@numa_balancing), the kernel says $REAL"
if [ "$REAL" = 0 ]; then
    get real.h5 /placement/end@measured_after >/dev/null 2>&1 \
        && fail "balancing off and placement.at_end = false: no second audit expected"
fi

# Fake trees: the same machine twice, NUMA balancing off in one and on in the other.
fake_tree() {
    mkdir -p "$1/proc/sys/kernel" "$1/proc/sys/vm" "$1/sys/kernel/mm/transparent_hugepage" \
        "$1/sys/devices/system/cpu/smt" "$1/sys/devices/system/node/node0"
    echo "$2" >"$1/proc/sys/kernel/numa_balancing"
    echo 0 >"$1/proc/sys/vm/zone_reclaim_mode"
    echo "always [madvise] never" >"$1/sys/kernel/mm/transparent_hugepage/enabled"
    echo "always defer defer+madvise [madvise] never" >"$1/sys/kernel/mm/transparent_hugepage/defrag"
    echo notsupported >"$1/sys/devices/system/cpu/smt/control"
    echo 0 >"$1/sys/devices/system/cpu/smt/active"
    printf 'Node 0 MemFree: 4194304 kB\n' >"$1/sys/devices/system/node/node0/meminfo"
}
fake_tree "$WORK/off" 0
fake_tree "$WORK/on" 1

expect_run 0 "balancing off (fake tree)" env TOUCHSTONE_CONDITIONS_ROOT="$WORK/off" "$TS" $RUN -o "$WORK/off.h5"
expect_not_in "$ERR" "numa_balancing" "balancing off: no warning"
[ "$(get off.h5 /environment@numa_balancing)" = 0 ] || fail "fake balancing off not recorded"
[ "$(get off.h5 /environment@numa_free_mib)" = "0:4096" ] || fail "fake free memory not recorded"
get off.h5 /placement/end@measured_after >/dev/null 2>&1 && fail "balancing off: no second audit expected"

expect_run 0 "balancing on (fake tree)" env TOUCHSTONE_CONDITIONS_ROOT="$WORK/on" "$TS" $RUN -o "$WORK/on.h5"
[ "$(get on.h5 /environment@numa_balancing)" = 1 ] || fail "fake balancing on not recorded"
[ "$(get on.h5 /placement/end@measured_after)" = kernel ] || fail "balancing on: no audit after the iterations"
[ "$(get on.h5 /placement/end@pages_moved)" = 0 ] \
    || fail "pages moved on this machine: $(get on.h5 /placement/end@pages_moved), want 0"
expect_in "$ERR" "warning: kernel.numa_balancing is 1: the kernel moved at least 0 of [0-9]+ sampled pages \(0.0%\)" \
    "balancing on: the warning with the pages that moved"
expect_in "$ERR" "echo 0 > /proc/sys/kernel/numa_balancing" "balancing on: the fix"
get on.h5 /warnings | grep -q "kernel.numa_balancing is 1" || fail "balancing warning not in /warnings"
expect_in "$OUT" "local to their thread after kernel" "balancing on: the second audit in the summary"

# compare: exactly the condition that differs, one line; nothing when they agree.
run_ts 0 "compare, balancing off vs on" compare "$WORK/off.h5" "$WORK/on.h5"
expect_in "$OUT" "^machine conditions that differ from " "compare: the conditions heading"
[ "$(grep -c '^  [a-z_]*  .* vs ' "$OUT")" = 1 ] || fail "compare: want exactly one condition line"
expect_in "$OUT" "^  numa_balancing  0 vs 1$" "compare: the numa_balancing line"
run_ts 0 "compare, balancing off twice" compare "$WORK/off.h5" "$WORK/off.h5"
expect_not_in "$OUT" "machine conditions|numa_balancing" "compare of runs that agree: nothing"
run_ts 0 "compare, markdown" compare --format markdown "$WORK/off.h5" "$WORK/on.h5"
expect_in "$OUT" "^  - numa_balancing  0 vs 1$" "compare --format markdown: the numa_balancing item"

[ "$FAILURES" -eq 0 ] || exit 1

#!/bin/sh
# The page-placement audit and memory policies on this (one-node) machine: counts that add
# up, stride and end audit as configured, policies applied or refused. The two-node truths
# (serial init remote, interleave, bind:1) are checked in tests/numa_vm.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND

get() { "$H5GET" "$WORK/$1" "$2"; }
sum_of() { get "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'; }
PAGE=$(getconf PAGESIZE)
# Base pages throughout, so that the counts below are 4 KiB pages on any THP mode
# (init.huge_pages = false refuses huge pages even under "always"); test_huge_pages.sh covers
# the 2 MiB audit.
BASE="--set init.huge_pages=false"

# sum: 2^20 doubles = 8 MiB, one array.
N=1048576
PAGES=$((N * 8 / PAGE))
for init in parallel serial; do
    run_ts 0 "sum, $init init" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set run.iterations=2 --threads 2 \
        --set init.mode=$init -o "$WORK/$init.h5" || continue
    expect_in "$OUT" "pages      local to their thread after init: 100.0% \($init init, firsttouch policy; $PAGES pages, every 1," \
        "$init init: summary line (one NUMA node: every page is local)"
    [ "$(get $init.h5 /placement/local_fraction)" = 1 ] || fail "$init init: local_fraction is not 1"
    [ "$(sum_of $init.h5 /placement/thread_pages)" = $PAGES ] || fail "$init init: thread pages do not add up to $PAGES"
    [ "$(sum_of $init.h5 /placement/array_node_pages)" = $PAGES ] || fail "$init init: array pages do not add up to $PAGES"
    [ "$(sum_of $init.h5 /placement/array_absent_pages)" = 0 ] || fail "$init init: pages missing after init"
    [ "$(get $init.h5 /placement@measured_after)" = init ] || fail "$init init: measured_after"
    [ "$(get $init.h5 /placement@policy)" = firsttouch ] || fail "$init init: policy attribute"
    [ "$(get $init.h5 /placement@page_size)" = "$PAGE" ] || fail "$init init: page size"
done
# Each thread's chunk starts on a page: the two threads own 512-page halves.
[ "$(get parallel.h5 /placement/thread_pages | tr '\n' ' ')" = "$((PAGES / 2)) $((PAGES / 2)) " ] \
    || fail "chunks are not split on pages: $(get parallel.h5 /placement/thread_pages | tr '\n' ' ')"

# Every 4th page, and a second audit after the kernel.
run_ts 0 "stride 4, audit at end" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set run.iterations=2 --threads 2 \
    --set placement.sample_stride=4 --set placement.at_end=true -o "$WORK/stride.h5"
[ "$(get stride.h5 /placement@sample_stride)" = 4 ] || fail "sample_stride not recorded"
[ "$(sum_of stride.h5 /placement/thread_pages)" = $((PAGES / 4)) ] || fail "stride 4 did not sample a quarter of the pages"
[ "$(get stride.h5 /placement/end@measured_after)" = kernel ] || fail "no end audit with placement.at_end = true"
expect_in "$OUT" "local to their thread after kernel" "end audit in the summary"

# Stencil: two grids, rows partitioned; the audit covers both arrays.
run_ts 0 "stencil2d" run "$SRC/configs/stencil2d.ini" $BASE --set stencil.nx=1024 --set stencil.ny=512 \
    --set run.iterations=2 --threads 2 -o "$WORK/grid.h5"
GRID_PAGES=$((1024 * 512 * 8 / PAGE))
[ "$(get grid.h5 /placement/array_node_pages | tr '\n' ' ')" = "$GRID_PAGES $GRID_PAGES " ] \
    || fail "stencil2d: pages per array: $(get grid.h5 /placement/array_node_pages | tr '\n' ' ')"

# No audit when switched off.
run_ts 0 "audit off" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set run.iterations=2 --set placement.audit=false \
    -o "$WORK/off.h5"
get off.h5 /placement/local_fraction >/dev/null 2>&1 && fail "placement.audit = false still wrote /placement"
expect_not_in "$OUT" "pages      local" "no audit line when switched off"

# Policies: interleave and bind to an existing node run; a node that does not exist is refused.
for policy in interleave bind:0 preferred:0; do
    run_ts 0 "policy $policy" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set run.iterations=2 \
        --set init.policy=$policy -o "$WORK/policy-$policy.h5" || continue
    [ "$(get "policy-$policy.h5" /placement@policy)" = "$policy" ] || fail "policy $policy not recorded"
    [ "$(get "policy-$policy.h5" /placement/local_fraction)" = 1 ] || fail "policy $policy: pages not local on a one-node machine"
done
nodes=$(ls -d /sys/devices/system/node/node* | wc -l)
run_ts 2 "bind to a missing node" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set init.policy=bind:$nodes \
    -o "$WORK/missing.h5"
expect_in "$ERR" "init.policy: NUMA node $nodes does not exist or is not allowed \(this process may use nodes 0" \
    "a missing node is named with the nodes that exist"
[ -e "$WORK/missing.h5" ] && fail "a refused policy wrote a file"

# The THP mode is reported.
THP=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
[ "$(get parallel.h5 /topology@thp_enabled)" = "$THP" ] || fail "/topology thp_enabled is not '$THP'"
finish

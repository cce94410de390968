#!/bin/sh
# Per-thread counters from the kernel: who took the init page faults (serial init: thread 0;
# parallel: shared), and stacked threads time-slicing (involuntary context switches).
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND

get() { "$H5GET" "$WORK/$1" "$2"; }
# Percent of the init page faults taken by each thread, space-separated.
fault_shares() {
    get "$1" /counters/init:minor_faults | awk '{ f[NR] = $1; s += $1 } END { for (i = 1; i <= NR; i++) printf "%d ", 100 * f[i] / s }'
}

N=8388608 # 64 MiB: 16384 page faults of 4 KiB (no huge pages asked for), far above the runtime's own
BASE="--set init.huge_pages=false"
run_ts 0 "serial init" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set run.iterations=2 --threads 2 --serial-init -o "$WORK/serial.h5"
expect_in "$OUT" "counters   init page faults t0 [0-9]+%, t1 [0-9]+% of [0-9]+" "counters line in the summary"
set -- $(fault_shares serial.h5)
[ "$1" -ge 95 ] || fail "serial init: thread 0 took only $1% of the init page faults"

run_ts 0 "parallel init" run "$SRC/configs/sum.ini" $BASE --set sum.n=$N --set run.iterations=2 --threads 2 -o "$WORK/parallel.h5"
for share in $(fault_shares parallel.h5); do
    [ "$share" -ge 35 ] && [ "$share" -le 65 ] || fail "parallel init: a thread took $share% of the init page faults"
done
[ -n "$(get parallel.h5 /counters@migrations_source)" ] || fail "no migrations_source attribute"

# Two threads on one core time-slice: the kernel preempts one for the other many times. How
# many switches threads on separate cores see depends on what else the machine runs, so that
# run is not compared with (topo.counters ties each counter to its source deterministically).
switches() { get "$1" /counters/kernel:involuntary_switches | awk '{ s += $1 } END { print s + 0 }'; }
GRID="--set stencil.nx=1024 --set stencil.ny=1024 --set run.iterations=300 --threads 2"
# shellcheck disable=SC2086
OMP_PLACES='{0}' run_ts 0 "threads stacked on one core" run "$SRC/configs/stencil2d.ini" $GRID -o "$WORK/stacked.h5"
expect_in "$ERR" "ALL 2 THREADS ARE ON ONE CORE" "stacked warning"
stacked=$(switches stacked.h5)
[ "$stacked" -ge 20 ] || fail "stacked threads had $stacked involuntary switches: two busy threads on one core preempt each other"
finish

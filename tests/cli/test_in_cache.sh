#!/bin/sh
# A working set that fits in the last-level caches the threads run under is bandwidth of the
# caches: the summary's bandwidth line says "in cache", the run warns (stderr and /warnings)
# naming the sizes, and /results records both. One clearly larger than those caches does not.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS

# A virtual machine may show no cache at all (no /sys/devices/system/cpu/cpu0/cache): the rule
# then never applies, so the test runs on a synthetic node of the same CPUs with caches.
run_ts 0 "topo json (caches)" topo --format json || finish
if ! /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(c["type"] != "instruction" for c in d["caches"]) else 1)
' "$OUT"; then
    cpus=$(nproc)
    export HWLOC_SYNTHETIC="package:1 l3:1(size=32MiB) l2:$cpus(size=1MiB) core:1 pu:1" HWLOC_THISSYSTEM=1
    echo "this machine reports no caches: the test runs on the synthetic node \"$HWLOC_SYNTHETIC\""
fi

# 64 x 64: two arrays of 32 KiB, in cache on any machine with a cache.
run_ts 0 "64 x 64" run "$SRC/configs/stencil2d.ini" --set stencil.nx=64 --set stencil.ny=64 --set run.iterations=3 \
    --threads 2 -o "$WORK/small.h5" || finish
expect_in "$OUT" "^  bandwidth .* GB/s best  \[.*\]  in cache: the arrays fit in the last-level caches$" \
    "64 x 64: the bandwidth line says in cache"
expect_in "$ERR" "warning: the arrays \(64 KiB\) fit in the [0-9.]+ [KMG]iB of L[0-9] cache above the threads' CPUs" \
    "64 x 64: the warning names both sizes"
h5dump -d /warnings "$WORK/small.h5" >"$WORK/w.txt" 2>&1 || fail "h5dump could not read /warnings"
expect_in "$WORK/w.txt" "the arrays \(64 KiB\) fit in" "64 x 64: the warning is in the file"
ws=$("$H5GET" "$WORK/small.h5" /results@working_set_bytes)
llc=$("$H5GET" "$WORK/small.h5" /results@llc_bytes)
[ "$ws" = 65536 ] || fail "64 x 64: /results@working_set_bytes is '$ws', want 65536 (2 arrays of 64 x 64 doubles)"
[ "${llc:-0}" -ge 65536 ] 2>/dev/null || fail "64 x 64: /results@llc_bytes is '$llc', want at least the working set"

# Twice the machine's last-level caches (as the rule counts them: at most 48 MiB a core).
run_ts 0 "topo json" topo --format json || finish
side=$(/usr/bin/python3 -c '
import json, math, sys
d = json.load(open(sys.argv[1]))
data = [c for c in d["caches"] if c["type"] != "instruction"]
top = max(c["level"] for c in data)
total = sum(c["size_bytes"] * c["count"] for c in data if c["level"] == top)
total = min(total, d["cores"] * (48 << 20))
print(math.ceil(math.sqrt(2 * total / 16)))
' "$OUT") || { fail "cannot size the large grid from topo --format json"; finish; }
run_ts 0 "$side x $side" run "$SRC/configs/stencil2d.ini" --set stencil.nx="$side" --set stencil.ny="$side" \
    --set run.iterations=2 --set run.warmup=0 --threads 2 -o "$WORK/large.h5" || finish
expect_not_in "$OUT" "in cache" "$side x $side (twice the last-level caches): not in cache"
expect_not_in "$ERR" "fit in the" "$side x $side: no in-cache warning"
ws=$("$H5GET" "$WORK/large.h5" /results@working_set_bytes)
llc=$("$H5GET" "$WORK/large.h5" /results@llc_bytes)
[ "$ws" -gt "$llc" ] 2>/dev/null || fail "$side x $side: working set '$ws' not above llc_bytes '$llc'"

# A VM that gives each one-core virtual socket the host's whole L3 (508 MB, as hwloc reports
# it here through a synthetic topology of this machine's two CPUs): at most 48 MiB a core
# counts, so 128 MiB of arrays are not "in cache" though hwloc reports 969 MiB.
if [ "$(nproc)" -ge 2 ]; then
    vm() { HWLOC_SYNTHETIC="pack:1 l3:2(size=508MB) core:1 pu:1" HWLOC_THISSYSTEM=1 "$@"; }
    vm "$TS" run "$SRC/configs/stencil2d.ini" --set stencil.nx=2896 --set stencil.ny=2896 --set run.iterations=2 \
        --set run.warmup=0 --threads 2 -o "$WORK/vm.h5" >"$OUT" 2>"$ERR" || fail "VM topology: the run failed"
    expect_not_in "$OUT" "in cache" "VM topology, 128 MiB of arrays: not in cache"
    llc=$("$H5GET" "$WORK/vm.h5" /results@llc_bytes)
    [ "$llc" = $((2 * 48 << 20)) ] || fail "VM topology: llc_bytes '$llc', want 2 cores x 48 MiB"
    vm "$TS" run "$SRC/configs/stencil2d.ini" --set stencil.nx=64 --set stencil.ny=64 --set run.iterations=3 \
        --threads 2 -o "$WORK/vm-small.h5" >"$OUT" 2>"$ERR" || fail "VM topology: the small run failed"
    expect_in "$ERR" "fit in the 96 MiB of L3 cache .*hwloc reports 968.93 MiB, at most 48 MiB a core is counted" \
        "VM topology: the warning gives the reported size and the rule"
fi
finish

#!/bin/sh
# touchstone topo: the machine as hwloc sees it agrees with the kernel's own files, every thread
# row is consistent with the machine tables, binding problems warn as in run (the same lines),
# topo CONFIG binds as run CONFIG will, and the JSON says what the text says.
. "$(dirname "$0")/lib.sh"
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS

# section TITLE FILE: the data rows of the text table that starts with TITLE (header dropped).
section() {
    awk -v t="$1" 'index($0, t) == 1 { on = 1; next } on && /^$/ { exit } on' "$2" | sed 1d
}

# in_list N LIST: whether N is in a CPU list such as "0-3,8".
in_list() {
    echo "$2" | tr ',' '\n' | awk -F- -v n="$1" '{ hi = NF > 1 ? $2 : $1; if (n >= $1 && n <= hi) found = 1 }
                                                 END { exit !found }'
}

# read_row N: sets place, cpu, core and node from thread N's row of the last report.
read_row() {
    place='' cpu='' core='' node=''
    row=$(section "threads (" "$OUT" | awk -v t="$1" '$1 == t { print $2, $(NF - 3), $(NF - 2), $(NF - 1) }')
    [ -n "$row" ] || { fail "no row for thread $1 in the thread table"; return 1; }
    # shellcheck disable=SC2086
    set -- $row
    place=$1 cpu=$2 core=$3 node=$4
}

# --- The machine, unbound, three threads.
run_ts 0 "topo --threads 3" topo --threads 3 || finish
cp "$OUT" "$WORK/text.txt"
[ -r /sys/devices/system/node/node0/cpulist ] || fail "no /sys/devices/system/node/node0/cpulist to compare with"
node0=$(cat /sys/devices/system/node/node0/cpulist)
[ "$(section "NUMA nodes" "$OUT" | awk '$1 == 0 { print $NF }')" = "$node0" ] \
    || fail "NUMA node 0 CPUs differ from /sys (want $node0)"
# hwloc counts the machine's online CPUs; nproc would count only those this test may use.
online=$(getconf _NPROCESSORS_ONLN)
expect_in "$OUT" "^  machine .* $online PUs?," "PU count equals the $online online CPUs"
rows=$(section "threads (" "$OUT" | wc -l)
[ "$rows" -eq 3 ] || fail "--threads 3 gave $rows thread rows"
section "cores (" "$OUT" >"$WORK/cores.txt"
section "NUMA nodes" "$OUT" >"$WORK/nodes.txt"
for t in 0 1 2; do
    read_row $t || continue
    core_cpus=$(awk -v c="$core" '$1 == c { print $NF }' "$WORK/cores.txt")
    node_cpus=$(awk -v n="$node" '$1 == n { print $NF }' "$WORK/nodes.txt")
    [ -n "$core_cpus" ] || fail "thread $t: core $core is not in the cores table"
    [ -n "$node_cpus" ] || fail "thread $t: node $node is not in the NUMA table"
    in_list "$cpu" "$core_cpus" || fail "thread $t: CPU $cpu is not a CPU of core $core ($core_cpus)"
    in_list "$cpu" "$node_cpus" || fail "thread $t: CPU $cpu is not a CPU of node $node ($node_cpus)"
done
expect_in "$OUT" "OMP_PROC_BIND +unset +-> false: binding off" "unset OMP_PROC_BIND reported as binding off"
expect_in "$OUT" "warning: binding is off" "unbound threads warn as in run"
expect_in "$OUT" "^  THP +(always|madvise|never|unknown)" "THP mode reported"

# --- A sane binding: one thread per core, no warnings.
OMP_PLACES=cores OMP_PROC_BIND=close OMP_NUM_THREADS=2 run_ts 0 "topo, cores/close" topo
read_row 0; p0=$place c0=$core
read_row 1; p1=$place c1=$core
if [ "$p0" != 0 ] || [ "$p1" != 1 ]; then
    fail "cores/close: threads on places '$p0' and '$p1', want 0 and 1"
fi
[ "$c0" != "$c1" ] || fail "cores/close: threads 0 and 1 both on core $c0"
expect_in "$OUT" "^warnings: none$" "a sane binding gives no warnings"
expect_in "$OUT" "OMP_PROC_BIND +close +-> close" "the runtime's bind policy is shown"

# --- All threads in one one-CPU place: impossible to miss.
OMP_PLACES='{0}' OMP_NUM_THREADS=2 run_ts 0 "topo, {0}" topo
expect_in "$OUT" "warning: ALL 2 THREADS ARE ON ONE CORE" "stacked threads warning"

# --- JSON: parses, has every key, and says what the text says.
run_ts 0 "topo --format json" topo --format json --threads 3 || finish
# The interpreter setup-deps.sh installs (python3 in TEST_PKGS), not what a PATH shim may pick.
/usr/bin/python3 - "$OUT" "$WORK/text.txt" <<'EOF' || fail "JSON report does not match the text report (see above)"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
for key in ("host", "hwloc_version", "thp", "packages", "cores", "pus", "numa_nodes", "distances", "caches",
            "process_cpus", "openmp", "warnings"):
    assert key in d, "missing key " + key
omp = d["openmp"]
for key in ("num_threads", "proc_bind", "places", "threads"):
    assert key in omp, "missing key openmp." + key
assert omp["num_threads"] == 3 == len(omp["threads"]), "num_threads %s, %d rows" % (omp["num_threads"], len(omp["threads"]))
for t in omp["threads"]:
    assert set(t) >= {"thread", "place", "place_cpus", "cpu", "core", "node", "affinity"}, t
    assert 0 <= t["core"] < d["cores"], "thread %d: core %d" % (t["thread"], t["core"])
    assert t["node"] in [n["os_index"] for n in d["numa_nodes"]], "thread %d: node %d" % (t["thread"], t["node"])
m = re.search(r"machine +(\d+) packages?, (\d+) cores?, (\d+) PUs?, (\d+) NUMA", text)
assert (d["packages"], d["cores"], d["pus"], len(d["numa_nodes"])) == tuple(map(int, m.groups())), "counts differ"
rows = re.search(r"\nNUMA nodes.*\n.*\n((?:  .*\n)+)", text).group(1).splitlines()
assert [n["cpus"] for n in d["numa_nodes"]] == [r.split()[-1] for r in rows], "node CPU lists differ"
assert len(d["distances"]) == len(d["numa_nodes"]) and all(len(r) == len(d["numa_nodes"]) for r in d["distances"])
assert re.search(r"\n  THP +%s " % re.escape(d["thp"]), text), "THP mode differs"
assert re.search(r"\n  CPUs +%s: " % re.escape(d["process_cpus"]), text), "process CPUs differ"
assert omp["proc_bind"] == "false" and any("binding is off" in w for w in d["warnings"]), d["warnings"]
EOF

# --- topo CONFIG binds as run CONFIG will: the config's places, proc_bind and threads, no
# "binding is off" for a bound config, and the same warnings as run for the same setting.
printf '[openmp]\nplaces = cores\nproc_bind = close\nthreads = 2\n' >"$WORK/bound.ini"
run_ts 0 "topo CONFIG" topo "$WORK/bound.ini" || finish
expect_in "$OUT" "^  config +$WORK/bound.ini" "the config is named"
expect_in "$OUT" "OMP_PLACES +cores +-> [0-9]+ places? \(config\)" "openmp.places applied, source config"
expect_in "$OUT" "OMP_PROC_BIND +close +-> close \(config\)" "openmp.proc_bind applied, source config"
expect_in "$OUT" "-> 2 threads \(openmp.threads \(config\)\)" "openmp.threads applied"
expect_not_in "$OUT" "binding is off" "a bound config does not warn that binding is off"
rows=$(section "threads (" "$OUT" | wc -l)
[ "$rows" -eq 2 ] || fail "openmp.threads = 2 gave $rows thread rows"
read_row 0; c0=$core
read_row 1; c1=$core
[ "$c0" != "$c1" ] || fail "topo CONFIG (cores, close): threads 0 and 1 both on core $c0"
run_ts 0 "topo CONFIG --threads" topo "$WORK/bound.ini" --threads 1
expect_in "$OUT" "-> 1 thread \(--threads\)" "--threads wins over openmp.threads"
run_ts 0 "topo CONFIG --set" topo "$WORK/bound.ini" --set openmp.proc_bind=false
expect_in "$OUT" "warning: binding is off" "--set openmp.proc_bind=false: binding off, as run"

# same_warnings WHAT ENV...: topo CONFIG and run CONFIG under the same environment give the
# same binding warnings (run adds only its own: timing, first touch, movement during the run,
# caches).
# Lines matching $UNSTEADY are left out: where unbound threads land is the scheduler's choice.
UNSTEADY='^$'
same_warnings() {
    what=$1
    shift
    env "$@" "$TS" topo "$WORK/bound.ini" >"$WORK/topo.txt" 2>&1 || fail "$what: topo failed"
    # shellcheck disable=SC2086
    env "$@" "$TS" run "$SRC/configs/sum.ini" --set sum.n=100000 --set run.iterations=3 --set openmp.places=cores --set openmp.proc_bind=close \
        --threads 2 --overwrite -o "$WORK/same.h5" >/dev/null 2>"$WORK/run.txt" || fail "$what: run failed"
    sed -n 's/^  warning: //p' "$WORK/topo.txt" | grep -Ev "$UNSTEADY" | sort >"$WORK/topo.w"
    sed -n 's/^touchstone: warning: //p' "$WORK/run.txt" | grep -Ev "$UNSTEADY" \
        | grep -Ev "20 ticks|moved from CPU|first-touched its pages|migrated between|MADV_HUGEPAGE|fit in the" \
        | sort >"$WORK/run.w"
    [ -s "$WORK/topo.w" ] || fail "$what: topo gave no warning"
    cmp -s "$WORK/topo.w" "$WORK/run.w" || { fail "$what: topo and run warn differently"; diff "$WORK/topo.w" "$WORK/run.w" >&2; }
}
same_warnings "OMP_PLACES={0}" OMP_PLACES='{0}'
expect_in "$WORK/topo.w" "OMP_PLACES=\{0\} from the environment overrides openmp.places = cores" "topo: environment override"
expect_in "$WORK/topo.w" "2 threads but OMP_PLACES=\{0\} gives them only 1 CPU" "topo: the places named as the cause"
UNSTEADY='ONE CORE|share core'
same_warnings "OMP_PROC_BIND=false" OMP_PROC_BIND=false
UNSTEADY='^$'
expect_in "$WORK/topo.w" "binding is off" "topo: binding off from the environment"
ncpu=$(nproc)
same_warnings "a place outside the mask" OMP_PLACES="{0},{$((ncpu + 3))}"
expect_in "$WORK/topo.w" "OMP_PLACES names CPU $((ncpu + 3)) that this process may not use" "topo: places outside the mask"
if [ "$ncpu" -ge 2 ]; then
    same_warnings "a one-CPU mask" taskset -c 0
    expect_in "$WORK/topo.w" "2 threads but only 1 CPU available \(the process's affinity mask: 0\)" "topo: the mask named"
fi

# Without a CONFIG, the environment as it is, with the same warnings.
OMP_PLACES="{0},{$((ncpu + 3))}" run_ts 0 "topo, a place outside the mask" topo --threads 1
expect_in "$OUT" "warning: OMP_PLACES names CPU $((ncpu + 3)) that this process may not use" "places outside the mask, no CONFIG"
run_ts 0 "topo, more threads than CPUs" topo --threads $((ncpu + 1))
expect_in "$OUT" "warning: $((ncpu + 1)) threads but only $ncpu CPUs? available" "more threads than CPUs, no CONFIG"

# The JSON says where the binding came from.
run_ts 0 "topo CONFIG --format json" topo "$WORK/bound.ini" --format json || finish
/usr/bin/python3 - "$OUT" "$WORK/bound.ini" <<'EOF' || fail "JSON of topo CONFIG lacks the config or the sources (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"] == sys.argv[2], d["config"]
assert d["process_mask_count"] >= 1 and d["process_mask"], (d["process_mask"], d["process_mask_count"])
o = d["openmp"]
assert (o["places_source"], o["proc_bind_source"]) == ("config", "config"), o
assert o["num_threads_source"] == "openmp.threads (config)" and o["num_threads"] == 2, o
assert o["proc_bind"] == "close" and not any("binding is off" in w for w in d["warnings"]), d["warnings"]
EOF
OMP_PROC_BIND=false run_ts 0 "topo --format json, no config" topo --format json || finish
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"] is None and d["openmp"]["proc_bind_source"] == "environment" and d["openmp"]["places_source"] == "unset", d["openmp"]
' "$OUT" || fail "JSON without a config: config null, sources environment and unset"

# --- Bad usage and a report that cannot be written.
run_ts 2 "unknown format" topo --format xml && expect_in "$ERR" "format 'xml'" "unknown format names it"
run_ts 2 "--threads 0" topo --threads 0 && expect_in "$ERR" "threads 0" "--threads 0 refused"
run_ts 2 "--threads many" topo --threads many && expect_in "$ERR" "threads many" "--threads many refused"
run_ts 2 "two CONFIGs" topo "$SRC/configs/default.ini" "$SRC/configs/sum.ini" && expect_in "$ERR" "unexpected argument" "topo takes one CONFIG at most"
run_ts 2 "--set without CONFIG" topo --set openmp.threads=2 && expect_in "$ERR" "needs a CONFIG" "--set without a CONFIG refused"
run_ts 2 "missing CONFIG" topo "$WORK/missing.ini" && expect_in "$ERR" "missing.ini" "a missing CONFIG is named"
[ -s "$OUT" ] && fail "a refused topo CONFIG printed a report"
run_ts 2 "bad --set" topo "$SRC/configs/sum.ini" --set openmp.proc_bind=sideways \
    && expect_in "$ERR" "proc_bind" "a bad openmp value is refused as run refuses it"
"$TS" topo >/dev/full 2>"$ERR"
[ $? -eq 2 ] || fail "report to a full device (/dev/full): exit status not 2"
expect_in "$ERR" "cannot write the topo report to stdout: No space left" "a failed write is an error"
finish

#!/bin/sh
# touchstone topo --topology FILE.xml / --synthetic DESC: another machine's description, reported
# as that machine alone. Every stored real node (tests/topologies) gives its counts, written here
# by hand from hwloc-calc --whole-system (tests/topologies/README.md), in text and in JSON; the
# report says it is not this machine and has no thread or binding section; what cannot be
# loaded exits 2 with the reason.
. "$(dirname "$0")/lib.sh"
TOPOS=$SRC/tests/topologies

# counts FILE PACKAGES NUMA CORES PUS ALLOWED: the text and the JSON report of FILE agree with them.
counts() {
    f=$TOPOS/$1
    run_ts 0 "topo --topology $1" topo --topology "$f" || return
    expect_in "$OUT" "^  machine +$2 packages?, $4 cores?, $5 PUs?, $3 NUMA nodes?$" "$1: counts"
    expect_in "$OUT" "^touchstone .* topo: $f, not this machine$" "$1: says which file it describes"
    expect_in "$OUT" "^  source +hwloc XML export: described, not observed" "$1: says nothing was observed"
    if [ "$6" = "$5" ]; then
        expect_in "$OUT" "^  CPUs .*: all $5 PUs? allowed$" "$1: every PU allowed"
    else
        expect_in "$OUT" "^  CPUs .* allowed: $6 of the $5 PUs" "$1: $6 of $5 PUs allowed"
    fi
    rows=$(awk '/^NUMA nodes/ { on = 1; getline; next } on && /^$/ { exit } on' "$OUT" | wc -l)
    [ "$rows" -eq "$3" ] || fail "$1: $rows rows in the NUMA table, want $3"
    # Nothing of this process: no host, mask, THP, OpenMP, thread table or warnings.
    expect_not_in "$OUT" "^(threads|OpenMP|warnings)|^  (THP|mask|config) " "$1: no section about this process"
    cp "$OUT" "$WORK/text.txt"

    run_ts 0 "topo --topology $1 --format json" topo --topology "$f" --format json || return
    /usr/bin/python3 - "$OUT" "$f" "$2" "$3" "$4" "$5" "$6" <<'EOF' || fail "$1: JSON report wrong (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
path, pkg, numa, cores, pus, allowed = sys.argv[2], *map(int, sys.argv[3:])
want = {"describes": path, "this_machine": False, "source": "hwloc XML export", "packages": pkg,
        "cores": cores, "pus": pus}
bad = [f"{k}: {d.get(k)!r}, want {v!r}" for k, v in want.items() if d.get(k) != v]
if len(d["numa_nodes"]) != numa:
    bad.append(f"{len(d['numa_nodes'])} NUMA nodes, want {numa}")
if d["allowed"]["cpu_count"] != allowed or d["allowed"]["all_cpu_count"] != pus:
    bad.append(f"allowed {d['allowed']}, want {allowed} of {pus} CPUs")
for k in ("host", "openmp", "warnings", "thp", "process_cpus", "process_mask", "threads"):
    if k in d:
        bad.append(f"key {k} present: nothing of this process belongs in the report")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# file                    packages NUMA cores PUs allowed
counts xeon-6230-2s-snc2.xml 2 4 40 80 80
counts epyc-7451-2s-8numa.xml 2 8 48 96 96
counts kunpeng920-2s-4numa.xml 2 4 128 128 128
counts knl-snc4-hybrid.xml 1 8 16 64 64
counts power8-2s-smt2.xml 2 2 8 16 16
counts opteron-4s-cgroup6.xml 4 8 32 32 6
# Memory sizes as the export has them; the EPYC one was read from CPUID, which has none.
run_ts 0 "knl memory" topo --topology "$TOPOS/knl-snc4-hybrid.xml"
expect_in "$OUT" "^ +7 +2 GiB +0-3,16-19,32-35,48-51$" "KNL: MCDRAM node 7 with 2 GiB beside cluster 0"
run_ts 0 "epyc memory" topo --topology "$TOPOS/epyc-7451-2s-8numa.xml"
expect_in "$OUT" "^ +0 +\? +0-5,48-53$" "EPYC: node 0 without a memory size"
run_ts 0 "epyc memory JSON" topo --topology "$TOPOS/epyc-7451-2s-8numa.xml" --format json
expect_in "$OUT" '"memory_bytes": null' "EPYC: memory_bytes null in JSON"

# --- Synthetic machines: shape TEXT-COUNTS.
synthetic() {
    run_ts 0 "topo --synthetic '$1'" topo --synthetic "$1" || return
    expect_in "$OUT" "^touchstone .* topo: synthetic: $1, not this machine$" "'$1': says what it describes"
    expect_in "$OUT" "^  source +hwloc synthetic description: described, not observed" "'$1': synthetic source"
    expect_in "$OUT" "^  machine +$2$" "'$1': counts"
    expect_not_in "$OUT" "^(threads|OpenMP|warnings)" "'$1': no section about this process"
    run_ts 0 "topo --synthetic '$1' --format json" topo --synthetic "$1" --format json || return
    /usr/bin/python3 - "$OUT" "$1" <<'EOF' || fail "'$1': JSON report wrong (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["describes"] == "synthetic: " + sys.argv[2] and d["this_machine"] is False and "openmp" not in d
sys.exit(0 if ok else 1)
EOF
}
synthetic "package:2 numa:4 core:16 pu:2" "2 packages, 128 cores, 256 PUs, 8 NUMA nodes"
synthetic "package:1 core:4 pu:1" "1 package, 4 cores, 4 PUs, 1 NUMA node"
synthetic "numa:2 package:1 l3:2 core:6 pu:4" "2 packages, 24 cores, 96 PUs, 2 NUMA nodes"

# --- What cannot be loaded: exit 2, and why.
run_ts 2 "missing file" topo --topology "$WORK/none.xml"
expect_in "$ERR" "error: --topology $WORK/none.xml: No such file or directory" "missing file: errno text"
echo "not XML at all" >"$WORK/text.xml"
run_ts 2 "not XML" topo --topology "$WORK/text.xml"
expect_in "$ERR" "error: --topology $WORK/text.xml: not an hwloc XML topology" "not XML: said so"
run_ts 2 "a directory" topo --topology "$WORK"
expect_in "$ERR" "Is a directory" "a directory: errno text"
run_ts 2 "bad synthetic" topo --synthetic "package:two core:4"
expect_in "$ERR" "error: --synthetic 'package:two core:4': hwloc cannot parse it" "bad synthetic: said so"
run_ts 2 "both" topo --topology "$TOPOS/knl-snc4-hybrid.xml" --synthetic "core:2"
expect_in "$ERR" "one machine at a time" "--topology with --synthetic refused"
run_ts 2 "threads" topo --topology "$TOPOS/knl-snc4-hybrid.xml" --threads 2
expect_in "$ERR" "nothing to start --threads on" "--threads with a described machine refused"
run_ts 2 "config" topo --synthetic "core:2" "$SRC/configs/default.ini"
expect_in "$ERR" "nothing to apply CONFIG" "a CONFIG with a described machine refused"
run_ts 2 "empty" topo --synthetic ""
expect_in "$ERR" "--synthetic needs a value" "empty description refused"

finish

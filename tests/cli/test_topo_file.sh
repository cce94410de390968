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
expect_in "$ERR" "error: --topology $WORK/none.xml: cannot read topology: No such file or directory" "missing file: errno text"
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

# --- Bounded: every input's size and every wait, with a message naming the limit.
# A FIFO with no writer, and a pipe that never ends, are read as a config is: within
# TOUCHSTONE_CONFIG_TIMEOUT (timeout 60: a hang guard; 124 means it hung).
mkfifo "$WORK/fifo.xml"
for cmd in topo advise; do
    expect_run 2 "$cmd --topology FIFO without a writer" env TOUCHSTONE_CONFIG_TIMEOUT=0.3 timeout 60 "$TS" $cmd \
        --topology "$WORK/fifo.xml" &&
        expect_in "$ERR" "error: (advise: )?--topology $WORK/fifo.xml: a FIFO, and nothing was written to it within 0.3 s \(no writer\?\); TOUCHSTONE_CONFIG_TIMEOUT=seconds waits longer" \
            "$cmd --topology FIFO without a writer: the message"
    # (its writer keeps writing blank lines until the pipe breaks)
    (printf '<?xml'; while sleep 0.1; do echo || exit 0; done) 2>/dev/null |
        env TOUCHSTONE_CONFIG_TIMEOUT=0.3 timeout 60 "$TS" $cmd --topology /dev/stdin >"$OUT" 2>"$ERR"
    status=$?
    [ $status -eq 2 ] || fail "$cmd --topology /dev/stdin that never ends: exit $status, expected 2 (124: it hung)"
    expect_in "$ERR" "/dev/stdin: a pipe, and it did not end within 0.3 s \([0-9]+ bytes arrived" "$cmd --topology /dev/stdin that never ends: the message"
done
# An export through a pipe is read whole.
# shellcheck disable=SC2002
cat "$TOPOS/knl-snc4-hybrid.xml" | "$TS" topo --topology /dev/stdin >"$OUT" 2>"$ERR" || fail "topo --topology /dev/stdin from a pipe: exit $?"
expect_in "$OUT" "^touchstone .* topo: /dev/stdin, not this machine" "topo --topology /dev/stdin: read"
# Synthetic descriptions: at most 16384 PUs, and no more work for hwloc than pu:4096 takes (it
# grows with the objects under one parent): refused at once, where hwloc took minutes or ever.
for desc in "pu:65537" "core:100000 pu:1" "package:1000 core:1000 pu:1000" "pu:100000000" "package:99999999999999999999 pu:2"; do
    for cmd in topo advise; do
        expect_run 2 "$cmd --synthetic '$desc'" timeout 60 "$TS" $cmd --synthetic "$desc" &&
            expect_in "$ERR" "error: (advise: )?--synthetic '$desc': more than 16384 PUs; touchstone describes nodes of at most 16384 PUs" \
                "$cmd --synthetic '$desc': the PU limit named"
    done
done
for desc in "pu:16384" "pu:8192" "package:16 core:512 pu:2"; do
    expect_run 2 "topo --synthetic '$desc'" timeout 60 "$TS" topo --synthetic "$desc" &&
        expect_in "$ERR" "error: --synthetic '$desc': [0-9]+ PUs under too few parents for hwloc to build in seconds: .* at most 1.1e\+09 \(pu:4096 is the most without levels\)" \
            "topo --synthetic '$desc': the work limit named"
done
# Real nodes of 16384 PUs have levels between, and are described.
synthetic "package:8 numa:4 core:64 pu:8" "8 packages, 2048 cores, 16384 PUs, 32 NUMA nodes"

finish

# shellcheck shell=bash disable=SC2034  # sourced after lib.sh: sets variables for the tests
# Shared by the hybrid MPI + OpenMP tests (issue 14): jobs on the emulated pair n1, n2 of the
# private cluster (partition $TOUCHSTONE_SLURM_PAIR, cluster.sh), and the checks of the
# `ranks` section that `touchstone topo` prints under a launcher.
# Usage in a test:  . "$(dirname "$0")/lib.sh" "$@"; . "$(dirname "$0")/pair.sh"

[ -n "${TOUCHSTONE_SLURM_PAIR:-}" ] || {
    echo "FAILED: the cluster in $CLUSTER has no emulated pair (started by an older cluster.sh?): rerun slurm.start" >&2
    exit 1
}
PAIR=$TOUCHSTONE_SLURM_PAIR

# The jobs inherit this environment. As root, Open MPI's mpirun needs these two; both node
# names share one host name, so Open MPI's shared-memory transport between ranks collides:
# TCP over loopback instead (see docs/more-than-one-node.md).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
unset OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE

# n1 and n2 are one host under two node names: touchstone names a rank's host by gethostname(),
# so both would say the same. A wrapper gives each rank its node's name as host name in a UTS
# namespace of its own (unshare --uts, root), as on a real cluster, while the kernel (boot id)
# stays shared: touchstone's "hosts sharing 1 kernel" note then applies. Where unshare is not
# allowed, the ranks keep the host's name and the host checks are skipped (with a note).
NAMED_HOSTS=0
if unshare --uts true 2>/dev/null; then
    cat >"$WORK/named-touchstone" <<EOF
#!/bin/sh
# tests/slurm/pair.sh: run touchstone with this Slurm node's name (SLURMD_NODENAME) as host name.
exec unshare --uts sh -c 'hostname "\${SLURMD_NODENAME:?}" && exec "\$0" "\$@"' "$TS" "\$@"
EOF
    chmod +x "$WORK/named-touchstone"
    export TOUCHSTONE=$WORK/named-touchstone
    NAMED_HOSTS=1
else
    echo "note: unshare --uts is not allowed here: every rank reports host $(hostname); host checks skipped"
fi

# section LOG NAME: the lines of LOG between "==> NAME" and the next "==> " line.
section() {
    awk -v want="==> $2" 'index($0, "==> ") == 1 { on = (index($0, want) == 1) ; next } on' "$1"
}

# rank_rows FILE: the rows of the `ranks` table, one a line: "rank host local thread cpu affinity".
rank_rows() {
    awk '/^ranks \(/ { on = 1; next } on && /^$/ { on = 0 }
         on && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { print $2, $1, $3, $4, $5, $8 }' "$1"
}

# job_nodes ID: the node names of job ID's allocation, in order, space-separated ("n1 n2").
job_nodes() {
    scontrol show hostnames "$(job_field "$(job_lines "$1" | head -n 1)" NodeList)" | tr '\n' ' ' | sed 's/ $//'
}

# expect_layout FILE "NODES" PER_NODE CPUS WHAT: the `ranks` section of topo's report in FILE
# shows PER_NODE ranks of CPUS threads each on every node of NODES (the job's, job_nodes): the
# world's size, the hosts (in block order, local ranks 0..PER_NODE-1 on each), the note that
# the hosts share a kernel, every thread of a rank on its own CPU, the ranks of one node on
# different CPUs.
expect_layout() {
    local file=$1 per=$3 cpus=$4 what=$5 ranks hosts rows r want got n i
    local -a names
    read -r -a names <<<"$2"
    local nodes=${#names[@]}
    [ "$nodes" -gt 0 ] || { fail "$what: no node list"; return 1; }
    ranks=$((nodes * per))
    hosts=$nodes
    [ "$NAMED_HOSTS" -eq 1 ] || hosts=1
    local plural=s
    [ "$hosts" -eq 1 ] && plural=""
    if ! grep -Eq "^  world +$ranks ranks on $hosts host$plural( |$)" "$file"; then
        fail "$what: expected 'world $ranks ranks on $hosts host$plural' in topo's ranks section"
        grep -E "^  world|^ranks" "$file" | sed 's/^/    | /' >&2
        return 1
    fi
    # Two node names, one kernel: the note (its wording is dist's; match loosely).
    if [ "$NAMED_HOSTS" -eq 1 ] && [ "$nodes" -gt 1 ]; then
        grep -Eiq "^  world .*shar.*kernel" "$file" || fail "$what: no note that the hosts share a kernel"
    fi
    rows=$(rank_rows "$file")
    [ -n "$rows" ] || { fail "$what: no rows in topo's ranks section"; return 1; }
    for r in $(seq 0 $((ranks - 1))); do
        got=$(echo "$rows" | awk -v r="$r" '$1 == r' | wc -l)
        [ "$got" -eq "$cpus" ] || fail "$what: rank $r has $got thread rows, expected $cpus"
        # Every thread of the rank on a CPU of its own.
        got=$(echo "$rows" | awk -v r="$r" '$1 == r { print $5 }' | sort -u | wc -l)
        [ "$got" -eq "$cpus" ] || fail "$what: rank $r's $cpus threads are on $got CPU(s):
$(echo "$rows" | awk -v r="$r" '$1 == r' | sed 's/^/    /')"
        want="${names[$((r / per))]} $((r % per))"
        got=$(echo "$rows" | awk -v r="$r" '$1 == r { print $2, $3; exit }')
        if [ "$NAMED_HOSTS" -eq 1 ]; then
            [ "$got" = "$want" ] || fail "$what: rank $r is on host/local rank '$got', expected '$want'"
        else
            [ "${got#* }" = "${want#* }" ] || fail "$what: rank $r has local rank '${got#* }', expected '${want#* }'"
        fi
    done
    # The ranks of one node share no CPU (each node name has all the host's CPUs).
    for i in $(seq 0 $((nodes - 1))); do
        got=$(echo "$rows" | awk -v lo=$((i * per)) -v hi=$(((i + 1) * per)) '$1 >= lo && $1 < hi { print $5 }')
        [ "$(echo "$got" | sort -u | wc -l)" -eq "$(echo "$got" | wc -l)" ] ||
            fail "$what: the ranks on ${names[$i]} share a CPU: $(echo "$got" | tr '\n' ' ')"
    done
    if [ "$NAMED_HOSTS" -eq 1 ]; then
        for n in "${names[@]}"; do
            echo "$rows" | awk '{ print $2 }' | grep -qx "$n" || fail "$what: host $n not in the ranks section"
        done
    fi
}

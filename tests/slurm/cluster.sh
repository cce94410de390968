#!/bin/bash
# shellcheck disable=SC2015,SC2016  # a && b || die is meant; sh -c '...' expands in the child
# A private Slurm on localhost for the test suite, from Debian's slurmctld, slurmd,
# slurm-client and munge packages. Nothing goes to /etc and no systemd is involved: every file
# (munge key and socket, slurm.conf, state, spool, logs, PID files) lives under DIR.
#
# Three node names, one slurmd each, all on this one host and its CPUs:
#   localhost  partition touchstone (the default): the single-node tests
#   n1, n2     partition pair: two emulated nodes for the MPI jobs (sbatch -p pair -N 2). Both
#              claim the same CPUs as localhost (one kernel; the tests run one at a time).
#
#   cluster.sh start DIR   generate the config, start munged, slurmctld and the three slurmd,
#                          wait until every node is idle, write DIR/env (`. DIR/env` sets
#                          SLURM_CONF)
#   cluster.sh stop DIR    cancel this cluster's jobs, stop its daemons by their PIDs
#   cluster.sh status DIR  print the node and the queue
#
# Ports: 6817 (slurmctld), 6818 (slurmd of localhost), 6819 and 6820 (n1, n2), or
# TOUCHSTONE_SLURM_PORT and the three after it.
# start refuses to run when either port is taken (another Slurm, or another build's test
# cluster): it never touches a daemon it did not start, and never kills anything by name.
set -u

die() {
    echo "slurm-cluster: error: $*" >&2
    exit 1
}
say() { echo "slurm-cluster: $*"; }

cmd=${1:-}
DIR=${2:-}
[ -n "$cmd" ] && [ -n "$DIR" ] || die "usage: cluster.sh start|stop|status DIR"
case $DIR in /*) ;; *) DIR=$PWD/$DIR ;; esac

CTLD_PORT=${TOUCHSTONE_SLURM_PORT:-6817}
SLURMD_PORT=$((CTLD_PORT + 1))
PAIR_PORT=$((CTLD_PORT + 2)) # n1; n2 on the one after
CONF=$DIR/slurm.conf
MUNGE_DIR=$DIR/munge
SOCKET=$MUNGE_DIR/munge.socket.2
PARTITION=touchstone
PAIR_PARTITION=pair
NODES="localhost n1 n2"

# The PID in a PID file, only when that process is alive and runs the program named $2
# (so a stale PID file reused by an unrelated process is never signalled).
live_pid() {
    local file=$1 prog=$2 pid exe
    [ -r "$file" ] || return 1
    pid=$(tr -dc '0-9' <"$file")
    [ -n "$pid" ] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    case $exe in */"$prog"*) echo "$pid" ;; *) return 1 ;; esac
}

# Stops processes by PID ("name:pid" pairs), all at once: SIGTERM, up to 10 s, then SIGKILL.
stop_pids() {
    local entry left
    [ $# -gt 0 ] || return 0
    for entry in "$@"; do kill -TERM "${entry#*:}" 2>/dev/null; done
    for _ in $(seq 1 100); do
        left=""
        for entry in "$@"; do
            kill -0 "${entry#*:}" 2>/dev/null && left="$left $entry"
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    for entry in $left; do
        say "${entry%%:*} (pid ${entry#*:}) ignored SIGTERM for 10 s: SIGKILL"
        kill -KILL "${entry#*:}" 2>/dev/null
    done
    for entry in "$@"; do say "stopped ${entry%%:*} (pid ${entry#*:})"; done
}

# Processes of this cluster's jobs that outlived it: slurmstepd, and the job scripts, sruns and
# programs under it. They are recognised by this cluster's SLURM_CONF in their environment
# (slurmd passes it to slurmstepd; jobs get it from the submitting shell) together with being
# slurmstepd or having a SLURM_JOB_ID. Never by name alone. Shell builtins only in the loop:
# forking once per process costs seconds on a busy small machine.
our_job_pids() {
    local p comm e conf job
    local -a envs
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = "$$" ] && continue
        envs=()
        { mapfile -d '' -t envs <"$p/environ"; } 2>/dev/null || continue
        conf=0
        job=0
        for e in "${envs[@]}"; do
            case $e in
            "SLURM_CONF=$CONF") conf=1 ;;
            SLURM_JOB_ID=*) job=1 ;;
            esac
        done
        [ "$conf" -eq 1 ] || continue
        comm=""
        { read -r comm <"$p/comm"; } 2>/dev/null
        if [ "$comm" = slurmstepd ] || [ "$job" -eq 1 ]; then
            echo "${p#/proc/}"
        fi
    done
}

stop() {
    local pid daemons=""
    export SLURM_CONF=$CONF
    if live_pid "$DIR/slurmctld.pid" slurmctld >/dev/null; then
        # Jobs first, so no step keeps running on the CPUs after the tests.
        jobs=$(timeout 10 squeue -h -o %A 2>/dev/null | tr '\n' ' ')
        if [ -n "${jobs// /}" ]; then
            say "cancelling jobs: $jobs"
            # shellcheck disable=SC2086
            timeout 10 scancel $jobs 2>/dev/null
            # A cancelled job gets SIGTERM, then SIGKILL after KillWait (5 s): allow for that.
            for _ in $(seq 1 60); do
                [ -z "$(timeout 5 squeue -h -o %A 2>/dev/null)" ] && break
                sleep 0.5
            done
        fi
    fi
    # slurmd, leftover job processes and slurmctld together (each daemon takes ~2 s to go),
    # munged last: the others may still talk to it on their way out.
    # slurmd-<node>.pid; slurmd.pid: a cluster started before there were several nodes.
    for f in "$DIR"/slurmd.pid "$DIR"/slurmd-*.pid; do
        if pid=$(live_pid "$f" slurmd); then daemons="$daemons slurmd:$pid"; fi
    done
    for pid in $(our_job_pids); do daemons="$daemons job-process:$pid"; done
    if pid=$(live_pid "$DIR/slurmctld.pid" slurmctld); then daemons="$daemons slurmctld:$pid"; fi
    # shellcheck disable=SC2086
    stop_pids $daemons
    if pid=$(live_pid "$MUNGE_DIR/munged.pid" munged); then stop_pids "munged:$pid"; fi
    return 0
}

# True when something listens on (or holds) TCP port $1: we try to bind it, as the daemon would.
port_taken() {
    python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("0.0.0.0", int(sys.argv[1])))
except OSError:
    sys.exit(0)
sys.exit(1)
EOF
}

# Waits up to $1 seconds for the command "$@" to succeed.
wait_for() {
    local limit=$1 start=$SECONDS
    shift
    while ! "$@" >/dev/null 2>&1; do
        [ $((SECONDS - start)) -ge "$limit" ] && return 1
        sleep 0.2
    done
}

show_logs() {
    for f in "$@"; do
        [ -r "$f" ] || continue
        echo "---- last lines of $f" >&2
        tail -n 25 "$f" >&2
    done
}

start() {
    local missing="" c
    for c in munged mungekey munge slurmctld slurmd slurmstepd sbatch srun scontrol squeue sinfo scancel python3; do
        command -v "$c" >/dev/null || missing="$missing $c"
    done
    [ -z "$missing" ] || die "missing programs:$missing. Install the Debian packages with
    scripts/setup-deps.sh --test   (slurmctld slurmd slurm-client munge; as root)"

    # slurmd must be root to start jobs (it sets up each job's user, limits and CPU binding).
    [ "$(id -u)" -eq 0 ] || die "the private Slurm cluster needs root (slurmd launches the jobs); run the tests as root"

    # Left over from an earlier run of this same build directory: ours, so we may stop it.
    stop >/dev/null

    for port in "$CTLD_PORT" "$SLURMD_PORT" "$PAIR_PORT" $((PAIR_PORT + 1)); do
        if port_taken "$port"; then
            die "TCP port $port is already in use (another Slurm or another test cluster?); refusing to
    start. Stop it, or pick four free ports with TOUCHSTONE_SLURM_PORT=N (uses N to N+3)."
        fi
    done

    # A unix socket path is limited to 107 bytes.
    [ ${#SOCKET} -le 100 ] || die "build directory too deep for the munge socket path ($SOCKET)"

    rm -rf "$DIR"
    mkdir -p "$DIR" "$MUNGE_DIR" "$DIR/state" "$DIR/log" || die "cannot create $DIR"
    # Per node (%n in slurm.conf): spool, and TmpFS, where the pmix plugin keeps its files
    # (one shared TmpFS fails the second node's step with "File exists").
    for n in $NODES; do mkdir -p "$DIR/spool/$n" "$DIR/tmpfs/$n" || die "cannot create $DIR/spool/$n"; done
    chmod 0755 "$DIR" "$MUNGE_DIR"

    # Clients that are not root must reach the socket: every parent must be searchable.
    local d=$MUNGE_DIR
    while [ "$d" != / ]; do
        [ "$(($(stat -c %#a "$d") & 1))" -eq 1 ] || die "$d is not world-executable (munge socket unreachable)"
        d=$(dirname "$d")
    done

    # --- munge: its own key (0600), socket, PID, log and seed under DIR/munge.
    (umask 077 && mungekey --create --keyfile="$MUNGE_DIR/munge.key") || die "mungekey failed"
    chmod 0600 "$MUNGE_DIR/munge.key"
    munged --socket="$SOCKET" --key-file="$MUNGE_DIR/munge.key" --pid-file="$MUNGE_DIR/munged.pid" \
           --log-file="$MUNGE_DIR/munged.log" --seed-file="$MUNGE_DIR/munged.seed" \
        || { show_logs "$MUNGE_DIR/munged.log"; die "munged did not start"; }
    wait_for 10 sh -c "munge -n -S '$SOCKET' | unmunge -S '$SOCKET'" \
        || { show_logs "$MUNGE_DIR/munged.log"; stop; die "munged does not answer on $SOCKET"; }

    # --- the node as slurmd sees it (CPUs, sockets, cores, threads, memory).
    local hw cpus boards sockets cores threads mem
    hw=$(slurmd -C | head -n 1)
    field() { echo "$hw" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    cpus=$(field CPUs); boards=$(field Boards); sockets=$(field SocketsPerBoard)
    cores=$(field CoresPerSocket); threads=$(field ThreadsPerCore); mem=$(field RealMemory)
    [ -n "$cpus" ] && [ -n "$cores" ] && [ -n "$mem" ] || { stop; die "cannot parse slurmd -C: $hw"; }
    sockets=$((${boards:-1} * ${sockets:-1}))
    # Configure a little less memory than present so free-memory jitter never drains the node.
    mem=$((mem * 9 / 10))
    # The pair's NodeHostname: this host's name, never "localhost" (see slurm.conf below); on a
    # host that calls itself localhost, the node names themselves (NodeAddr is what is used).
    local host nh1 nh2
    host=$(hostname -s)
    nh1=$host nh2=$host
    case $host in "" | localhost | localhost.*) nh1=n1 nh2=n2 ;; esac

    cat >"$CONF" <<EOF
# Generated by tests/slurm/cluster.sh: a private Slurm for the test suite, three node names on
# this one host (localhost; n1 and n2, the emulated pair), one slurmd each.
ClusterName=touchstone-test
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also delays a requeued job's restart (default 120 s); keep the requeue test short.
AuthInfo=socket=$SOCKET,cred_expire=5
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
TmpFS=$DIR/tmpfs/%n
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$DIR/plugstack.conf
# cgroup plugins fail inside slurmstepd here; linuxproc and affinity work without cgroups.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Start batch jobs at once (the default batches them, 2-3 s per job).
SchedulerParameters=batch_sched_delay=0,bf_interval=1,sched_interval=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
# Finished jobs stay visible to scontrol for the tests' checks.
MinJobAge=600
KillWait=5
# The emulated pair: this host, its CPUs and memory under two more names, each slurmd on its
# own port. Listed before localhost, and with this host's own name: while "localhost" is the
# only node defined, Slurm takes any node name for it, and a node whose NodeHostname is
# localhost takes the name localhost (both: "Duplicated NodeHostName ...").
NodeName=n1 NodeHostname=$nh1 NodeAddr=127.0.0.1 Port=$PAIR_PORT CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=${threads:-1} RealMemory=$mem State=UNKNOWN
NodeName=n2 NodeHostname=$nh2 NodeAddr=127.0.0.1 Port=$((PAIR_PORT + 1)) CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=${threads:-1} RealMemory=$mem State=UNKNOWN
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=${threads:-1} RealMemory=$mem State=UNKNOWN
PartitionName=$PARTITION Nodes=localhost Default=YES MaxTime=INFINITE State=UP
PartitionName=$PAIR_PARTITION Nodes=n1,n2 MaxTime=INFINITE State=UP
EOF
    : >"$DIR/plugstack.conf"
    printf 'export SLURM_CONF=%s\nTOUCHSTONE_SLURM_PARTITION=%s\nTOUCHSTONE_SLURM_CPUS=%s\nTOUCHSTONE_SLURM_PAIR=%s\n' \
        "$CONF" "$PARTITION" "$cpus" "$PAIR_PARTITION" >"$DIR/env"
    export SLURM_CONF=$CONF

    # --- daemons (they fork; the PID files say which processes are ours).
    slurmctld -f "$CONF" || { show_logs "$DIR/log/slurmctld.log"; stop; die "slurmctld did not start"; }
    wait_for 15 scontrol ping \
        || { show_logs "$DIR/log/slurmctld.log"; stop; die "slurmctld does not answer on port $CTLD_PORT"; }
    for n in $NODES; do
        slurmd -f "$CONF" -N "$n" || { show_logs "$DIR/log/slurmd-$n.log"; stop; die "slurmd -N $n did not start"; }
    done
    # sinfo -N: one line per node, "name state"; every one of ours must say idle.
    if ! wait_for 30 sh -c '[ "$(sinfo -h -N -o "%N %t" | sort -u | tr "\n" " ")" = "localhost idle n1 idle n2 idle " ]'; then
        sinfo -N -l >&2
        show_logs "$DIR/log/slurmctld.log" "$DIR"/log/slurmd-*.log
        stop
        die "the nodes did not become idle within 30 s"
    fi
    say "up in $SECONDS s: $cpus CPUs ($sockets socket(s) x $cores cores x ${threads:-1} threads), partition $PARTITION (localhost), partition $PAIR_PARTITION (n1, n2 on the same CPUs), SLURM_CONF=$CONF"
}

case $cmd in
start) start ;;
stop) stop ;;
status)
    export SLURM_CONF=$CONF
    sinfo -N -l
    squeue
    ;;
*) die "unknown command '$cmd' (start, stop, status)" ;;
esac

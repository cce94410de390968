#!/bin/sh
# /init of the NUMA test VM (busybox sh, PID 1). Runs touchstone in every placement mode and
# on two MPI ranks (mpirun), then ships the results to the host as base64 of a tar.gz on the
# second serial port (/dev/ttyS1), away from the kernel's console messages on ttyS0. The
# kernel command-line word ts_shell starts a shell on the console instead (debugging).
# Whatever happens, the VM powers off: PID 1 exiting would panic, and panic=-1 plus qemu's
# -no-reboot turn that into a quick exit too, but a clean poweroff keeps the log readable.
export PATH=/bin:/usr/bin # mpirun and orted are in /usr/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# A task stuck in the kernel for a minute panics the VM (panic=-1 -no-reboot: qemu exits at
# once, the stack in the log) instead of hanging until the host's timeout.
echo 60 >/proc/sys/kernel/hung_task_timeout_secs
echo 1 >/proc/sys/kernel/hung_task_panic
# For mpirun: a host name, the loopback interface (mpirun and the ranks talk over TCP there),
# /dev/shm (shared memory between the ranks; /tmp is one already), a launcher that needs no
# ssh (plm isolated: this machine only), no fabric probed (pml ob1, btl self and vader).
hostname numavm
echo "127.0.0.1 localhost numavm" >/etc/hosts
ip link set lo up
mkdir -p /dev/shm
mount -t tmpfs shm /dev/shm
export HOME=/tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader

say() { echo "numa_vm: $*"; }

shell=""
for word in $(cat /proc/cmdline); do
    [ "$word" = ts_shell ] && shell=1
done

# Set in the environment as well as in the config, so touchstone neither re-executes itself
# nor warns that the environment overrides the config.
export OMP_PLACES=cores OMP_PROC_BIND=spread
BIND="--set openmp.places=cores --set openmp.proc_bind=spread"
# About 64 MiB per run, and 2 iterations: enough pages for a placement audit, cheap
# under emulation. Timings mean nothing here (emulated remote memory is not slower).
SIZE="--set sum.n=8388608 --set stencil.nx=2048 --set stencil.ny=2048 --set run.iterations=2 --set run.warmup=0"

if [ -n "$shell" ]; then
    say "shell: touchstone is /bin/touchstone, the config /etc/touchstone.ini; 'poweroff -f' leaves"
    say "e.g. touchstone run /etc/touchstone.ini $BIND $SIZE --set run.kernel=sum -o /tmp/sum.h5"
    say "or mpirun --map-by numa --bind-to numa --report-bindings -np 2 touchstone run ... --threads 2"
    setsid cttyhack sh
    poweroff -f
fi

out=/tmp/out
mkdir -p "$out"
cd "$out" || poweroff -f
cat /proc/cmdline >cmdline.txt
# The machine as the guest kernel sees it, to tell a wrong VM from a wrong touchstone.
for n in /sys/devices/system/node/node[0-9]*; do
    echo "${n##*/node} $(cat "$n/cpulist")"
done >sys-nodes.txt

say "touchstone topo --format json"
timeout -s KILL 60 touchstone topo --format json >topo.json 2>topo.err
echo $? >topo.status

: >runs.txt
for kernel in sum stencil2d; do
    for t in 2 4; do
        for mode in parallel serial interleave bind1; do
            case $mode in
                parallel) extra="" ;;
                serial) extra="--serial-init" ;;
                interleave) extra="--set init.policy=interleave" ;;
                bind1) extra="--set init.policy=bind:1" ;;
            esac
            name=$kernel-t$t-$mode
            start=$(cut -d. -f1 /proc/uptime)
            # shellcheck disable=SC2086 # word splitting of the option lists is wanted
            timeout -s KILL 120 touchstone run /etc/touchstone.ini --set run.kernel=$kernel --threads "$t" \
                $BIND $SIZE $extra -o "$out/$name.h5" >"$name.log" 2>&1
            status=$?
            echo "$name $kernel $t $mode $status" >>runs.txt
            say "$name: exit $status ($(( $(cut -d. -f1 /proc/uptime) - start )) s)"
        done
    done
done
# Two MPI ranks, one bound to each NUMA node by mpirun, 2 threads each (the node's two cores),
# with parallel first touch, and with --serial-init (each rank's master thread touches that
# rank's pages: still on the rank's node); mpirun's set-up is at the top. Each run's
# arguments after the config go to NAME.args: the host runs the same without a launcher and
# compares the bits of the result.
for kernel in sum stencil2d; do
    for init in parallel serial; do
        case $init in
            parallel) mode=ranks extra="" ;;
            serial) mode=ranks-serial extra="--serial-init" ;;
        esac
        name=$kernel-r2t2-$init
        args="--set run.kernel=$kernel --threads 2 $BIND $SIZE $extra"
        echo "$args" >"$name.args"
        start=$(cut -d. -f1 /proc/uptime)
        # shellcheck disable=SC2086 # word splitting of the option list is wanted
        timeout -s KILL 120 mpirun --map-by numa --bind-to numa --report-bindings -np 2 \
            touchstone run /etc/touchstone.ini $args -o "$out/$name.h5" >"$name.log" 2>&1
        status=$?
        echo "$name $kernel 4 $mode $status" >>runs.txt
        say "$name: exit $status ($(( $(cut -d. -f1 /proc/uptime) - start )) s)"
    done
done
# advise (issue 15) on this two-node machine: the plan for 2 ranks (one per node), and the
# verdicts on the binding the MPI runs above used (one rank per node, its 2 threads on the
# node's cores) and on ranks left unbound (--bind-to none: both ranks on the first node's cores).
timeout -s KILL 60 touchstone advise --ranks 2 --format json >advise.json 2>advise.err
echo $? >advise.status
for how in numa none; do
    timeout -s KILL 120 mpirun --map-by numa --bind-to "$how" -np 2 -x OMP_NUM_THREADS=2 -x OMP_PLACES=cores \
        -x OMP_PROC_BIND=spread touchstone advise --check --format json >"advise-$how.json" 2>"advise-$how.err"
    echo $? >"advise-$how.status"
    say "advise --check, --bind-to $how: exit $(cat "advise-$how.status")"
done
# The OpenMP binding model against this libgomp (issue 15), where two NUMA nodes (and an L3
# per socket) change the answer: the abstract places and lists across the nodes, the binding
# policies, 1 .. 4 threads (the guest's CPUs), and under taskset on the second node's last CPU.
# The host's topo.omp_truth runs the whole sweep (unset and invalid values among it); the whole
# of it here takes 3 minutes.
if [ -x /bin/omp_truth ]; then
    start=$(cut -d. -f1 /proc/uptime)
    TRUTH_PLACES=$(printf '%s\n' cores sockets numa_domains ll_caches '{0:2}' '{0},{2}')
    TRUTH_BINDS=$(printf '%s\n' true master close spread)
    export TRUTH_PLACES TRUTH_BINDS
    TMPDIR=/tmp timeout -s KILL 900 sh /bin/test_omp_truth.sh /bin/omp_truth 4 >omp_truth.txt 2>&1
    echo $? >omp_truth.status
    say "omp_truth: $(tail -n 1 omp_truth.txt) ($(( $(cut -d. -f1 /proc/uptime) - start )) s)"
fi
# touchstone survey --quick at a tiny size (TOUCHSTONE_SURVEY_SCALE, docs/survey.md): its battery
# on four cores and its NUMA matrix, 2 x 2 here, every cell's pages verified on its node. THP
# madvise from here on: the guest's default "always" would back arrays this small (a thread's
# share under 4 huge pages, so run leaves the pages to the kernel) with 2 MiB pages placed by
# whichever thread touched them first, and the init runs would not show first touch.
echo madvise >/sys/kernel/mm/transparent_hugepage/enabled
say "touchstone survey --quick"
start=$(cut -d. -f1 /proc/uptime)
# One run a point (TOUCHSTONE_SURVEY_REPEATS): placement is what is checked here, and emulation's
# timings judge nothing; three would triple the guest's time.
TOUCHSTONE_SURVEY_SCALE=0.02 TOUCHSTONE_SURVEY_REPEATS=1 timeout -s KILL 400 touchstone survey --quick --html -o "$out/survey" >survey.log 2>&1
echo $? >survey.status
timeout -s KILL 60 touchstone survey --dump -o "$out/survey" >survey.dump 2>>survey.log
rm -f "$out"/survey/runs/*.h5 # the dump and survey.html hold what the host checks; the archive stays small
say "survey: exit $(cat survey.status) ($(( $(cut -d. -f1 /proc/uptime) - start )) s)"
dmesg >dmesg.txt

tar czf /tmp/results.tgz . 2>/dev/null
say "archive $(wc -c </tmp/results.tgz) bytes, sha256 $(sha256sum /tmp/results.tgz | cut -d' ' -f1)"
# raw: no newline translation. Closing the port waits until every byte has left.
stty -F /dev/ttyS1 raw -echo 2>/dev/null
base64 /tmp/results.tgz >/dev/ttyS1
say "archive sent"
poweroff -f

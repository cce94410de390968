#!/bin/sh
# /init of the NUMA test VM (busybox sh, PID 1). Runs touchstone in every placement mode,
# then ships the results to the host as base64 of a tar.gz on the second serial port
# (/dev/ttyS1), away from the kernel's console messages on ttyS0. The kernel command-line
# word ts_shell starts a shell on the console instead (debugging).
# Whatever happens, the VM powers off: PID 1 exiting would panic, and panic=-1 plus qemu's
# -no-reboot turn that into a quick exit too, but a clean poweroff keeps the log readable.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# A task stuck in the kernel for a minute panics the VM (panic=-1 -no-reboot: qemu exits at
# once, the stack in the log) instead of hanging until the host's timeout.
echo 60 >/proc/sys/kernel/hung_task_timeout_secs
echo 1 >/proc/sys/kernel/hung_task_panic

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
dmesg >dmesg.txt

tar czf /tmp/results.tgz . 2>/dev/null
say "archive $(wc -c </tmp/results.tgz) bytes, sha256 $(sha256sum /tmp/results.tgz | cut -d' ' -f1)"
# raw: no newline translation. Closing the port waits until every byte has left.
stty -F /dev/ttyS1 raw -echo 2>/dev/null
base64 /tmp/results.tgz >/dev/ttyS1
say "archive sent"
poweroff -f

#!/bin/sh
# Usage: numa_vm.sh [--shell] TOUCHSTONE CHECKER WORK_DIR CACHE_DIR [MPIRUN [OMP_TRUTH]]
#
# Boots an emulated two-node NUMA machine (qemu TCG, 2 sockets x 2 cores, 512 MiB per node),
# runs TOUCHSTONE (a build without -march=native: TCG has no AVX-512) inside it in every
# placement mode and on two MPI ranks (Open MPI's MPIRUN, default: mpirun on the PATH, copied
# into the guest with its plugins), brings the HDF5 files back over a serial port, and checks
# on the host, with CHECKER (numa_vm_check), where threads and pages really were, and that
# the ranks' results are the bits of the same runs on the host without a launcher. WORK_DIR
# holds this run's files (console.log, out/, host/), CACHE_DIR the Debian kernel, fetched once.
# With OMP_TRUTH (tests/topo/omp_truth of the same portable build), the OpenMP binding model is
# also checked against the guest's libgomp on its two nodes (tests/topo/test_omp_truth.sh).
# --shell boots the same VM with a shell on this terminal instead (Ctrl-A x quits qemu).
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
shell=""
if [ "${1:-}" = "--shell" ]; then
    shell=1
    shift
fi
ts=${1:?usage: numa_vm.sh [--shell] TOUCHSTONE CHECKER WORK_DIR CACHE_DIR [MPIRUN [OMP_TRUTH]]}
checker=${2:?}
work=${3:?}
cache=${4:?}
mpirun=${5:-mpirun}
omp_truth=${6:-}

FAILURES=0
CHECKS=0
fail() {
    echo "FAILED: $*"
    FAILURES=$((FAILURES + 1))
}
# A failure that leaves nothing else to check.
die() {
    echo "FAILED: $*"
    echo "numa_vm: could not run the VM test"
    exit 1
}

# Prerequisites: install them through the project's set-up script (a no-op when present,
# names the packages when not root), so `ctest` alone behaves like `make test`.
missing=""
for cmd in qemu-system-x86_64 xz jq; do
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing $cmd"
done
[ -x /bin/busybox ] || missing="$missing busybox"
if [ -n "$missing" ]; then
    echo "numa_vm: missing$missing; running scripts/setup-deps.sh --test"
    "$src/scripts/setup-deps.sh" --test || die "setup-deps.sh --test could not install$missing (see above)"
fi
for cmd in qemu-system-x86_64 xz jq; do
    command -v "$cmd" >/dev/null 2>&1 || die "$cmd not found after setup-deps.sh --test (TEST_PKGS)"
done
[ -x "$ts" ] || die "portable touchstone $ts not built (target numa_vm_touchstone)"
[ -x "$checker" ] || die "checker $checker not built"
command -v "$mpirun" >/dev/null 2>&1 || die "$mpirun not found (Open MPI: scripts/setup-deps.sh installs it)"

mkdir -p "$work" "$cache" || die "cannot create $work or $cache"
work=$(cd "$work" && pwd)
kernel=$(sh "$here/kernel.sh" "$cache") || die "no guest kernel (see kernel.sh above)"
[ "${kernel##*/}" = vmlinux ] || echo "numa_vm: no PVH entry in the kernel, booting the bzImage $kernel (slower)"
sh "$here/initramfs.sh" "$work/initramfs.cpio" "$ts" "$here/guest-init.sh" "$src/configs/default.ini" "$mpirun" \
    ${omp_truth:+"$omp_truth" "$src/tests/topo/test_omp_truth.sh"} ||
    die "cannot build the initramfs"

# The machine: two sockets of two cores, each socket its own NUMA node with its own RAM.
# sockets=2 matters: one socket split over two nodes makes the guest kernel warn.
# thread=single: qemu 7.2's multi-threaded TCG livelocks now and then (1 boot in 3-4 here)
# when the guest kernel patches its own text (int3-based static-key updates): all vCPUs
# stuck at the int3 handler, guest time frozen. One thread emulating the four vCPUs in turn
# never did, and is no slower on two host cores.
set -- -accel tcg,thread=single -nodefaults -no-user-config -display none -monitor none -nic none -no-reboot \
    -smp 4,sockets=2,cores=2,threads=1 -m 1G \
    -object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M \
    -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
    -kernel "$kernel" -initrd "$work/initramfs.cpio"
# numa_balancing=disable: the kernel must not migrate pages behind the audit's back.
append="console=ttyS0 panic=-1 softlockup_panic=1 numa_balancing=disable"

if [ -n "$shell" ]; then
    # mon:stdio multiplexes qemu's monitor on the terminal, so Ctrl-A x always gets out.
    exec qemu-system-x86_64 "$@" -serial mon:stdio -append "$append ts_shell"
fi

rm -rf "$work/out" "$work/host" "$work/data.b64"
mkdir -p "$work/out" "$work/host"
start=$(date +%s)
# Console (ttyS0) to a log; the results archive arrives on ttyS1, away from kernel messages.
timeout 1100 qemu-system-x86_64 "$@" -serial "file:$work/console.log" -serial "file:$work/data.b64" \
    -append "$append loglevel=5" </dev/null >"$work/qemu.log" 2>&1
status=$?
echo "numa_vm: VM ran $(( $(date +%s) - start )) s (qemu exit $status), kernel $kernel"
show_console() {
    echo "--- last lines of $work/console.log:"
    tail -n 40 "$work/console.log" 2>/dev/null
    sed 's/^/qemu: /' "$work/qemu.log" 2>/dev/null | tail -n 10
}
if [ "$status" -ne 0 ]; then
    show_console
    [ "$status" -eq 124 ] && die "the VM did not power off within 300 s"
    die "qemu exited with status $status"
fi

# The guest prints the archive's checksum on the console; a corrupt transfer must not pass.
want=$(sed -n 's/^numa_vm: archive .* sha256 \([0-9a-f]*\).*/\1/p' "$work/console.log" | tr -d '\r')
[ -n "$want" ] || { show_console; die "the guest sent no results archive"; }
got=$(base64 -d "$work/data.b64" 2>/dev/null | sha256sum | cut -d' ' -f1)
[ "$got" = "$want" ] || die "results archive corrupt in transfer (sha256 $got, guest said $want)"
base64 -d "$work/data.b64" | tar xzf - -C "$work/out" || die "cannot unpack the results archive"
out=$work/out

# The VM itself: if the guest kernel does not see the two nodes, nothing below means anything.
CHECKS=$((CHECKS + 1))
if [ "$(cat "$out/sys-nodes.txt")" != "$(printf '0 0-1\n1 2-3')" ]; then
    fail "guest kernel sees NUMA nodes [$(tr '\n' ';' <"$out/sys-nodes.txt")], the VM was given '0 0-1; 1 2-3' (qemu -numa)"
fi

# touchstone topo inside the guest reports the same machine.
CHECKS=$((CHECKS + 1))
if [ "$(cat "$out/topo.status")" != 0 ]; then
    fail "touchstone topo --format json: exit $(cat "$out/topo.status"): $(head -c 300 "$out/topo.err")"
else
    # cpus may be a list string ("0-1") or an array of numbers: compare both spellings.
    nodes=$(jq -r '.numa_nodes[] | "\(.os_index) \(.cpus | if type == "array" then map(tostring) | join(",") else tostring end)"' \
        "$out/topo.json" 2>&1)
    case $nodes in
        "$(printf '0 0-1\n1 2-3')" | "$(printf '0 0,1\n1 2,3')") ;;
        *) fail "touchstone topo --format json: numa_nodes are [$(echo "$nodes" | tr '\n' ';')], expected node 0 with CPUs 0-1 and node 1 with CPUs 2-3" ;;
    esac
fi

# advise (issue 15): one rank per NUMA node planned; the MPI runs' binding judged as planned
# (findings about the guest kernel's conditions aside), ranks left unbound judged as losing
# (their threads stacked on the first node's cores).
CHECKS=$((CHECKS + 1))
plan=$(jq -r '[.ranks[] | "\(.rank):\(.numa_first)-\(.numa_last):\(.threads | length)"] | join(" ")' \
    "$out/advise.json" 2>&1)
[ "$(cat "$out/advise.status")" = 0 ] && [ "$plan" = "0:0-0:2 1:1-1:2" ] ||
    fail "advise --ranks 2: exit $(cat "$out/advise.status"), ranks [$plan], expected one per node with 2 threads each"
CHECKS=$((CHECKS + 1))
kinds=$(jq -r '[.findings[].kind | select(. != "condition")] | join(",")' "$out/advise-numa.json" 2>&1)
[ -z "$kinds" ] && jq -e '.observed_threads == 4' "$out/advise-numa.json" >/dev/null 2>&1 ||
    fail "advise --check, one rank bound per node: findings [$kinds] (exit $(cat "$out/advise-numa.status")), expected none on the binding"
CHECKS=$((CHECKS + 1))
[ "$(cat "$out/advise-none.status")" = 1 ] && jq -e '[.findings[].kind] | index("stacked")' "$out/advise-none.json" \
    >/dev/null 2>&1 || fail "advise --check, ranks unbound: exit $(cat "$out/advise-none.status"), expected 1 with a stacked finding"

# The OpenMP binding model against the guest's libgomp (issue 15): on two NUMA nodes,
# numa_domains and sockets make two places, which this host's one node never shows.
if [ -n "$omp_truth" ]; then
    CHECKS=$((CHECKS + 1))
    truth=$(tail -n 1 "$out/omp_truth.txt" 2>/dev/null)
    case "$(cat "$out/omp_truth.status" 2>/dev/null):$truth" in
        "0:omp_truth: "*" combinations in all, 0 differ") echo "numa_vm: ${truth#omp_truth: } (in the guest)" ;;
        *) fail "omp_truth in the guest: exit $(cat "$out/omp_truth.status" 2>/dev/null), $(grep -m 5 DIFFER "$out/omp_truth.txt")" ;;
    esac
fi

# host_run NAME: the guest's run NAME (its arguments in NAME.args) on this host without a
# launcher, with the guest's OpenMP environment, into host/NAME.h5; its output in host/NAME.log.
host_run() {
    # shellcheck disable=SC2046 # the arguments, one word each, as the guest split them
    (
        unset OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE # what touchstone takes for a launcher
        OMP_PLACES=cores OMP_PROC_BIND=spread exec "$ts" run "$src/configs/default.ini" $(cat "$out/$1.args") \
            -o "$work/host/$1.h5"
    ) </dev/null >"$work/host/$1.log" 2>&1
}

# Every run exited 0, and its file passes the placement checks. The ranks' results must also
# be the bits of the same run on the host without a launcher.
[ -s "$out/runs.txt" ] || die "the guest recorded no runs"
passed=""
while read -r name _kernel threads mode rc; do
    CHECKS=$((CHECKS + 1))
    if [ "$rc" -ne 0 ]; then
        fail "$name: touchstone exited $rc inside the VM (mode $mode, $threads threads); its output:"
        sed 's/^/    | /' "$out/$name.log" | tail -n 15
        [ -f "$out/$name.h5" ] || continue
    fi
    ref=""
    case $mode in
        ranks*)
            CHECKS=$((CHECKS + 1))
            if [ ! -f "$out/$name.args" ]; then
                fail "$name: the guest left no $name.args, no run on the host to compare with"
            elif host_run "$name"; then
                ref=$work/host/$name.h5
            else
                fail "$name: the same run on the host without a launcher failed; its output:"
                sed 's/^/    | /' "$work/host/$name.log" | tail -n 15
            fi
            ;;
    esac
    CHECKS=$((CHECKS + 1))
    if "$checker" "$name" "$mode" "$threads" "$out/$name.h5" ${ref:+"$ref"}; then
        passed="$passed $name"
    else
        FAILURES=$((FAILURES + 1))
    fi
done <"$out/runs.txt"

has_passed() { case " $passed " in *" $1 "*) return 0 ;; esac; return 1; }

# Controls: the checker must reject a file that contradicts the expectation, or its passes
# above mean nothing. Serial init is not parallel first touch; first touch is not interleave;
# serial init in each of two ranks is not serial init in one process (whose node-1 threads
# find their pages remote). Only files that passed as what they are make a control.
for control in "sum-t4-serial parallel" "stencil2d-t4-parallel interleave" "stencil2d-r2t2-serial serial"; do
    name=${control% *}
    mode=${control#* }
    has_passed "$name" || continue
    CHECKS=$((CHECKS + 1))
    # Rejected for its pages, not merely for its policy attribute.
    if "$checker" "$name" "$mode" 4 "$out/$name.h5" >"$work/control.log" 2>&1 ||
        ! grep -q 'of its pages local' "$work/control.log"; then
        fail "control: numa_vm_check did not reject $name.h5's page placement as mode $mode:"
        sed 's/^/    | /' "$work/control.log"
    fi
done
# And a result that is not the host's bits: sum's checked against stencil2d's host run.
if has_passed sum-r2t2-parallel && has_passed stencil2d-r2t2-parallel; then
    CHECKS=$((CHECKS + 1))
    if "$checker" sum-r2t2-parallel ranks 4 "$out/sum-r2t2-parallel.h5" "$work/host/stencil2d-r2t2-parallel.h5" \
        >"$work/control.log" 2>&1 || ! grep -q 'without a launcher on the host gave' "$work/control.log"; then
        fail "control: numa_vm_check did not reject sum's result against stencil2d's host run:"
        sed 's/^/    | /' "$work/control.log"
    fi
fi

# touchstone survey --quick in the guest: complete, its matrix 2 x 2 with every cell's pages on
# its memory node and nothing marked, the machine called emulated (qemu TCG), and its runs placed
# as runs are: parallel init >= 99% local (as numa_vm_check asks: a stencil's row boundaries
# share pages), serial init at most 60% (the pages of node 1's threads are on node 0).
CHECKS=$((CHECKS + 1))
dump=$out/survey.dump
if [ "$(cat "$out/survey.status" 2>/dev/null)" != 0 ]; then
    fail "touchstone survey --quick: exit $(cat "$out/survey.status" 2>/dev/null) inside the VM; its output:"
    sed 's/^/    | /' "$out/survey.log" | tail -n 20
elif ! grep -q '^complete 1$' "$dump" || ! grep -q '^matrix 2x2 ' "$dump" ||
    [ "$(grep -c '^cell [01] [01] ' "$dump")" != 4 ] ||
    [ "$(grep -c '^measured cell [01] [01] .* fraction=1 misplaced=0 ' "$dump")" != 4 ] ||
    ! grep -q '^emulated 1$' "$dump" || ! grep -q '^measured sentence .*Remote memory is .*emulated machine' "$dump" ||
    [ "$(awk 'function local(  i, f) { for (i = 1; i <= NF; i++) if ($i ~ /^local_fraction=/) { split($i, f, "="); return f[2] } }
              /^measured run [a-z0-9]*-init-parallel-t4-r[0-9]* / { all++; n += local() >= 0.99 }
              /^measured run [a-z0-9]*-init-serial-t4-r[0-9]* / { all++; n += local() <= 0.6 }
              END { print (all >= 4 && n == all) ? "ok" : n "/" all }' "$dump")" != ok ]; then
    fail "touchstone survey --quick: expected a complete survey, a 2 x 2 matrix with every cell's pages on its node, the machine called emulated; its dump:"
    grep -E '^(complete|emulated|matrix|cell|measured cell|measured sentence|measured run [a-z0-9]*-init)' "$dump" | sed 's/^/    | /'
fi
# Its sections (issue 26): each measured, no buffer misplaced; STREAM and the loaded-latency curve
# with a row for every (CPU node, memory node) pair, scaling on both domains, core-to-core pairs
# across the nodes.
CHECKS=$((CHECKS + 1))
h5=$out/survey/survey.h5
pairs() { # SECTION: its distinct "cpu_node mem_node" pairs, one a line
    paste -d ' ' "$work/$1.cpu" "$work/$1.mem" | sort -u | tr '\n' ';'
}
missing=
for section in sweep stream scaling mixes loaded_latency c2c; do
    grep -q "^measured section $section rows=[1-9][0-9]* .* misplaced=0 " "$dump" || missing="$missing $section"
done
for section in stream loaded_latency; do
    "${H5_GET:?}" "$h5" "/sections/$section/columns/cpu_node" >"$work/$section.cpu" 2>&1 &&
        "$H5_GET" "$h5" "/sections/$section/columns/mem_node" >"$work/$section.mem" 2>&1 &&
        [ "$(pairs "$section")" = "0 0;0 1;1 0;1 1;" ] || missing="$missing $section-pairs($(pairs "$section"))"
done
"$H5_GET" "$h5" /sections/scaling/columns/node 2>/dev/null | sort -u | tr '\n' ' ' | grep -q '^0 1 $' ||
    missing="$missing scaling-domains"
"$H5_GET" "$h5" /sections/c2c/columns/relation 2>/dev/null | grep -qx cross_node || missing="$missing c2c-cross-node"
if [ -n "$missing" ]; then
    fail "touchstone survey --quick: sections missing, misplaced or short of node pairs:$missing; its dump:"
    grep -E '^(section|measured section)' "$dump" | sed 's/^/    | /'
fi
# Its report (survey --html in the guest): the 2 x 2 heat maps, said to mean nothing here.
CHECKS=$((CHECKS + 1))
html=$out/survey/survey.html
[ -f "$html" ] && grep -q 'timings mean nothing' "$html" && grep -q '<section id="matrix"' "$html" &&
    grep -q '<section id="sections"' "$html" ||
    fail "survey --html in the guest: no $html with its matrix and sections and the emulation said"

if [ "$FAILURES" -ne 0 ]; then
    echo "numa_vm: $FAILURES of $CHECKS checks failed (files in $out)"
    exit 1
fi
echo "numa_vm: all $CHECKS checks passed"

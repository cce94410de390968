#!/bin/sh
# Installs the Debian packages touchstone needs to build and test, and nothing else.
# Idempotent: when every package is present it only says so. Safe to run often
# (make run / make test call it every time).
set -eu

# One package list per purpose; the test list is only needed by `make test`. chromium and
# chromium-driver: the HTML report in a headless browser (tests/html); lmod and bash-completion:
# the environment modules and the completion cmake --install writes (tests/install); groff-base
# and man-db: the manual page checked (cli.manpage).
BUILD_PKGS="gcc make cmake pkg-config libc6-dev libgomp1 libhwloc-dev libnuma-dev libinih-dev libhdf5-dev libjansson-dev zlib1g-dev openmpi-bin libopenmpi-dev libhdf5-openmpi-dev"
TEST_PKGS="hdf5-tools python3 python3-h5py python3-matplotlib qemu-system-x86 busybox-static xz-utils jq util-linux valgrind clang-format-14 chromium chromium-driver lmod bash-completion groff-base man-db"
# The Debian package of tests/package: debhelper's CMake build, lintian's checks.
PACKAGE_PKGS="debhelper lintian"
# The libFuzzer harnesses of tests/fuzz (build-fuzz; docs/testing.md, "Fuzzing").
FUZZ_PKGS="clang-14 libclang-rt-14-dev"
# A private single-node Slurm for tests/slurm (started by hand: no systemd, nothing in /etc).
SLURM_PKGS="slurmctld slurmd slurm-client munge"
# likwid-bench: the hand-written reference kernels bench/run.sh measures against, and h5dump,
# which reads its timings out of the run files (`--bench`).
BENCH_PKGS="likwid hdf5-tools"

want="$BUILD_PKGS"
if [ "${1:-}" = "--test" ]; then
    want="$want $TEST_PKGS $PACKAGE_PKGS $FUZZ_PKGS $SLURM_PKGS"
fi
if [ "${1:-}" = "--bench" ]; then
    want="$want $BENCH_PKGS"
fi

missing=""
for pkg in $want; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    if [ "$status" != "installed" ]; then
        missing="$missing $pkg"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

echo "setup-deps: missing Debian packages:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "setup-deps: not root, cannot install them. Run as root, or ask an admin for:" >&2
    echo "    apt-get install -y --no-install-recommends$missing" >&2
    exit 2
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh only when install fails on stale lists.
if ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi

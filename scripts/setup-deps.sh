#!/bin/sh
# Installs the Debian packages touchstone needs to build and test, and nothing else.
# Idempotent: when every package is present it only says so. Safe to run often
# (make run / make test call it every time).
set -eu

# One package list per purpose; the test list is only needed by `make test`. chromium and
# chromium-driver: the HTML report in a headless browser (tests/html); lmod and bash-completion:
# the environment modules and the completion cmake --install writes (tests/install), tcl8.6 for
# Environment Modules beside Lmod (below); groff-base and man-db: the manual page checked
# (cli.manpage).
BUILD_PKGS="gcc make cmake pkg-config libc6-dev libgomp1 libhwloc-dev libnuma-dev libinih-dev libhdf5-dev libjansson-dev zlib1g-dev openmpi-bin libopenmpi-dev libhdf5-openmpi-dev"
TEST_PKGS="hdf5-tools python3 python3-h5py python3-matplotlib qemu-system-x86 busybox-static xz-utils jq util-linux valgrind clang-format-14 chromium chromium-driver lmod tcl8.6 bash-completion groff-base man-db"
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

# Environment Modules (Debian's environment-modules), for the Tcl modulefile of tests/install.
# The package conflicts with lmod (both are `module`), so it is not installed: its .deb is
# unpacked into a folder of its own, whose modulecmd.tcl the test starts by path (as the
# package's init script would, under tclsh8.6), Lmod staying installed beside it.
ENVMOD_DIR=/opt/touchstone-test/environment-modules
ENVMOD_CMD=$ENVMOD_DIR/usr/lib/modulecmd.tcl

# unpack_envmod: fetches the .deb with apt (refreshing stale lists once) and unpacks it.
unpack_envmod() {
    tmp=$(mktemp -d)
    # apt fetches as the unprivileged _apt user where it can write.
    chmod 755 "$tmp"
    chown _apt "$tmp" 2>/dev/null || true
    if ! (cd "$tmp" && apt-get download environment-modules) >&2; then
        apt-get update >&2
        (cd "$tmp" && apt-get download environment-modules) >&2 || { rm -rf "$tmp"; return 1; }
    fi
    rm -rf "$ENVMOD_DIR" && mkdir -p "$ENVMOD_DIR" && dpkg-deb -x "$tmp"/environment-modules_*.deb "$ENVMOD_DIR"
    status=$?
    rm -rf "$tmp"
    return $status
}

missing=""
for pkg in $want; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    if [ "$status" != "installed" ]; then
        missing="$missing $pkg"
    fi
done

envmod_missing=""
if [ "${1:-}" = "--test" ] && [ ! -r "$ENVMOD_CMD" ]; then
    envmod_missing=yes
fi

if [ -z "$missing" ] && [ -z "$envmod_missing" ]; then
    exit 0
fi

[ -n "$missing" ] && echo "setup-deps: missing Debian packages:$missing" >&2
[ -n "$envmod_missing" ] && echo "setup-deps: missing Environment Modules in $ENVMOD_DIR" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "setup-deps: not root, cannot install them. Run as root, or ask an admin for:" >&2
    [ -n "$missing" ] && echo "    apt-get install -y --no-install-recommends$missing" >&2
    [ -n "$envmod_missing" ] &&
        echo "    apt-get download environment-modules && dpkg-deb -x environment-modules_*.deb $ENVMOD_DIR" >&2
    exit 2
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh only when install fails on stale lists.
if [ -n "$missing" ] && ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi
if [ -n "$envmod_missing" ]; then
    unpack_envmod || { echo "setup-deps: cannot unpack environment-modules into $ENVMOD_DIR" >&2; exit 1; }
fi

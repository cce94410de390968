#!/bin/sh
# Usage: initramfs.sh OUT.cpio TOUCHSTONE GUEST_INIT CONFIG_INI [MPIRUN [OMP_TRUTH TRUTH_SCRIPT]]
# Builds the guest's whole root file system: static busybox, /init, and the touchstone
# binary with exactly the shared libraries the host's loader resolves for it, at the same
# paths, so the guest's loader finds them as the host's does. Left uncompressed: the
# kernel would otherwise spend emulated seconds decompressing it.
# With MPIRUN (Open MPI's mpirun), also Open MPI as the host has it, at the same paths: mpirun
# and orted, every plugin of Open MPI and of PMIx, their help files and configuration, and the
# libraries all of them need (about 30 MB).
# With OMP_TRUTH, the OpenMP binding model's check against libgomp (tests/topo/omp_truth and
# TRUTH_SCRIPT, test_omp_truth.sh) as /bin/omp_truth and /bin/test_omp_truth.sh.
set -eu

out=${1:?usage: initramfs.sh OUT.cpio TOUCHSTONE GUEST_INIT CONFIG_INI [MPIRUN [OMP_TRUTH TRUTH_SCRIPT]]}
ts=${2:?}
init=${3:?}
ini=${4:?}
mpirun=${5:-}
omp_truth=${6:-}
truth_script=${7:-}

die() { echo "numa_vm: initramfs: $*" >&2; exit 1; }

busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox missing (Debian package busybox-static)"
# The dynamic busybox (package busybox) would need its own libraries in the guest.
if LC_ALL=C ldd "$busybox" >/dev/null 2>&1; then
    die "$busybox is dynamically linked: install busybox-static instead of busybox"
fi
[ -x "$ts" ] || die "touchstone binary $ts missing"

root=$(mktemp -d "${out%/*}/.initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/etc"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$init" "$root/init"
chmod 755 "$root/init"
cp "$ts" "$root/bin/touchstone"
cp "$ini" "$root/etc/touchstone.ini"

# copy_libs FILE [PRELOAD]: the libraries the host's loader resolves for FILE (with the
# objects PRELOAD lists preloaded, and theirs), at their paths.
# ldd prints "name => /path (addr)" for libraries and "/path (addr)" for the loader.
copy_libs() {
    ldd_out=$(LC_ALL=C LD_PRELOAD="${2:-}" ldd "$1") || die "ldd $1 failed"
    case $ldd_out in *'not found'*) die "ldd $1: $(echo "$ldd_out" | grep 'not found' | tr '\n' ' ')" ;; esac
    libs=$(echo "$ldd_out" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
    [ -n "$libs" ] || die "ldd found no libraries for $1"
    # shellcheck disable=SC2086 # one word per path; one cp for all (forks are slow on a busy host)
    cp -L --parents $libs "$root"
}
copy_libs "$ts"
if [ -n "$omp_truth" ]; then
    [ -x "$omp_truth" ] && [ -f "$truth_script" ] || die "omp_truth $omp_truth or its script $truth_script missing"
    cp "$omp_truth" "$root/bin/omp_truth"
    cp "$truth_script" "$root/bin/test_omp_truth.sh"
    copy_libs "$omp_truth"
fi

# copy_tree DIR: DIR as it is (symbolic links kept, static archives left out).
copy_tree() {
    [ -d "$1" ] || die "no directory $1 (Open MPI as Debian installs it)"
    mkdir -p "$root${1%/*}"
    cp -a "$1" "$root$1"
    find "$root$1" -name '*.a' -exec rm -f {} +
}

if [ -n "$mpirun" ]; then
    command -v "$mpirun" >/dev/null 2>&1 || die "mpirun $mpirun not found"
    real=$(readlink -f "$(command -v "$mpirun")") # /usr/bin/mpirun -> alternatives -> orterun
    bindir=${real%/*}
    command -v ompi_info >/dev/null 2>&1 || die "ompi_info missing (it comes with Open MPI's mpirun)"
    # Open MPI's own paths, compiled in: plugins, help files, configuration.
    paths=$(ompi_info --parsable --path all) || die "ompi_info --path all failed"
    ompi_path() { echo "$paths" | sed -n "s/^path:$1://p" | head -n 1; }
    pkglibdir=$(ompi_path pkglibdir)
    pkgdatadir=$(ompi_path pkgdatadir)
    sysconfdir=$(ompi_path sysconfdir)
    if [ -z "$pkglibdir" ] || [ -z "$pkgdatadir" ] || [ -z "$sysconfdir" ]; then
        die "ompi_info --path all names no pkglibdir, pkgdatadir or sysconfdir"
    fi
    mkdir -p "$root/usr/bin"
    cp "$real" "$root/usr/bin/mpirun"
    copy_libs "$real"
    if [ -x "$bindir/orted" ]; then
        cp "$bindir/orted" "$root/usr/bin/orted"
        copy_libs "$bindir/orted"
    fi
    copy_tree "$pkglibdir"
    copy_tree "$pkgdatadir"
    copy_tree "$sysconfdir"
    # PMIx (Open MPI's runtime): its plugins and help files sit beside the real libpmix
    # (Debian: /usr/lib/x86_64-linux-gnu/pmix2/lib/{libpmix.so.2.*,pmix/} and ../share).
    pmixdir=""
    pmixlib=$(LC_ALL=C ldd "$pkglibdir"/mca_pmix_*.so | sed -n 's/.*libpmix[^ ]* => \(\/[^ ]*\) .*/\1/p' | head -n 1)
    if [ -n "$pmixlib" ]; then
        pmixdir=$(dirname "$(readlink -f "$pmixlib")")
        [ -d "$pmixdir/pmix" ] && copy_tree "$pmixdir/pmix"
        [ -d "$pmixdir/../share" ] && copy_tree "$(cd "$pmixdir/../share" && pwd)"
    fi
    # Every plugin's libraries: one ldd of mpirun with all plugins preloaded lists them all at
    # once (0.5 s; one ldd per plugin takes 5 s). When some library is missing on the host, the
    # plugins that need it are found one by one and left out: Open MPI would not load them on
    # the host either.
    plugins=$(find "$root$pkglibdir" ${pmixdir:+"$root$pmixdir"} -name '*.so' | sed "s|^$root||" | tr '\n' ' ')
    if LC_ALL=C LD_PRELOAD="$plugins" ldd "$real" | grep -q 'not found'; then
        for plugin in $plugins; do
            if LC_ALL=C ldd "$plugin" | grep -q 'not found'; then
                rm -f "$root$plugin"
                plugins=$(echo " $plugins " | sed "s| $plugin | |")
            fi
        done
    fi
    copy_libs "$real" "$plugins"
fi

( cd "$root" && find . | LC_ALL=C sort | "$busybox" cpio -o -H newc 2>/dev/null ) >"$out.tmp" ||
    die "cpio failed"
mv "$out.tmp" "$out"

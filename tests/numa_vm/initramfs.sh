#!/bin/sh
# Usage: initramfs.sh OUT.cpio TOUCHSTONE GUEST_INIT CONFIG_INI
# Builds the guest's whole root file system: static busybox, /init, and the touchstone
# binary with exactly the shared libraries the host's loader resolves for it, at the same
# paths, so the guest's loader finds them as the host's does. Left uncompressed: the
# kernel would otherwise spend emulated seconds decompressing it.
set -eu

out=${1:?usage: initramfs.sh OUT.cpio TOUCHSTONE GUEST_INIT CONFIG_INI}
ts=${2:?}
init=${3:?}
ini=${4:?}

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

# ldd prints "name => /path (addr)" for libraries and "/path (addr)" for the loader.
libs=$(LC_ALL=C ldd "$ts" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
[ -n "$libs" ] || die "ldd found no libraries for $ts"
for lib in $libs; do
    mkdir -p "$root${lib%/*}"
    cp -L "$lib" "$root$lib"
done
if LC_ALL=C ldd "$ts" | grep -q 'not found'; then
    die "ldd $ts: $(LC_ALL=C ldd "$ts" | grep 'not found' | tr '\n' ' ')"
fi

( cd "$root" && find . | LC_ALL=C sort | "$busybox" cpio -o -H newc 2>/dev/null ) >"$out.tmp" ||
    die "cpio failed"
mv "$out.tmp" "$out"

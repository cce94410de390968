#!/bin/sh
# Usage: kernel.sh CACHE_DIR
# Prints the path of a bootable Debian 12 kernel for the NUMA VM, fetching it once into
# CACHE_DIR. The guest needs no modules (serial console, ACPI SRAT NUMA, initramfs and page
# migration are built in), so the package is only unpacked, never installed on the host.
#
# We boot the raw ELF vmlinux, not the vmlinuz: qemu starts an ELF kernel through its PVH
# entry point, which skips the in-kernel xz decompression (3-4 s per boot under TCG).
# When no PVH entry note is found, the bzImage is printed instead (slower, still correct).
set -eu

cache=${1:?usage: kernel.sh CACHE_DIR}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
cd "$cache"

die() { echo "numa_vm: kernel: $*" >&2; exit 1; }

# Debian's own choice of amd64 kernel is whatever the linux-image-amd64 metapackage depends
# on (the generic flavour: not rt, cloud or dbg). Without package lists, ask after an update.
pick() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n 1
}
pkg=$(pick)
if [ -z "$pkg" ]; then
    # A kernel fetched earlier is good enough when the lists are gone (offline re-runs).
    old=$(ls -d linux-image-6.1.0-*-amd64 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$old" ] && [ -s "$old/kernel" ]; then
        cat "$old/kernel"
        exit 0
    fi
    [ "$(id -u)" -eq 0 ] || die "no package lists and not root: run 'apt-get update' as root"
    timeout 300 apt-get update >&2 || die "apt-get update failed"
    pkg=$(pick)
    [ -n "$pkg" ] || die "apt-cache finds no linux-image-6.1.0-*-amd64 behind linux-image-amd64 (is this Debian 12?)"
fi

dir=$cache/$pkg
if [ -s "$dir/kernel" ] && [ -s "$(cat "$dir/kernel")" ]; then
    cat "$dir/kernel"
    exit 0
fi

# Fetch and unpack into a scratch directory, then rename: an interrupted run leaves no
# half-made cache behind.
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fetch() { ( cd "$tmp" && timeout 600 apt-get download "$pkg" >/dev/null 2>"$tmp/apt.err" ); }
if ! fetch; then
    # Old package lists name a kernel the mirror no longer has: refresh them once.
    if [ "$(id -u)" -eq 0 ] && timeout 300 apt-get update >&2; then
        pkg=$(pick)
        dir=$cache/$pkg
    fi
    [ -n "$pkg" ] && fetch || { sed 's/^/    /' "$tmp/apt.err" >&2; die "apt-get download $pkg failed"; }
fi
dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x" || die "dpkg-deb -x of $pkg failed"
vmlinuz=$(ls "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$vmlinuz" ] || die "$pkg contains no /boot/vmlinuz-*"
mkdir "$tmp/out"
cp "$vmlinuz" "$tmp/out/vmlinuz"
cp "$tmp"/x/boot/config-* "$tmp/out/config"

# extract-vmlinux, reduced to the one compressor Debian uses on amd64: decompress from the
# first xz stream header that yields an ELF file.
kernel=vmlinuz
for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$tmp/out/vmlinuz" | cut -d: -f1); do
    tail -c +$((off + 1)) "$tmp/out/vmlinuz" | xz -dc --single-stream >"$tmp/out/vmlinux" 2>/dev/null || continue
    if [ "$(head -c 4 "$tmp/out/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]; then
        # PVH entry: an ELF note of owner "Xen", type 18 (XEN_ELFNOTE_PHYS32_ENTRY).
        if readelf -n "$tmp/out/vmlinux" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
            kernel=vmlinux
        fi
        break
    fi
done
[ "$kernel" = vmlinux ] || rm -f "$tmp/out/vmlinux"
echo "$dir/$kernel" >"$tmp/out/kernel"

rm -rf "$dir"
mv "$tmp/out" "$dir"
cat "$dir/kernel"

#!/bin/sh
# The package package.build made, installed with apt-get on this machine (CI's machine is
# throwaway; as root only), used as a site's user would (a run of an installed config, a job
# script found on PATH), then purged: no file of it left behind.
# Usage: test_install.sh SOURCE_DIR DEB_DIR
SRC=${1:?source directory}
DEBS=${2:?directory holding the package}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-package.XXXXXX")

[ "$(id -u)" -eq 0 ] || { echo "FAIL: installing a package needs root (CI runs as root)" >&2; exit 1; }
if dpkg-query -W -f='${db:Status-Status}' touchstone 2>/dev/null | grep -qx installed; then
    echo "FAIL: a touchstone package is installed on this machine already; this test installs and purges its own" >&2
    exit 1
fi
deb=$(ls "$DEBS"/touchstone_*_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "FAIL: no package in $DEBS (package.build)" >&2; exit 1; }
# apt-get takes a file for a package name only as a path with a slash in front: absolute.
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

# Purged whatever happens below.
cleanup() {
    DEBIAN_FRONTEND=noninteractive apt-get purge -y touchstone >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" >"$WORK/apt.log" 2>&1; then
    echo "FAIL: apt-get install $deb:" >&2
    tail -n 20 "$WORK/apt.log" | sed 's/^/    | /' >&2
    exit 1
fi
dpkg -L touchstone >"$WORK/files"

# A run of an installed config by the installed binary, from a directory of no checkout.
cd "$WORK" || exit 1
[ "$(command -v touchstone)" = /usr/bin/touchstone ] || fail "touchstone on PATH is $(command -v touchstone), not /usr/bin/touchstone"
if /usr/bin/touchstone run /usr/share/touchstone/configs/stencil2d.ini --set stencil.nx=64 --set stencil.ny=64 \
    --set run.iterations=3 --threads 2 -o "$WORK/run.h5" >"$WORK/run.out" 2>&1; then
    grep -q '^  verified   PASSED' "$WORK/run.out" || fail "the installed run did not say PASSED: $(tail -n 3 "$WORK/run.out")"
    [ -s "$WORK/run.h5" ] || fail "the installed run wrote no $WORK/run.h5"
else
    fail "touchstone run /usr/share/touchstone/configs/stencil2d.ini failed: $(tail -n 3 "$WORK/run.out")"
fi
# man finds the page where the package put it.
case $(man -w touchstone 2>/dev/null) in
/usr/share/man/man1/touchstone.1*) ;;
*) fail "man -w touchstone gives '$(man -w touchstone 2>&1)', not /usr/share/man/man1/touchstone.1.gz" ;;
esac
# A job script as installed, finding the binary on PATH (no TOUCHSTONE, no build/ here): the
# binding check every job starts with. Its status is advise's: 0 or 1 (findings), 2 could not check.
env -u TOUCHSTONE /usr/share/touchstone/jobs/check-binding.sh >"$WORK/job.out" 2>&1
status=$?
if [ "$status" -ge 2 ]; then
    fail "/usr/share/touchstone/jobs/check-binding.sh exited $status: $(tail -n 3 "$WORK/job.out")"
fi
grep -q '^verdict ' "$WORK/job.out" || fail "check-binding.sh printed no verdict: $(head -n 3 "$WORK/job.out")"

# Purged: no file the package installed is left, nor its directories of its own.
if ! DEBIAN_FRONTEND=noninteractive apt-get purge -y touchstone >"$WORK/purge.log" 2>&1; then
    fail "apt-get purge touchstone: $(tail -n 3 "$WORK/purge.log")"
fi
while read -r path; do
    [ -d "$path" ] && continue # shared directories (/usr/bin, /usr/share) stay
    [ -e "$path" ] || [ -L "$path" ] && fail "left behind after purge: $path"
done <"$WORK/files"
for dir in /usr/share/touchstone /usr/share/doc/touchstone; do
    [ -e "$dir" ] && fail "left behind after purge: $dir"
done
dpkg-query -W touchstone >/dev/null 2>&1 && fail "dpkg still knows touchstone after purge"

[ "$failures" -eq 0 ] || exit 1
echo "$(basename "$deb"): installed, ran an installed config and a job script, purged without a trace"

#!/bin/sh
# The Debian package built from a copy of the source tree by dpkg-buildpackage (debhelper's CMake
# build system), lintian-clean: no error, no warning without an override that says why
# (debian/touchstone.lintian-overrides). Its run-time dependencies are dh_shlibdeps', never
# written by hand. Leaves the .deb in OUT for package.install.
# Usage: test_build.sh SOURCE_DIR OUT
SRC=${1:?source directory}
OUT=${2:?directory for the package}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

rm -rf "$OUT"
mkdir -p "$OUT/touchstone"
# dpkg-buildpackage writes the packages next to the tree it builds: a copy without build trees.
(cd "$SRC" && tar cf - --exclude='./build*' --exclude=./.git --exclude=./obj-* \
    --exclude=./debian/touchstone --exclude=./debian/.debhelper --exclude=./debian/tmp .) |
    (cd "$OUT/touchstone" && tar xf -) || { echo "FAIL: cannot copy $SRC" >&2; exit 1; }
# nocheck: the suite is make test's (debian/rules); parallel: both cores; noautodbgsym: no
# debug-symbol package, which nothing here installs. The copy has no .git, as a tarball: its
# commit given as a site's packaging gives it (docs/building.md), when the tree has one.
commit=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null || true)
if ! (cd "$OUT/touchstone" && TOUCHSTONE_COMMIT="$commit" \
    DEB_BUILD_OPTIONS="nocheck parallel=$(nproc) noautodbgsym" dpkg-buildpackage -b -us -uc) \
    >"$OUT/build.log" 2>&1; then
    echo "FAIL: dpkg-buildpackage -b -us -uc failed:" >&2
    tail -n 30 "$OUT/build.log" | sed 's/^/    | /' >&2
    exit 1
fi
deb=$(ls "$OUT"/touchstone_*_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "FAIL: no touchstone_*.deb in $OUT" >&2; exit 1; }

# lintian: nothing it reports is left standing (overrides are not reported).
lintian --fail-on error,warning "$OUT"/touchstone_*.changes >"$OUT/lintian.log" 2>&1 ||
    { fail "lintian reports:"; grep -E '^[EW]: ' "$OUT/lintian.log" | sed 's/^/    | /' >&2; }

# The libraries the binary links, each a dependency dh_shlibdeps computed; debian/control names
# none itself.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libgomp1 libhwloc libnuma libinih libjansson libopenmpi; do
    echo "$depends" | grep -q "$lib" || fail "Depends has no $lib: $depends"
done
awk '/^Package: touchstone$/ { p = 1 } p && /^Depends:/' "$SRC/debian/control" | grep -Eq '(:|,)[[:space:]]*lib[a-z0-9]' &&
    fail "debian/control writes a library dependency by hand: dh_shlibdeps computes them"

# Where an HPC user looks: the program, the configs and job scripts, the docs, man touchstone,
# Tab.
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for path in ./usr/bin/touchstone ./usr/share/touchstone/configs/default.ini ./usr/share/touchstone/jobs/run.sbatch \
    ./usr/share/touchstone/jobs/check-binding.sh ./usr/share/touchstone/plot.py ./usr/share/doc/touchstone/copyright \
    ./usr/share/doc/touchstone/changelog.gz ./usr/share/man/man1/touchstone.1.gz \
    ./usr/share/bash-completion/completions/touchstone; do
    echo "$contents" | grep -qx "$path" || fail "the package has no $path"
done
echo "$contents" | grep -q modulefiles && fail "the package holds modulefiles: /usr is on every PATH already"
# The changelog's top entry is the version CMake builds.
version=$(sed -n 's/^[[:space:]]*VERSION \([0-9.]*\)$/\1/p' "$SRC/CMakeLists.txt" | head -n 1)
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
    fail "package version $(dpkg-deb -f "$deb" Version), CMakeLists.txt's $version (debian/changelog)"
# The packaged binary names that commit (or says unknown, from a tree without git).
dpkg-deb -x "$deb" "$OUT/unpacked" || fail "dpkg-deb -x $deb"
named=$("$OUT/unpacked/usr/bin/touchstone" --version 2>/dev/null | sed -n 's/^commit *//p')
[ "$named" = "${commit:-unknown}" ] || fail "the packaged touchstone --version names commit '$named', expected '${commit:-unknown}'"

[ "$failures" -eq 0 ] || exit 1
echo "$(basename "$deb"): built, lintian-clean, Depends: $depends"

#!/bin/bash
# The environment modules cmake --install writes (docs/building.md, "An environment module"),
# loaded by Lmod as a site's users load them: two versions installed side by side, each into a
# prefix of its own with its modulefiles in one tree; `module load touchstone` gives a working
# touchstone, its man page, its completion and TOUCHSTONE, loading the other version swaps
# them cleanly, `module unload` leaves nothing behind. The Tcl modulefile is loaded too, through
# Lmod's Tcl reader and by Environment Modules itself (its conflict, switch and unload), and a
# DESTDIR install names the real prefix, not the staging one.
# Arguments: TOUCHSTONE(of the build) SOURCE_DIR CMAKE BUILD_DIR
. "$(dirname "$0")/../cli/lib.sh"
CMAKE=${3:?path to cmake}
BUILD=${4:?the build directory to install}
LMOD_INIT=/usr/share/lmod/lmod/init/bash
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[ -r "$LMOD_INIT" ] || { fail "no $LMOD_INIT (Debian: lmod; scripts/setup-deps.sh --test installs it)"; finish; }
[ -r "$BASH_COMPLETION" ] || { fail "no $BASH_COMPLETION (Debian: bash-completion)"; finish; }
version=$(sed -n 's/^ *VERSION \([0-9.]*\)$/\1/p' "$SRC/CMakeLists.txt")
MODS=$WORK/modulefiles
APPS=$WORK/apps/touchstone

# install PREFIX MODULE_VERSION [DESTDIR]: this build into PREFIX, its modulefiles into $MODS,
# through the install script cmake --install runs (which takes the two variables for one install).
install_tree() {
    if ! DESTDIR=${3:-} "$CMAKE" -DCMAKE_INSTALL_PREFIX="$1" -DTOUCHSTONE_MODULEFILE_DIR="$MODS" \
        -DTOUCHSTONE_MODULE_VERSION="$2" -P "$BUILD/cmake_install.cmake" >"$WORK/install.log" 2>&1; then
        fail "install of $2 into $1: exit status $?"
        sed 's/^/    | /' "$WORK/install.log" | tail -10 >&2
        finish
    fi
}
install_tree "$APPS/$version" "$version"
for f in "$MODS/touchstone/$version.lua" "$MODS/touchstone/$version"; do
    [ -r "$f" ] || fail "no modulefile $f"
done
head -1 "$MODS/touchstone/$version" | grep -q '^#%Module' || fail "$MODS/touchstone/$version does not start with #%Module"

# in_lmod SCRIPT: runs SCRIPT in bash with Lmod started, MODULEPATH at the tree and nothing of
# touchstone on PATH nor in MANPATH; its output in $OUT, errors in $ERR.
in_lmod() {
    env -i HOME="$WORK" PATH=/usr/bin:/bin TERM=dumb MODULEPATH="${MODULEPATH_FOR:-$MODS}" \
        bash -c ". $LMOD_INIT; $1" >"$OUT" 2>"$ERR"
}
in_lmod "module load touchstone && echo loaded
    echo \"path \$(command -v touchstone)\"
    touchstone --version | head -1
    echo \"TOUCHSTONE \$TOUCHSTONE\"
    echo \"man \$(man -w touchstone)\"
    echo \"man bash \$(man -w bash 2>/dev/null || echo none)\"
    . $BASH_COMPLETION && __load_completion touchstone && complete -p touchstone
    module unload touchstone && echo unloaded
    echo \"after path \$(command -v touchstone || echo none)\"
    echo \"after TOUCHSTONE \${TOUCHSTONE-unset} MANPATH \${MANPATH-unset} XDG_DATA_DIRS \${XDG_DATA_DIRS-unset}\""
expect_in "$OUT" "^loaded$" "module load touchstone"
sed 's/^/    stderr: /' "$ERR" | grep -v '^ *stderr: *$' | head -5 >&2
expect_in "$OUT" "^path $APPS/$version/bin/touchstone$" "module load: touchstone on the PATH is the tree's"
expect_in "$OUT" "^touchstone $version$" "module load: touchstone --version runs"
expect_in "$OUT" "^TOUCHSTONE $APPS/$version/bin/touchstone$" "module load: TOUCHSTONE, the binary the job scripts run"
expect_in "$OUT" "^man $APPS/$version/share/man/man1/touchstone.1$" "module load: man touchstone finds the tree's page"
if [ -r /usr/share/man/man1/bash.1.gz ]; then
    expect_in "$OUT" "^man bash /usr/share/man/man1/bash.1" "module load: man still finds the system's pages"
fi
expect_in "$OUT" "^complete -F _touchstone touchstone$" "module load: bash-completion finds the completion"
expect_in "$OUT" "^unloaded$" "module unload touchstone"
expect_in "$OUT" "^after path none$" "module unload: no touchstone on the PATH"
expect_in "$OUT" "^after TOUCHSTONE unset MANPATH unset XDG_DATA_DIRS unset$" "module unload: its variables gone"

# ---- a second version beside it: loading it swaps the two, unloading leaves neither ----
install_tree "$APPS/$version-b" "$version-b"
in_lmod "module -t avail touchstone 2>&1
    module load touchstone/$version && module load touchstone/$version-b && echo swapped
    echo \"path \$(command -v touchstone)\"
    echo \"PATH \$PATH\"
    echo \"TOUCHSTONE \$TOUCHSTONE MANPATH \$MANPATH\"
    echo \"list \$(module -t list 2>&1 | tr '\n' ' ')\"
    module unload touchstone
    echo \"after PATH \$PATH\""
expect_in "$OUT" "^touchstone/$version$" "module avail: $version"
expect_in "$OUT" "^touchstone/$version-b$" "module avail: $version-b"
expect_in "$OUT" "^swapped$" "module load of the other version"
expect_in "$OUT" "^path $APPS/$version-b/bin/touchstone$" "after the swap: the other version's touchstone"
expect_not_in "$OUT" "^PATH .*$APPS/$version/bin" "after the swap: the first version is off the PATH"
expect_in "$OUT" "^TOUCHSTONE $APPS/$version-b/bin/touchstone MANPATH $APPS/$version-b/share/man::$" \
    "after the swap: TOUCHSTONE and MANPATH the other version's alone"
expect_in "$OUT" "^list touchstone/$version-b $" "after the swap: one touchstone loaded"
expect_in "$OUT" "^after PATH /usr/bin:/bin$" "module unload after the swap: PATH as it was"

# ---- the Tcl modulefile, alone in a tree of its own ----
mkdir -p "$WORK/tcl/touchstone" && cp "$MODS/touchstone/$version" "$WORK/tcl/touchstone/$version"
MODULEPATH_FOR=$WORK/tcl in_lmod "module load touchstone && echo \"path \$(command -v touchstone) TOUCHSTONE \$TOUCHSTONE\"
    module unload touchstone; echo \"after \$(command -v touchstone || echo none) \${TOUCHSTONE-unset}\""
expect_in "$OUT" "^path $APPS/$version/bin/touchstone TOUCHSTONE $APPS/$version/bin/touchstone$" "the Tcl modulefile loads"
expect_in "$OUT" "^after none unset$" "the Tcl modulefile unloads"

# ---- the Tcl modulefiles with Environment Modules itself: load, the conflict, switch, unload ----
# Debian's environment-modules conflicts with lmod (both are `module`): scripts/setup-deps.sh
# --test unpacks it into a folder of its own; its modulecmd.tcl starts the shell as the
# package's init script does (`modulecmd.tcl bash autoinit`, under tclsh8.6), Lmod untouched.
EM_CMD=/opt/touchstone-test/environment-modules/usr/lib/modulecmd.tcl
if [ -r "$EM_CMD" ] && command -v tclsh8.6 >/dev/null; then
    cp "$MODS/touchstone/$version-b" "$WORK/tcl/touchstone/$version-b"
    # in_em SCRIPT: as in_lmod, with Environment Modules' `module` and the two Tcl modulefiles.
    in_em() {
        env -i HOME="$WORK" PATH=/usr/bin:/bin TERM=dumb \
            bash -c "eval \"\$(tclsh8.6 $EM_CMD bash autoinit)\"; export MODULEPATH=$WORK/tcl; $1" >"$OUT" 2>"$ERR"
    }
    in_em "module --version 2>&1 | head -1
        module load touchstone/$version && echo loaded
        echo \"path \$(command -v touchstone) TOUCHSTONE \$TOUCHSTONE\"
        echo \"man \$(man -w touchstone) bash \$(man -w bash 2>/dev/null || echo none)\"
        module load touchstone/$version-b 2>/dev/null || echo refused
        echo \"list \$LOADEDMODULES\"
        module switch touchstone/$version-b && echo switched
        echo \"PATH \$PATH TOUCHSTONE \$TOUCHSTONE\"
        module unload touchstone && echo unloaded
        echo \"after PATH \$PATH \${TOUCHSTONE-unset} \${MANPATH-unset} \${XDG_DATA_DIRS-unset} \${LOADEDMODULES:-none}\""
    sed 's/^/    stderr: /' "$ERR" | grep -v '^ *stderr: *$' | head -5 >&2
    expect_in "$OUT" "^Modules Release [0-9]" "Environment Modules: its module, not Lmod's"
    expect_in "$OUT" "^loaded$" "Environment Modules: module load touchstone/$version"
    expect_in "$OUT" "^path $APPS/$version/bin/touchstone TOUCHSTONE $APPS/$version/bin/touchstone$" \
        "Environment Modules: the tree's touchstone and TOUCHSTONE"
    expect_in "$OUT" "^man $APPS/$version/share/man/man1/touchstone.1 bash " "Environment Modules: man finds the tree's page"
    if [ -r /usr/share/man/man1/bash.1.gz ]; then
        expect_in "$OUT" "^man .* bash /usr/share/man/man1/bash.1" "Environment Modules: man still finds the system's pages"
    fi
    expect_in "$OUT" "^refused$" "Environment Modules: the other version refused while one is loaded (conflict touchstone)"
    expect_in "$OUT" "^list touchstone/$version$" "Environment Modules: after the refusal, the first still alone"
    expect_in "$OUT" "^switched$" "Environment Modules: module switch to the other version"
    expect_in "$OUT" "^PATH $APPS/$version-b/bin:/usr/bin:/bin TOUCHSTONE $APPS/$version-b/bin/touchstone$" \
        "Environment Modules: after the switch, the other version's alone"
    expect_in "$OUT" "^unloaded$" "Environment Modules: module unload touchstone"
    expect_in "$OUT" "^after PATH /usr/bin:/bin unset unset unset none$" "Environment Modules: unload leaves nothing behind"
else
    fail "no Environment Modules at $EM_CMD with tclsh8.6 (scripts/setup-deps.sh --test unpacks it)"
fi

# ---- DESTDIR: staged files, naming the prefix they will have ----
MODS=/opt/apps/modulefiles install_tree /opt/apps/touchstone/$version "$version" "$WORK/stage"
staged=$WORK/stage/opt/apps/modulefiles/touchstone/$version.lua
if [ -r "$staged" ]; then
    expect_in "$staged" "^prepend_path\(\"PATH\", \"/opt/apps/touchstone/$version/bin\"\)$" "DESTDIR: the modulefile names the real prefix"
    expect_not_in "$staged" "$WORK" "DESTDIR: the modulefile does not name the staging folder"
else
    fail "DESTDIR=$WORK/stage: no $staged"
fi
[ -e "/opt/apps/modulefiles/touchstone/$version.lua" ] && [ ! -e "$WORK/stage/opt/apps/touchstone" ] &&
    fail "DESTDIR: written outside $WORK/stage"
finish

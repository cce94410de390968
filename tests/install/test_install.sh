#!/bin/sh
# cmake --install gives a usable tree, wherever it is moved: the files are where
# docs/building.md says, and the moved tree's binary runs an installed config, plots the run
# with the installed plot.py, and its jobs/submit.sh finds it without PATH or TOUCHSTONE.
# Arguments: TOUCHSTONE(of the build) SOURCE_DIR CMAKE BUILD_DIR PYTHON
. "$(dirname "$0")/../cli/lib.sh"
CMAKE=${3:?path to cmake}
BUILD=${4:?the build directory to install}
PYTHON=${5:?path to the Python with matplotlib}

# --- install into one directory
if ! "$CMAKE" --install "$BUILD" --prefix "$WORK/inst" >"$WORK/install.log" 2>&1; then
    fail "cmake --install $BUILD --prefix $WORK/inst: exit status $?"
    sed 's/^/    | /' "$WORK/install.log" | tail -20 >&2
    finish
fi
I=$WORK/inst
DATA=$I/share/touchstone
DOC=$I/share/doc/touchstone
[ -x "$I/bin/touchstone" ] || { fail "no executable $I/bin/touchstone"; finish; }
[ -r "$DATA/plot.py" ] || fail "no $DATA/plot.py"
cmp -s "$SRC/tools/plot.py" "$DATA/plot.py" || fail "the installed plot.py is not tools/plot.py"

# same_files SRCDIR DESTDIR PATTERN WHAT: every file of SRCDIR matching PATTERN is in DESTDIR,
# same bytes, executable exactly when the source is.
same_files() {
    found=0
    for f in "$1"/$3; do
        [ -f "$f" ] || continue
        found=$((found + 1))
        d=$2/$(basename "$f")
        if ! cmp -s "$f" "$d"; then
            fail "$4: $d missing or not a copy of $f"
        elif [ -x "$f" ] && [ ! -x "$d" ]; then
            fail "$4: $d lost its executable bit"
        elif [ ! -x "$f" ] && [ -x "$d" ]; then
            fail "$4: $d is executable, its source is not"
        fi
    done
    [ "$found" -gt 0 ] || fail "$4: no $3 in $1 to compare with"
}
same_files "$SRC/configs" "$DATA/configs" "*.ini" "configs"
same_files "$SRC/jobs" "$DATA/jobs" "*" "jobs"
[ -x "$DATA/jobs/submit.sh" ] || fail "jobs/submit.sh installed without its executable bit"
same_files "$SRC" "$DOC" "README.md" "docs"
same_files "$SRC/docs" "$DOC/docs" "*.md" "docs"
same_files "$SRC/docs/img" "$DOC/docs/img" "*" "docs images"
cmp -s "$SRC/docs/touchstone.1" "$I/share/man/man1/touchstone.1" || fail "no copy of docs/touchstone.1 in $I/share/man/man1"
cmp -s "$SRC/tools/completion.bash" "$I/share/bash-completion/completions/touchstone" ||
    fail "no copy of tools/completion.bash as $I/share/bash-completion/completions/touchstone"
[ -e "$DOC/docs/touchstone.1" ] && fail "the manual page is installed twice: also as $DOC/docs/touchstone.1"
if [ -f "$SRC/LICENSE" ]; then
    same_files "$SRC" "$DOC" "LICENSE" "licence"
fi

# --- moved elsewhere: nothing may point back to where it was installed, nor to the build
mkdir "$WORK/elsewhere" && mv "$I" "$WORK/elsewhere/tree" || { fail "cannot move the tree"; finish; }
M=$WORK/elsewhere/tree
TS=$M/bin/touchstone
DATA=$M/share/touchstone
unset TOUCHSTONE TOUCHSTONE_PLOT_SCRIPT TOUCHSTONE_PYTHON

run_ts 0 "--version of the moved tree" --version && expect_in "$OUT" "^touchstone [0-9]+\.[0-9]+\.[0-9]+$" "--version"
run_ts 0 "check of an installed config" check "$DATA/configs/sum.ini" --set sum.n=100000 &&
    expect_in "$OUT" ": valid$" "check says the installed sum.ini is valid"
# With the default binding: applied without a re-execution (app/early.c) by the moved binary too.
run_ts 0 "run of an installed config" run "$DATA/configs/sum.ini" --set sum.n=100000 --set run.iterations=3 \
    --set openmp.proc_bind=close --threads 1 -o "$WORK/sum.h5" -q
[ -s "$WORK/sum.h5" ] || fail "the run wrote no $WORK/sum.h5"
reexec=$(h5dump -d /timings/reexec "$WORK/sum.h5" 2>/dev/null | sed -n 's/^ *(0): \(.*\)$/\1/p' | head -n 1)
[ "$reexec" = 0 ] || fail "the moved tree's run with the default binding was re-executed (/timings/reexec = '$reexec')"

# --- plot: the moved tree's plot.py, found from the binary's own place. A stand-in that fails
# on purpose shows which file runs (the message names it), whatever else is on this machine.
mv "$DATA/plot.py" "$WORK/plot.py.real"
printf 'import sys\nsys.exit(3)\n' >"$DATA/plot.py"
run_ts 2 "plot with a stand-in plot.py that exits 3" plot "$WORK/sum.h5" -o "$WORK/stand-in.png" &&
    expect_in "$ERR" "plot: $DATA/plot.py failed \(exit status 3\)" "plot runs the moved tree's plot.py"
mv "$WORK/plot.py.real" "$DATA/plot.py"
if "$PYTHON" -c "import h5py, matplotlib" 2>/dev/null; then
    run_ts 0 "plot of the run with the installed plot.py" plot "$WORK/sum.h5" --kind timeline -o "$WORK/sum.png" &&
        expect_in "$OUT" "^touchstone plot: wrote $WORK/sum.png \([0-9]+ x [0-9]+ px\)$" "plot's 'wrote' line"
    [ "$(od -An -c -N 4 "$WORK/sum.png" 2>/dev/null | tr -d ' \n')" = "211PNG" ] || fail "$WORK/sum.png is not a PNG"
else
    echo "SKIPPED: the real plot: $PYTHON lacks h5py or matplotlib (Debian: python3-h5py python3-matplotlib)"
fi

# --- jobs/submit.sh of the moved tree, from a directory with no build/, no touchstone on PATH:
# it checks the study with the tree's binary and names it to the jobs. sbatch is a stand-in
# that records what it was given.
mkdir "$WORK/fakebin" "$WORK/submit"
cat >"$WORK/fakebin/sbatch" <<EOF
#!/bin/sh
echo "TOUCHSTONE=\${TOUCHSTONE:-} \$*" >>"$WORK/sbatch.log"
echo 101
EOF
chmod +x "$WORK/fakebin/sbatch"
if PATH=$WORK/fakebin:/usr/bin:/bin command -v touchstone >/dev/null; then
    fail "a touchstone on /usr/bin:/bin would hide what submit.sh finds"
fi
(cd "$WORK/submit" && PATH=$WORK/fakebin:/usr/bin:/bin "$DATA/jobs/submit.sh" -c 2 -- "$DATA/configs/sum.ini" \
    --set sum.n=100000) >"$OUT" 2>"$ERR"
status=$?
if [ "$status" -ne 0 ]; then
    fail "installed submit.sh: exit status $status, expected 0"
    sed 's/^/    stderr: /' "$ERR" | head -10 >&2
else
    expect_in "$OUT" "^array  101  \(tasks 1,2, 2 CPUs each\)" "submit.sh submitted the array"
    expect_in "$WORK/sbatch.log" "^TOUCHSTONE=$TS .*$DATA/jobs/scaling.sbatch $DATA/configs/sum.ini" \
        "the array job is given the tree's binary"
    expect_in "$WORK/sbatch.log" "^TOUCHSTONE=$TS .*$DATA/jobs/gather.sbatch" "the gather job is given the tree's binary"
fi
finish

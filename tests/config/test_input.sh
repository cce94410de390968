#!/bin/sh
# Config input end to end: a config that reads only once (pipe, FIFO) is the one the run uses
# after the binding re-exec; reading one never blocks without a bound; what a config holds
# reaches the file as UTF-8 that h5py reads as docs/hdf5-schema.md shows; keys that have no effect warn.
# Arguments: TOUCHSTONE SOURCE_DIR H5_GET PYTHON
. "$(dirname "$0")/../cli/lib.sh"
H5GET=${3:?path to h5_get}
PYTHON=${4:?path to the Python with h5py}
# Neither binding variable set, and small.ini binds otherwise than the defaults (which
# the OpenMP runtime is given as it starts, app/early.c): every run re-executes itself to apply it.
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS TOUCHSTONE_CONFIG_TIMEOUT
cd "$WORK" || exit 1

# A small config unlike the defaults; stencil sizes on the command line keep the run small even
# if the config were lost (the defaults' kernel is stencil2d).
printf '[run]\nkernel = sum\niterations = 2\n[sum]\nn = 1000\n[openmp]\nproc_bind = spread\n' >small.ini
STENCIL_SMALL="--set stencil.nx=64 --set stencil.ny=48"

# expect_small FILE.h5 WHAT: the run used small.ini's values and stored its text.
expect_small() {
    [ "$("$H5GET" "$1" /config@run.kernel)" = sum ] || fail "$2: /config@run.kernel is '$("$H5GET" "$1" /config@run.kernel)', not the config's sum"
    [ "$("$H5GET" "$1" /config@sum.n)" = 1000 ] || fail "$2: /config@sum.n is '$("$H5GET" "$1" /config@sum.n)', not the config's 1000"
    "$H5GET" "$1" /config/text >text.out
    { cat small.ini; echo; } >text.want # h5_get ends what it prints with a newline
    cmp -s text.want text.out || fail "$2: /config/text is not the config's text"
}

# --- read once: a pipe, then the binding re-exec ---
# shellcheck disable=SC2086
cat small.ini | "$TS" run /dev/stdin $STENCIL_SMALL -q -o pipe.h5 >"$OUT" 2>"$ERR" || fail "run from a pipe: exit $?"
expect_small pipe.h5 "run /dev/stdin from a pipe"
[ "$("$H5GET" pipe.h5 /config@file)" = /dev/stdin ] || fail "the pipe's /config@file is not the path as given"
[ "$("$H5GET" pipe.h5 /threads@OMP_PROC_BIND_source)" = config ] && [ "$("$H5GET" pipe.h5 /timings/reexec)" != 0 ] ||
    fail "the pipe run was not re-executed to apply the binding (test premise)"

# The hand-over is taken only from this very process (exec keeps the pid) and only as the
# sealed memfd it made: a descriptor that is something else is refused, a stale marker ignored.
sh -c 'TOUCHSTONE_CONFIG_FD="fd=0;size=3;pid=$$" exec "$0" check "$1"' "$TS" small.ini </dev/null >"$OUT" 2>"$ERR"
[ $? -eq 2 ] || fail "a marker naming stdin (/dev/null) as the handed-over config was not refused"
expect_in "$ERR" "TOUCHSTONE_CONFIG_FD=fd=0;size=3;pid=[0-9]+: descriptor 0 is not a file of 3 bytes" "a marker naming stdin: the message"
"$PYTHON" - "$TS" small.ini >"$OUT" 2>"$ERR" <<'EOF'
import os, sys
fd = os.memfd_create("touchstone-config", 0)   # the right name and size, but not sealed
data = open(sys.argv[2], "rb").read()
os.write(fd, data)
os.set_inheritable(fd, True)
os.environ["TOUCHSTONE_CONFIG_FD"] = f"fd={fd};size={len(data)};pid={os.getpid()}"
os.execv(sys.argv[1], [sys.argv[1], "check", sys.argv[2]])
EOF
[ $? -eq 2 ] || fail "an unsealed memfd was taken as the handed-over config"
expect_in "$ERR" "descriptor [0-9]+ is not sealed as handed over" "an unsealed memfd: the message"
TOUCHSTONE_CONFIG_FD="fd=0;size=3;pid=1" run_ts 0 "a stale marker" check small.ini </dev/null &&
    expect_in "$OUT" "^kernel = sum " "a stale marker is ignored and the file read"

# A FIFO with a writer: the writer is bounded too, so nothing outlives the test.
mkfifo fifo
timeout 120 sh -c 'cat small.ini >fifo' &
writer=$!
# shellcheck disable=SC2086
timeout 120 "$TS" run fifo $STENCIL_SMALL -q -o fifo.h5 >"$OUT" 2>"$ERR"
status=$?
[ "$status" -eq 0 ] || { fail "run from a FIFO with a writer: exit $status (124: it hung)"; sed 's/^/    stderr: /' "$ERR" >&2; }
wait "$writer"
[ "$status" -eq 0 ] && expect_small fifo.h5 "run from a FIFO"

# A FIFO nobody writes to: refused after TOUCHSTONE_CONFIG_TIMEOUT seconds, not waited on forever.
for cmd in check "run -o never.h5"; do
    # shellcheck disable=SC2086
    TOUCHSTONE_CONFIG_TIMEOUT=0.3 timeout 120 "$TS" $cmd fifo >"$OUT" 2>"$ERR"
    status=$?
    [ "$status" -eq 2 ] || fail "$cmd of a FIFO without a writer: exit $status, expected 2 (124: it hung)"
    expect_in "$ERR" "fifo: a FIFO, and nothing was written to it within 0.3 s" "$cmd of a FIFO without a writer: the message"
done
[ ! -e never.h5 ] || fail "a run refused for its config wrote never.h5"
TOUCHSTONE_CONFIG_TIMEOUT=soon timeout 120 "$TS" check fifo >"$OUT" 2>"$ERR"
[ $? -eq 2 ] || fail "TOUCHSTONE_CONFIG_TIMEOUT=soon accepted"
expect_in "$ERR" "TOUCHSTONE_CONFIG_TIMEOUT=soon: not a number of seconds" "a bad TOUCHSTONE_CONFIG_TIMEOUT is named"
# A pipe whose writer never ends it (it keeps writing blank lines until the pipe breaks).
(cat small.ini; while sleep 0.1; do echo || exit 0; done) 2>/dev/null | TOUCHSTONE_CONFIG_TIMEOUT=0.3 timeout 120 "$TS" check /dev/stdin >"$OUT" 2>"$ERR"
[ $? -eq 2 ] || fail "check of a pipe that never ends: not refused with 2"
expect_in "$ERR" "/dev/stdin: a pipe, and it did not end within 0.3 s \([0-9]+ bytes arrived" "a pipe that never ends: the message"

# --- lines inih would drop: refused at their line, or read as meant ---
printf '[run] kernel = sum\n[sum]\nn = 1000\n' >after.ini
run_ts 2 "text after ']'" check after.ini && expect_in "$ERR" "after.ini:1: text after the section header \[run\]: 'kernel = sum'" "text after ']' named at its line"
printf '[run]\nkernel = sum\n\n[bogus]\n' >bogus.ini
run_ts 2 "an empty unknown section" check bogus.ini && expect_in "$ERR" "bogus.ini:4: unknown section \[bogus\]" "empty unknown section at its header's line"
# Comments right after a section's ']' are comments, with or without a blank.
printf '[run];the run\nkernel = sum\niterations = 2\n[sum]#the sum\nn = 1000\n' >tight.ini
run_ts 0 "comments right after ']'" check tight.ini && expect_in "$OUT" "^n = 1000 +; tight.ini:5$" "comment right after ']': the section read"
# Every error of a config at once, for check and run alike, each at its line, then the --set ones.
printf '[run]\nkernel = none\niterations 2\n[sum]\nn = 0\n[bogus]\nx = 1\n[run] warmup = 1\n' >several.ini
for cmd in check run; do
    run_ts 2 "$cmd: a config with several errors" $cmd several.ini -o several.h5 --set stencil.nx=abc &&
        expect_in "$ERR" "^touchstone: error: several.ini:2: \[run\] kernel = none: unknown value" "$cmd: the first error" &&
        expect_in "$ERR" "^  several.ini:3: syntax error \(expected 'key = value' or '\[section\]'\): iterations 2$" "$cmd: the syntax error" &&
        expect_in "$ERR" "^  several.ini:5: \[sum\] n = 0: out of range" "$cmd: the value out of range" &&
        expect_in "$ERR" "^  several.ini:6: unknown section \[bogus\]" "$cmd: the unknown section" &&
        expect_in "$ERR" "^  several.ini:8: text after the section header \[run\]: 'warmup = 1'" "$cmd: the text after ']'"
    expect_in "$ERR" "^  --set stencil.nx=abc: \[stencil\] nx = abc: not an integer" "$cmd: the --set after the file's"
    [ "$(grep -c . "$ERR")" -eq 6 ] || fail "$cmd: 6 errors, 6 lines expected: $(cat "$ERR")"
done
[ ! -e several.h5 ] || fail "a run refused for its config wrote several.h5"
# openmp.places the OpenMP runtime would refuse (and ignore): refused like any bad value, at its line.
printf '[run]\nkernel = sum\n[openmp]\nplaces = {0}:99999999:1\n' >places.ini
for cmd in check run; do
    run_ts 2 "$cmd: openmp.places the runtime refuses" $cmd places.ini -o places.h5 &&
        expect_in "$ERR" "^touchstone: error: \[openmp\] places = \{0\}:99999999:1 \(places.ini:4\): the OpenMP runtime refuses it \(.*from 1 to 65535, not 99999999\)" \
            "$cmd: openmp.places the runtime refuses: the message"
done
run_ts 2 "--set openmp.places the runtime refuses" check small.ini --set 'openmp.places={99999}' &&
    expect_in "$ERR" "^touchstone: error: \[openmp\] places = \{99999\} \(--set #1\): the OpenMP runtime refuses it \(.*CPU number 99999 out of range" \
        "--set openmp.places the runtime refuses: the message"
[ ! -e places.h5 ] || fail "a run refused for its openmp.places wrote places.h5"
printf '[run]\rkernel = sum\riterations = 2\r[sum]\rn = 1000\r' >cr.ini
run_ts 0 "CR-only line endings" check cr.ini && expect_in "$OUT" "^n = 1000 +; cr.ini:5$" "CR-only lines read as lines"

# --- UTF-8: a config that is not refused at its line; other bytes stored escaped ---
printf '[run]\nkernel = sum\n; caf\351\n' >latin1.ini
run_ts 2 "a Latin-1 comment" run latin1.ini -o latin1.h5 && expect_in "$ERR" "latin1.ini:3: not valid UTF-8 at column 6" "Latin-1 named at its line and column"
[ ! -e latin1.h5 ] || fail "a run refused for its config wrote latin1.h5"
run_ts 2 "a Latin-1 -o" check small.ini -o "$(printf 'caf\351.h5')" && expect_in "$ERR" '^touchstone: error: -o caf\\xe9.h5: not valid UTF-8 at byte 4' "-o that is not UTF-8"

# The config's path, the command line and the environment are bytes: stored escaped. (An
# OMP_PLACES holding them is refused: the OpenMP runtime would ignore it; the message shows it
# printable.)
latin=$(printf 'caf\351')
cp small.ini "$latin.ini"
# shellcheck disable=SC2086
expect_run 2 "OMP_PLACES with Latin-1 bytes" env "OMP_PLACES={0},$latin" "$TS" run "$latin.ini" $STENCIL_SMALL -o utf8.h5 &&
    expect_in "$ERR" "^touchstone: error: OMP_PLACES=\{0\},caf\?: the OpenMP runtime refuses it" "OMP_PLACES with Latin-1 bytes: the message"
# shellcheck disable=SC2086
env "OMP_FOO=$latin" "$TS" run "$latin.ini" $STENCIL_SMALL -o utf8.h5 >"$OUT" 2>"$ERR" || fail "run with Latin-1 bytes in the environment: exit $?"
"$PYTHON" - utf8.h5 <<'EOF' || fail "h5py cannot read the strings as docs/hdf5-schema.md shows, or they are not escaped (see above)"
import sys
import h5py

failures = 0
def expect(what, got, want):
    global failures
    if got != want:
        print(f"{what}: {got!r}, expected {want!r}", file=sys.stderr)
        failures += 1

with h5py.File(sys.argv[1], "r") as f:
    env = dict(f["environment"].attrs)
    expect("/environment@OMP_FOO", env.get("OMP_FOO"), "caf\\xe9")
    expect("/config@file", f["config"].attrs["file"], "caf\\xe9.ini")
    line = f.attrs["command_line"]
    expect("/@command_line holds the path escaped", "caf\\xe9.ini" in line, True)
    text = f["config/text"].asstr()[()]
    expect("/config/text", text.startswith("[run]\nkernel = sum"), True)
    for name, value in list(env.items()) + list(f.attrs.items()):
        if isinstance(value, str):
            value.encode("utf-8")  # raises on the surrogates of undecodable bytes
sys.exit(1 if failures else 0)
EOF

# --- keys the kernel never reads ---
run_ts 0 "check a key of another kernel" check small.ini --set triad.n=5000
expect_in "$ERR" "^touchstone: warning: \[triad\] n = 5000 \(--set #1\) has no effect: kernel sum does not read it$" "check warns of triad.n with sum"
printf '[run]\nkernel = sum\niterations = 2\n[sum]\nn = 1000\n[stencil]\nnz = 8\n' >nz.ini
# shellcheck disable=SC2086
run_ts 0 "run with a key of another kernel" run nz.ini -q -o nz.h5
expect_in "$ERR" "warning: \[stencil\] nz = 8 \(nz.ini:7\) has no effect: kernel sum does not read it" "run warns on stderr"
"$H5GET" nz.h5 /warnings >warnings.txt
expect_in warnings.txt "^\[stencil\] nz = 8 \(nz.ini:7\) has no effect" "the warning is in /warnings"
for ini in "$SRC"/configs/*.ini; do
    run_ts 0 "check $(basename "$ini")" check "$ini" && expect_not_in "$ERR" "warning" "$(basename "$ini") sets no key without effect"
done
finish

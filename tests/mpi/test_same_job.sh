#!/bin/sh
# The same job on every rank (issue 24): a launcher wrapper that gives one rank another config
# key, another binary or another restart file once hung the job until its time limit, aborted
# in the halo exchange or wrote a file of mixed runs. Now the whole job refuses before any
# allocation, exit 2, with one message naming what differs and the values on rank 0 and on the
# first differing rank; no file is written. Every mpirun is under `timeout`: a hang fails.
# Usage: test_same_job.sh TOUCHSTONE SOURCE_DIR MPIRUN
. "$(dirname "$0")/lib.sh"
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1
TINY="--set stencil.nx=64 --set stencil.ny=48 --set run.iterations=3 --threads 1"

# A wrapper as a site's launcher script might be: rank $ODD_RANK gets $ODD_ARGS appended, or
# runs $ODD_BINARY instead of touchstone.
cat >"$WORK/wrap.sh" <<'WRAP'
#!/bin/sh
if [ "${OMPI_COMM_WORLD_RANK:-}" = "$ODD_RANK" ]; then
    [ -n "${ODD_BINARY:-}" ] && { shift; exec "$ODD_BINARY" "$@"; }
    # shellcheck disable=SC2086
    exec "$@" $ODD_ARGS
fi
exec "$@"
WRAP
chmod +x "$WORK/wrap.sh"

# refused DESCRIPTION RANKS ODD_RANK PATTERN ARGS...: the job ends with exit 2, one error line
# on stderr matching PATTERN, and no results file.
refused() {
    what=$1 ranks=$2 odd=$3 pattern=$4
    shift 4
    rm -f "$WORK/out.h5"
    MPI_ARGS="-x ODD_RANK=$odd -x ODD_ARGS -x ODD_BINARY"
    expect_run 2 "$what" timeout 120 "$MPIRUN" --oversubscribe --bind-to none -np "$ranks" $MPI_ARGS \
        "$WORK/wrap.sh" "$TS" "$@" -o "$WORK/out.h5" || return
    [ "$(grep -c '^touchstone: error:' "$ERR")" = 1 ] || fail "$what: not exactly one error line"
    expect_in "$ERR" "^touchstone: error: the ranks do not run the same job: .*$pattern" "$what"
    [ -e "$WORK/out.h5" ] && fail "$what: a results file was written"
}

export ODD_ARGS="" ODD_BINARY=""
# Each of these hung every rank (iterations, warmup, dims, time_block, write_field), failed the
# verification (alpha, ny) or aborted in the halo exchange (nx). One alone, as the message
# names one fact; then the others all on one rank in one job (a launch each cost 2 to 3 s),
# each named with both values: every key is in what the ranks compare.
ODD_ARGS="--set run.iterations=7"
# shellcheck disable=SC2086
refused "run.iterations differs on rank 1 of 2" 2 1 \
    '1 of 2 ranks differ from rank 0 \(.*\), the first rank 1 \(.*\), in 1 fact: run.iterations = "3" on rank 0, "7" on rank 1' \
    run "$SRC/configs/stencil2d.ini" $TINY
ODD_KEYS='run.warmup=0 mpi.dims=3x1 stencil.time_block=2 output.write_field=true stencil.alpha=0.15
    stencil.ny=50 stencil.nx=70'
ODD_ARGS=""
for odd in $ODD_KEYS; do ODD_ARGS="$ODD_ARGS --set $odd"; done
# shellcheck disable=SC2086
refused "7 keys differ on rank 1 of 2" 2 1 "in 7 facts: " run "$SRC/configs/stencil2d.ini" $TINY
for odd in $ODD_KEYS; do
    key=${odd%%=*} value=${odd#*=}
    expect_in "$ERR" "[:;] $key = \"[^\"]*\" on rank 0, \"$value\" on rank 1" "7 keys differ: $key named with both values"
done
# A command-line shorthand is a key like any other; several differences are all named.
ODD_ARGS="--serial-init --set stencil.nz=9"
# shellcheck disable=SC2086
refused "--serial-init and nz on rank 2 of 3" 3 2 \
    'in 2 facts: stencil.nz = "256" on rank 0, "9" on rank 2; init.mode = "parallel" on rank 0, "serial" on rank 2' \
    run "$SRC/configs/stencil2d.ini" $TINY
# check refuses alike: it would report rank 0's plan for a job that cannot run.
ODD_ARGS="--set run.kernel=sum"
# shellcheck disable=SC2086
refused "check with another kernel on rank 1" 2 1 'run.kernel = "stencil2d" on rank 0, "sum" on rank 1' \
    check "$SRC/configs/stencil2d.ini" $TINY

# Many ranks, the odd one deep inside: the count and the first are right, still within seconds.
ODD_ARGS="--set run.iterations=9"
# shellcheck disable=SC2086
refused "iterations on rank 9 of 16" 16 9 "1 of 16 ranks differ from rank 0 \(.*\), the first rank 9 " \
    run "$SRC/configs/stencil2d.ini" $TINY

# Another restart file: a copy of the checkpoint made at another time (the same bytes).
ODD_ARGS=""
printf 'not read: the ranks refuse before\n' >"$WORK/a.ckpt.h5"
cp "$WORK/a.ckpt.h5" "$WORK/b.ckpt.h5"
touch -d '2020-01-01 00:00:00' "$WORK/b.ckpt.h5"
ODD_ARGS="--restart $WORK/b.ckpt.h5"
# shellcheck disable=SC2086
refused "another restart file on rank 1" 2 1 \
    'the restart file \(--restart\) = "[^"]*/a.ckpt.h5 [^"]*" on rank 0, "[^"]*/b.ckpt.h5 \([0-9]+ bytes, modified 2020-01-01 00:00:00.000000000 UTC\)" on rank 1' \
    run "$SRC/configs/stencil2d.ini" $TINY --restart "$WORK/a.ckpt.h5"

# Another binary: the same version, another build (its GNU build id changed in a copy).
ODD_ARGS=""
if python3 - "$TS" "$WORK/touchstone-other" <<'PATCH'; then
import re, subprocess, sys
src, dst = sys.argv[1:3]
notes = subprocess.run(["readelf", "-n", src], capture_output=True, text=True).stdout
found = re.search(r"Build ID: ([0-9a-f]+)", notes)
if not found:
    sys.exit(1)
build_id = bytes.fromhex(found.group(1))
data = open(src, "rb").read()
if data.count(build_id) != 1:
    sys.exit(1)
with open(dst, "wb") as out:
    out.write(data.replace(build_id, bytes([build_id[0] ^ 0xFF]) + build_id[1:]))
PATCH
    chmod +x "$WORK/touchstone-other"
    export ODD_BINARY="$WORK/touchstone-other"
    # shellcheck disable=SC2086
    refused "another build on rank 2 of 4" 4 2 \
        'the binary = "touchstone [^"]*, build id [0-9a-f]+" on rank 0, "touchstone [^"]*, build id [0-9a-f]+" on rank 2' \
        run "$SRC/configs/stencil2d.ini" $TINY
    ODD_BINARY=""
else
    fail "could not make a copy of touchstone with another build id (readelf -n, python3)"
fi

# The same job everywhere runs as before (the wrapper changes nothing).
# shellcheck disable=SC2086
mpi_ts 0 "the same job on 3 ranks" 3 run "$SRC/configs/stencil2d.ini" $TINY -o "$WORK/same.h5"
expect_in "$OUT" "^  verified   PASSED" "the same job on 3 ranks: verified"
finish

# Shared by the MPI tests: tests/cli/lib.sh (run_ts, expect_in, fail, finish), mpirun as the
# tests start it, and the environment of a process no launcher started.
# Usage: . "$(dirname "$0")/lib.sh" "$@"   (arguments: TOUCHSTONE SOURCE_DIR MPIRUN ...)
. "$(dirname "$0")/../cli/lib.sh"
MPIRUN=${3:?path to mpirun}
case $TS in /*) ;; *) TS=$(pwd)/$TS ;; esac # the tests change directory

# The suite runs as root in CI; one host: shared memory and self, no network probed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader
# A rank waiting for another gives its core away (Open MPI's polling loop yields: it does so by
# itself only with more ranks than slots), and an OpenMP thread waiting for work sleeps instead
# of spinning. These tests check results, files and messages, never speed; on 2 cores with
# another test beside them, a polling rank or spinning thread stole the time of the one it
# waited for: a 2-rank run took 1.3 s of CPU and 4.5 s, 0.46 s and 2.0 s with both (2026-12-05,
# a loaded machine). Neither changes what a run computes or writes (OMP_WAIT_POLICY is recorded
# with the other OMP_ variables, on every rank and in the one-process runs alike).
export OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=passive
# Under AddressSanitizer (build-asan), leaks are looked for in the tests that set MPI_LEAK_CHECK
# (tests/mpi/CMakeLists.txt: every stage of a run across 8 ranks, in one launch):
# Open MPI's own leaks suppressed (lsan.supp says why), with full stacks, since the fast
# unwinder stops in Open MPI's unloaded components, before a frame that names them. Full stacks
# make every malloc slow: a 3-rank run took 13.8 s against 3.9 s without leak checks (2026-12-05,
# a loaded machine); with leak checks in two MPI tests only, the ASan pass of a clean make test
# went from 488 s to 342 s. The others keep ASan's other checks.
# Ignored by the other builds.
if [ -n "${MPI_LEAK_CHECK:-}" ]; then
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SRC/tests/mpi/lsan.supp:fast_unwind_on_malloc=0"
    export LSAN_OPTIONS
elif [ -n "${ASAN_OPTIONS:-}" ]; then
    ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    export ASAN_OPTIONS
fi
# What touchstone takes for a launcher (dist/ts_dist.c): unset, so that the suite may itself
# run under one (a Slurm job step) and the unlaunched runs stay unlaunched.
unset OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE

# Extra mpirun options for the next mpi_ts (-x VAR=value), word-split.
MPI_ARGS=""

# mpi_ts EXPECTED_STATUS DESCRIPTION RANKS TOUCHSTONE_ARGS...: touchstone on RANKS ranks
# through mpirun (more ranks than cores allowed, no binding of mpirun's own: the OpenMP binding
# is touchstone's), stdout to $OUT, stderr (the ranks' and mpirun's) to $ERR; checks mpirun's
# exit status.
mpi_ts() {
    expected=$1
    what=$2
    ranks=$3
    shift 3
    # shellcheck disable=SC2086
    expect_run "$expected" "$what" "$MPIRUN" --oversubscribe --bind-to none -np "$ranks" $MPI_ARGS "$TS" "$@"
}

# mpi_ts_within SECONDS EXPECTED_STATUS DESCRIPTION RANKS TOUCHSTONE_ARGS...: mpi_ts with mpirun
# ended after SECONDS (TERM, then KILL 10 s later, to its whole process group): a job that hangs
# fails its check with status 124 instead of holding the suite until CTest's TIMEOUT.
mpi_ts_within() {
    limit=$1
    expected=$2
    what=$3
    ranks=$4
    shift 4
    # shellcheck disable=SC2086
    expect_run "$expected" "$what" timeout -k 10 "$limit" "$MPIRUN" --oversubscribe --bind-to none -np "$ranks" \
        $MPI_ARGS "$TS" "$@"
}

# h5_bits FILE PATH: one value of a results file as its bits ("%a", from $H5GET -x), or "missing".
h5_bits() {
    "$H5GET" -x "$1" "$2" 2>/dev/null || echo missing
}

# Shared by the CLI tests: run touchstone, check exit codes and messages, fail loudly.
# Usage in a test: . "$(dirname "$0")/lib.sh" "$@"   (arguments: TOUCHSTONE SOURCE_DIR)
set -u

TS=${1:?path to the touchstone binary}
SRC=${2:?path to the source tree}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0
OUT=$WORK/stdout
ERR=$WORK/stderr

# Small problems so each run takes milliseconds.
SMALL="--set sum.n=100000 --set triad.n=100000 --set stencil.nx=64 --set stencil.ny=48 --set stencil.nz=16 --set run.iterations=3"

fail() {
    echo "FAILED: $*" >&2
    FAILURES=$((FAILURES + 1))
}

# expect_run EXPECTED_STATUS DESCRIPTION CMD...: runs CMD (touchstone, or touchstone behind env,
# a ulimit, a launcher), output in $OUT/$ERR, status in $status; fails the check unless it
# exits with EXPECTED_STATUS.
expect_run() {
    expected=$1
    what=$2
    shift 2
    "$@" >"$OUT" 2>"$ERR"
    status=$?
    if [ "$status" -ne "$expected" ]; then
        fail "$what: exit status $status, expected $expected ($*)"
        sed 's/^/    stderr: /' "$ERR" | head -20 >&2
        return 1
    fi
    return 0
}

# run_ts EXPECTED_STATUS DESCRIPTION ARGS...: touchstone ARGS, through expect_run.
run_ts() {
    expected=$1
    what=$2
    shift 2
    expect_run "$expected" "$what" "$TS" "$@"
}

# expect_in FILE PATTERN DESCRIPTION: grep -E PATTERN must match in FILE.
expect_in() {
    if ! grep -Eq -- "$2" "$1"; then
        fail "$3: expected /$2/ in $(basename "$1")"
        sed 's/^/    | /' "$1" | head -20 >&2
    fi
}

expect_not_in() {
    if grep -Eq -- "$2" "$1"; then
        fail "$3: did not expect /$2/ in $(basename "$1")"
        grep -E -- "$2" "$1" | sed 's/^/    | /' | head -5 >&2
    fi
}

# The combined result as printed in the summary (17 significant digits identify a double).
result_of() {
    sed -n 's/^  result .* = \([^ ]*\) .*/\1/p' "$OUT"
}

finish() {
    if [ "$FAILURES" -ne 0 ]; then
        echo "$FAILURES check(s) failed" >&2
        exit 1
    fi
    echo "all checks passed"
    exit 0
}

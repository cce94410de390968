# Shared by the faults.* tests, on top of tests/cli/lib.sh (run_ts, expect_in, fail, finish).
# Usage: . "$(dirname "$0")/lib.sh" "$@"   (arguments: TOUCHSTONE SOURCE_DIR H5_GET FAULTFS_SO)
. "$(dirname "$0")/../cli/lib.sh"
H5GET=${3:?path to h5_get}
FAULTFS=${4:?path to libfaultfs.so}
get() { "$H5GET" "$@"; }

# faulty VAR=VALUE... -- ARGS...: touchstone with the fault library preloaded and the FAULTFS_*
# variables given, output in $OUT/$ERR, status in $status.
faulty() {
    vars=""
    while [ "$1" != "--" ]; do
        vars="$vars $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    env LD_PRELOAD="$FAULTFS" $vars "$TS" "$@" >"$OUT" 2>"$ERR"
    status=$?
}

# expect_status N WHAT: the last faulty run ended with status N.
expect_status() {
    if [ "$status" -ne "$1" ]; then
        fail "$2: exit status $status, expected $1"
        sed 's/^/    stderr: /' "$ERR" | head -20 >&2
        return 1
    fi
    return 0
}

# no_temp_left DIR WHAT: a failed write removes its temporary file.
no_temp_left() {
    left=$(find "$1" -maxdepth 1 -name '*.tmp.*' | head -3)
    [ -z "$left" ] || fail "$2: temporary file(s) left behind: $left"
}

# same_bytes SAVED FILE WHAT: FILE is byte for byte the copy saved before the fault.
same_bytes() {
    if [ ! -e "$2" ]; then
        fail "$3: $2 is gone (it must survive a failed write untouched)"
    elif ! cmp -s "$1" "$2"; then
        fail "$3: $2 changed (it must survive a failed write untouched)"
    fi
}

# Exact bits of a dataset, for bitwise comparisons (h5_get -x prints %a).
bits() { get -x "$1" "$2" 2>/dev/null; }

# mount_ns SCRIPT ARGS...: runs a shell script in a private mount namespace, so that the
# tmpfs and bind mounts a test makes vanish with it, even when the test is killed. As root
# (or mapped to root in a user namespace when the kernel allows that); exit 77 if neither.
can_mount() {
    for how in "-m" "-rm"; do
        # shellcheck disable=SC2086
        if unshare $how sh -c 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"' \
            >/dev/null 2>&1; then
            MOUNT_NS=$how
            return 0
        fi
    done
    return 1
}

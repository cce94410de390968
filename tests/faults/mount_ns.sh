# Sourced first by the tests that mount (a tmpfs, a read-only bind mount): re-runs the test in
# a private mount namespace, so that its mounts are invisible to the machine and vanish with
# it, even when the test is killed. As root, or mapped to root in a user namespace where the
# kernel allows that; otherwise the test is skipped (exit 77, CTest's SKIP_RETURN_CODE).
if [ -z "${FAULTS_MOUNT_NS:-}" ]; then
    for how in -m -rm; do
        # shellcheck disable=SC2086
        if unshare $how sh -c 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"' \
            >/dev/null 2>&1; then
            FAULTS_MOUNT_NS=$how
            export FAULTS_MOUNT_NS
            # shellcheck disable=SC2086
            exec unshare $how sh "$0" "$@"
        fi
    done
    echo "SKIPPED: cannot mount in a private mount namespace (unshare -m needs root; unshare -rm needs user namespaces)"
    exit 77
fi

#!/bin/sh
# A finished file takes its name without replacing another: on this file system
# (renameat2 RENAME_NOREPLACE), on one without it (NFS: link, then unlink the temporary name)
# and on one without hard links either (a look, then rename). In each, a new name is written, and
# a name that another file takes while the file is being written (libfaultfs puts one there
# the moment the temporary file is created, after the run's last look) is left alone: the
# results file or checkpoint goes to the next free name (X-2.h5, X-2.ckpt.h5), the run says so
# and still exits 0, the other file is byte for byte as it was, no temporary file is left, and
# the finished run deletes its own checkpoint only.
. "$(dirname "$0")/lib.sh"
CFG=$SRC/configs/stencil2d.ini
RUN="--set stencil.nx=64 --set stencil.ny=64 --set run.iterations=20 --threads 1"
TAKEN="another run's file"

# (faulty keeps its own list in $vars: the file system's variables are in $fsvars.)
for fs in native no-noreplace no-link; do
    case $fs in
    native) fsvars="" ;;
    no-noreplace) fsvars="FAULTFS_NOREPLACE=EINVAL" ;;
    no-link) fsvars="FAULTFS_NOREPLACE=EINVAL FAULTFS_NOLINK=EPERM" ;;
    esac
    D=$WORK/$fs
    mkdir "$D"

    # A new name.
    rm -f "$WORK/trace"
    # shellcheck disable=SC2086
    faulty FAULTFS_TRACE="$WORK/trace" $fsvars -- run "$CFG" $RUN -o "$D/new.h5" -q
    if expect_status 0 "$fs: a new name"; then
        [ "$(get "$D/new.h5" /@complete 2>/dev/null)" = 1 ] || fail "$fs: a new name: no complete file"
        case $fs in
        no-noreplace) grep -q " noreplace-refused $D/new.h5\$" "$WORK/trace" || fail "$fs: RENAME_NOREPLACE was not refused" ;;
        no-link) grep -q " link-refused $D/new.h5\$" "$WORK/trace" || fail "$fs: link was not refused" ;;
        esac
    fi
    no_temp_left "$D" "$fs: a new name"

    # The results file's name taken while it is written (the second temporary file of r.h5: the
    # first is the probe of the directory at start).
    # shellcheck disable=SC2086
    faulty FAULTFS_TAKE=/r.h5.tmp.:2 $fsvars -- run "$CFG" $RUN -o "$D/r.h5"
    if expect_status 0 "$fs: results file name taken"; then
        [ "$(cat "$D/r.h5")" = "$TAKEN" ] || fail "$fs: the run replaced r.h5, which another run had written"
        [ "$(get "$D/r-2.h5" /@complete 2>/dev/null)" = 1 ] || fail "$fs: the results did not go to r-2.h5"
        expect_in "$ERR" "^touchstone: warning: $D/r\.h5 appeared during the run .* results go to $D/r-2\.h5\$" \
            "$fs: results file name taken: the warning"
        expect_in "$OUT" "^  output     $D/r-2\.h5  \(WARNING: $D/r\.h5 appeared during the run" \
            "$fs: results file name taken: the summary"
    fi
    no_temp_left "$D" "$fs: results file name taken"

    # The checkpoint's name taken at the first periodic checkpoint: the run's checkpoints and
    # results move to c-2; the other file stays, the run's own last checkpoint goes.
    # The later checkpoints replace the run's own earlier one: swapped in one step where the file
    # system can (RENAME_EXCHANGE), else a look and a rename: refused once for the first
    # checkpoint under c-2 (RENAME_NOREPLACE) and again for each swap.
    rm -f "$WORK/trace"
    # shellcheck disable=SC2086
    faulty FAULTFS_TRACE="$WORK/trace" FAULTFS_TAKE=/c.ckpt.h5.tmp.:1 $fsvars -- run "$CFG" $RUN \
        --set output.checkpoint_every=5 -o "$D/c.h5" -q
    case $fs in
    native) ;;
    *) [ "$(grep -c " noreplace-refused $D/c-2.ckpt.h5\$" "$WORK/trace")" -ge 2 ] ||
        fail "$fs: the swap of the run's own checkpoint was never refused (no fallback tried)" ;;
    esac
    if expect_status 0 "$fs: checkpoint name taken"; then
        [ "$(cat "$D/c.ckpt.h5")" = "$TAKEN" ] || fail "$fs: the run replaced or deleted c.ckpt.h5, another run's file"
        [ "$(get "$D/c-2.h5" /@complete 2>/dev/null)" = 1 ] || fail "$fs: the results did not follow the checkpoint to c-2.h5"
        [ -e "$D/c.h5" ] && fail "$fs: checkpoint name taken: the results went to c.h5 all the same"
        [ -e "$D/c-2.ckpt.h5" ] && fail "$fs: the finished run left its own checkpoint c-2.ckpt.h5"
        expect_in "$ERR" "c\.ckpt\.h5 appeared during the run .* results go to $D/c-2\.h5\$" \
            "$fs: checkpoint name taken: the warning"
    fi
    no_temp_left "$D" "$fs: checkpoint name taken"
done
finish

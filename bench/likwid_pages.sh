# bench/likwid_pages.sh: likwid-bench's arrays on 2 MiB pages, as touchstone's buffers, for the
# bench scripts that run it (sourced by bench/run.sh and bench/peer_sweep.sh). POSIX sh.
# shellcheck shell=sh

# likwid_pages_shim WORK CC: when LIKWID_HUGE is 1 (the default), builds $ROOT/bench/likwid_huge.c into
# WORK/huge.so; sets LIKWID_SHIM (empty when off or not built) and LIKWID_PAGES (what to say).
likwid_pages_shim() {
    LIKWID_SHIM=""
    LIKWID_PAGES="on the THP mode's pages (LIKWID_HUGE=0)"
    [ "${LIKWID_HUGE:-1}" = 1 ] || return 0
    if "$2" -O2 -shared -fPIC "$ROOT/bench/likwid_huge.c" -o "$1/huge.so" -ldl 2>"$1/huge.err"; then
        LIKWID_SHIM=$1/huge.so
        LIKWID_PAGES="asked 2 MiB pages too (LIKWID_HUGE=1)"
    else
        LIKWID_PAGES="on the THP mode's pages: the huge-page shim did not build ($(head -n 1 "$1/huge.err"))"
    fi
}

# likwid_paged CMD...: CMD (likwid-bench, or a watcher around it) with the shim preloaded when built.
likwid_paged() {
    (
        [ -z "$LIKWID_SHIM" ] || export LD_PRELOAD="$LIKWID_SHIM"
        "$@"
    )
}

#!/bin/sh
# init.huge_pages: the arrays ask for 2 MiB transparent huge pages (madvise) or refuse them,
# the results stay bitwise the same, and the placement audit counts the pages the kernel
# really gave (2 MiB only when every block is huge). Read with h5dump, the reference reader.
# Exits 77 (CTest: skipped) after the 4 KiB checks when THP is off, so the huge-page half
# is never reported as passed on a machine that could not run it.
. "$(dirname "$0")/lib.sh"
unset OMP_PLACES OMP_PROC_BIND

command -v h5dump >/dev/null 2>&1 || { fail "h5dump not found: install hdf5-tools (scripts/setup-deps.sh)"; finish; }

# values FILE DATASET [h5dump options]: its values, one a line; attr FILE /group/name.
values() {
    file=$1 path=$2
    shift 2
    h5dump -A 0 "$@" -d "$path" "$WORK/$file" 2>/dev/null | sed -n '/^ *DATA {/,/^ *}/p' | sed '1d;$d' \
        | sed 's/^ *([0-9,]*): *//' | tr ',' '\n' | sed 's/^ *//; /^$/d'
}
attr() {
    h5dump -a "$2" "$WORK/$1" 2>/dev/null | sed -n 's/^ *(0): *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p'
}
line() { values "$@" | tr '\n' ' '; }
sum_of() { values "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'; }

PAGE=$(getconf PAGESIZE)
HUGE=2097152
THP=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
THP=${THP:-unknown}
echo "THP mode: $THP"

# Two 32 MiB grids: 16 huge pages each, 8 per thread (>= 4 per thread: the arrays ask for them).
GRID="--set stencil.nx=2048 --set stencil.ny=2048 --set run.iterations=3 --threads 2"
for huge in true false; do
    # shellcheck disable=SC2086 # word splitting of GRID is wanted
    run_ts 0 "huge_pages=$huge" run "$SRC/configs/stencil2d.ini" $GRID --set init.huge_pages=$huge \
        --set placement.at_end=true -o "$WORK/$huge.h5" || finish
    cp "$OUT" "$WORK/$huge.out"
    [ "$(attr $huge.h5 /verification/passed)" = 1 ] || fail "huge_pages=$huge: not verified"
    # The local fraction is still reported, in the file and in the summary.
    fraction=$(values $huge.h5 /placement/local_fraction)
    [ -n "$fraction" ] || fail "huge_pages=$huge: no /placement/local_fraction"
    expect_in "$WORK/$huge.out" "pages      local to their thread after init: [0-9.]+% \(parallel init" \
        "huge_pages=$huge: the audit line"
    if [ "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" = 1 ]; then
        [ "$fraction" = 1 ] || fail "huge_pages=$huge: local_fraction $fraction on a one-node machine"
    fi
done

# Bitwise the same results: the page size decides where data sits, never what it is.
for path in /results/global /results/thread_partials /results/node_partials; do
    a=$(line true.h5 $path -m %a) b=$(line false.h5 $path -m %a) # %a: every bit
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$path differs: huge_pages=true '$a', false '$b'"
done

# false: base pages, audited one by one. Under "always" that takes MADV_NOHUGEPAGE.
GRID_PAGES=$((2048 * 2048 * 8 / PAGE))
want_madvise=none
[ "$THP" = always ] && want_madvise=MADV_NOHUGEPAGE
for group in /placement /placement/end; do
    [ "$(attr false.h5 $group/page_size)" = "$PAGE" ] || fail "huge_pages=false: $group@page_size $(attr false.h5 $group/page_size), expected $PAGE"
done
[ "$(attr false.h5 /placement/requested_page_size)" = "$PAGE" ] || fail "huge_pages=false: requested_page_size is not $PAGE"
[ "$(attr false.h5 /placement/madvise)" = "$want_madvise" ] \
    || fail "huge_pages=false under THP $THP: madvise '$(attr false.h5 /placement/madvise)', expected '$want_madvise'"
[ "$(line false.h5 /placement/thread_pages)" = "$GRID_PAGES $GRID_PAGES " ] \
    || fail "huge_pages=false: thread pages '$(line false.h5 /placement/thread_pages)', expected $GRID_PAGES each"
expect_not_in "$WORK/false.out" "pages of 2 MiB" "huge_pages=false: the summary claims huge pages"

if [ "$THP" != always ] && [ "$THP" != madvise ]; then
    # No huge pages to ask for: true changes nothing.
    [ "$(attr true.h5 /placement/page_size)" = "$PAGE" ] || fail "THP $THP: huge_pages=true audited $(attr true.h5 /placement/page_size)-byte pages"
    [ "$(attr true.h5 /placement/madvise)" = none ] || fail "THP $THP: huge_pages=true applied '$(attr true.h5 /placement/madvise)'"
    [ "$FAILURES" -ne 0 ] && finish
    echo "SKIPPED: the huge-page checks need transparent huge pages (always or madvise); this machine's mode is '$THP'"
    exit 77
fi

# true: MADV_HUGEPAGE applied, chunks on 2 MiB, and (memory not too fragmented) every block
# huge, so one address per 2 MiB is audited: 16 pages per grid, 16 per thread.
[ "$(attr true.h5 /placement/madvise)" = MADV_HUGEPAGE ] || fail "huge_pages=true: madvise '$(attr true.h5 /placement/madvise)'"
[ "$(attr true.h5 /placement/requested_page_size)" = $HUGE ] || fail "huge_pages=true: requested_page_size is not $HUGE"
[ "$(attr true.h5 /placement/granule_bytes)" = $HUGE ] || fail "huge_pages=true: chunks not on 2 MiB ($(attr true.h5 /placement/granule_bytes))"
for group in /placement /placement/end; do
    got=$(attr true.h5 $group/page_size)
    [ "$got" = $HUGE ] || fail "huge_pages=true: $group@page_size $got, expected $HUGE (did the kernel fall back to 4 KiB pages? AnonHugePages: $(grep AnonHugePages /proc/meminfo))"
done
[ "$(line true.h5 /placement/thread_pages)" = "16 16 " ] || fail "huge_pages=true: thread pages '$(line true.h5 /placement/thread_pages)', expected 16 each"
[ "$(sum_of true.h5 /placement/array_node_pages)" = 32 ] || fail "huge_pages=true: $(sum_of true.h5 /placement/array_node_pages) pages in the arrays, expected 32"
[ "$(sum_of true.h5 /placement/array_absent_pages)" = 0 ] || fail "huge_pages=true: pages absent after init"
expect_in "$WORK/true.out" "policy; 32 pages of 2 MiB, every 1," "huge_pages=true: the summary states the 2 MiB pages"
finish

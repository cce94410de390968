#!/bin/sh
# Every way a run file can be bad: exit status 2 and a message naming the file and the path
# inside it, never a crash (a crash would give another status). The damaged copies are made by
# h5_doctor through the HDF5 C API, or with head and dd for truncation and corruption.
. "$(dirname "$0")/../cli/lib.sh"
DOCTOR=${3:?path to h5_doctor}

# shellcheck disable=SC2086
run_ts 0 "a good run" run "$SRC/configs/stencil2d.ini" $SMALL --set run.iterations=20 -o "$WORK/good.h5" -q || finish
GOOD=$WORK/good.h5
size=$(wc -c <"$GOOD")

# bad NAME PATTERN: compare GOOD with NAME must fail with exit 2 and PATTERN (after the file name).
bad() {
    run_ts 2 "$1" compare "$GOOD" "$WORK/$1" && expect_in "$ERR" "^touchstone: error: $WORK/$1: $2" "$1"
}

run_ts 2 "missing file" compare "$GOOD" "$WORK/nope.h5" &&
    expect_in "$ERR" "cannot read $WORK/nope.h5: No such file or directory" "missing file"
echo "kernel,time" >"$WORK/text.h5"
bad text.h5 "not an HDF5 file"
: >"$WORK/empty.h5"
bad empty.h5 "not an HDF5 file"
head -c $((size / 2)) "$GOOD" >"$WORK/truncated.h5"
bad truncated.h5 "cannot open as HDF5 \(truncated file\)"
head -c 100 "$GOOD" >"$WORK/stub.h5"
bad stub.h5 "cannot open as HDF5"
# Overwriting bytes in the middle of the data: HDF5 has no checksums on data, so 16 bytes of
# 0xff over the values of /timings/iteration (h5dump gives their offset) read back as NaN,
# and the range check must catch them.
offset=$(h5dump -p -H -d /timings/iteration "$GOOD" | sed -n 's/.*OFFSET \([0-9]*\).*/\1/p' | head -1)
if [ -n "$offset" ]; then
    cp "$GOOD" "$WORK/corrupt-data.h5"
    printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
        dd of="$WORK/corrupt-data.h5" bs=1 seek="$offset" conv=notrunc 2>/dev/null
    bad corrupt-data.h5 "/timings/iteration: value \[0\] = -?nan is out of range"
else
    fail "h5dump gave no offset for /timings/iteration"
fi
# Foreign bytes in the middle (the file's own first 512, a superblock where none belongs):
# still read if they landed in data the summary does not use, or refused; never a crash.
cp "$GOOD" "$WORK/corrupt-middle.h5"
head -c 512 "$GOOD" | dd of="$WORK/corrupt-middle.h5" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$TS" compare "$GOOD" "$WORK/corrupt-middle.h5" >/dev/null 2>"$ERR"
status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 2 ] || fail "bytes overwritten in the middle: exit status $status (a crash?)"
[ "$status" -eq 0 ] || expect_in "$ERR" "^touchstone: error: $WORK/corrupt-middle.h5: " "damage in the middle names the file"

# One schema rule broken at a time.
for case in missing_group wrong_type wrong_shape unwritten newer_schema thread_count negative_time \
            fraction_range time_min no_schema kernel_type soft_link heap_loop heap_crash median_outside \
            nan_partial nan_first nan_later zero_iterations crafted_huge deflated deflated_twice scale_offset \
            external writer_extremes deflate_bomb chunk_bomb; do
    cp "$GOOD" "$WORK/$case.h5"
    "$DOCTOR" "$WORK/$case.h5" "$case" || fail "h5_doctor $case"
done
n=$(h5dump -a /timings/n_iterations "$GOOD" | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
bad missing_group.h5 "/timings: missing group"
bad wrong_type.h5 "/timings/iteration: expected 1-D double of $n values \(n_iterations\), found 2-D int32 \[1 x $n\]"
bad wrong_shape.h5 "/timings/iteration: expected 1-D double of $n values \(n_iterations\), found 1-D double \[$((n - 1))\]"
bad unwritten.h5 "/timings/iteration: holds 0 bytes of data for $n values: never written or cut short"
bad newer_schema.h5 "/@schema_version: schema_version 99 is newer than this touchstone reads \([0-9]+\)"
bad thread_count.h5 "/timings/thread_iteration: expected 2-D double of 3 x $n values \(n_threads x n_iterations\), found 2-D double \[2 x $n\]"
bad negative_time.h5 "/timings/thread_iteration: value \[0\]\[1\] = -1 is out of range, expected finite and >= 0"
bad fraction_range.h5 "/placement/thread_local_fraction: value \[0\] = 1.5 is out of range, expected 0..1 or NaN"
bad time_min.h5 "/results/time_min: 0 is not the smallest of /timings/iteration \([0-9.e-]+\)"
bad no_schema.h5 "/@schema_version: missing \(expected a scalar integer attribute\)"
bad kernel_type.h5 "/results@kernel: expected a scalar string, found scalar int32"
bad soft_link.h5 "/results: is a soft link, not an object stored in the file"
bad median_outside.h5 "/results/time_median: [0-9.e-]+ is not between time_min and time_max"
# NaN in thread_iteration is "not measured": whole iterations before a restart, nothing else.
bad nan_partial.h5 "/timings/thread_iteration: NaN \(not measured\) in iteration 0 for some threads only"
bad nan_first.h5 "/timings/thread_iteration: iterations 0 to 0 have no per-thread times \(NaN\), but the run was not restarted"
bad nan_later.h5 "/timings/thread_iteration: NaN \(not measured\) in iteration 1 after measured ones"
bad zero_iterations.h5 "/timings@n_iterations: 0 timed iterations in a complete run"
# What a run can write at the edges reads: 0 s and infinite rates, NaN local fractions.
run_ts 0 "0 s, infinite rates, NaN local fractions (report)" report "$WORK/writer_extremes.h5"
run_ts 0 "0 s, infinite rates, NaN local fractions (compare)" compare "$GOOD" "$WORK/writer_extremes.h5"
# Only data in the file itself, filtered only as h5py and h5repack do (HDF5 would look for a
# plugin for any other filter, and read an external file wherever it is).
run_ts 0 "a deflated and shuffled copy (h5repack)" compare "$GOOD" "$WORK/deflated.h5"
bad deflated_twice.h5 "/timings/iteration: deflated more than once, which touchstone does not read"
bad scale_offset.h5 "/timings/iteration: stored with filter 6, which touchstone does not read"
bad external.h5 "/timings/iteration: stored outside the file or in a layout touchstone does not read"
# Deflate bombs: 2^22 iterations of zeros in 1 MiB chunks of about a kB each (once 725 MB and
# 11 s in show), and a chunk of 40 bytes whose stream inflates to 64 MiB. Refused from the
# sizes, and from the stream inflated into a small buffer, before HDF5 inflates anything.
# plot and report --html validate with the same reader before drawing or writing anything.
for cmd in show report compare plot html; do
    args="$WORK/deflate_bomb.h5"
    case $cmd in
    compare) args="$GOOD $args" ;;
    plot) args="$args -o $WORK/bomb.png" ;;
    html) cmd=report args="$args --html $WORK/bomb.html" ;;
    esac
    # shellcheck disable=SC2086
    run_ts 2 "deflate bomb ($cmd)" $cmd $args &&
        expect_in "$ERR" "^touchstone: error: $WORK/deflate_bomb.h5: /timings/iteration: deflated: 4194304 values \(32 MiB\) from [0-9]+ stored bytes, more than touchstone inflates from a file of [0-9.]+ KiB \([0-9.]+ MiB in all: 16 MiB \+ 16 x its size\)" \
            "deflate bomb ($cmd): the dataset, its size and the limit"
done
[ ! -e "$WORK/bomb.png" ] && [ ! -e "$WORK/bomb.html" ] || fail "a deflate bomb refused, yet a picture or a report written"
bad chunk_bomb.h5 "/timings/iteration: chunk 0 inflates [0-9]+ stored bytes to more than the $((n * 8)) bytes a chunk holds"
# Enumerated attributes: a value touchstone never writes is refused by every reader, naming
# the known ones; so is a size the kernel does not have.
enum() { # NAME SPEC PATTERN
    cp "$GOOD" "$WORK/$1.h5"
    "$DOCTOR" "$WORK/$1.h5" "set_str:$2" || fail "h5_doctor set_str:$2"
    bad "$1.h5" "$3"
}
enum unknown_kernel "/results@kernel=stencil9d" \
    "/results@kernel: 'stencil9d' is not a kernel touchstone knows \(sum, triad, stencil2d, stencil3d\)"
for cmd in show report; do
    run_ts 2 "unknown kernel ($cmd)" $cmd "$WORK/unknown_kernel.h5" &&
        expect_in "$ERR" "^touchstone: error: $WORK/unknown_kernel.h5: /results@kernel: 'stencil9d' is not a kernel" "unknown kernel ($cmd)"
done
enum unknown_init "/results@init_mode=lazy" "/results@init_mode: 'lazy' is not an init mode touchstone knows \(parallel, serial\)"
enum unknown_huge "/config@init.huge_pages=maybe" "/config@init.huge_pages: 'maybe' is not a value of init.huge_pages touchstone knows \(true, false\)"
enum kernel_size "/results@kernel=sum" "/results@n: n = 0, nx x ny x nz = 64 x 48 x 1 is not the size of a sum run \(n > 0, no grid\)"
# 49 kB asking for 2^28 values in chunks never written: refused from what the file stores, before
# anything is allocated (under a 300 MB address-space limit the 2 GiB would not even fit).
# (AddressSanitizer's shadow memory alone needs terabytes of address space: no limit there.)
limit="prlimit --as=314572800"
[ -n "${ASAN_OPTIONS:-}" ] && limit=""
$limit "$TS" report "$WORK/crafted_huge.h5" >"$OUT" 2>"$ERR"
status=$?
[ $status -eq 2 ] || fail "crafted_huge.h5 under a 300 MB limit: exit status $status, expected 2"
expect_in "$ERR" "^touchstone: error: $WORK/crafted_huge.h5: /timings/iteration: holds 0 bytes of data for 268435456 values: never written or cut short" \
    "crafted_huge.h5: refused for what it stores, not for want of memory"

# HDF5 loops forever on this damaged heap: the reader's time limit, short for this one file
# only (report reads nothing else): a limit this short on the good file's read as well would
# be load deciding the verdict.
TOUCHSTONE_READ_TIMEOUT=2 run_ts 2 heap_loop.h5 report "$WORK/heap_loop.h5" &&
    expect_in "$ERR" "^touchstone: error: $WORK/heap_loop.h5: HDF5 did not finish reading it in 2 s: the file is corrupted" heap_loop.h5
# Under AddressSanitizer the reading child ends by the sanitizer's exit, not by SIGSEGV.
if [ -n "${ASAN_OPTIONS:-}" ]; then
    bad heap_crash.h5 "the process reading it failed: the file may be corrupted"
else
    bad heap_crash.h5 "HDF5 crashed reading it \(Segmentation fault\): the file is corrupted"
fi
finish

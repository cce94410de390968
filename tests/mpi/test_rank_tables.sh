#!/bin/sh
# The tables of every rank's rows, written by the ranks themselves (issue 24): each rank writes
# its threads' rows of /timings/thread_iteration and its row of /mpi/rank_iteration and
# /mpi/rank_halo_iteration into rank 0's file with collective parallel HDF5, and rank 0 gets
# each iteration's slowest rank by a reduction. The file of 3 ranks x 2 threads, and of ranks of
# 1, 3 and 3 threads (another count on one rank), holds the datasets, shapes and types of one
# process's file of as many threads (with /mpi besides), the one-process result and field, every
# row written (no row left at HDF5's fill value 0), each rank's row where its own times say it is
# (its row sums to its /mpi/ranks kernel, bitwise), /timings/iteration the largest of the ranks'
# rows, and the readers take it. The per-thread tables too (/threads, /counters, the partials,
# /placement and /placement/end): each row the thread's of the rank /mpi/ranks says, every row
# written, and what the summary says of them (taken by reductions) the sums of the rows written.
# About 15 s alone on the 2-core VM, loaded by other work (10 s before the per-thread checks).
# Usage: test_rank_tables.sh TOUCHSTONE SOURCE_DIR MPIRUN H5GET
. "$(dirname "$0")/lib.sh"
H5GET=${4:?path to h5_get}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1
LIMIT=300
JOB="run $SRC/configs/stencil2d.ini --set stencil.nx=37 --set stencil.ny=29 --set output.write_field=true
     --set run.iterations=5 --set run.warmup=2 --set openmp.proc_bind=false --set placement.at_end=true -q"

# layout FILE: one line per object, its path, kind and shape (h5ls), then every dataset's type
# (h5dump's header without attributes or shapes); what depends on the ranks left out: /mpi, the
# node partials (one a node of each rank), the warnings and summary lines.
layout() {
    h5ls -r "$1" | grep -Ev '^/(mpi|warnings|summary)|^/results/node_(ids|partials) '
    h5dump -H -A 0 "$1" | sed '1d; /^   GROUP "mpi" {/,/^   }/d' | grep -v DATASPACE
}

# values FILE: the dataset PATH of FILE, one %.17g a line.
values() { "$H5GET" "$1" "$2"; }

# tables NAME THREADS: the file $WORK/NAME.h5 of ranks of THREADS threads in all against
# $WORK/NAME-alone.h5, one process of THREADS threads.
tables() {
    name=$1 threads=$2 file=$WORK/$1.h5 alone=$WORK/$1-alone.h5
    layout "$alone" >"$WORK/$name-alone.layout"
    layout "$file" >"$WORK/$name.layout"
    diff "$WORK/$name-alone.layout" "$WORK/$name.layout" >"$WORK/$name.diff" ||
        { fail "$name: datasets, shapes or types differ from one process's"; head -20 "$WORK/$name.diff" >&2; }
    [ "$(h5_bits "$file" /results/global)" = "$(h5_bits "$alone" /results/global)" ] ||
        fail "$name: result $(h5_bits "$file" /results/global), one process $(h5_bits "$alone" /results/global)"
    h5diff "$alone" "$file" /field /field >/dev/null 2>&1 || fail "$name: the field differs from one process's"
    iterations=$("$H5GET" "$file" /timings@n_iterations) ranks=$("$H5GET" "$file" /mpi@size)
    [ "$iterations" = 5 ] || fail "$name: $iterations timed iterations, expected 5"
    n=$(values "$file" /timings/thread_iteration | awk '$1 > 0' | wc -l)
    [ "$n" -eq $((threads * 5)) ] ||
        fail "$name: $n of $threads x 5 thread times written (above 0), the others left unwritten"
    n=$(values "$file" /mpi/rank_iteration | awk '$1 > 0' | wc -l)
    [ "$n" -eq $((ranks * 5)) ] || fail "$name: $n of $ranks x 5 rank times written (above 0)"
    n=$(values "$file" /mpi/rank_halo_iteration | awk '$1 > 0' | wc -l)
    [ "$n" -eq $((ranks * 5)) ] || fail "$name: $n of $ranks x 5 halo times above 0 (stencils exchange every step)"
    # Row r is rank r's: it adds up to the kernel time rank r put in its /mpi/ranks row, in the
    # order the rank added its steps, to the bit.
    values "$file" /mpi/rank_iteration |
        awk -v it=5 '{ s[int((NR - 1) / it)] += $1 } END { for (r = 0; r in s; r++) printf "%.17g\n", s[r] }' \
            >"$WORK/$name.sums"
    values "$file" /mpi/ranks:kernel | awk '{ printf "%.17g\n", $1 }' >"$WORK/$name.kernels"
    cmp -s "$WORK/$name.sums" "$WORK/$name.kernels" ||
        fail "$name: the rows of /mpi/rank_iteration do not add up to each rank's kernel time: $(tr '\n' ' ' <"$WORK/$name.sums")against $(tr '\n' ' ' <"$WORK/$name.kernels")"
    # Each iteration's slowest rank, by the reduction, is the largest of the rows written.
    values "$file" /mpi/rank_iteration |
        awk -v it=5 '{ i = (NR - 1) % it; if (!(i in m) || $1 > m[i]) m[i] = $1 } END { for (i = 0; i < it; i++) printf "%.17g\n", m[i] }' \
            >"$WORK/$name.slowest"
    values "$file" /timings/iteration | awk '{ printf "%.17g\n", $1 }' >"$WORK/$name.iteration"
    cmp -s "$WORK/$name.slowest" "$WORK/$name.iteration" ||
        fail "$name: /timings/iteration is not the largest of each iteration's rank times"
    # The per-thread tables, each rank's rows written by the rank at its first thread's row: row t
    # of /threads and /placement is thread t - first of the rank /mpi/ranks says owns it, every
    # row written (a row left at HDF5's fill value would be rank 0's thread 0, with no host).
    values "$file" /mpi/ranks:n_threads |
        awk '{ for (t = 0; t < $1; t++) printf "%d %d\n", NR - 1, t }' >"$WORK/$name.owners"
    awk '{ print $1 }' "$WORK/$name.owners" >"$WORK/$name.ranks"
    awk '{ print $2 }' "$WORK/$name.owners" >"$WORK/$name.threads"
    for table in /threads/table:rank /placement/thread_rank /placement/end/thread_rank; do
        values "$file" "$table" | cmp -s - "$WORK/$name.ranks" ||
            fail "$name: $table is not each thread's rank in rank order: $(values "$file" "$table" | tr '\n' ' ')"
    done
    values "$file" /threads/table:thread | cmp -s - "$WORK/$name.threads" ||
        fail "$name: /threads/table:thread is not each rank's threads 0..n-1: $(values "$file" /threads/table:thread | tr '\n' ' ')"
    n=$(h5dump -d /threads/table "$file" | grep -c "\"$(hostname | cut -c1-63)\"")
    [ "$n" -eq "$threads" ] || fail "$name: $n of $threads rows of /threads/table name the ranks' host"
    # Each rank's thread partials add up to its partial (rounded each: to 1e-9 of it).
    values "$file" /results/thread_partials | paste -d ' ' "$WORK/$name.ranks" - >"$WORK/$name.partials"
    values "$file" /mpi/ranks:partial | awk -v f="$WORK/$name.partials" '
        BEGIN { while ((getline line < f) > 0) { split(line, a, " "); s[a[1]] += a[2]; n++ } }
        { r = NR - 1; d = s[r] - $1; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1
          if (d > 1e-9 * m) { printf "rank %d: threads %.17g, rank %.17g\n", r, s[r], $1; bad = 1 } }
        END { exit bad }' >"$WORK/$name.partials.bad" ||
        fail "$name: /results/thread_partials are not each rank's threads': $(cat "$WORK/$name.partials.bad")"
    n=$(values "$file" /results/node_partials | awk '$1 != 0' | wc -l)
    [ "$n" -eq "$ranks" ] || fail "$name: $n of $ranks rows of /results/node_partials written (one node a rank)"
    # What the summary says of them came by reductions: the same as the rows written.
    summary=$WORK/$name.summary
    values "$file" /summary >"$summary"
    faults=$( (values "$file" /counters/init:minor_faults; values "$file" /counters/init:major_faults) | awk '{ s += $1 } END { print s }')
    switches=$(values "$file" /counters/kernel:involuntary_switches | awk '{ s += $1 } END { print s }')
    pages=$(values "$file" /placement/thread_pages | awk '{ s += $1 } END { print s }')
    expect_in "$summary" "init page faults .* of $faults; kernel: $switches involuntary switches" \
        "$name: the summary's counters are the rows' sums ($faults faults, $switches switches)"
    expect_in "$summary" "after init: [0-9.]+% \(parallel init, firsttouch policy; $pages pages" \
        "$name: the summary's pages are the rows' sum ($pages)"
    expect_in "$summary" "\($threads thread partials -> $ranks node partials -> $ranks rank partials" \
        "$name: the summary counts every rank's threads and nodes"
    run_ts 0 "$name: show reads it" show "$file" && expect_in "$OUT" "^  per rank   slowest rank" "$name: show's ranks"
}

# shellcheck disable=SC2086
if run_ts 0 "one process of 6 threads" $JOB --threads 6 -o "$WORK/even-alone.h5" &&
    mpi_ts_within $LIMIT 0 "3 ranks x 2 threads" 3 $JOB --threads 2 -o "$WORK/even.h5"; then
    tables even 6
fi
# Ranks of 1, 3 and 3 threads: rank 0 the fewest, so that rows past its own count are others'.
# shellcheck disable=SC2086
if run_ts 0 "one process of 7 threads" $JOB --threads 7 -o "$WORK/odd-alone.h5" &&
    expect_run 0 "ranks of 1, 3 and 3 threads" timeout -k 10 $LIMIT "$MPIRUN" --oversubscribe --bind-to none \
        -np 1 -x OMP_NUM_THREADS=1 "$TS" $JOB -o "$WORK/odd.h5" : -np 2 -x OMP_NUM_THREADS=3 "$TS" $JOB -o "$WORK/odd.h5"; then
    [ "$(values "$WORK/odd.h5" /mpi/ranks:n_threads | tr '\n' ' ')" = "1 3 3 " ] ||
        fail "ranks of 1, 3 and 3 threads: /mpi/ranks:n_threads is $(values "$WORK/odd.h5" /mpi/ranks:n_threads | tr '\n' ' ')"
    tables odd 7
fi
finish

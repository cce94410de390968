#!/bin/sh
# Results are bitwise identical for any thread count, binding and init mode.
. "$(dirname "$0")/lib.sh"
RUNS=0 # each run writes a file of its own: an existing output is never replaced
# Under ASan (make test-asan sets ASAN_OPTIONS) 1, 3 and 7 threads: one thread, uneven splits,
# more threads than CPUs; even splits of 2 threads run there in most other tests, and the
# Release pass compares the bits of all five counts.
THREAD_COUNTS="1 2 3 4 7"
[ -n "${ASAN_OPTIONS:-}" ] && THREAD_COUNTS="1 3 7"

compare_results() { # KERNEL EXTRA_ARGS: run over thread counts, bindings and init modes
    kernel=$1
    shift
    reference=""
    for threads in $THREAD_COUNTS; do
        for init in parallel serial; do
            RUNS=$((RUNS + 1))
            # shellcheck disable=SC2086
            run_ts 0 "$kernel on $threads threads, $init init" run "$SRC/configs/$kernel.ini" $SMALL "$@" \
                --threads "$threads" --set init.mode=$init -o "$WORK/r$RUNS.h5" --set openmp.proc_bind=close || continue
            got=$(result_of)
            [ -n "$got" ] || fail "$kernel: no result in the summary"
            [ -z "$reference" ] && reference=$got
            [ "$got" = "$reference" ] || fail "$kernel on $threads threads, $init init: result $got differs from $reference"
        done
    done
    for binding in "OMP_PROC_BIND=false" "OMP_PLACES=threads OMP_PROC_BIND=spread" "OMP_PLACES={0} OMP_PROC_BIND=close"; do
        RUNS=$((RUNS + 1))
        # shellcheck disable=SC2086
        env $binding "$TS" run "$SRC/configs/$kernel.ini" $SMALL "$@" --threads 3 -o "$WORK/r$RUNS.h5" >"$OUT" 2>"$ERR" \
            || fail "$kernel with $binding failed"
        got=$(result_of)
        [ "$got" = "$reference" ] || fail "$kernel with $binding: result $got differs from $reference"
    done
}

compare_results sum --set sum.n=1000003
compare_results triad --set triad.n=1000003
compare_results stencil2d --set stencil.nx=129 --set stencil.ny=65
compare_results stencil3d --set stencil.nx=9 --set stencil.ny=9 --set stencil.nz=9
finish

/* compare's sides: runs of one configuration repeated, judged against the first side with
 * the spread between runs, which is what machine noise moves (docs/usage.md, "touchstone compare"). */
#ifndef TOUCHSTONE_APP_COMPARE_SIDES_H
#define TOUCHSTONE_APP_COMPARE_SIDES_H

#include <stddef.h>

#include "readback_set.h"

/* A verdict needs this many undisturbed runs on each side: then "every run of one side beat
 * every run of the other" has a two-sided Mann-Whitney p of at most 2 / C(6, 3) = 0.1. */
#define TS_SIDE_MIN_RUNS 3
/* With fewer runs, only a difference beyond this factor, with the runs' middle halves apart
 * and no disturbed run, is called: no machine noise seen here moved a median that far. */
#define TS_SIDE_FAR_FACTOR 3.0

struct ts_side {
    size_t first, n;     /* runs [first, first + n) of the set */
    size_t n_disturbed;  /* of them, disturbed (ts_run_stats.disturbed > 0) */
    size_t n_usable;     /* of them, undisturbed with timed iterations: what a verdict counts */
    double median;       /* median of the runs' median times per iteration, s; NaN when no run
                               * has a timed iteration (stopped during the warm-up) */
    double low, high;    /* the smallest and the largest of those medians: the spread between runs */
    double speedup;      /* side 1's median / this side's */
    double p_value;      /* two-sided Mann-Whitney p when every run of one side beat every run of
                               * the other (2 / C(n1 + n, n)), NaN otherwise */
    const char *verdict; /* "reference", "faster", "slower", "within noise", "cannot separate" */
    char why[600];       /* the verdict's reason in words, with the numbers */
    char differs[600];   /* what sets its configuration apart from side 1's, "" for side 1 */
};

/* Splits the runs of set into sides: a side is a stretch of consecutive runs with the same
 * configuration (kernel, size, ranks, threads of each rank, the ranks' decomposition,
 * OMP_PLACES, OMP_PROC_BIND, init mode, policy, variant, huge pages, host); split_before[i] != 0 (a `vs` on the command line) starts a new
 * side at run i as well. Then judges every side against the first. Returns the number of
 * sides, stored in *sides (malloc'd), or -1 when memory ran out. */
long ts_sides_make(const struct ts_run_set *set, const unsigned char *split_before, struct ts_side **sides);

/* Whether runs a and b differ in machine condition k (TS_CONDITION_NAMES order, /environment):
 * settings when their words differ; measured values (cpu_mhz, memory_limit_mib, numa_free_mib)
 * when one of their numbers differs by more than 10% and by more than 1, as machine noise
 * moves them less. 0 when either run does not know it ("", "unknown": older files, kernels
 * that do not say), and for the load (load_average, others_busy_percent), which compare's
 * notes on disturbed runs judge run by run. */
int ts_condition_differs(const struct ts_run_summary *a, const struct ts_run_summary *b, int k);
const char *ts_condition_name(int k);

/* compare's test of two sides from their runs' median times per iteration: 1 when every run of
 * b was faster than every run of a (b's largest below a's smallest), -1 when every one was
 * slower, 0 when they overlap; *p_value the two-sided Mann-Whitney p of a separation of n_a
 * against n_b runs (2 / C(n_a + n_b, n_b)), NaN when they overlap. It counts as a verdict only
 * with TS_SIDE_MIN_RUNS undisturbed runs a side: the caller checks (the survey uses it too). */
int ts_sides_separated(double a_low, double a_high, size_t n_a, double b_low, double b_high, size_t n_b,
                       double *p_value);

/* The side of run i. */
size_t ts_side_of(const struct ts_side *sides, size_t n_sides, size_t run);

#endif

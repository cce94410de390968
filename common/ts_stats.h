/* The few numerical helpers every measuring folder needs: one monotonic clock in seconds, one
 * ascending order of doubles for qsort, and the best and the median of a set of samples. One
 * copy, so that "best" and "median" mean the same in every table of a survey. */
#ifndef TOUCHSTONE_COMMON_TS_STATS_H
#define TOUCHSTONE_COMMON_TS_STATS_H

/* Seconds of CLOCK_MONOTONIC (a vDSO call: cheap enough between chunks of a measurement). */
double ts_seconds_now(void);

/* qsort's comparison of two doubles, ascending (NaNs compare equal to everything: keep them out). */
int ts_compare_doubles(const void *a, const void *b);

/* The smallest and the median of n > 0 values; sorts v in place. */
void ts_best_and_median(double *v, int n, double *best, double *median);

#endif

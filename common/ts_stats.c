#include "ts_stats.h"

#include <stdlib.h>
#include <time.h>

double ts_seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ts_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ts_best_and_median(double *v, int n, double *best, double *median)
{
    qsort(v, (size_t)n, sizeof *v, ts_compare_doubles);
    *best = v[0];
    *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

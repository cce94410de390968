/* What compare and report derive from a run's timings: the spread of its iterations, how
 * evenly its threads shared the work, and speed-ups with the range the noise allows. */
#ifndef RUN_STATS_H
#define RUN_STATS_H

#include <stddef.h>

#include "ts_run_read.h"

struct ts_run_stats {
    double q1, q3;     /* quartiles of /timings/iteration, s (linear interpolation); NaN without
                          timed iterations */
    /* Per iteration, the slowest thread's time over the median thread's time (every thread
     * waits for the slowest at the barrier); then the median of that over the iterations.
     * 1 is perfect balance; iterations whose median thread time is 0, and iterations without
     * per-thread times (NaN: before a restart on another thread count), are left out; NaN when
     * none is left. */
    double imbalance;
};

/* 0, or -1 when memory ran out. */
int ts_run_stats_of(const struct ts_run_summary *s, struct ts_run_stats *out);

/* Speed-up of a run over a reference: ref median / run median. Runs are independent, so
 * iterations cannot be paired; instead the speed-up is bracketed by the interquartile ranges,
 * [ref q1 / run q3, ref q3 / run q1], and the difference counts as real only when the two
 * ranges do not overlap. */
struct ts_speedup {
    double value, low, high;
    const char *verdict; /* "faster", "slower", "within noise" */
};
void ts_speedup_of(const struct ts_run_summary *ref, const struct ts_run_stats *ref_stats,
                   const struct ts_run_summary *run, const struct ts_run_stats *run_stats,
                   struct ts_speedup *out);

#endif

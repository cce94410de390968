/* What compare and report derive from a run's file: the spread of its iterations, how
 * evenly its threads shared the work, and whether other work disturbed it. */
#ifndef TOUCHSTONE_APP_READBACK_STATS_H
#define TOUCHSTONE_APP_READBACK_STATS_H

#include <stddef.h>

#include "ts_disturbed.h"
#include "ts_init_by_machine.h"
#include "ts_run_read.h"

struct ts_run_stats {
    double q1, q3; /* quartiles of /timings/iteration, s (linear interpolation); NaN without
                          timed iterations */
    /* Per iteration, the slowest thread's time over the median thread's time (every thread
     * waits for the slowest at the barrier); then the median of that over the iterations.
     * 1 is perfect balance; iterations whose median thread time is 0, and iterations without
     * per-thread times (NaN: before a restart on another thread count), are left out; NaN when
     * none is left. */
    double imbalance;
    /* Whether other work took the run's CPUs (common/ts_disturbed.h): 1 yes, 0 no, -1 not
     * known; why names each reason, and numbers holds what the rule compared. */
    int disturbed;
    char disturbed_why[600];
    struct ts_disturb_numbers numbers;
    /* Whether the machine took most of the first touch (common/ts_init_by_machine.h): 1 yes, 0
     * no, -1 not known (a file without the init counters); why says whose time it was, and
     * init_numbers holds what the rule compared. */
    int init_by_machine;
    char init_by_machine_why[600];
    struct ts_init_numbers init_numbers;
    /* The ranks (issue 14): /mpi@size, 1 for a run no launcher started (one process). */
    int ranks;
    /* Threads of each rank; NaN when the ranks have different counts (the run's threads,
     * /results@n_threads, add them all up). */
    double threads_per_rank;
    /* The halo exchange's seconds over the ranks' iteration seconds, both summed over every
     * rank and timed iteration that has a time (/mpi/rank_halo_iteration, rank_iteration), as
     * the summary's "per rank" line puts it; NaN without /mpi or without a timed iteration. */
    double halo_share;
};

/* 0, or -1 when memory ran out. */
int ts_run_stats_of(const struct ts_run_summary *s, struct ts_run_stats *out);

/* "yes", "no" or "not known", as compare and report print ts_run_stats.disturbed and
 * init_by_machine. */
const char *ts_disturbed_text(int disturbed);

#endif

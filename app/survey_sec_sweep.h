/* The working-set sweep (the survey's section "sweep", issue 26) and what the rest of the survey
 * reads of it: the cache levels inferred from its curve, and the last-level cache the battery
 * and the later sections size their buffers by when hwloc knows none. Also the domain the
 * sweep and the mixes measure (app/survey_sec_mixes.c). */
#ifndef TOUCHSTONE_APP_SURVEY_SEC_SWEEP_H
#define TOUCHSTONE_APP_SURVEY_SEC_SWEEP_H

#include <stdint.h>

#include "ts_survey_rec.h"
#include "ts_topology.h"

/* The last-level cache assumed when neither hwloc nor the sweep knows it. */
#define TS_SWEEP_ASSUMED_LLC ((int64_t)32 << 20)

/* Cache levels read off one bandwidth curve (docs/survey.md, "sweep", says the rule). */
struct ts_sweep_levels {
    double l1, l2, llc; /* bytes of working set; NaN when not found */
    int plateaus;       /* flat stretches found (a level each: caches, then memory) */
    int reached_memory; /* 1: the curve ends on a plateau, the last step is the LLC's */
    double first_gbs;   /* the first plateau's level (L1), NaN when none */
    double last_gbs;    /* the last plateau's level (memory when reached_memory), NaN when none */
    char why[192];      /* what could not be told, "" when all three were found */
};

/* Infers the levels from n points of one curve, bytes ascending (NaN points are skipped). */
void ts_sweep_infer(const double *bytes, const double *gbs, int n, struct ts_sweep_levels *out);

/* The measured domain: the first NUMA node with CPUs this process may use, and its CPUs, one per
 * core (ts_numa_node_cpus), at most max; returns how many (0: none). */
int ts_sweep_domain(const ts_topology *topo, int *node, int *cpus, int max);

#endif

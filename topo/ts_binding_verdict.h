/* The verdict of `touchstone advise --check`: what a job's threads really got (every thread's
 * affinity mask and the CPU it ran on, every rank's when launched by MPI) against the plan for
 * the job's shape on its node (ts_binding_plan.h). Each finding is a way the job works but
 * loses, with its fix; none means the job got what the plan gives. Pure computation. */
#ifndef TOUCHSTONE_TOPO_TS_BINDING_VERDICT_H
#define TOUCHSTONE_TOPO_TS_BINDING_VERDICT_H

#include "ts_binding_plan.h"
#include "ts_error.h"
#include "ts_node.h"

struct ts_observed_thread {
    int rank, thread;
    int cpu;        /* the CPU it ran on (sched_getcpu), -1 unknown */
    char mask[256]; /* its affinity mask as a CPU list */
};

enum ts_finding_kind {
    TS_FINDING_UNBOUND,      /* a thread may run on more than one core: it can migrate */
    TS_FINDING_STACKED,      /* threads bound to one core while cores are left */
    TS_FINDING_SMT_SHARED,   /* threads on SMT siblings of one core while whole cores are idle */
    TS_FINDING_CROSSES_NUMA, /* a rank's threads on several NUMA domains though the rank fits in one */
    TS_FINDING_IDLE_CORES,   /* cores of the job no thread is bound to */
    TS_FINDING_OUTSIDE,      /* a thread bound to CPUs outside the job's cpuset */
    TS_FINDING_CONDITION     /* the machine distorts results: NUMA balancing, zone reclaim, a slow governor */
};

struct ts_finding {
    enum ts_finding_kind kind;
    char text[640]; /* what is wrong, with the numbers, then the fix */
};

#define TS_VERDICT_MAX_FINDINGS 16

/* The findings for n observed threads (rank-major) of a job planned as plan on node; at most
 * TS_VERDICT_MAX_FINDINGS, one per kind and rank at most. TS_BAD_INPUT when an observation
 * cannot be read (a mask that is no CPU list, a CPU the node does not have). */
int ts_binding_verdict(const struct ts_node *node, const struct ts_binding_plan *plan,
                       const struct ts_observed_thread *obs, int n, struct ts_finding *findings, int *n_findings,
                       struct ts_error *err);

/* The name of a finding's kind, for JSON ("stacked", "crosses_numa", ...). */
const char *ts_finding_kind_name(enum ts_finding_kind kind);

#endif

/* The verdict of `touchstone advise --check`: what a job's threads really got (every thread's
 * affinity mask and the CPU it ran on, every rank's when launched by MPI, and the mask each rank
 * started with) against the plan for the job's shape on its node (ts_binding_plan.h). Each
 * finding is a way the job works but loses, with its cause and a fix that changes it: never
 * the setting the job already has; the process's mask when the mask is what confines the
 * threads; fewer threads when the job has more threads than PUs. None means the job got what
 * the plan gives. Pure computation. */
#ifndef TOUCHSTONE_TOPO_TS_BINDING_VERDICT_H
#define TOUCHSTONE_TOPO_TS_BINDING_VERDICT_H

#include "ts_binding_plan.h"
#include "ts_error.h"
#include "ts_node.h"

struct ts_observed_thread {
    int rank, thread;
    int cpu;               /* the CPU it ran on (sched_getcpu), -1 unknown */
    char mask[256];        /* its affinity mask as a CPU list */
    char launch_mask[256]; /* its rank's mask when the process started, before the OpenMP runtime
                              bound anything (taskset, numactl, the launcher's binding); "" unknown */
};

/* How the job was set up, for fixes that change the outcome. */
struct ts_verdict_setting {
    /* OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND as the ranks got them; NULL when unset */
    const char *num_threads, *places, *proc_bind;
    int under_mpirun; /* Open MPI's mpirun started the ranks: its options make their masks */
    int under_slurm;  /* a Slurm job: srun's options make the masks */
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
    char text[1200]; /* what is wrong, with the numbers, its cause, then the fix */
};

#define TS_VERDICT_MAX_FINDINGS 16

/* The findings for n observed threads (rank-major) of a job planned as plan on node, set up as
 * set says (NULL: unknown, then a fix names every OpenMP variable of the plan); at most
 * TS_VERDICT_MAX_FINDINGS, one per kind and rank at most. Threads that take turns on a core
 * (more of them than its PUs) are always a finding, as topo and run warn of them, whether or
 * not the plan for this shape does the same. TS_BAD_INPUT when an observation cannot be read
 * (a mask that is no CPU list, a CPU the node does not have). */
int ts_binding_verdict(const struct ts_node *node, const struct ts_binding_plan *plan,
                       const struct ts_verdict_setting *set, const struct ts_observed_thread *obs, int n,
                       struct ts_finding *findings, int *n_findings, struct ts_error *err);

/* The name of a finding's kind, for JSON ("stacked", "crosses_numa", ...). */
const char *ts_finding_kind_name(enum ts_finding_kind kind);

#endif

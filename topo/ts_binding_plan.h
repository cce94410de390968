/* The binding planner behind `touchstone advise`: for a node (struct ts_node: this machine, an
 * hwloc XML export, a synthetic topology) and a job shape (ranks per node x threads per rank),
 * which cores each rank gets, where each of its threads goes, and the lines that ask the
 * launcher and the OpenMP runtime for exactly that. The rules, in order:
 *   - ranks never straddle a NUMA domain when they fit in one: one rank per domain when the
 *     ranks equal the domains, whole domains per rank when the ranks divide them, the cores
 *     of each domain shared out when the ranks are a multiple of the domains;
 *   - a rank's threads spread over its cores, one per core (OMP_PLACES=cores,
 *     OMP_PROC_BIND=spread), so each gets a core's share of the domain's caches and bandwidth;
 *   - SMT siblings stay idle unless there are more threads than cores (or use_smt asks): then
 *     consecutive threads share a core (OMP_PROC_BIND=close), each bound to the whole core;
 *   - more threads than PUs is planned the same way and said to be oversubscribed.
 * Pure computation: nothing here looks at the running process. */
#ifndef TOUCHSTONE_TOPO_TS_BINDING_PLAN_H
#define TOUCHSTONE_TOPO_TS_BINDING_PLAN_H

#include "ts_error.h"
#include "ts_node.h"

struct ts_plan_request {
    int ranks;   /* per node, >= 1 */
    int threads; /* per rank; 0: one per core of the rank (one per PU with use_smt) */
    int use_smt; /* place threads on every PU of a core, not one per core */
};

struct ts_plan_rank {
    int first_core, n_cores; /* its cores: logical indices first_core .. + n_cores (of the usable ones) */
    int n_pus;
    int numa_first, numa_last; /* the NUMA domains its cores are in (-1: unknown) */
    char cpus[256];            /* its PUs' OS numbers as a list ("0-7,32-39") */
};

struct ts_plan_thread {
    int rank, thread;
    int core; /* logical index of the core */
    int pu;   /* OS number of the PU it is bound to (the first of its place) */
    int numa; /* -1: unknown */
};

struct ts_binding_plan {
    int ranks, threads; /* as planned (threads resolved when the request said 0) */
    int usable_cores, usable_pus;
    int cores_per_rank;     /* the fewest any rank has (what --cpus-per-task can ask for) */
    int straddle;           /* some rank spans two NUMA domains (ranks and domains do not divide) */
    int oversubscribed;     /* more threads in a rank than it has PUs */
    char omp_places[16];    /* "cores" (place_threads in the .c says why never "threads") */
    char omp_proc_bind[16]; /* "spread" or "close" */
    char env_line[256];     /* export OMP_NUM_THREADS=... OMP_PLACES=... OMP_PROC_BIND=... */
    char srun_line[256];
    char mpirun_line[256];
    char reason[640];              /* the layout in one sentence */
    char caution[512];             /* what the shape costs, "" when nothing */
    struct ts_plan_rank *rank;     /* ranks entries */
    struct ts_plan_thread *thread; /* ranks x threads entries, rank-major */
};

/* Plans req on node (its allowed PUs only). TS_BAD_INPUT when the shape cannot be placed
 * (no ranks, more ranks than usable cores, a negative thread count), with the numbers;
 * TS_RESOURCE_ERROR when memory runs out. ts_binding_plan_free releases it. */
int ts_binding_plan_make(const struct ts_node *node, const struct ts_plan_request *req, struct ts_binding_plan *plan,
                         struct ts_error *err);
void ts_binding_plan_free(struct ts_binding_plan *plan);

#endif

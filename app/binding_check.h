/* Observing a job's binding for a verdict against advise's plan: this process's threads (their
 * masks and CPUs) and the machine's distorting conditions (each machine's ranks judged
 * together under a launcher: binding_hosts.h), shared by `touchstone advise --check` and `run` with check.binding = strict. */
#ifndef TOUCHSTONE_APP_BINDING_CHECK_H
#define TOUCHSTONE_APP_BINDING_CHECK_H

#include "ts_binding_verdict.h"
#include "ts_dist.h"
#include "ts_error.h"
#include "ts_topology.h"

/* A team of `threads` (0: the runtime's size, OMP_NUM_THREADS) of this process: each thread's
 * affinity mask and the CPU it runs on, in *obs (malloc'd, *n entries: the team's real size),
 * rank 0. The runtime keeps its threads, so a later team of that size is bound the same way. */
int ts_binding_observe(int threads, struct ts_observed_thread **obs, int *n, struct ts_error *err);

/* How the job was set up, for the verdict's fixes: the OpenMP variables of this process (the
 * ranks get them alike from the launcher), and whether mpirun (dist's launcher, or its variables
 * when dist is NULL) or Slurm started it. */
void ts_binding_setting(const struct ts_dist *dist, struct ts_verdict_setting *set);

/* The machine's distorting conditions as findings (TS_FINDING_CONDITION) with their fixes, at
 * most room: NUMA balancing on, zone reclaim, a governor other than performance. Read from
 * TOUCHSTONE_CONDITIONS_ROOT (tests) or /. Returns how many. */
int ts_binding_conditions(struct ts_finding *f, int room);

/* check.binding = strict in a run of one process: its team of n_threads judged against the plan
 * for one rank of n_threads on topo's node, each finding printed on stderr ("touchstone:
 * binding: KIND: TEXT"). TS_OK as planned, TS_VERIFY_FAILED when the binding loses (the run
 * must not start), an error status when it could not be judged. */
int ts_binding_check_strict(const ts_topology *topo, int n_threads, struct ts_error *err);

#endif

/* `advise --check` under a launcher, judged where the threads are: each machine's ranks meet at
 * its first rank (dist/ts_dist_host.h), which judges every host of it against the plan for that
 * host's rank count, and the findings merge up a tree of ranks (dist/ts_dist_merge.h) into one
 * line per distinct finding with the hosts that give it. Rank 0 holds its host's counts and the
 * merged findings, never the threads of every rank. */
#ifndef TOUCHSTONE_APP_BINDING_HOSTS_H
#define TOUCHSTONE_APP_BINDING_HOSTS_H

#include "ts_binding_plan.h"
#include "ts_binding_verdict.h"
#include "ts_dist.h"
#include "ts_error.h"
#include "ts_node.h"

/* What rank 0 learns: its own host's ranks and observed threads (the shape its plan is for),
 * the merged findings of every host and how many hosts were judged. */
struct ts_binding_hosts {
    int host_ranks;   /* ranks on rank 0's host */
    int host_threads; /* their observed threads */
    int hosts;        /* hosts judged across the job */
    struct ts_finding findings[TS_VERDICT_MAX_FINDINGS];
    int n_findings;
};

/* The findings of one host: n observed threads (ranks numbered 0.. by local rank) judged against
 * the plan for req on node, then the machine's conditions (binding_check.h). What advise --check
 * judges alone and what each machine's first rank judges of its hosts. */
int ts_binding_judge(const struct ts_node *node, const struct ts_plan_request *req,
                     const struct ts_verdict_setting *set, const struct ts_observed_thread *obs, int n,
                     struct ts_finding *findings, int *n_findings, struct ts_error *err);

/* Collective under a launcher: this rank's n observed threads; each host planned for req (its
 * ranks: req->ranks when > 0, else the host's rank count). Rank 0 gets *out filled; a host that
 * could not be judged fails rank 0 with its error, named by host. TS_RESOURCE_ERROR when memory
 * runs out, TS_INTERNAL_ERROR when MPI fails; the other ranks return TS_OK unless MPI failed. */
int ts_binding_check_hosts(const struct ts_dist *dist, const struct ts_node *node, const struct ts_plan_request *req,
                           const struct ts_observed_thread *obs, int n, struct ts_binding_hosts *out,
                           struct ts_error *err);

#endif

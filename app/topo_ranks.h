/* `touchstone topo` under a launcher, after rank 0's own report: the world, a summary of each
 * host (its ranks, threads, the CPUs, cores and NUMA nodes they ran on: made on each machine's
 * first rank, merged up a tree into one line per distinct summary with its hosts), the threads
 * of the first TS_TOPO_RANKS_SHOWN ranks (host, rank, local rank, thread, CPU, core, NUMA node,
 * xthi-style; every rank's with --all-ranks), the ranks' own warnings merged, then the warnings
 * across ranks (rank_warnings.h). Rank 0 holds the ranks listed and the distinct lines, never a
 * line of every rank unless every rank was asked for. With --format json on more than one rank,
 * the same facts for rank 0's one JSON document. */
#ifndef TOUCHSTONE_APP_TOPO_RANKS_H
#define TOUCHSTONE_APP_TOPO_RANKS_H

#include <stdio.h>

#include "ts_dist.h"
#include "ts_error.h"
#include "ts_topo_report.h"

/* The ranks whose threads are listed by default: the first ones. */
enum { TS_TOPO_RANKS_SHOWN = 16 };

/* How many ranks of a world of size are listed: every one with all_ranks (--all-ranks), else at
 * most TS_TOPO_RANKS_SHOWN. */
int ts_topo_ranks_shown(int size, int all_ranks);

/* Collective: every rank calls it with its own report; rank 0 writes the section to out.
 * TS_RESOURCE_ERROR when memory runs out, TS_INTERNAL_ERROR when MPI fails. */
int ts_topo_ranks_print(const struct ts_dist *dist, const struct ts_topo_report *rep, int all_ranks, FILE *out,
                        struct ts_error *err);

/* What rank 0 adds to its JSON report across ranks (ts_topo_report's world), owned here. */
struct ts_topo_ranks_json;

/* Collective: every rank calls it with its own report; rank 0 gets in *j the world to set as
 * rep->world before it prints (ts_topo_ranks_world), the other ranks NULL. The same errors as
 * ts_topo_ranks_print. */
int ts_topo_ranks_json(const struct ts_dist *dist, const struct ts_topo_report *rep, int all_ranks,
                       struct ts_topo_ranks_json **j, struct ts_error *err);
const struct ts_topo_world *ts_topo_ranks_world(const struct ts_topo_ranks_json *j);
void ts_topo_ranks_json_free(struct ts_topo_ranks_json *j);

#endif

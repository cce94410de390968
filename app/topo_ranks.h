/* `touchstone topo` under a launcher: every rank's threads (host, rank, local rank, thread,
 * CPU, core, NUMA node) and binding warnings, gathered to rank 0 and printed in rank order,
 * xthi-style, after rank 0's own report; then the warnings across ranks (rank_warnings.h).
 * With --format json on more than one rank, the same facts for rank 0's one JSON document. */
#ifndef TOUCHSTONE_APP_TOPO_RANKS_H
#define TOUCHSTONE_APP_TOPO_RANKS_H

#include <stdio.h>

#include "ts_dist.h"
#include "ts_error.h"
#include "ts_topo_report.h"

/* Collective: every rank calls it with its own report; rank 0 writes the section to out.
 * TS_RESOURCE_ERROR when memory runs out, TS_INTERNAL_ERROR when MPI fails. */
int ts_topo_ranks_print(const struct ts_dist *dist, const struct ts_topo_report *rep, FILE *out, struct ts_error *err);

/* What rank 0 adds to its JSON report across ranks (ts_topo_report's world), owned here. */
struct ts_topo_ranks_json;

/* Collective: every rank calls it with its own report; rank 0 gets in *j the world to set as
 * rep->world before it prints (ts_topo_ranks_world), the other ranks NULL. The same errors as
 * ts_topo_ranks_print. */
int ts_topo_ranks_json(const struct ts_dist *dist, const struct ts_topo_report *rep, struct ts_topo_ranks_json **j,
                       struct ts_error *err);
const struct ts_topo_world *ts_topo_ranks_world(const struct ts_topo_ranks_json *j);
void ts_topo_ranks_json_free(struct ts_topo_ranks_json *j);

#endif

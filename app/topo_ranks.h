/* `touchstone topo` under a launcher: every rank's threads (host, rank, local rank, thread,
 * CPU, core, NUMA node) and binding warnings, gathered to rank 0 and printed in rank order,
 * xthi-style, after rank 0's own report; then the warnings across ranks (rank_warnings.h). */
#ifndef TOUCHSTONE_APP_TOPO_RANKS_H
#define TOUCHSTONE_APP_TOPO_RANKS_H

#include <stdio.h>

#include "ts_dist.h"
#include "ts_error.h"
#include "ts_topo_report.h"

/* Collective: every rank calls it with its own report; rank 0 writes the section to out.
 * TS_RESOURCE_ERROR when memory runs out, TS_INTERNAL_ERROR when MPI fails. */
int ts_topo_ranks_print(const struct ts_dist *dist, const struct ts_topo_report *rep, FILE *out, struct ts_error *err);

#endif

/* `touchstone topo`: the machine as hwloc sees it and, for the OMP_* environment this process
 * started with, where each OpenMP thread runs. Unlike `run`, it never re-executes itself to
 * apply a binding: it reports the environment as it is. */
#ifndef TS_TOPO_CMD_H
#define TS_TOPO_CMD_H

#include "ts_cli.h"
#include "ts_error.h"

/* Prints the report to stdout; threads > 0 replaces OMP_NUM_THREADS. */
int ts_topo_cmd(enum ts_format format, int threads, struct ts_error *err);

#endif

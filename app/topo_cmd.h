/* `touchstone topo`: the machine as hwloc sees it and where each OpenMP thread runs: under the
 * OMP_* environment this process started with, or, given a CONFIG, bound exactly as `run
 * CONFIG` binds its threads (main applies the config's binding with the same re-execution),
 * with the same binding warnings. */
#ifndef TS_TOPO_CMD_H
#define TS_TOPO_CMD_H

#include "ts_binding.h"
#include "ts_cli.h"
#include "ts_config.h"
#include "ts_error.h"

/* Prints the report to stdout. cfg and binding are NULL without a CONFIG; with one, the
 * config's openmp.threads and the binding ts_binding_apply chose count as in run. threads > 0
 * replaces openmp.threads and OMP_NUM_THREADS. Fails (TS_BAD_INPUT) when memory runs out or
 * stdout cannot be written. */
int ts_topo_cmd(enum ts_format format, int threads, const struct ts_config *cfg,
                const struct ts_binding_choice *binding, struct ts_error *err);

#endif

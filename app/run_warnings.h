/* What a run warns about besides its results: each warning printed and kept in the file's
 * /warnings (ts_run_warn); the process's own (binding, caches, huge pages), the run's (timer,
 * unused keys), and across ranks every rank's own, merged, and what the ranks' facts say
 * together. */
#ifndef TOUCHSTONE_APP_RUN_WARNINGS_H
#define TOUCHSTONE_APP_RUN_WARNINGS_H

#include <stdint.h>

#include "binding.h"
#include "rank_warnings.h"
#include "run_exec.h"
#include "run_ranks.h"
#include "run_record.h"
#include "ts_config.h"
#include "ts_error.h"

#define TS_RUN_MAX_PROCESS_WARNINGS 18
#define TS_RUN_MAX_CROSS_WARNINGS 16

/* The in-cache rule's numbers, kept for /results. */
struct ts_cache_fit {
    int64_t working_set_bytes, llc_bytes;
};

/* Prints text as a warning and keeps it for the file. */
void ts_run_warn(struct ts_run_record *rr, const char *text);

/* What this process warns about its own threads and arrays: the binding warnings (the same as
 * topo's), the in-cache rule (its numbers in fit), huge pages refused. Returns how many lines
 * (at most TS_RUN_MAX_PROCESS_WARNINGS). */
int ts_run_process_warnings(const struct ts_run_exec *ex, const struct ts_binding_choice *binding,
                            struct ts_cache_fit *fit, char lines[][512]);

/* The fastest iteration under 20 ticks of the timer (tick seconds): warned. */
void ts_run_timer_warning(struct ts_run_record *rr, double tick);

/* Config keys this run never read: warned, one each. */
void ts_run_unused_key_warnings(struct ts_run_record *rr, const struct ts_config *cfg);

/* Collective: every rank's n lines, merged across ranks (one line per distinct warning naming
 * its ranks), warned by rank 0. */
int ts_run_gather_warnings(struct ts_run_record *rr, struct ts_run_ranks *rk, char lines[][512], int n,
                           struct ts_error *err);

/* Collective across ranks: every rank's facts (host, kernel, mask, where its threads ran),
 * compared on each machine's first rank, the warnings merged up the ranks' tree: up to
 * TS_RUN_MAX_CROSS_WARNINGS lines on rank 0 in lines, none elsewhere. */
int ts_run_cross_rank_warnings(const struct ts_run_ranks *rk, const struct ts_topology_rec *machine,
                               const struct ts_binding_choice *binding, const struct ts_run_exec *ex,
                               struct ts_rank_line *lines, int *n, struct ts_error *err);

#endif

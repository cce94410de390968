/* What a run warns about besides its results (app/run_warnings.h). */
#include "run_warnings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding_warnings.h"
#include "rank_warnings.h"
#include "ts_affinity.h"
#include "ts_config_values.h"
#include "ts_units.h"

void ts_run_warn(struct ts_run_record *rr, const char *text)
{
    fprintf(stderr, "touchstone: warning: %s\n", text);
    ts_run_record_warn(rr, text);
}

/* A working set that fits in the last-level caches the threads' cores use measures those
 * caches, not memory: said in the summary's bandwidth line and warned about. Returns 1 with
 * the warning in text when it fits. */
static int cache_warning(const struct ts_run_exec *ex, struct ts_cache_fit *fit, char *text, size_t len)
{
    int *cpus = malloc((size_t)ex->in.n_threads * sizeof *cpus);
    struct ts_llc llc = { 0 };
    if (cpus) {
        for (int t = 0; t < ex->in.n_threads; t++)
            cpus[t] = ex->out.threads[t].cpu_start;
        ts_affinity_llc(ex->in.topo, cpus, ex->in.n_threads, &llc);
    }
    free(cpus);
    fit->working_set_bytes = (int64_t)ex->in.rp->array_bytes * ex->in.rp->plan.n_arrays;
    fit->llc_bytes = llc.bytes;
    if (llc.bytes <= 0 || fit->working_set_bytes > llc.bytes)
        return 0;
    char arrays[32], cache[32], reported[32], per_core[32], note[128] = "";
    ts_bytes_text((uint64_t)fit->working_set_bytes, arrays, sizeof arrays);
    ts_bytes_text((uint64_t)llc.bytes, cache, sizeof cache);
    if (llc.reported_bytes > llc.bytes) {
        ts_bytes_text((uint64_t)llc.reported_bytes, reported, sizeof reported);
        ts_bytes_text((uint64_t)TS_LLC_MAX_BYTES_PER_CORE, per_core, sizeof per_core);
        snprintf(note, sizeof note, "; hwloc reports %s, at most %s a core is counted", reported, per_core);
    }
    snprintf(text, len,
             "the arrays (%s) fit in the %s of L%d cache above the threads' CPUs (%d cache%s over %d core%s%s): the "
             "bandwidth is the caches', not memory's; for memory bandwidth make the problem several times larger",
             arrays, cache, llc.level, llc.instances, llc.instances == 1 ? "" : "s", llc.cores,
             llc.cores == 1 ? "" : "s", note);
    return 1;
}

/* What this process warns about its own threads and arrays: the binding warnings (the same as
 * topo's, binding_warnings.c), the in-cache rule, huge pages refused. Returns the lines. */
int ts_run_process_warnings(const struct ts_run_exec *ex, const struct ts_binding_choice *binding,
                            struct ts_cache_fit *fit, char lines[][512])
{
    struct ts_binding_observed seen = { .threads = ex->out.threads,
                                        .n_threads = ex->in.n_threads,
                                        .init_node = ex->out.init_node };
    int64_t *migrations = malloc((size_t)ex->in.n_threads * sizeof *migrations);
    if (migrations) {
        for (int t = 0; t < ex->in.n_threads; t++)
            migrations[t] = ex->out.kernel_counters[t].migrations;
        seen.migrations = migrations;
    }
    int n = ts_binding_warnings(binding, ex->in.topo, &seen, lines, TS_RUN_MAX_PROCESS_WARNINGS - 2);
    free(migrations);
    n += cache_warning(ex, fit, lines[n], sizeof lines[n]);
    if (ex->own.huge_refused)
        snprintf(lines[n++], sizeof lines[0], "%s",
                 "init.huge_pages = true, but the kernel refused MADV_HUGEPAGE (EINVAL: no transparent huge pages): "
                 "the arrays have base pages");
    return n;
}

/* Problems of the whole run a user must not miss: printed, and kept in the file. */
void ts_run_timer_warning(struct ts_run_record *rr, double tick)
{
    char text[1024];
    double fastest = rr->results.time_min;
    if (fastest < 20.0 * tick) {
        snprintf(text, sizeof text,
                 "the fastest iteration took %.3g s, under 20 ticks of the %.3g s timer: its times are not to be "
                 "trusted; increase the problem size",
                 fastest, tick);
        ts_run_warn(rr, text);
    }
}

/* Config keys this run never read: the user meant something that did not happen. */
void ts_run_unused_key_warnings(struct ts_run_record *rr, const struct ts_config *cfg)
{
    char lines[TS_CONFIG_MAX_KEYS][TS_CONFIG_NOTE_LEN];
    size_t n = ts_config_unused_keys(cfg, lines, TS_CONFIG_MAX_KEYS);
    for (size_t i = 0; i < n && i < TS_CONFIG_MAX_KEYS; i++)
        ts_run_warn(rr, lines[i]);
}

/* Every rank's own warnings, printed and kept by rank 0: spread over ranks, one line per
 * distinct warning naming the ranks that gave it, in the order they first appear
 * (ts_run_ranks_gather_lines); the screen and /warnings hold the same lines. */
int ts_run_gather_warnings(struct ts_run_record *rr, struct ts_run_ranks *rk, char lines[][512], int n,
                           struct ts_error *err)
{
    char **all = NULL;
    int status = ts_run_ranks_gather_lines(rk, lines, n, &all, err);
    for (char **line = all; status == TS_OK && line && *line; line++)
        ts_run_warn(rr, *line);
    free(all);
    return status;
}

/* Collective across ranks: every rank's facts (host, kernel, mask, where its threads ran),
 * compared on each machine's first rank and merged up the ranks' tree (app/rank_warnings.h, as
 * topo does): lines on rank 0, none elsewhere. */
int ts_run_cross_rank_warnings(const struct ts_run_ranks *rk, const struct ts_topology_rec *machine,
                               const struct ts_binding_choice *binding, const struct ts_run_exec *ex,
                               struct ts_rank_line *lines, int *n, struct ts_error *err)
{
    *n = 0;
    if (!rk->spread)
        return TS_OK;
    char *line = NULL;
    struct ts_error mine;
    ts_error_clear(&mine);
    /* A rank that cannot describe itself still takes part: rank 0 then fails, none waits. */
    if (ts_rank_facts_line(rk->dist, machine, binding->launch_cpus, ex->out.threads, ex->in.n_threads, &line, &mine)
        != TS_OK)
        line = NULL;
    int status = ts_rank_warnings_gather(rk->dist, line ? line : "", lines, TS_RUN_MAX_CROSS_WARNINGS, n, err);
    free(line);
    return status;
}

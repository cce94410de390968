#include "rank_warnings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ts_rank_facts_line(const struct ts_dist *d, const struct ts_topology_rec *machine, const char *mask,
                       const struct ts_thread_rec *threads, int n, char **line, struct ts_error *err)
{
    struct ts_rank_facts f = {
        .rank = d->rank,
        .local_rank = d->local_rank,
        .n_cores = machine ? machine->n_cores : -1,
        .n_pus = machine ? machine->n_pus : -1,
        .n_numa = -1,
        .n_threads = n > 0 ? n : 0,
    };
    snprintf(f.host, sizeof f.host, "%s", d->host);
    snprintf(f.boot_id, sizeof f.boot_id, "%s", d->boot_id);
    snprintf(f.mask, sizeof f.mask, "%s", mask ? mask : "");
    if (machine) {
        f.n_numa = 0;
        for (int i = 0; i < machine->n_numa; i++)
            f.n_numa += machine->numa[i].memory_bytes > 0;
    }
    if (f.n_threads > 0 && !(f.threads = calloc((size_t)f.n_threads, sizeof *f.threads)))
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the facts of %d threads", n);
    for (int i = 0; i < f.n_threads; i++)
        f.threads[i] = (struct ts_rank_thread){ threads[i].cpu_start, threads[i].core, threads[i].node };
    int status = ts_rank_facts_format(&f, line, err);
    free(f.threads);
    return status;
}

int ts_rank_warnings_gather(const struct ts_dist *d, const char *line, struct ts_rank_line *lines, int max,
                            int *n_lines, struct ts_error *err)
{
    char *all = NULL;
    *n_lines = 0;
    int status = ts_dist_gather_text(d, line ? line : "", &all, err);
    if (status == TS_OK && d->rank == 0)
        status = ts_rank_warnings_from_text(all, d->size, lines, max, n_lines, err);
    free(all);
    return status;
}

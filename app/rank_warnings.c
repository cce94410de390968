#include "rank_warnings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_dist_host.h"
#include "ts_dist_merge.h"
#include "ts_rank_merge.h"

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

/* ts_dist_host_fn: on a machine's first rank, its ranks' facts compared (ctx unused). A line
 * that does not read back (touchstone's own: a bug) fails the machine, as memory does. */
static int machine_items(void *ctx, const char *const *texts, const int *ranks, int n, char **out)
{
    (void)ctx;
    (void)ranks; /* each line names its rank */
    struct ts_rank_facts *f = calloc((size_t)n, sizeof *f);
    int parsed = 0, failed = !f;
    for (; !failed && parsed < n; parsed++) {
        struct ts_error err;
        ts_error_clear(&err);
        if (ts_rank_facts_parse(texts[parsed], &f[parsed], &err) != TS_OK)
            break; /* failed below: parsed < n */
    }
    failed = failed || parsed < n || ts_rank_warnings_machine(f, n, out) != 0;
    for (int i = 0; f && i < parsed; i++)
        ts_rank_facts_free(&f[i]);
    free(f);
    return failed ? -1 : 0;
}

int ts_rank_warnings_gather(const struct ts_dist *d, const char *line, struct ts_rank_line *lines, int max,
                            int *n_lines, struct ts_error *err)
{
    *n_lines = 0;
    char *items = NULL, *mine = NULL, *all = NULL;
    /* Each machine's ranks compared at its first rank; what concerns this rank comes back. */
    int status = ts_dist_host_exchange(d, line && *line ? line : NULL, machine_items, NULL, &items, err);
    if (status != TS_OK)
        return status;
    /* A rank without its items (its machine failed) still takes part in the merge, with no
     * text: rank 0 then fails, and no rank waits. */
    struct ts_rank_merge *set = ts_rank_merge_new();
    if (set && items && ts_rank_warnings_add(set, d->rank, d->host, items) == 0)
        mine = ts_rank_merge_write(set);
    free(items);
    status = ts_dist_merge_text(d, mine, ts_rank_merge_join_text, set, &all, err);
    if (status == TS_OK && all) /* rank 0: the set holds every rank's lines */
        *n_lines = ts_rank_warnings_lines(set, d->size, lines, max);
    free(mine);
    free(all);
    ts_rank_merge_free(set);
    if (status != TS_OK && d->rank == 0)
        ts_error_prefix(err, "the warnings across ranks: ");
    return status;
}

/* This rank's lines as a set; NULL without memory. */
static struct ts_rank_merge *own_set(const struct ts_dist *d, const char *prefix, const char *const *lines, int n)
{
    struct ts_rank_merge *m = ts_rank_merge_new();
    int ok = m != NULL;
    for (int i = 0; ok && i < n; i++) {
        size_t len = strlen(prefix) + strlen(lines[i]) + 1;
        char *line = malloc(len);
        ok = line != NULL;
        if (ok) {
            snprintf(line, len, "%s%s", prefix, lines[i]);
            ok = ts_rank_merge_add(m, d->rank, d->host, line) == 0;
        }
        free(line);
    }
    if (!ok) {
        ts_rank_merge_free(m);
        return NULL;
    }
    return m;
}

/* The lines of set for the user, into one block: the pointers, then the text they point into. */
static char **lines_for_user(const struct ts_rank_merge *set, int world, int max)
{
    enum { LINE = 2048 };
    int n = ts_rank_merge_count(set), shown = n > max ? max - 1 : n;
    shown = shown < 0 ? 0 : shown;
    int total = shown + (n > shown || ts_rank_merge_dropped(set) > 0);
    char **block = malloc((size_t)(total + 1) * sizeof *block + (size_t)total * LINE);
    if (!block)
        return NULL;
    char *text = (char *)(block + total + 1);
    for (int i = 0; i < shown; i++) {
        block[i] = text + (size_t)i * LINE;
        ts_rank_merge_line(set, i, world, block[i], LINE);
    }
    if (total > shown) {
        block[shown] = text + (size_t)shown * LINE;
        snprintf(block[shown], LINE, "%lld more distinct warnings of the ranks are not shown",
                 n - shown + ts_rank_merge_dropped(set));
    }
    block[total] = NULL;
    return block;
}

int ts_rank_lines_merge(const struct ts_dist *d, const char *prefix, const char *const *lines, int n, int max,
                        char ***out, struct ts_error *err)
{
    *out = NULL;
    struct ts_rank_merge *set = own_set(d, prefix ? prefix : "", lines, n);
    char *mine = set ? ts_rank_merge_write(set) : NULL, *all = NULL;
    /* A rank without memory for its set still takes part, with none: rank 0 then fails. On
     * rank 0 the set ends as the text `all` says: every rank's lines. */
    int status = ts_dist_merge_text(d, mine, ts_rank_merge_join_text, set, &all, err);
    const int merged = status == TS_OK && all; /* rank 0 */
    free(mine);
    free(all);
    if (merged)
        *out = lines_for_user(set, d->size, max);
    ts_rank_merge_free(set);
    if (merged && !*out)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the warnings of %d ranks", d->size);
    return status;
}

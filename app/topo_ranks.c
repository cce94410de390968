#include "topo_ranks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rank_warnings.h"
#include "ts_distinct.h"

/* The notes and warnings across ranks printed at most; the last line says how many more. */
enum { MAX_CROSS = 64 };
/* The distinct warnings of the ranks themselves printed at most, likewise. */
enum { MAX_OWN = 64 };

/* Each rank's part as text, so that one gather of variable-length text carries it. */
struct rank_texts {
    char *facts; /* "host boot_id\n": one line, this rank's */
    char *rows;  /* text: one line a thread: "rank|the columns after host" */
    char **own;  /* rank 0: the ranks' own warnings merged (ts_rank_lines_merge) */
    char *json;  /* JSON: the rank as one line (ts_topo_rank_json_line) */
};

static const char *number(int value, char *buf, size_t len)
{
    if (value < 0)
        return "-";
    snprintf(buf, len, "%d", value);
    return buf;
}

/* The mask the warnings across ranks compare: the one the process started with, else the CPUs
 * its threads may use. */
static const char *mask_of(const struct ts_topo_report *rep)
{
    return rep->process_mask && rep->process_mask[0] ? rep->process_mask : rep->process_cpus;
}

static int make_texts(const struct ts_dist *d, const struct ts_topo_report *rep, int json, struct rank_texts *t)
{
    size_t len;
    FILE *f = open_memstream(&t->facts, &len);
    if (!f)
        return -1;
    /* The host as the job knows it, so that node names sharing one machine count apart. */
    const char *host = d->host;
    fprintf(f, "%s %s\n", host, d->boot_id[0] ? d->boot_id : "-");
    if (fclose(f) != 0)
        return -1;
    if (json) {
        struct ts_topo_rank me = { .rank = d->rank,
                                   .local_rank = d->local_rank,
                                   .host = host,
                                   .boot_id = d->boot_id,
                                   .process_cpus = rep->process_cpus,
                                   .process_mask = rep->process_mask,
                                   .threads = rep->openmp.threads,
                                   .n_threads = rep->openmp.num_threads,
                                   .warnings = rep->warnings,
                                   .n_warnings = rep->n_warnings };
        t->json = ts_topo_rank_json_line(&me);
        return t->json ? 0 : -1;
    }
    if (!(f = open_memstream(&t->rows, &len)))
        return -1;
    char cpu[16], core[16], node[16];
    for (int i = 0; i < rep->openmp.num_threads; i++) {
        const struct ts_thread_rec *r = &rep->openmp.threads[i];
        fprintf(f, "%d|%4d  %5d  %6d  %4s  %4s  %4s  %s\n", d->rank, d->rank, d->local_rank, r->thread,
                number(r->cpu_start, cpu, sizeof cpu), number(r->core, core, sizeof core),
                number(r->node, node, sizeof node), r->affinity);
    }
    return fclose(f);
}

/* The gathered fact lines ("host boot_id\n", one a rank) split once: each rank's host and kernel,
 * and how many distinct of each, by sorting (O(P log P), not a comparison of every pair). */
struct world_facts {
    char *text;          /* a copy of the lines, cut into words in place */
    const char **host;   /* rank r's host ("" when its line is missing) */
    const char **kernel; /* rank r's boot id, "-" when unknown */
    int hosts, kernels;
};

static void free_facts(struct world_facts *wf)
{
    free(wf->text);
    free(wf->host);
    free(wf->kernel);
    memset(wf, 0, sizeof *wf);
}

static int read_facts(const char *facts, int size, struct world_facts *wf)
{
    memset(wf, 0, sizeof *wf);
    const size_t n = (size_t)(size > 0 ? size : 1);
    const char **sorted = malloc(n * sizeof *sorted);
    wf->text = strdup(facts ? facts : "");
    wf->host = malloc(n * sizeof *wf->host);
    wf->kernel = malloc(n * sizeof *wf->kernel);
    if (!sorted || !wf->text || !wf->host || !wf->kernel) {
        free(sorted);
        free_facts(wf);
        return -1;
    }
    char *p = wf->text;
    for (int r = 0; r < size; r++) {
        char *end = p + strcspn(p, "\n"), *space = memchr(p, ' ', (size_t)(end - p));
        const int last = *end == '\0';
        *end = '\0';
        if (space)
            *space = '\0';
        wf->host[r] = p;
        wf->kernel[r] = space ? space + 1 : "";
        p = last ? end : end + 1;
    }
    memcpy(sorted, wf->host, (size_t)size * sizeof *sorted);
    wf->hosts = (int)ts_count_distinct(sorted, (size_t)size);
    memcpy(sorted, wf->kernel, (size_t)size * sizeof *sorted);
    wf->kernels = (int)ts_count_distinct(sorted, (size_t)size);
    free(sorted);
    return 0;
}

static void print_section(const struct ts_dist *d, const struct world_facts *wf, const char *rows, char **own,
                          const struct ts_rank_line *cross, int n_cross, FILE *out)
{
    const int hosts = wf->hosts, kernels = wf->kernels;
    int w = (int)strlen("host");
    for (int r = 0; r < d->size; r++) {
        int n = (int)strlen(wf->host[r]);
        w = n > w ? n : w;
    }
    fprintf(out, "\nranks (every thread of every rank, in rank order; core: hwloc logical, node: OS number)\n");
    fprintf(out, "  world     %d rank%s on %d host%s", d->size, d->size == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
    if (kernels < hosts)
        fprintf(out, " sharing %d kernel%s (one machine under several names: their cores are the same)", kernels,
                kernels == 1 ? "" : "s");
    fprintf(out, "\n  MPI       %s (%s)\n  launcher  %s\n", d->library, d->thread_level_name, d->launcher);
    fprintf(out, "  %-*s  rank  local  thread   CPU  core  node  affinity\n", w, "host");
    for (const char *p = rows; p && *p;) {
        size_t n = strcspn(p, "\n");
        int rank = atoi(p);
        const char *bar = memchr(p, '|', n);
        const char *host = wf->host[rank >= 0 && rank < d->size ? rank : 0];
        if (bar)
            fprintf(out, "  %-*s  %.*s\n", w, host, (int)(n - (size_t)(bar + 1 - p)), bar + 1);
        p += n + (p[n] == '\n');
    }
    fprintf(out, "\nrank warnings%s\n", (own && own[0]) || n_cross ? "" : ": none");
    for (char **line = own; line && *line; line++)
        fprintf(out, "  %s\n", *line);
    for (int i = 0; i < n_cross; i++)
        fprintf(out, "  across ranks: %s: %s\n", cross[i].note ? "note" : "warning", cross[i].text);
}

static void release(struct rank_texts *t)
{
    free(t->facts);
    free(t->rows);
    free(t->own);
    free(t->json);
    memset(t, 0, sizeof *t);
}

/* Collective: every rank's texts (the text report's rows and warnings, or its JSON line) and the
 * warnings across ranks, on rank 0 into all, cross and n_cross (cross: MAX_CROSS, malloc'd). */
static int gather_all(const struct ts_dist *dist, const struct ts_topo_report *rep, int json, struct rank_texts *all,
                      struct ts_rank_line **cross, int *n_cross, struct ts_error *err)
{
    struct rank_texts mine = { 0 };
    *cross = NULL;
    *n_cross = 0;
    /* Every rank gathers even when its own text failed (an empty part), so that none waits. */
    int made = make_texts(dist, rep, json, &mine) == 0;
    int status = ts_dist_gather_text(dist, made && mine.facts ? mine.facts : "", &all->facts, err);
    if (status == TS_OK && json)
        status = ts_dist_gather_text(dist, made && mine.json ? mine.json : "", &all->json, err);
    if (status == TS_OK && !json)
        status = ts_dist_gather_text(dist, made && mine.rows ? mine.rows : "", &all->rows, err);
    /* The ranks' own warnings, one line per distinct warning with the ranks that gave it. */
    if (status == TS_OK && !json)
        status = ts_rank_lines_merge(dist, "warning: ", (const char *const *)rep->warnings, rep->n_warnings, MAX_OWN,
                                     &all->own, err);
    /* The warnings across ranks: every rank's facts, compared on rank 0. Gathered whenever the
     * gathers above were, even when this rank has no line, so that no rank waits. */
    char *line = NULL;
    int facts = TS_OK;
    struct ts_error facts_err = { 0 };
    if (status == TS_OK) {
        facts = ts_rank_facts_line(dist, rep->topology, mask_of(rep), rep->openmp.threads, rep->openmp.num_threads,
                                   &line, &facts_err);
        *cross = dist->rank == 0 ? calloc(MAX_CROSS, sizeof **cross) : NULL;
        status =
            ts_rank_warnings_gather(dist, facts == TS_OK ? line : "", *cross, *cross ? MAX_CROSS : 0, n_cross, err);
    }
    if (status == TS_OK && !made)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot format the threads of rank %d", dist->rank);
    if (status == TS_OK && facts != TS_OK) {
        *err = facts_err;
        status = facts;
    }
    if (status == TS_OK && dist->rank == 0 && !*cross)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the warnings across ranks");
    free(line);
    release(&mine);
    return status;
}

int ts_topo_ranks_print(const struct ts_dist *dist, const struct ts_topo_report *rep, FILE *out, struct ts_error *err)
{
    struct rank_texts all = { 0 };
    struct ts_rank_line *cross = NULL;
    int n_cross = 0;
    int status = gather_all(dist, rep, 0, &all, &cross, &n_cross, err);
    struct world_facts wf = { 0 };
    if (status == TS_OK && dist->rank == 0 && read_facts(all.facts, dist->size, &wf) != 0)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the hosts of %d ranks", dist->size);
    if (status == TS_OK && dist->rank == 0)
        print_section(dist, &wf, all.rows, all.own, cross, n_cross, out);
    free_facts(&wf);
    free(cross);
    release(&all);
    return status;
}

struct ts_topo_ranks_json {
    struct ts_topo_world world;
    struct rank_texts all;
    const char *cross[MAX_CROSS];
    int note[MAX_CROSS];
    struct ts_rank_line lines[];
};

int ts_topo_ranks_json(const struct ts_dist *dist, const struct ts_topo_report *rep, struct ts_topo_ranks_json **j,
                       struct ts_error *err)
{
    struct rank_texts all = { 0 };
    struct ts_rank_line *cross = NULL;
    int n_cross = 0;
    *j = NULL;
    int status = gather_all(dist, rep, 1, &all, &cross, &n_cross, err);
    if (status == TS_OK && dist->rank == 0) {
        *j = calloc(1, sizeof **j + (size_t)n_cross * sizeof cross[0]);
        if (!*j)
            status =
                ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the JSON report of %d ranks", dist->size);
    }
    struct world_facts wf = { 0 };
    if (status == TS_OK && *j && read_facts(all.facts, dist->size, &wf) != 0) {
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the hosts of %d ranks", dist->size);
        free(*j);
        *j = NULL;
    }
    if (status == TS_OK && *j) {
        struct ts_topo_ranks_json *r = *j;
        memcpy(r->lines, cross, (size_t)n_cross * sizeof cross[0]);
        for (int i = 0; i < n_cross; i++) {
            r->cross[i] = r->lines[i].text;
            r->note[i] = r->lines[i].note;
        }
        r->all = all;
        memset(&all, 0, sizeof all);
        r->world = (struct ts_topo_world){ .size = dist->size,
                                           .hosts = wf.hosts,
                                           .kernels = wf.kernels,
                                           .library = dist->library,
                                           .thread_level = dist->thread_level_name,
                                           .launcher = dist->launcher,
                                           .ranks = r->all.json,
                                           .cross = r->cross,
                                           .cross_note = r->note,
                                           .n_cross = n_cross };
    }
    free_facts(&wf);
    free(cross);
    release(&all);
    return status;
}

const struct ts_topo_world *ts_topo_ranks_world(const struct ts_topo_ranks_json *j)
{
    return j ? &j->world : NULL;
}

void ts_topo_ranks_json_free(struct ts_topo_ranks_json *j)
{
    if (j)
        release(&j->all);
    free(j);
}

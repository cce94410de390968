#include "topo_ranks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rank_warnings.h"
#include "ts_dist_host.h"
#include "ts_dist_merge.h"
#include "ts_rank_merge.h"

/* The notes and warnings across ranks printed at most; the last line says how many more. */
enum { MAX_CROSS = 64 };
/* The distinct warnings of the ranks themselves printed at most, likewise. */
enum { MAX_OWN = 64 };
/* The distinct lines of the hosts' summary printed at most, likewise. */
enum { MAX_HOSTS = 16 };

/* What rank 0 holds of the world: the rows (or JSON lines) of the ranks shown, the merged lines
 * of the hosts' summary, the ranks' own warnings and the warnings across ranks: O(ranks shown
 * + distinct lines), never a line of every rank unless every rank was asked for. */
struct world {
    int shown;            /* the ranks whose threads are listed: the first ones */
    char *rows;           /* text: one line a thread of a rank shown, "HOST|the columns after host" */
    char *json;           /* JSON: one line a rank shown (ts_topo_rank_json_line) */
    char **hosts;         /* the hosts' summary, one line a distinct summary, NULL-terminated */
    int n_hosts, kernels; /* distinct host names, distinct boot ids */
    char **own;           /* the ranks' own warnings merged (ts_rank_lines_merge) */
    struct ts_rank_line *cross;
    int n_cross;
};

int ts_topo_ranks_shown(int size, int all_ranks)
{
    return all_ranks || size < TS_TOPO_RANKS_SHOWN ? size : TS_TOPO_RANKS_SHOWN;
}

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

/* This rank's part of the listing: its JSON line, or a row a thread ("" past the ranks shown). */
static char *listing(const struct ts_dist *d, const struct ts_topo_report *rep, int json, int shown)
{
    if (d->rank >= shown)
        return strdup("");
    if (json) {
        struct ts_topo_rank me = { .rank = d->rank,
                                   .local_rank = d->local_rank,
                                   .host = d->host,
                                   .boot_id = d->boot_id,
                                   .process_cpus = rep->process_cpus,
                                   .process_mask = rep->process_mask,
                                   .threads = rep->openmp.threads,
                                   .n_threads = rep->openmp.num_threads,
                                   .warnings = rep->warnings,
                                   .n_warnings = rep->n_warnings };
        return ts_topo_rank_json_line(&me);
    }
    char *rows = NULL, cpu[16], core[16], node[16];
    size_t len;
    FILE *f = open_memstream(&rows, &len);
    if (!f)
        return NULL;
    /* The host as the job knows it, so that node names sharing one machine count apart. */
    for (int i = 0; i < rep->openmp.num_threads; i++) {
        const struct ts_thread_rec *r = &rep->openmp.threads[i];
        fprintf(f, "%s|%4d  %5d  %6d  %4s  %4s  %4s  %s\n", d->host, d->rank, d->local_rank, r->thread,
                number(r->cpu_start, cpu, sizeof cpu), number(r->core, core, sizeof core),
                number(r->node, node, sizeof node), r->affinity);
    }
    if (fclose(f) != 0) {
        free(rows);
        return NULL;
    }
    return rows;
}

/* ts_dist_text_join: the ranks' listings one after the other, in rank order. */
static char *concatenate(void *ctx, const char *lower, const char *higher)
{
    (void)ctx;
    size_t a = strlen(lower), b = strlen(higher);
    char *both = malloc(a + b + 1);
    if (both) {
        memcpy(both, lower, a);
        memcpy(both + a, higher, b + 1);
    }
    return both;
}

/* A list of the indices set in used[0 .. n - 1], "0-1,3"; "-" when none. */
static void index_list(const unsigned char *used, int n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && at < len; i++) {
        if (!used[i] || (i > 0 && used[i - 1]))
            continue;
        int j = i;
        while (j + 1 < n && used[j + 1])
            j++;
        at += (size_t)snprintf(buf + at, len - at, j > i ? "%s%d-%d" : "%s%d", at ? "," : "", i, j);
    }
    if (!buf[0])
        snprintf(buf, len, "-");
}

/* How many of used[0 .. n - 1] are set. */
static int count_used(const unsigned char *used, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += used[i] != 0;
    return k;
}

/* The summary of one host's ranks f[members[0 .. m - 1]] as an item "s TEXT": its ranks and
 * threads, the CPUs and cores they ran on against the host's, and their NUMA nodes. -1 without
 * memory. */
static int host_summary(const struct ts_rank_facts *f, const int *members, int m, FILE *out)
{
    int top = 1, threads = 0, least = -1, most = 0;
    for (int k = 0; k < m; k++) {
        const struct ts_rank_facts *r = &f[members[k]];
        threads += r->n_threads;
        least = least < 0 || r->n_threads < least ? r->n_threads : least;
        most = r->n_threads > most ? r->n_threads : most;
        for (int t = 0; t < r->n_threads; t++) {
            const struct ts_rank_thread *x = &r->threads[t];
            top = x->cpu >= top ? x->cpu + 1 : top;
            top = x->core >= top ? x->core + 1 : top;
            top = x->node >= top ? x->node + 1 : top;
        }
    }
    unsigned char *cpus = calloc((size_t)top * 3, 1), *cores = cpus + top, *nodes = cpus + 2 * top;
    if (!cpus)
        return -1;
    for (int k = 0; k < m; k++)
        for (int t = 0; t < f[members[k]].n_threads; t++) {
            const struct ts_rank_thread *x = &f[members[k]].threads[t];
            if (x->cpu >= 0)
                cpus[x->cpu] = 1;
            if (x->core >= 0)
                cores[x->core] = 1;
            if (x->node >= 0)
                nodes[x->node] = 1;
        }
    const struct ts_rank_facts *first = &f[members[0]];
    char each[32], of_cpus[32] = "", of_cores[32] = "", list[256];
    snprintf(each, sizeof each, least == most ? "%d" : "%d to %d", least, most);
    if (first->n_pus > 0)
        snprintf(of_cpus, sizeof of_cpus, " of %d", first->n_pus);
    if (first->n_cores > 0)
        snprintf(of_cores, sizeof of_cores, " of %d", first->n_cores);
    index_list(nodes, top, list, sizeof list);
    fprintf(out, "s %d rank%s, %d thread%s (%s a rank) on %d%s CPUs, %d%s cores; NUMA nodes %s\n", m, m == 1 ? "" : "s",
            threads, threads == 1 ? "" : "s", each, count_used(cpus, top), of_cpus, count_used(cores, top), of_cores,
            list);
    free(cpus);
    return 0;
}

/* ts_dist_host_fn on a machine's first rank: its ranks' facts (ts_rank_facts_line) read back;
 * each host's first rank gets the host's summary, each kernel's first rank "k" (counted as the
 * world's kernels). A line that does not read back (a bug) fails the machine, as memory does. */
static int machine_summary(void *ctx, const char *const *texts, const int *ranks, int n, char **out)
{
    (void)ctx;
    (void)ranks;
    struct ts_rank_facts *f = calloc((size_t)n, sizeof *f);
    int *members = calloc((size_t)n, sizeof *members), parsed = 0, failed = !f || !members;
    for (; !failed && parsed < n; parsed++) {
        struct ts_error err;
        ts_error_clear(&err);
        if (ts_rank_facts_parse(texts[parsed], &f[parsed], &err) != TS_OK)
            break;
    }
    failed = failed || parsed < n;
    for (int i = 0; i < n && !failed; i++) {
        int host_first = 1, kernel_first = 1, m = 0;
        for (int j = 0; j < i; j++) {
            host_first = host_first && strcmp(f[j].host, f[i].host) != 0;
            kernel_first =
                kernel_first
                && strcmp(f[j].boot_id[0] ? f[j].boot_id : f[j].host, f[i].boot_id[0] ? f[i].boot_id : f[i].host) != 0;
        }
        if (!host_first && !kernel_first)
            continue;
        for (int j = i; host_first && j < n; j++)
            if (strcmp(f[j].host, f[i].host) == 0)
                members[m++] = j;
        size_t len;
        FILE *items = open_memstream(&out[i], &len);
        failed = !items || (host_first && host_summary(f, members, m, items) != 0);
        if (items && kernel_first)
            fputs("k\n", items);
        failed = (items && fclose(items) != 0) || failed;
    }
    for (int i = 0; f && i < parsed; i++)
        ts_rank_facts_free(&f[i]);
    free(f);
    free(members);
    return failed ? -1 : 0;
}

/* Items ("s TEXT", "k", a line each) of this rank into set. -1 without memory. */
static int add_items(struct ts_rank_merge *set, const struct ts_dist *d, const char *items)
{
    for (const char *p = items; *p;) {
        size_t n = strcspn(p, "\n");
        char *line = strndup(p, n);
        int failed = !line || ts_rank_merge_add(set, d->rank, d->host, line) != 0;
        free(line);
        if (failed)
            return -1;
        p += n + (p[n] == '\n');
    }
    return 0;
}

/* On rank 0: the merged summary as lines for the user into w (hosts, kernels). -1 without memory. */
static int summary_lines(const struct ts_rank_merge *set, struct world *w)
{
    enum { LINE = 1024 };
    const int n = ts_rank_merge_count(set);
    char text[LINE], who[400];
    int lines = 0;
    for (int i = 0; i < n; i++) {
        ts_rank_merge_text(set, i, text, sizeof text);
        if (text[0] == 'k')
            w->kernels += (int)ts_rank_merge_ranks(set, i);
        else if (text[0] == 's')
            w->n_hosts += (int)ts_rank_merge_ranks(set, i), lines++;
    }
    const int shown = lines > MAX_HOSTS ? MAX_HOSTS - 1 : lines, total = shown + (lines > shown);
    w->hosts = malloc((size_t)(total + 1) * sizeof *w->hosts + (size_t)total * LINE);
    if (!w->hosts)
        return -1;
    char *at = (char *)(w->hosts + total + 1);
    int k = 0;
    for (int i = 0; i < n && k < shown; i++) {
        ts_rank_merge_text(set, i, text, sizeof text);
        if (text[0] != 's')
            continue;
        ts_rank_merge_hosts(set, i, who, sizeof who);
        const long long count = ts_rank_merge_ranks(set, i);
        w->hosts[k] = at + (size_t)k * LINE;
        if (count == 1)
            snprintf(w->hosts[k], LINE, "host %.300s: %.700s", who, text + 2);
        else
            snprintf(w->hosts[k], LINE, "%lld of %d hosts (hosts %.300s): %.650s", count, w->n_hosts, who, text + 2);
        k++;
    }
    if (total > shown) {
        w->hosts[k] = at + (size_t)k * LINE;
        snprintf(w->hosts[k++], LINE, "%d more distinct summaries of hosts are not shown", lines - shown);
    }
    w->hosts[k] = NULL;
    return 0;
}

/* Collective: the hosts' summary and counts on rank 0, each machine's ranks' facts compared on
 * its first rank and merged up the tree. A rank without its line still takes part. */
static int gather_hosts(const struct ts_dist *d, const char *line, struct world *w, struct ts_error *err)
{
    char *items = NULL, *mine = NULL, *all = NULL;
    int status = ts_dist_host_exchange(d, line, machine_summary, NULL, &items, err);
    if (status != TS_OK)
        return status;
    struct ts_rank_merge *set = ts_rank_merge_new();
    if (set && items && add_items(set, d, items) == 0)
        mine = ts_rank_merge_write(set);
    free(items);
    status = ts_dist_merge_text(d, mine, ts_rank_merge_join_text, set, &all, err);
    free(mine);
    if (status == TS_OK && all && summary_lines(set, w) != 0)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the hosts of %d ranks", d->size);
    free(all);
    ts_rank_merge_free(set);
    if (status != TS_OK && d->rank == 0)
        ts_error_prefix(err, "the hosts of the ranks: ");
    return status;
}

static void print_section(const struct ts_dist *d, const struct world *w, FILE *out)
{
    const int hosts = w->n_hosts, kernels = w->kernels;
    int width = (int)strlen("host");
    for (const char *p = w->rows; p && *p;) {
        size_t n = strcspn(p, "\n"), bar = strcspn(p, "|");
        width = bar < n && (int)bar > width ? (int)bar : width;
        p += n + (p[n] == '\n');
    }
    if (w->shown == d->size)
        fprintf(out, "\nranks (every thread of every rank, in rank order; core: hwloc logical, node: OS number)\n");
    else
        fprintf(out,
                "\nranks (every thread of the first %d of %d ranks, in rank order; core: hwloc logical, node: OS "
                "number)\n",
                w->shown, d->size);
    fprintf(out, "  world     %d rank%s on %d host%s", d->size, d->size == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
    if (kernels < hosts)
        fprintf(out, " sharing %d kernel%s (one machine under several names: their cores are the same)", kernels,
                kernels == 1 ? "" : "s");
    fprintf(out, "\n  MPI       %s (%s)\n  launcher  %s\n", d->library, d->thread_level_name, d->launcher);
    for (char **line = w->hosts; line && *line; line++)
        fprintf(out, "  %-10s%s\n", line == w->hosts ? "hosts" : "", *line);
    fprintf(out, "  %-*s  rank  local  thread   CPU  core  node  affinity\n", width, "host");
    for (const char *p = w->rows; p && *p;) {
        size_t n = strcspn(p, "\n"), bar = strcspn(p, "|");
        if (bar < n)
            fprintf(out, "  %-*.*s  %.*s\n", width, (int)bar, p, (int)(n - bar - 1), p + bar + 1);
        p += n + (p[n] == '\n');
    }
    if (w->shown < d->size)
        fprintf(out, "  (%d more ranks not listed: touchstone topo --all-ranks lists every thread of every rank)\n",
                d->size - w->shown);
    fprintf(out, "\nrank warnings%s\n", (w->own && w->own[0]) || w->n_cross ? "" : ": none");
    for (char **line = w->own; line && *line; line++)
        fprintf(out, "  %s\n", *line);
    for (int i = 0; i < w->n_cross; i++)
        fprintf(out, "  across ranks: %s: %s\n", w->cross[i].note ? "note" : "warning", w->cross[i].text);
}

static void release(struct world *w)
{
    free(w->rows);
    free(w->json);
    free(w->hosts);
    free(w->own);
    free(w->cross);
    memset(w, 0, sizeof *w);
}

/* Collective: the listing of the ranks shown (rows, or JSON lines), the hosts' summary, the
 * ranks' own warnings and the warnings across ranks, on rank 0 into w. Every rank takes part
 * in every step even when its own part failed, so that none waits. */
static int gather_world(const struct ts_dist *dist, const struct ts_topo_report *rep, int json, int all_ranks,
                        struct world *w, struct ts_error *err)
{
    memset(w, 0, sizeof *w);
    w->shown = ts_topo_ranks_shown(dist->size, all_ranks);
    char *mine = listing(dist, rep, json, w->shown), *line = NULL, *listed = NULL;
    int status = ts_dist_merge_text(dist, mine, concatenate, NULL, &listed, err);
    if (json)
        w->json = listed;
    else
        w->rows = listed;
    /* The ranks' own warnings, one line per distinct warning with the ranks that gave it. */
    if (status == TS_OK && !json)
        status = ts_rank_lines_merge(dist, "warning: ", (const char *const *)rep->warnings, rep->n_warnings, MAX_OWN,
                                     &w->own, err);
    struct ts_error facts_err;
    ts_error_clear(&facts_err);
    int facts = TS_OK;
    if (status == TS_OK) {
        facts = ts_rank_facts_line(dist, rep->topology, mask_of(rep), rep->openmp.threads, rep->openmp.num_threads,
                                   &line, &facts_err);
        status = gather_hosts(dist, facts == TS_OK ? line : NULL, w, err);
    }
    /* The warnings across ranks: each machine's ranks compared on its first rank. */
    if (status == TS_OK) {
        w->cross = dist->rank == 0 ? calloc(MAX_CROSS, sizeof *w->cross) : NULL;
        status = ts_rank_warnings_gather(dist, facts == TS_OK ? line : "", w->cross, w->cross ? MAX_CROSS : 0,
                                         &w->n_cross, err);
    }
    if (status == TS_OK && !mine)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot format the threads of rank %d", dist->rank);
    if (status == TS_OK && facts != TS_OK) {
        *err = facts_err;
        status = facts;
    }
    if (status == TS_OK && dist->rank == 0 && !w->cross)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the warnings across ranks");
    free(line);
    free(mine);
    return status;
}

int ts_topo_ranks_print(const struct ts_dist *dist, const struct ts_topo_report *rep, int all_ranks, FILE *out,
                        struct ts_error *err)
{
    struct world w;
    int status = gather_world(dist, rep, 0, all_ranks, &w, err);
    if (status == TS_OK && dist->rank == 0)
        print_section(dist, &w, out);
    release(&w);
    return status;
}

struct ts_topo_ranks_json {
    struct ts_topo_world world;
    struct world w;
    const char *cross[MAX_CROSS];
    int note[MAX_CROSS];
};

int ts_topo_ranks_json(const struct ts_dist *dist, const struct ts_topo_report *rep, int all_ranks,
                       struct ts_topo_ranks_json **j, struct ts_error *err)
{
    struct world w;
    *j = NULL;
    int status = gather_world(dist, rep, 1, all_ranks, &w, err);
    if (status == TS_OK && dist->rank == 0 && !(*j = calloc(1, sizeof **j)))
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the JSON report of %d ranks", dist->size);
    if (status != TS_OK || !*j) {
        release(&w);
        return status;
    }
    struct ts_topo_ranks_json *r = *j;
    r->w = w;
    for (int i = 0; i < w.n_cross; i++) {
        r->cross[i] = r->w.cross[i].text;
        r->note[i] = r->w.cross[i].note;
    }
    r->world = (struct ts_topo_world){ .size = dist->size,
                                       .hosts = w.n_hosts,
                                       .kernels = w.kernels,
                                       .library = dist->library,
                                       .thread_level = dist->thread_level_name,
                                       .launcher = dist->launcher,
                                       .ranks = r->w.json,
                                       .cross = r->cross,
                                       .cross_note = r->note,
                                       .n_cross = w.n_cross };
    return TS_OK;
}

const struct ts_topo_world *ts_topo_ranks_world(const struct ts_topo_ranks_json *j)
{
    return j ? &j->world : NULL;
}

void ts_topo_ranks_json_free(struct ts_topo_ranks_json *j)
{
    if (j)
        release(&j->w);
    free(j);
}

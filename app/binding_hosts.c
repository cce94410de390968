/* advise --check across ranks (app/binding_hosts.h): each machine's ranks judged on its first
 * rank, the findings merged up a tree by their text. */
#include "binding_hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding_check.h"
#include "ts_dist_host.h"
#include "ts_dist_merge.h"
#include "ts_rank_merge.h"

int ts_binding_judge(const struct ts_node *node, const struct ts_plan_request *req,
                     const struct ts_verdict_setting *set, const struct ts_observed_thread *obs, int n,
                     struct ts_finding *findings, int *n_findings, struct ts_error *err)
{
    struct ts_binding_plan plan = { 0 };
    *n_findings = 0;
    int status = ts_binding_plan_make(node, req, &plan, err);
    if (status == TS_OK)
        status = ts_binding_verdict(node, &plan, set, obs, n, findings, n_findings, err);
    if (status == TS_OK)
        *n_findings += ts_binding_conditions(findings + *n_findings, TS_VERDICT_MAX_FINDINGS - *n_findings);
    ts_binding_plan_free(&plan);
    return status;
}

/* What the machine's first rank judges with: this rank's node, the request, how the job was set up. */
struct machine {
    const struct ts_node *node;
    struct ts_plan_request req;
    struct ts_verdict_setting set;
};

/* One rank's threads as its message: a line a thread, "HOST LOCAL_RANK THREAD CPU MASK LAUNCH_MASK"
 * ("?" for a mask not known). NULL without memory. */
static char *threads_text(const struct ts_dist *d, const struct ts_observed_thread *obs, int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %d %d %d %s %s\n", d->host, d->local_rank, obs[i].thread, obs[i].cpu,
                obs[i].mask[0] ? obs[i].mask : "?", obs[i].launch_mask[0] ? obs[i].launch_mask : "?");
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* A rank's threads read back (threads_text): its host, local rank and threads. */
struct rank_threads {
    char host[256];
    int local_rank, n;
    struct ts_observed_thread *obs;
};

static int read_threads(const char *text, struct rank_threads *r)
{
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    r->obs = calloc(lines > 0 ? (size_t)lines : 1, sizeof *r->obs);
    if (!r->obs)
        return -1;
    for (const char *line = text; *line && r->n < lines;) {
        struct ts_observed_thread *o = &r->obs[r->n];
        if (sscanf(line, "%255s %d %d %d %255s %255s", r->host, &r->local_rank, &o->thread, &o->cpu, o->mask,
                   o->launch_mask)
            != 6)
            return -1;
        if (strcmp(o->mask, "?") == 0)
            o->mask[0] = '\0';
        if (strcmp(o->launch_mask, "?") == 0)
            o->launch_mask[0] = '\0';
        r->n++;
        line += strcspn(line, "\n") + 1;
    }
    return r->n > 0 ? 0 : -1;
}

/* The findings of one host as its first rank's items: "R RANKS THREADS" (the host's shape, read
 * by rank 0 for its own host), "=" (a host judged: the merged line counts the hosts), then a
 * line a finding, its kind as a letter ('a' + kind), or "E STATUS MESSAGE" when it could not be
 * judged. NULL without memory. */
static char *host_items(const struct machine *m, const struct ts_observed_thread *obs, int n, int ranks)
{
    struct ts_finding *found = calloc(TS_VERDICT_MAX_FINDINGS, sizeof *found);
    if (!found)
        return NULL;
    struct ts_plan_request req = m->req;
    req.ranks = req.ranks > 0 ? req.ranks : ranks;
    int n_found = 0;
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_binding_judge(m->node, &req, &m->set, obs, n, found, &n_found, &err);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        fprintf(f, "R %d %d\n=\n", ranks, n);
        if (status != TS_OK)
            fprintf(f, "E %d %s\n", status, err.message);
        for (int i = 0; status == TS_OK && i < n_found; i++)
            fprintf(f, "%c %s\n", 'a' + (int)found[i].kind, found[i].text);
        if (fclose(f) != 0) {
            free(text);
            text = NULL;
        }
    }
    free(found);
    return text;
}

/* The ranks of one host (by name), numbered 0.. in the order of their local ranks as the plan
 * numbers them, their threads one after the other: malloc'd into *obs, *n threads. */
static int host_threads(const struct rank_threads *r, int *members, int m, struct ts_observed_thread **obs, int *n)
{
    int total = 0;
    for (int i = 0; i < m; i++)
        total += r[members[i]].n;
    *obs = calloc((size_t)total, sizeof **obs);
    if (!*obs)
        return -1;
    *n = 0;
    for (int k = 0; k < m; k++) {
        /* members[] in local-rank order: an insertion sort, the host's ranks are few. */
        for (int j = k; j > 0 && r[members[j]].local_rank < r[members[j - 1]].local_rank; j--) {
            int t = members[j];
            members[j] = members[j - 1];
            members[j - 1] = t;
        }
    }
    for (int k = 0; k < m; k++)
        for (int t = 0; t < r[members[k]].n; t++) {
            (*obs)[*n] = r[members[k]].obs[t];
            (*obs)[(*n)++].rank = k;
        }
    return 0;
}

/* ts_dist_host_fn on a machine's first rank: each host of the machine (ranks of one name) judged,
 * its items to its first rank, nothing to the others. */
static int judge_machine(void *ctx, const char *const *texts, const int *ranks, int n, char **out)
{
    (void)ranks;
    const struct machine *m = ctx;
    struct rank_threads *r = calloc((size_t)n, sizeof *r);
    int *members = calloc((size_t)n, sizeof *members), *done = calloc((size_t)n, sizeof *done);
    int failed = !r || !members || !done;
    for (int i = 0; i < n && !failed; i++)
        failed = read_threads(texts[i], &r[i]) != 0;
    for (int i = 0; i < n && !failed; i++) {
        if (done[i])
            continue;
        int k = 0;
        for (int j = i; j < n; j++)
            if (!done[j] && strcmp(r[j].host, r[i].host) == 0) {
                members[k++] = j;
                done[j] = 1;
            }
        struct ts_observed_thread *obs = NULL;
        int n_obs = 0;
        failed = host_threads(r, members, k, &obs, &n_obs) != 0 || !(out[i] = host_items(m, obs, n_obs, k));
        free(obs);
    }
    for (int i = 0; r && i < n; i++)
        free(r[i].obs);
    free(r);
    free(members);
    free(done);
    return failed ? -1 : 0;
}

/* This rank's items (its machine's answer) into set, past the shape line, which rank 0 keeps. */
static int add_items(struct ts_rank_merge *set, const struct ts_dist *d, const char *items,
                     struct ts_binding_hosts *out)
{
    for (const char *p = items; *p;) {
        size_t n = strcspn(p, "\n");
        char *line = strndup(p, n);
        if (!line)
            return -1;
        int failed = 0;
        if (line[0] == 'R')
            sscanf(line, "R %d %d", &out->host_ranks, &out->host_threads);
        else
            failed = ts_rank_merge_add(set, d->rank, d->host, line) != 0;
        free(line);
        if (failed)
            return -1;
        p += n + (p[n] == '\n');
    }
    return 0;
}

/* On rank 0: the merged set as findings, each with the hosts that give it when more than one
 * host was judged; the first host that could not be judged fails. */
static int read_findings(const struct ts_rank_merge *set, struct ts_binding_hosts *out, struct ts_error *err)
{
    enum { LINE = 2048 };
    char text[LINE], hosts[400];
    const int lines = ts_rank_merge_count(set);
    for (int i = 0; i < lines; i++) {
        ts_rank_merge_text(set, i, text, sizeof text);
        if (text[0] == '=')
            out->hosts = (int)ts_rank_merge_ranks(set, i);
    }
    for (int i = 0; i < lines; i++) {
        ts_rank_merge_text(set, i, text, sizeof text);
        ts_rank_merge_hosts(set, i, hosts, sizeof hosts);
        const long long count = ts_rank_merge_ranks(set, i);
        if (text[0] == 'E')
            return ts_fail(err, atoi(text + 2) > 0 ? atoi(text + 2) : TS_INTERNAL_ERROR,
                           "advise --check on host %s: %s", hosts,
                           strchr(text + 2, ' ') ? strchr(text + 2, ' ') + 1 : "");
        if (text[0] < 'a' || text[0] > 'a' + TS_FINDING_CONDITION || out->n_findings >= TS_VERDICT_MAX_FINDINGS)
            continue;
        struct ts_finding *f = &out->findings[out->n_findings++];
        f->kind = (enum ts_finding_kind)(text[0] - 'a');
        if (out->hosts <= 1)
            snprintf(f->text, sizeof f->text, "%.1190s", text + 2);
        else if (count == 1)
            snprintf(f->text, sizeof f->text, "host %.200s: %.980s", hosts, text + 2);
        else
            snprintf(f->text, sizeof f->text, "%lld of %d hosts (hosts %.200s): %.950s", count, out->hosts, hosts,
                     text + 2);
    }
    if (ts_rank_merge_dropped(set) > 0 && out->n_findings < TS_VERDICT_MAX_FINDINGS) {
        struct ts_finding *f = &out->findings[out->n_findings++];
        f->kind = TS_FINDING_CONDITION;
        snprintf(f->text, sizeof f->text, "over %lld more distinct findings of the hosts were not kept",
                 ts_rank_merge_dropped(set));
    }
    return TS_OK;
}

int ts_binding_check_hosts(const struct ts_dist *dist, const struct ts_node *node, const struct ts_plan_request *req,
                           const struct ts_observed_thread *obs, int n, struct ts_binding_hosts *out,
                           struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    struct machine m = { .node = node, .req = *req };
    ts_binding_setting(dist, &m.set);
    char *mine = threads_text(dist, obs, n), *items = NULL, *merged = NULL, *all = NULL;
    /* A rank without its text still meets the others: its machine then fails, and rank 0 with it. */
    int status = ts_dist_host_exchange(dist, mine, judge_machine, &m, &items, err);
    free(mine);
    if (status != TS_OK)
        return status;
    struct ts_rank_merge *set = ts_rank_merge_new();
    if (set && items && add_items(set, dist, items, out) == 0)
        merged = ts_rank_merge_write(set);
    free(items);
    status = ts_dist_merge_text(dist, merged, ts_rank_merge_join_text, set, &all, err);
    free(merged);
    if (status == TS_OK && all) /* rank 0: the set holds every host's findings */
        status = read_findings(set, out, err);
    free(all);
    ts_rank_merge_free(set);
    if (status == TS_RESOURCE_ERROR && dist->rank == 0)
        ts_error_prefix(err, "advise --check across ranks: ");
    return status;
}

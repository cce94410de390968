#include "ts_binding_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"
#include "ts_omp_model.h"

/* A core the job may use: its allowed PUs (indices into node->pus, consecutive). */
struct usable_core {
    int core, numa;
    int first_pu, n_pus;
};

static int usable_cores(const struct ts_node *node, struct usable_core *out)
{
    int n = 0;
    for (int i = 0; i < node->n_pus; i++) {
        const struct ts_node_pu *p = &node->pus[i];
        if (!p->allowed)
            continue;
        if (n > 0 && out[n - 1].core == p->core && out[n - 1].first_pu + out[n - 1].n_pus == i) {
            out[n - 1].n_pus++;
            continue;
        }
        out[n++] = (struct usable_core){ .core = p->core, .numa = p->numa, .first_pu = i, .n_pus = 1 };
    }
    return n;
}

/* Splits n items into parts of n / parts, the first n % parts one larger: where part i starts. */
static int part_start(int n, int parts, int i)
{
    return i * (n / parts) + (i < n % parts ? i : n % parts);
}

/* Each rank's cores (indices into cores, in order) by the rules in the header; returns 1 when
 * some rank spans two domains. rank_of[c] receives the rank of usable core c. */
static int assign_ranks(const struct usable_core *cores, int n, int ranks, int *rank_of, int *domains)
{
    /* Domains in order of first appearance; the domain of each core. */
    int *domain_of = calloc((size_t)n, sizeof *domain_of), n_domains = 0;
    int *domain_numa = calloc((size_t)n, sizeof *domain_numa);
    if (!domain_of || !domain_numa) {
        free(domain_of);
        free(domain_numa);
        return -1;
    }
    for (int c = 0; c < n; c++) {
        int d = 0;
        while (d < n_domains && domain_numa[d] != cores[c].numa)
            d++;
        if (d == n_domains)
            domain_numa[n_domains++] = cores[c].numa;
        domain_of[c] = d;
    }
    *domains = n_domains;
    int straddle = 0;
    if (ranks <= n_domains && n_domains % ranks == 0) { /* whole domains per rank */
        for (int c = 0; c < n; c++)
            rank_of[c] = domain_of[c] / (n_domains / ranks);
    } else if (ranks > n_domains && ranks % n_domains == 0) { /* a domain's cores shared out */
        const int per_domain = ranks / n_domains;
        for (int d = 0; d < n_domains; d++) {
            int in_domain = 0, seen = 0;
            for (int c = 0; c < n; c++)
                in_domain += domain_of[c] == d;
            for (int c = 0; c < n; c++) {
                if (domain_of[c] != d)
                    continue;
                int r = 0;
                while (r + 1 < per_domain && part_start(in_domain, per_domain, r + 1) <= seen)
                    r++;
                rank_of[c] = d * per_domain + r;
                seen++;
            }
        }
    } else { /* consecutive cores, whatever the domains */
        for (int c = 0; c < n; c++) {
            int r = 0;
            while (r + 1 < ranks && part_start(n, ranks, r + 1) <= c)
                r++;
            rank_of[c] = r;
        }
        for (int c = 1; c < n; c++)
            straddle |= rank_of[c] == rank_of[c - 1] && domain_of[c] != domain_of[c - 1];
    }
    free(domain_of);
    free(domain_numa);
    return straddle;
}

/* The rank's threads: where libgomp puts each (ts_omp_model.h) when the rank's mask is its
 * cores and OMP_PLACES=cores, OMP_PROC_BIND as planned. Places are always cores: OMP_PLACES=threads
 * orders places by OS number, which on most x86 nodes runs through the first PU of every core
 * before any sibling, so a spread over them piles threads on some cores and leaves others idle.
 * With more threads than cores, close shares every core among them, each bound to its core. */
static int place_threads(const struct ts_node *node, const struct usable_core *cores, const int *mine, int k,
                         struct ts_binding_plan *plan, int r, struct ts_error *err)
{
    struct ts_node mask = *node; /* the node as the rank sees it: its cores allowed, no others */
    mask.pus = malloc((size_t)node->n_pus * sizeof *mask.pus);
    int *place_of = malloc((size_t)plan->threads * sizeof *place_of);
    if (!mask.pus || !place_of) {
        free(mask.pus);
        free(place_of);
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory to place %d threads", plan->threads);
    }
    for (int i = 0; i < node->n_pus; i++) {
        mask.pus[i] = node->pus[i];
        mask.pus[i].allowed = 0;
    }
    for (int j = 0; j < k; j++)
        for (int p = 0; p < cores[mine[j]].n_pus; p++)
            mask.pus[cores[mine[j]].first_pu + p].allowed = 1;
    struct ts_omp_outcome o;
    int status = ts_omp_libgomp(&mask, plan->omp_places, plan->omp_proc_bind, &o, err);
    if (status == TS_OK)
        status = ts_omp_libgomp_plan(&o, plan->threads, place_of, err);
    for (int i = 0; status == TS_OK && i < plan->threads; i++) {
        struct ts_plan_thread *t = &plan->thread[(size_t)r * (size_t)plan->threads + (size_t)i];
        *t = (struct ts_plan_thread){ .rank = r, .thread = i, .core = -1, .pu = -1, .numa = -1 };
        for (int p = 0; place_of[i] >= 0 && p < node->n_pus && t->pu < 0; p++) /* its place's first CPU */
            if (mask.pus[p].allowed && ts_omp_place_has(&o.places, place_of[i], node->pus[p].os_index)) {
                t->pu = node->pus[p].os_index;
                t->core = node->pus[p].core;
                t->numa = node->pus[p].numa;
            }
        if (t->core < 0)
            status = ts_fail(err, TS_INTERNAL_ERROR, "rank %d thread %d: libgomp's model gives it no core", r, i);
    }
    ts_omp_outcome_free(&o); /* filled whatever the status */
    free(mask.pus);
    free(place_of);
    return status;
}

static void rank_cpus(const struct ts_node *node, const struct usable_core *cores, const int *mine, int k,
                      struct ts_plan_rank *pr)
{
    /* OS numbers need not ascend in logical order: mark, then list ascending. */
    int max_os = 0;
    for (int i = 0; i < node->n_pus; i++)
        max_os = node->pus[i].os_index > max_os ? node->pus[i].os_index : max_os;
    unsigned char *in = calloc((size_t)max_os + 1, 1);
    struct ts_list l;
    ts_list_init(&l, pr->cpus, sizeof pr->cpus);
    pr->numa_first = pr->numa_last = -1;
    pr->n_cores = k;
    pr->n_pus = 0;
    for (int j = 0; j < k; j++) {
        const struct usable_core *c = &cores[mine[j]];
        pr->n_pus += c->n_pus;
        if (c->numa >= 0 && (pr->numa_first < 0 || c->numa < pr->numa_first))
            pr->numa_first = c->numa;
        if (c->numa > pr->numa_last)
            pr->numa_last = c->numa;
        for (int p = 0; in && p < c->n_pus; p++)
            in[node->pus[c->first_pu + p].os_index] = 1;
    }
    for (int os = 0; in && os <= max_os; os++)
        if (in[os])
            ts_list_add(&l, os);
    ts_list_end(&l);
    free(in);
}

static void describe(struct ts_binding_plan *p, int domains, int smt)
{
    const int r = p->ranks, t = p->threads, k = p->cores_per_rank;
    int most = k;
    for (int i = 0; i < r; i++)
        most = p->rank[i].n_cores > most ? p->rank[i].n_cores : most;
    char cores[48]; /* a job's cpuset may give ranks unequal shares */
    if (most > k)
        snprintf(cores, sizeof cores, "%d to %d cores a rank", k, most);
    else
        snprintf(cores, sizeof cores, "%d core%s a rank", k, k == 1 ? "" : "s");
    char where[256];
    if (domains <= 1)
        snprintf(where, sizeof where, "%d rank%s on the node's %d core%s (one NUMA domain)", r, r == 1 ? "" : "s",
                 p->usable_cores, p->usable_cores == 1 ? "" : "s");
    else if (p->straddle)
        snprintf(where, sizeof where, "%d ranks on %d%s consecutive core%s each, some across two NUMA domains", r, k,
                 p->usable_cores % r ? " or more" : "", k == 1 && p->usable_cores % r == 0 ? "" : "s");
    else if (r == domains)
        snprintf(where, sizeof where, "one rank per NUMA domain (%d domains, %s)", domains, cores);
    else if (r < domains)
        snprintf(where, sizeof where, "%d whole NUMA domains per rank (%d domains, %s)", domains / r, domains, cores);
    else
        snprintf(where, sizeof where, "%d ranks per NUMA domain (%d domains, %s)", r / domains, domains, cores);
    char how[256];
    if (p->oversubscribed)
        snprintf(how, sizeof how, "%d threads a rank on its PUs, several a PU (oversubscribed)", t);
    else if (t > k)
        snprintf(how, sizeof how, "%d threads a rank, up to %d a core, each bound to its core (its SMT siblings)", t,
                 (t + k - 1) / k);
    else if (t == 1)
        snprintf(how, sizeof how, "1 thread a rank, on its first core%s", smt > 1 ? ", SMT siblings left idle" : "");
    else
        snprintf(how, sizeof how, "%d threads a rank spread over its cores, one a core%s", t,
                 smt > 1 ? ", SMT siblings left idle" : "");
    snprintf(p->reason, sizeof p->reason, "%s; %s.", where, how);
    p->caution[0] = '\0';
    if (p->straddle)
        snprintf(p->caution, sizeof p->caution,
                 "%d ranks neither divide the %d NUMA domains nor are a multiple of them: some ranks span two "
                 "domains and reach part of their memory remotely; ranks that divide %d or are a multiple of it "
                 "keep each rank in its domains",
                 r, domains, domains);
    else if (p->oversubscribed)
        snprintf(p->caution, sizeof p->caution,
                 "more threads than PUs: threads time-slice and every timing stretches; at most %d thread%s a rank",
                 p->usable_pus / r, p->usable_pus / r == 1 ? "" : "s");
}

static void launch_lines(struct ts_binding_plan *p, int domains, int min_pus)
{
    snprintf(p->env_line, sizeof p->env_line, "export OMP_NUM_THREADS=%d OMP_PLACES=%s OMP_PROC_BIND=%s", p->threads,
             p->omp_places, p->omp_proc_bind);
    /* block:block: Slurm's default block:cyclic deals a task's CPUs round-robin over the
     * sockets, which spreads every rank over every socket. --mpi=pmix: where Slurm's MpiDefault
     * is none, srun without it starts each task as a one-process job of its own, every task
     * running the whole problem; Open MPI joins PMIx's tasks into one world (pmi2 it refuses). */
    snprintf(p->srun_line, sizeof p->srun_line,
             "srun%s --ntasks-per-node=%d --cpus-per-task=%d --distribution=block:block --cpu-bind=cores",
             p->ranks > 1 ? " --mpi=pmix" : "", p->ranks, min_pus);
    const char *pass = "-x OMP_NUM_THREADS -x OMP_PLACES -x OMP_PROC_BIND";
    if (domains > 1 && !p->straddle && p->ranks >= domains)
        snprintf(p->mpirun_line, sizeof p->mpirun_line, "mpirun --map-by ppr:%d:numa:PE=%d --bind-to core %s",
                 p->ranks / domains, p->cores_per_rank, pass);
    else
        snprintf(p->mpirun_line, sizeof p->mpirun_line, "mpirun --map-by ppr:%d:node:PE=%d --bind-to core %s", p->ranks,
                 p->cores_per_rank, pass);
}

int ts_binding_plan_make(const struct ts_node *node, const struct ts_plan_request *req, struct ts_binding_plan *plan,
                         struct ts_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (req->ranks < 1 || req->threads < 0)
        return ts_fail(err, TS_BAD_INPUT, "a job of %d ranks x %d threads cannot be planned", req->ranks, req->threads);
    struct usable_core *cores = calloc(node->n_pus > 0 ? (size_t)node->n_pus : 1, sizeof *cores);
    int *rank_of = calloc(node->n_pus > 0 ? (size_t)node->n_pus : 1, sizeof *rank_of);
    int *mine = calloc(node->n_pus > 0 ? (size_t)node->n_pus : 1, sizeof *mine);
    if (!cores || !rank_of || !mine) {
        free(cores);
        free(rank_of);
        free(mine);
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory to plan %d PUs", node->n_pus);
    }
    const int n = usable_cores(node, cores);
    int status = TS_OK, domains = 1;
    if (req->ranks > n)
        status = ts_fail(err, TS_BAD_INPUT, "%d ranks on %d usable cores (%s): at most one rank a core", req->ranks, n,
                         node->source);
    int straddle = status == TS_OK ? assign_ranks(cores, n, req->ranks, rank_of, &domains) : 0;
    if (straddle < 0)
        status = ts_fail(err, TS_RESOURCE_ERROR, "no memory to plan %d cores", n);
    plan->ranks = req->ranks;
    plan->usable_cores = n;
    plan->straddle = straddle > 0;
    plan->rank = status == TS_OK ? calloc((size_t)req->ranks, sizeof *plan->rank) : NULL;
    if (status == TS_OK && !plan->rank)
        status = ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d ranks", req->ranks);
    int min_cores = n, min_pus = node->n_pus;
    for (int r = 0; status == TS_OK && r < req->ranks; r++) {
        int k = 0;
        for (int c = 0; c < n; c++)
            if (rank_of[c] == r)
                mine[k++] = c;
        rank_cpus(node, cores, mine, k, &plan->rank[r]);
        min_cores = k < min_cores ? k : min_cores;
        min_pus = plan->rank[r].n_pus < min_pus ? plan->rank[r].n_pus : min_pus;
        plan->usable_pus += plan->rank[r].n_pus;
    }
    if (status == TS_OK) {
        plan->cores_per_rank = min_cores;
        const int t = req->threads > 0 ? req->threads : req->use_smt ? min_pus : min_cores;
        plan->threads = t;
        plan->oversubscribed = t > min_pus;
        snprintf(plan->omp_places, sizeof plan->omp_places, "cores");
        snprintf(plan->omp_proc_bind, sizeof plan->omp_proc_bind, "%s", t > min_cores ? "close" : "spread");
        plan->thread = calloc((size_t)req->ranks * (size_t)t, sizeof *plan->thread);
        if (!plan->thread)
            status = ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d x %d threads", req->ranks, t);
    }
    for (int r = 0; status == TS_OK && r < req->ranks; r++) {
        int k = 0;
        for (int c = 0; c < n; c++)
            if (rank_of[c] == r)
                mine[k++] = c;
        status = place_threads(node, cores, mine, k, plan, r, err);
    }
    if (status == TS_OK) {
        describe(plan, domains, node->smt);
        launch_lines(plan, domains, min_pus);
    }
    free(cores);
    free(rank_of);
    free(mine);
    if (status != TS_OK)
        ts_binding_plan_free(plan);
    return status;
}

void ts_binding_plan_free(struct ts_binding_plan *plan)
{
    free(plan->rank);
    free(plan->thread);
    plan->rank = NULL;
    plan->thread = NULL;
}

#include "ts_binding_verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_machine.h"

/* What one thread's mask says, in the node's terms. */
struct seen {
    int core;    /* the one core its mask lies in; -1 when it spans several (unbound) */
    int pu;      /* the one PU of its mask; -1 when it holds several */
    int numa;    /* of that core, or of the CPU it ran on when unbound */
    int outside; /* its mask holds CPUs outside the job's cpuset */
};

const char *ts_finding_kind_name(enum ts_finding_kind kind)
{
    switch (kind) {
    case TS_FINDING_UNBOUND: return "unbound";
    case TS_FINDING_STACKED: return "stacked";
    case TS_FINDING_SMT_SHARED: return "smt_shared";
    case TS_FINDING_CROSSES_NUMA: return "crosses_numa";
    case TS_FINDING_IDLE_CORES: return "idle_cores";
    case TS_FINDING_OUTSIDE: return "outside";
    case TS_FINDING_CONDITION: return "condition";
    }
    return "?";
}

struct verdict {
    struct ts_finding *out;
    int n;
};

static void add(struct verdict *v, enum ts_finding_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(struct verdict *v, enum ts_finding_kind kind, const char *fmt, ...)
{
    if (v->n >= TS_VERDICT_MAX_FINDINGS)
        return;
    struct ts_finding *f = &v->out[v->n++];
    f->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

/* The PU index of each OS CPU number; -1 where the node has none. */
static int *pu_of_os(const struct ts_node *node, int *max_os)
{
    *max_os = 0;
    for (int i = 0; i < node->n_pus; i++)
        *max_os = node->pus[i].os_index > *max_os ? node->pus[i].os_index : *max_os;
    int *map = malloc(((size_t)*max_os + 1) * sizeof *map);
    for (int os = 0; map && os <= *max_os; os++)
        map[os] = -1;
    for (int i = 0; map && i < node->n_pus; i++)
        map[node->pus[i].os_index] = i;
    return map;
}

static int read_mask(const struct ts_node *node, const int *map, int max_os, const struct ts_observed_thread *o,
                     struct seen *s, struct ts_error *err)
{
    int cpus[1024];
    int n = ts_machine_parse_cpus(o->mask, cpus, (int)(sizeof cpus / sizeof cpus[0]));
    if (n < 1)
        return ts_fail(err, TS_BAD_INPUT, "rank %d thread %d: affinity mask '%s' is not a CPU list", o->rank, o->thread,
                       o->mask);
    *s = (struct seen){ .core = -2, .pu = n == 1 ? -2 : -1, .numa = -1 };
    for (int i = 0; i < n; i++) {
        if (cpus[i] > max_os || map[cpus[i]] < 0)
            return ts_fail(err, TS_BAD_INPUT, "rank %d thread %d: CPU %d is not on %s", o->rank, o->thread, cpus[i],
                           node->source);
        const struct ts_node_pu *p = &node->pus[map[cpus[i]]];
        s->outside |= !p->allowed;
        s->core = s->core == -2 || s->core == p->core ? p->core : -1;
        if (s->pu == -2)
            s->pu = map[cpus[i]];
    }
    if (s->core >= 0) {
        const struct ts_node_pu *p = &node->pus[map[cpus[0]]];
        s->numa = p->numa;
    } else if (o->cpu >= 0 && o->cpu <= max_os && map[o->cpu] >= 0) {
        s->numa = node->pus[map[o->cpu]].numa;
    }
    return TS_OK;
}

/* Threads of one core, as "r0.t0, r0.t1". */
static void names_on_core(const struct ts_observed_thread *obs, const struct seen *s, int n, int core, char *buf,
                          size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 24 < len; i++)
        if (s[i].core == core)
            used += (size_t)snprintf(buf + used, len - used, "%sr%d.t%d", used ? ", " : "", obs[i].rank, obs[i].thread);
}

static void judge_cores(const struct ts_node *node, const struct ts_binding_plan *plan,
                        const struct ts_observed_thread *obs, const struct seen *s, int n, struct verdict *v)
{
    int *users = calloc((size_t)node->n_cores + 1, sizeof *users);
    int *first_pu = malloc(((size_t)node->n_cores + 1) * sizeof *first_pu);
    if (!users || !first_pu) {
        free(users);
        free(first_pu);
        return;
    }
    for (int c = 0; c < node->n_cores; c++)
        first_pu[c] = -2; /* no thread yet; -1: one whose mask holds the core's every PU */
    int sibling_shared = 0, same_pu = 0, used_cores = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].core < 0 || s[i].core >= node->n_cores)
            continue;
        used_cores += users[s[i].core]++ == 0;
        if (first_pu[s[i].core] == -2)
            first_pu[s[i].core] = s[i].pu;
        else if (s[i].pu >= 0 && first_pu[s[i].core] >= 0 && s[i].pu != first_pu[s[i].core])
            sibling_shared = 1;
        else
            same_pu = 1;
    }
    const int free_cores = plan->usable_cores - used_cores;
    for (int c = 0; c < node->n_cores && free_cores > 0; c++) {
        if (users[c] < 2)
            continue;
        char names[256], fix[600];
        names_on_core(obs, s, n, c, names, sizeof names);
        int first_rank = -1, ranks_mixed = 0;
        for (int i = 0; i < n; i++)
            if (s[i].core == c) {
                ranks_mixed |= first_rank >= 0 && obs[i].rank != first_rank;
                first_rank = first_rank < 0 ? obs[i].rank : first_rank;
            }
        /* Ranks sharing a core: their threads' binding cannot part them, the launcher must. */
        if (ranks_mixed)
            snprintf(fix, sizeof fix, "give each rank its own cores: %s, or %s", plan->srun_line, plan->mpirun_line);
        else
            snprintf(fix, sizeof fix, "%s", plan->env_line);
        if (same_pu || !sibling_shared)
            add(v, TS_FINDING_STACKED,
                "threads %s are bound to core %d together while %d of the job's %d cores have no thread: "
                "they take turns on it; fix: %s",
                names, c, free_cores, plan->usable_cores, fix);
        else
            add(v, TS_FINDING_SMT_SHARED,
                "threads %s share the SMT siblings of core %d while %d of the job's %d cores have no thread: "
                "each gets part of one core; fix: OMP_PLACES=cores (%s)",
                names, c, free_cores, plan->usable_cores, plan->env_line);
        break; /* one core named is enough: the fix is the same for all */
    }
    if (free_cores > 0 && used_cores > 0 && n >= plan->usable_cores)
        add(v, TS_FINDING_IDLE_CORES,
            "%d of the job's %d cores have no thread while its %d threads are bound to %d: fix: %s", free_cores,
            plan->usable_cores, n, used_cores, plan->env_line);
    free(users);
    free(first_pu);
}

static void judge_ranks(const struct ts_binding_plan *plan, const struct ts_observed_thread *obs, const struct seen *s,
                        int n, struct verdict *v)
{
    for (int i = 0; i < n;) {
        const int r = obs[i].rank;
        int j = i, unbound = 0, outside = 0, numa_lo = -1, numa_hi = -1;
        for (; j < n && obs[j].rank == r; j++) {
            unbound += s[j].core < 0;
            outside |= s[j].outside;
            if (s[j].numa >= 0 && (numa_lo < 0 || s[j].numa < numa_lo))
                numa_lo = s[j].numa;
            numa_hi = s[j].numa > numa_hi ? s[j].numa : numa_hi;
        }
        if (outside)
            add(v, TS_FINDING_OUTSIDE,
                "rank %d: threads bound to CPUs outside the job's cpuset (OMP_PLACES names CPUs the job was not "
                "given): the runtime drops or ignores those places; fix: %s",
                r, plan->env_line);
        /* With ranks, binding threads alone would put every rank's first thread on one core:
         * the launcher must give each rank its cores first. */
        if (unbound && plan->ranks > 1)
            add(v, TS_FINDING_UNBOUND,
                "rank %d: %d of its %d threads may run on several cores (mask %s): the scheduler moves them, "
                "away from their caches and pages; fix: give each rank its cores (%s, or %s) and %s",
                r, unbound, j - i, obs[i].mask, plan->srun_line, plan->mpirun_line, plan->env_line);
        else if (unbound)
            add(v, TS_FINDING_UNBOUND,
                "rank %d: %d of its %d threads may run on several cores (mask %s): the scheduler moves them, "
                "away from their caches and pages; fix: %s",
                r, unbound, j - i, obs[i].mask, plan->env_line);
        const int fits = r < plan->ranks && !plan->straddle && plan->rank[r].numa_first == plan->rank[r].numa_last;
        if (fits && numa_lo >= 0 && numa_hi > numa_lo)
            add(v, TS_FINDING_CROSSES_NUMA,
                "rank %d: its threads are on NUMA domains %d-%d though the rank fits in one: half its accesses "
                "go remote; fix: bind each rank to one domain: %s",
                r, numa_lo, numa_hi, plan->srun_line);
        i = j;
    }
}

int ts_binding_verdict(const struct ts_node *node, const struct ts_binding_plan *plan,
                       const struct ts_observed_thread *obs, int n, struct ts_finding *findings, int *n_findings,
                       struct ts_error *err)
{
    *n_findings = 0;
    int max_os;
    int *map = pu_of_os(node, &max_os);
    struct seen *s = calloc(n > 0 ? (size_t)n : 1, sizeof *s);
    int status = map && s ? TS_OK : ts_fail(err, TS_RESOURCE_ERROR, "no memory to judge %d threads", n);
    for (int i = 0; status == TS_OK && i < n; i++)
        status = read_mask(node, map, max_os, &obs[i], &s[i], err);
    if (status == TS_OK) {
        struct verdict v = { findings, 0 };
        judge_ranks(plan, obs, s, n, &v);
        judge_cores(node, plan, obs, s, n, &v);
        *n_findings = v.n;
    }
    free(map);
    free(s);
    return status;
}

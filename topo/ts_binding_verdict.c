#include "ts_binding_verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* "1 of the job's 2 cores has", "2 of ... have": the verb agrees with the count before it. */
static const char *has(int n)
{
    return n == 1 ? "has" : "have";
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

/* An OpenMP value as the runtime reads it: case and surrounding blanks do not count. */
static int same_value(const char *set, const char *planned)
{
    if (!set)
        return 0;
    while (*set == ' ' || *set == '\t')
        set++;
    size_t n = strlen(planned);
    if (strncasecmp(set, planned, n) != 0)
        return 0;
    for (set += n; *set == ' ' || *set == '\t'; set++)
        ;
    return *set == '\0';
}

/* The part of the plan's OpenMP line the job does not have yet ("" when it has all of it):
 * a fix never asks for what is already set. Without a setting, the whole line. */
static void env_fix(const struct ts_binding_plan *p, const struct ts_verdict_setting *set, char *buf, size_t len)
{
    if (!set) {
        snprintf(buf, len, "%s", p->env_line);
        return;
    }
    char threads[16];
    snprintf(threads, sizeof threads, "%d", p->threads);
    size_t used = 0;
    buf[0] = '\0';
    /* Unset, the team's size came from the runtime and is the one planned for. */
    if (set->num_threads && !same_value(set->num_threads, threads))
        used += (size_t)snprintf(buf + used, len - used, " OMP_NUM_THREADS=%d", p->threads);
    if (!same_value(set->places, p->omp_places) && used < len)
        used += (size_t)snprintf(buf + used, len - used, " OMP_PLACES=%s", p->omp_places);
    /* With a thread on every core of the rank (or more), close places them as spread does. */
    const int alike = p->threads >= p->cores_per_rank
                      && (same_value(set->proc_bind, "close") || same_value(set->proc_bind, "spread"));
    if (!same_value(set->proc_bind, p->omp_proc_bind) && !alike && used < len)
        snprintf(buf + used, len - used, " OMP_PROC_BIND=%s", p->omp_proc_bind);
    if (buf[0]) {
        char tail[128];
        snprintf(tail, sizeof tail, "%.100s", buf);
        snprintf(buf, len, "export%s", tail);
    }
}

/* The launcher's line that gives each rank the plan's cores: the one the job runs under. */
static void launcher_fix(const struct ts_binding_plan *p, const struct ts_verdict_setting *set, char *buf, size_t len)
{
    if (set && set->under_mpirun)
        snprintf(buf, len, "%s", p->mpirun_line);
    else if (set && set->under_slurm)
        snprintf(buf, len, "%s", p->srun_line);
    else
        snprintf(buf, len, "%s, or %s", p->srun_line, p->mpirun_line);
}

/* 1 when the mask the rank of `first` started with holds fewer cores than the plan gives the
 * rank and than the rank has threads: then the mask confines the threads and no OpenMP setting
 * can spread them; its core count in *cores. 0 when the mask is not the cause, or unknown. */
static int mask_confines(const struct ts_node *node, const int *map, int max_os, const struct ts_binding_plan *p,
                         const struct ts_observed_thread *first, int threads, int *cores)
{
    const int r = first->rank;
    int cpus[1024];
    int n = first->launch_mask[0] ? ts_machine_parse_cpus(first->launch_mask, cpus, 1024) : -1;
    if (n < 1 || r < 0 || r >= p->ranks)
        return 0;
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        if (cpus[i] > max_os || map[cpus[i]] < 0)
            return 0;
        int core = node->pus[map[cpus[i]]].core, seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = cpus[j] <= max_os && map[cpus[j]] >= 0 && node->pus[map[cpus[j]]].core == core;
        distinct += !seen;
    }
    *cores = distinct;
    return distinct < threads && distinct < p->rank[r].n_cores;
}

/* The fix that widens rank r's mask to the plan's cores: the launcher's option, or taskset. */
static void widen_fix(const struct ts_binding_plan *p, const struct ts_verdict_setting *set, int r, char *buf,
                      size_t len)
{
    if (set && (set->under_mpirun || set->under_slurm))
        launcher_fix(p, set, buf, len);
    else
        snprintf(buf, len, "taskset -c %s touchstone ... (under a launcher: %s, or %s)", p->rank[r].cpus, p->srun_line,
                 p->mpirun_line);
}

/* What the verdict works from, shared by its parts. */
struct facts {
    const struct ts_node *node;
    const struct ts_binding_plan *plan;
    const struct ts_verdict_setting *set;
    const struct ts_observed_thread *obs;
    const struct seen *s;
    int n;
    const int *map;
    int max_os;
};

/* The first thread of rank r among the observations (NULL: none). */
static const struct ts_observed_thread *first_of(const struct facts *f, int r, int *threads)
{
    const struct ts_observed_thread *first = NULL;
    *threads = 0;
    for (int i = 0; i < f->n; i++)
        if (f->obs[i].rank == r) {
            first = first ? first : &f->obs[i];
            ++*threads;
        }
    return first;
}

/* The cause of rank r's threads sharing cores, and its fix, into fix: the mask it started with
 * when that confines them, else the OpenMP variables it lacks; when it has them all, the
 * threads' masks come from elsewhere. */
static void confined_fix(const struct facts *f, int r, char *fix, size_t len)
{
    int threads, cores = 0;
    const struct ts_observed_thread *first = first_of(f, r, &threads);
    char env[256], widen[1024];
    env_fix(f->plan, f->set, env, sizeof env);
    if (first && mask_confines(f->node, f->map, f->max_os, f->plan, first, threads, &cores)) {
        widen_fix(f->plan, f->set, r, widen, sizeof widen);
        snprintf(fix, len,
                 "rank %d's affinity mask (CPU%s %s, set before the OpenMP runtime started: taskset, numactl or the "
                 "launcher's binding) holds %d core%s for its %d threads, so no OpenMP setting can spread them; fix: "
                 "widen the mask: %s%s%s",
                 r, strpbrk(first->launch_mask, ",-") ? "s" : "", first->launch_mask, cores, plural(cores), threads,
                 widen, env[0] ? "; and " : "", env);
        return;
    }
    if (env[0])
        snprintf(fix, len, "fix: %s", env);
    else
        snprintf(fix, len,
                 "the OpenMP variables already ask for the plan's binding (OMP_PLACES=%s OMP_PROC_BIND=%s), so the "
                 "threads' masks come from elsewhere (the launcher's binding, a runtime other than libgomp); "
                 "touchstone topo shows each thread's mask",
                 f->plan->omp_places, f->plan->omp_proc_bind);
}

/* One core's threads judged: they take turns (more than its PUs, or two on one PU) or split
 * its SMT siblings. The cause picks the fix: more threads than the job's PUs (fewer threads),
 * ranks sharing the core (the launcher must part them), the rank's mask, the OpenMP line. */
static void judge_core(const struct facts *f, int c, int turns, int used_cores, struct verdict *v)
{
    const struct ts_binding_plan *p = f->plan;
    const int free_cores = p->usable_cores - used_cores;
    char names[256], fix[2048], launcher[600];
    names_on_core(f->obs, f->s, f->n, c, names, sizeof names);
    if (turns && f->n > p->usable_pus) { /* no binding avoids it: fewer threads do */
        const int most = p->cores_per_rank > 0 ? p->cores_per_rank : 1;
        add(v, TS_FINDING_STACKED,
            "threads %s are bound to core %d together and take turns on it: the job runs %d thread%s on its %d "
            "core%s (%d PU%s); fix: at most %d thread%s a rank (export OMP_NUM_THREADS=%d), or fewer ranks a node",
            names, c, f->n, plural(f->n), p->usable_cores, plural(p->usable_cores), p->usable_pus,
            plural(p->usable_pus), most, plural(most), most);
        return;
    }
    if (free_cores <= 0 && !turns)
        return; /* more threads than cores, each on a sibling of its own: as planned */
    int first_rank = -1, ranks_mixed = 0;
    for (int i = 0; i < f->n; i++)
        if (f->s[i].core == c) {
            ranks_mixed |= first_rank >= 0 && f->obs[i].rank != first_rank;
            first_rank = first_rank < 0 ? f->obs[i].rank : first_rank;
        }
    if (ranks_mixed) { /* their threads' binding cannot part ranks: the launcher must */
        launcher_fix(p, f->set, launcher, sizeof launcher);
        snprintf(fix, sizeof fix, "fix: give each rank its own cores: %s", launcher);
    } else {
        confined_fix(f, first_rank, fix, sizeof fix);
    }
    char idle[160];
    if (free_cores > 0)
        snprintf(idle, sizeof idle, "while %d of the job's %d core%s %s no thread", free_cores, p->usable_cores,
                 plural(p->usable_cores), has(free_cores));
    else
        snprintf(idle, sizeof idle, "while the job has %d PU%s for its %d thread%s", p->usable_pus,
                 plural(p->usable_pus), f->n, plural(f->n));
    if (turns)
        add(v, TS_FINDING_STACKED, "threads %s are bound to core %d together %s: they take turns on it; %s", names, c,
            idle, fix);
    else
        add(v, TS_FINDING_SMT_SHARED, "threads %s share the SMT siblings of core %d %s: each gets part of one core; %s",
            names, c, idle, fix);
}

static void judge_cores(const struct facts *f, struct verdict *v)
{
    const struct ts_node *node = f->node;
    int *users = calloc((size_t)node->n_cores + 1, sizeof *users);
    int *pus = calloc((size_t)node->n_cores + 1, sizeof *pus);
    int *pu_users = calloc((size_t)node->n_pus + 1, sizeof *pu_users);
    unsigned char *same_pu = calloc((size_t)node->n_cores + 1, 1);
    if (!users || !pus || !pu_users || !same_pu) {
        free(users);
        free(pus);
        free(pu_users);
        free(same_pu);
        return;
    }
    for (int i = 0; i < node->n_pus; i++)
        if (node->pus[i].core >= 0 && node->pus[i].core < node->n_cores && node->pus[i].allowed)
            pus[node->pus[i].core]++;
    int used_cores = 0;
    for (int i = 0; i < f->n; i++) {
        const int c = f->s[i].core;
        if (c < 0 || c >= node->n_cores)
            continue;
        used_cores += users[c]++ == 0;
        /* Two threads bound to one PU take turns whatever else the core has. */
        if (f->s[i].pu >= 0 && pu_users[f->s[i].pu]++ > 0)
            same_pu[c] = 1;
    }
    int judged = 0;
    for (int c = 0; c < node->n_cores && !judged; c++) {
        if (users[c] < 2)
            continue;
        const int turns = same_pu[c] || users[c] > (pus[c] > 0 ? pus[c] : 1);
        const int before = v->n;
        judge_core(f, c, turns, used_cores, v);
        judged = v->n > before; /* one core named is enough: the fix is the same for all */
    }
    const int free_cores = f->plan->usable_cores - used_cores;
    if (!judged && free_cores > 0 && used_cores > 0 && f->n >= f->plan->usable_cores) {
        char fix[2048];
        confined_fix(f, f->obs[0].rank, fix, sizeof fix);
        add(v, TS_FINDING_IDLE_CORES,
            "%d of the job's %d core%s %s no thread while its %d thread%s %s bound to %d core%s: %s", free_cores,
            f->plan->usable_cores, plural(f->plan->usable_cores), has(free_cores), f->n, plural(f->n),
            f->n == 1 ? "is" : "are", used_cores, plural(used_cores), fix);
    }
    free(users);
    free(pus);
    free(pu_users);
    free(same_pu);
}

static void judge_ranks(const struct facts *f, struct verdict *v)
{
    const struct ts_binding_plan *plan = f->plan;
    const struct ts_observed_thread *obs = f->obs;
    const struct seen *s = f->s;
    char env[256], launcher[600];
    env_fix(plan, f->set, env, sizeof env);
    launcher_fix(plan, f->set, launcher, sizeof launcher);
    for (int i = 0; i < f->n;) {
        const int r = obs[i].rank;
        int j = i, unbound = 0, outside = 0, numa_lo = -1, numa_hi = -1;
        for (; j < f->n && obs[j].rank == r; j++) {
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
                r, env[0] ? env : "OMP_PLACES=cores names only the job's cores");
        /* With ranks, binding threads alone would put every rank's first thread on one core:
         * the launcher must give each rank its cores first. */
        if (unbound) {
            char fix[1024];
            if (plan->ranks > 1)
                snprintf(fix, sizeof fix, "give each rank its cores (%s)%s%s", launcher, env[0] ? " and " : "", env);
            else
                snprintf(fix, sizeof fix, "%s",
                         env[0] ? env
                                : "the OpenMP variables already ask to bind them, so their masks come from elsewhere "
                                  "(a runtime other than libgomp); touchstone topo shows each thread's mask");
            add(v, TS_FINDING_UNBOUND,
                "rank %d: %d of its %d thread%s may run on several cores (mask %s): the scheduler moves them, "
                "away from their caches and pages; fix: %s",
                r, unbound, j - i, plural(j - i), obs[i].mask, fix);
        }
        const int fits = r < plan->ranks && !plan->straddle && plan->rank[r].numa_first == plan->rank[r].numa_last;
        if (fits && numa_lo >= 0 && numa_hi > numa_lo)
            add(v, TS_FINDING_CROSSES_NUMA,
                "rank %d: its threads are on NUMA domains %d-%d though the rank fits in one: half its accesses "
                "go remote; fix: bind each rank to one domain: %s",
                r, numa_lo, numa_hi, launcher);
        i = j;
    }
}

int ts_binding_verdict(const struct ts_node *node, const struct ts_binding_plan *plan,
                       const struct ts_verdict_setting *set, const struct ts_observed_thread *obs, int n,
                       struct ts_finding *findings, int *n_findings, struct ts_error *err)
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
        const struct facts f = { node, plan, set, obs, s, n, map, max_os };
        judge_ranks(&f, &v);
        judge_cores(&f, &v);
        *n_findings = v.n;
    }
    free(map);
    free(s);
    return status;
}

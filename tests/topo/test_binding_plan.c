/* The binding planner on nodes written by hand (the shapes of real ones): where ranks and
 * threads go, the lines that ask for it, and the invariants every plan keeps. */
#include "topo_test.h"
#include "ts_binding_plan.h"
#include "ts_affinity.h"
#include "ts_binding_verdict.h"

#include <stdlib.h>

/* packages x domains a package x cores a domain x smt PUs a core; OS numbers as Intel and
 * AMD number them: the first PU of every core, then the second of every core. */
static struct ts_node shape(int packages, int domains, int cores, int smt)
{
    struct ts_node n = { 0 };
    const int n_cores = packages * domains * cores;
    n.n_pus = n_cores * smt;
    n.pus = calloc((size_t)n.n_pus, sizeof *n.pus);
    REQUIRE(n.pus != NULL, "out of memory");
    for (int c = 0, i = 0; c < n_cores; c++)
        for (int s = 0; s < smt; s++, i++)
            n.pus[i] = (struct ts_node_pu){ .os_index = s * n_cores + c,
                                            .core = c,
                                            .package = c / (domains * cores),
                                            .numa = c / cores,
                                            .llc = c / cores,
                                            .allowed = 1 };
    n.n_cores = n_cores, n.n_packages = packages, n.n_numa = packages * domains, n.n_llc = n.n_numa, n.smt = smt;
    snprintf(n.source, sizeof n.source, "synthetic %dx%dx%dx%d", packages, domains, cores, smt);
    return n;
}

static struct ts_binding_plan plan_of(const struct ts_node *n, int ranks, int threads, int smt)
{
    struct ts_binding_plan p;
    struct ts_error err = { 0 };
    struct ts_plan_request req = { ranks, threads, smt };
    REQUIRE(ts_binding_plan_make(n, &req, &p, &err) == TS_OK, "%s, %d x %d: %s", n->source, ranks, threads,
            err.message);
    return p;
}

/* What every plan keeps: threads on distinct cores while they fit, ranks on disjoint cores in
 * one domain when the ranks divide the domains or are a multiple of them. */
static void invariants(const struct ts_node *n, const struct ts_binding_plan *p)
{
    int *core_users = calloc((size_t)n->n_cores, sizeof *core_users);
    int *core_rank = malloc((size_t)n->n_cores * sizeof *core_rank);
    int *domain_rank = malloc((size_t)n->n_numa * sizeof *domain_rank);
    for (int c = 0; c < n->n_cores; c++)
        core_rank[c] = -1;
    for (int d = 0; d < n->n_numa; d++)
        domain_rank[d] = -1;
    for (int i = 0; i < p->ranks * p->threads; i++) {
        const struct ts_plan_thread *t = &p->thread[i];
        REQUIRE(t->core >= 0 && t->core < n->n_cores, "%s: thread %d.%d on core %d", n->source, t->rank, t->thread,
                t->core);
        core_users[t->core]++;
        CHECK(core_rank[t->core] < 0 || core_rank[t->core] == t->rank, "%s: core %d shared by ranks %d and %d",
              n->source, t->core, core_rank[t->core], t->rank);
        core_rank[t->core] = t->rank;
        /* At least a domain's worth of ranks: each in one domain; fewer: whole domains each. */
        if (!p->straddle && p->ranks >= n->n_numa)
            CHECK(p->rank[t->rank].numa_first == p->rank[t->rank].numa_last, "%s: rank %d spans NUMA %d-%d", n->source,
                  t->rank, p->rank[t->rank].numa_first, p->rank[t->rank].numa_last);
        if (!p->straddle && p->ranks < n->n_numa)
            CHECK(domain_rank[t->numa] < 0 || domain_rank[t->numa] == t->rank, "%s: NUMA %d shared by ranks %d and %d",
                  n->source, t->numa, domain_rank[t->numa], t->rank);
        domain_rank[t->numa] = t->rank;
    }
    for (int c = 0; c < n->n_cores; c++)
        CHECK(core_users[c] <= 1 || p->threads > p->cores_per_rank, "%s, %d x %d: core %d holds %d threads", n->source,
              p->ranks, p->threads, c, core_users[c]);
    const int d = n->n_numa;
    CHECK(!p->straddle || !((p->ranks <= d && d % p->ranks == 0) || (p->ranks > d && p->ranks % d == 0)),
          "%s: %d ranks on %d domains, straddle %d", n->source, p->ranks, d, p->straddle);
    free(core_users);
    free(core_rank);
    free(domain_rank);
}

/* A 2-socket node with 2 NUMA domains a socket (SNC), 4 cores each, SMT 2. */
static void one_rank_per_domain(void)
{
    struct ts_node n = shape(2, 2, 4, 2);
    struct ts_binding_plan p = plan_of(&n, 4, 0, 0);
    CHECK(p.threads == 4 && p.cores_per_rank == 4 && !p.straddle && !p.oversubscribed, "4 ranks: %d threads",
          p.threads);
    CHECK(strcmp(p.rank[1].cpus, "4-7,20-23") == 0, "rank 1's CPUs: %s", p.rank[1].cpus);
    CHECK(strcmp(p.env_line, "export OMP_NUM_THREADS=4 OMP_PLACES=cores OMP_PROC_BIND=spread") == 0, "%s", p.env_line);
    /* Several ranks: --mpi=pmix, or a Slurm whose MpiDefault is none starts 4 jobs of one task. */
    CHECK(strcmp(p.srun_line,
                 "srun --mpi=pmix --ntasks-per-node=4 --cpus-per-task=8 --distribution=block:block --cpu-bind=cores")
              == 0,
          "%s", p.srun_line);
    CHECK(strcmp(p.mpirun_line,
                 "mpirun --map-by ppr:1:numa:PE=4 --bind-to core -x OMP_NUM_THREADS -x OMP_PLACES -x OMP_PROC_BIND")
              == 0,
          "%s", p.mpirun_line);
    CHECK(strstr(p.reason, "one rank per NUMA domain") && strstr(p.reason, "SMT siblings left idle"), "%s", p.reason);
    for (int t = 0; t < 4; t++)
        CHECK(p.thread[2 * 4 + t].core == 8 + t && p.thread[2 * 4 + t].pu == 8 + t, "rank 2 thread %d on core %d", t,
              p.thread[2 * 4 + t].core);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    p = plan_of(&n, 1, 0, 0); /* one process: no MPI asked of srun */
    CHECK(strncmp(p.srun_line, "srun --ntasks-per-node=1 ", 25) == 0, "%s", p.srun_line);
    ts_binding_plan_free(&p);
    /* Fewer threads than cores: spread, every other core. */
    p = plan_of(&n, 4, 2, 0);
    CHECK(p.thread[0].core == 0 && p.thread[1].core == 2, "2 threads on 4 cores: cores %d, %d", p.thread[0].core,
          p.thread[1].core);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    free(n.pus);
}

static void whole_and_shared_domains(void)
{
    struct ts_node n = shape(2, 2, 4, 2);
    struct ts_binding_plan p = plan_of(&n, 2, 0, 0); /* a socket each */
    CHECK(p.cores_per_rank == 8 && p.rank[0].numa_first == 0 && p.rank[0].numa_last == 1, "2 ranks: %d cores",
          p.cores_per_rank);
    CHECK(strstr(p.reason, "2 whole NUMA domains per rank") != NULL, "%s", p.reason);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    p = plan_of(&n, 8, 0, 0); /* two a domain */
    CHECK(p.cores_per_rank == 2 && p.rank[7].numa_first == 3 && strstr(p.mpirun_line, "ppr:2:numa:PE=2"), "%s",
          p.mpirun_line);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    p = plan_of(&n, 3, 0, 0); /* does not divide: some ranks straddle, and the plan says so */
    CHECK(p.straddle && strstr(p.caution, "neither divide the 4 NUMA domains"), "3 ranks: %s", p.caution);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    free(n.pus);
}

static void smt_and_oversubscription(void)
{
    struct ts_node n = shape(1, 1, 4, 2);
    struct ts_binding_plan p = plan_of(&n, 1, 6, 0); /* more threads than cores: libgomp deals the rest from core 0 */
    CHECK(strcmp(p.omp_places, "cores") == 0 && strcmp(p.omp_proc_bind, "close") == 0 && !p.oversubscribed
              && p.thread[0].core == 0 && p.thread[3].core == 3 && p.thread[4].core == 0 && p.thread[5].core == 1,
          "6 threads on 4 cores: places %s, bind %s", p.omp_places, p.omp_proc_bind);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    p = plan_of(&n, 1, 0, 1); /* SMT asked for: a thread a PU */
    CHECK(p.threads == 8 && strcmp(p.omp_proc_bind, "close") == 0 && p.thread[7].core == 3, "SMT: %d threads",
          p.threads);
    ts_binding_plan_free(&p);
    p = plan_of(&n, 1, 12, 0);
    CHECK(p.oversubscribed && strcmp(p.omp_proc_bind, "close") == 0 && strstr(p.caution, "more threads than PUs"),
          "12 threads on 8 PUs: %s", p.caution);
    ts_binding_plan_free(&p);
    struct ts_error err = { 0 };
    struct ts_plan_request too_many = { 5, 1, 0 };
    CHECK(ts_binding_plan_make(&n, &too_many, &p, &err) == TS_BAD_INPUT && strstr(err.message, "5 ranks on 4"),
          "5 ranks on 4 cores: %s", err.message);
    free(n.pus);
}

/* A partial allocation (a cpuset of cores 2-5 of 8): only those are planned. */
static void partial_allocation(void)
{
    struct ts_node n = shape(1, 2, 4, 1);
    for (int i = 0; i < n.n_pus; i++)
        n.pus[i].allowed = n.pus[i].core >= 2 && n.pus[i].core <= 5;
    struct ts_binding_plan p = plan_of(&n, 2, 0, 0);
    CHECK(p.usable_cores == 4 && strcmp(p.rank[0].cpus, "2-3") == 0 && strcmp(p.rank[1].cpus, "4-5") == 0,
          "cpuset 2-5: %d cores, ranks %s and %s", p.usable_cores, p.rank[0].cpus, p.rank[1].cpus);
    invariants(&n, &p);
    ts_binding_plan_free(&p);
    free(n.pus);
}

/* Every shape of 1, 2, 4, 8 domains, with and without SMT, every rank count up to the cores. */
static void sweep(void)
{
    static const int shapes[][4] = { { 1, 1, 8, 1 }, { 1, 1, 4, 2 }, { 2, 1, 4, 2 }, { 2, 2, 4, 1 },
                                     { 2, 4, 2, 2 }, { 1, 8, 2, 1 }, { 2, 2, 3, 2 } };
    int plans = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct ts_node n = shape(shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
        for (int r = 1; r <= n.n_cores; r++)
            for (int t = 0; t <= n.n_pus / r + 1; t++) {
                struct ts_binding_plan p = plan_of(&n, r, t, 0);
                invariants(&n, &p);
                ts_binding_plan_free(&p);
                plans++;
            }
        free(n.pus);
    }
    printf("%d plans checked\n", plans);
}

/* Observations made from a plan's own table: each thread bound to its core's PUs. */
static int observe_plan(const struct ts_node *n, const struct ts_binding_plan *p, struct ts_observed_thread *obs)
{
    const int count = p->ranks * p->threads;
    for (int i = 0; i < count; i++) {
        const struct ts_plan_thread *t = &p->thread[i];
        obs[i] = (struct ts_observed_thread){ .rank = t->rank, .thread = t->thread, .cpu = t->pu };
        size_t used = 0;
        for (int k = 0; k < n->n_pus; k++)
            if (n->pus[k].core == t->core)
                used += (size_t)snprintf(obs[i].mask + used, sizeof obs[i].mask - used, "%s%d", used ? "," : "",
                                         n->pus[k].os_index);
    }
    return count;
}

static int judged(const struct ts_node *n, const struct ts_binding_plan *p, const struct ts_observed_thread *obs,
                  int count, struct ts_finding *f, enum ts_finding_kind want)
{
    int found = 0;
    struct ts_error err = { 0 };
    REQUIRE(ts_binding_verdict(n, p, NULL, obs, count, f, &found, &err) == TS_OK, "verdict: %s", err.message);
    int hit = 0;
    for (int i = 0; i < found; i++)
        hit |= f[i].kind == want;
    return (int)want < 0 ? found : hit;
}

/* What the plan gives is judged clean; each way of losing is named, with its fix. */
static void verdicts(void)
{
    struct ts_node n = shape(2, 2, 4, 2); /* OS CPU c and c + 16 are the siblings of core c */
    struct ts_binding_plan p = plan_of(&n, 4, 4, 0);
    struct ts_observed_thread obs[16];
    struct ts_finding f[TS_VERDICT_MAX_FINDINGS];
    int count = observe_plan(&n, &p, obs), found = 0;
    struct ts_error err = { 0 };
    CHECK(ts_binding_verdict(&n, &p, NULL, obs, count, f, &found, &err) == TS_OK && found == 0,
          "the plan's own binding: %d findings (%s)", found, found ? f[0].text : "");

    for (int i = 0; i < count; i++) /* OMP_PLACES='{0}': everything on CPU 0 */
        snprintf(obs[i].mask, sizeof obs[i].mask, "0");
    CHECK(judged(&n, &p, obs, count, f, TS_FINDING_STACKED)
              && strstr(f[0].text, "fix: give each rank its own cores: srun"),
          "all on CPU 0: not stacked (%s)", f[0].text);
    CHECK(!judged(&n, &p, obs, count, f, TS_FINDING_IDLE_CORES), "all on CPU 0: idle cores said twice");
    CHECK(strstr(f[0].text, "while 15 of the job's 16 cores have no thread"), "all on CPU 0: %s", f[0].text);

    count = observe_plan(&n, &p, obs);
    for (int i = 0; i < count; i++) /* OMP_PROC_BIND=false: every thread on the whole node */
        snprintf(obs[i].mask, sizeof obs[i].mask, "0-31");
    CHECK(judged(&n, &p, obs, count, f, TS_FINDING_UNBOUND), "unbound threads not found");

    count = observe_plan(&n, &p, obs);
    snprintf(obs[0].mask, sizeof obs[0].mask, "0");  /* OMP_PLACES=threads, close: rank 0's threads 0 and 1 */
    snprintf(obs[1].mask, sizeof obs[1].mask, "16"); /* on the two siblings of core 0 */
    CHECK(judged(&n, &p, obs, count, f, TS_FINDING_SMT_SHARED), "siblings shared not found");

    count = observe_plan(&n, &p, obs);
    snprintf(obs[2].mask, sizeof obs[2].mask, "4,20"); /* rank 0's thread 2 on core 4: domain 1 */
    snprintf(obs[3].mask, sizeof obs[3].mask, "5,21");
    snprintf(obs[4].mask, sizeof obs[4].mask, "2,18"); /* rank 1 moved onto rank 0's cores */
    snprintf(obs[5].mask, sizeof obs[5].mask, "3,19");
    CHECK(judged(&n, &p, obs, count, f, TS_FINDING_CROSSES_NUMA), "a rank across domains not found");

    count = observe_plan(&n, &p, obs);
    snprintf(obs[0].mask, sizeof obs[0].mask, "x");
    CHECK(ts_binding_verdict(&n, &p, NULL, obs, count, f, &found, &err) == TS_BAD_INPUT && strstr(err.message, "'x'"),
          "a mask that is no list: %s", err.message);
    snprintf(obs[0].mask, sizeof obs[0].mask, "99");
    CHECK(ts_binding_verdict(&n, &p, NULL, obs, count, f, &found, &err) == TS_BAD_INPUT
              && strstr(err.message, "CPU 99"),
          "a CPU the node lacks: %s", err.message);
    ts_binding_plan_free(&p);

    for (int i = 0; i < n.n_pus; i++) /* a job given cores 0-7 only */
        n.pus[i].allowed = n.pus[i].core < 8;
    p = plan_of(&n, 1, 2, 0);
    count = observe_plan(&n, &p, obs);
    snprintf(obs[1].mask, sizeof obs[1].mask, "12,28");
    CHECK(judged(&n, &p, obs, count, f, TS_FINDING_OUTSIDE), "a thread outside the cpuset not found");
    ts_binding_plan_free(&p);
    free(n.pus);
}

/* Every count in a plan's sentences agrees with its noun (issue 23: "1 of the job's 2 cores have"). */
static void counts(void)
{
    struct ts_node n = shape(1, 1, 1, 1);
    struct ts_binding_plan p = plan_of(&n, 1, 0, 0);
    CHECK(strcmp(p.reason, "1 rank on the node's 1 core (one NUMA domain); 1 thread a rank, on its first core.") == 0,
          "one core: %s", p.reason);
    ts_binding_plan_free(&p);
    free(n.pus);
    n = shape(1, 2, 1, 1);
    p = plan_of(&n, 2, 0, 0);
    CHECK(strstr(p.reason, "one rank per NUMA domain (2 domains, 1 core a rank)"), "a core a rank: %s", p.reason);
    ts_binding_plan_free(&p);
    p = plan_of(&n, 2, 2, 0);
    CHECK(p.oversubscribed && strstr(p.caution, "at most 1 thread a rank"), "oversubscribed: %s", p.caution);
    ts_binding_plan_free(&p);
    free(n.pus);
}

/* The verdict of a one-process job of 2 threads on a 2-core node, its threads' masks and the
 * mask it started with given, set up as set says: the kind found (-1: none) and its text. */
static int judge_two(const char *mask0, const char *mask1, const char *launch, const struct ts_verdict_setting *set,
                     int ranks, int threads, char *text, size_t len)
{
    struct ts_node n = shape(1, 1, 2, 1);
    struct ts_binding_plan p = plan_of(&n, ranks, threads, 0);
    struct ts_observed_thread obs[4];
    struct ts_finding f[TS_VERDICT_MAX_FINDINGS];
    const int count = observe_plan(&n, &p, obs);
    for (int i = 0; i < count; i++) {
        snprintf(obs[i].mask, sizeof obs[i].mask, "%s", i % 2 ? mask1 : mask0);
        snprintf(obs[i].launch_mask, sizeof obs[i].launch_mask, "%s", launch);
    }
    int found = 0;
    struct ts_error err = { 0 };
    REQUIRE(ts_binding_verdict(&n, &p, set, obs, count, f, &found, &err) == TS_OK, "verdict: %s", err.message);
    snprintf(text, len, "%s", found ? f[0].text : "");
    const int kind = found ? (int)f[0].kind : -1;
    ts_binding_plan_free(&p);
    free(n.pus);
    return kind;
}

/* Each fix changes the outcome: never what is already set; the mask when the mask confines the
 * threads; fewer threads when the job has more than its PUs, even though the plan for that
 * shape stacks them too (topo and run warn of it: so must the verdict). */
static void fixes(void)
{
    char t[1200];
    const struct ts_verdict_setting spread = { .num_threads = "2", .places = "cores", .proc_bind = "spread" };
    /* taskset -c 0 with the plan's variables already set: the mask, and no export. */
    CHECK(judge_two("0", "0", "0", &spread, 1, 2, t, sizeof t) == TS_FINDING_STACKED
              && strstr(t, "while 1 of the job's 2 cores has no thread")
              && strstr(t, "rank 0's affinity mask (CPU 0, set before the OpenMP runtime started")
              && strstr(t, "holds 1 core for its 2 threads") && strstr(t, "fix: widen the mask: taskset -c 0-1")
              && !strstr(t, "export"),
          "taskset -c 0, OMP_PROC_BIND=spread set: %s", t);
    /* The same mask, OMP_PLACES unset: widen it, and set only what is missing. */
    const struct ts_verdict_setting bind_only = { .proc_bind = " SPREAD " };
    CHECK(judge_two("0", "0", "0", &bind_only, 1, 2, t, sizeof t) == TS_FINDING_STACKED
              && strstr(t, "; and export OMP_PLACES=cores") && !strstr(t, "OMP_PROC_BIND=")
              && !strstr(t, "OMP_NUM_THREADS="),
          "taskset -c 0, OMP_PROC_BIND=spread alone: %s", t);
    /* OMP_PROC_BIND=close where the plan says spread, a thread on every core: the same places,
     * so no export (jobs/hybrid*.sbatch bind close). */
    const struct ts_verdict_setting close = { .num_threads = "2", .places = "cores", .proc_bind = "close" };
    CHECK(judge_two("0", "0", "0", &close, 1, 2, t, sizeof t) == TS_FINDING_STACKED && !strstr(t, "export"),
          "OMP_PROC_BIND=close, 2 threads on 2 cores: %s", t);
    /* mpirun's one-core mask: its own option widens it. */
    struct ts_verdict_setting mpirun = spread;
    mpirun.under_mpirun = 1;
    CHECK(judge_two("0", "0", "0", &mpirun, 1, 2, t, sizeof t) == TS_FINDING_STACKED
              && strstr(t, "fix: widen the mask: mpirun --map-by ppr:1:node:PE=2 --bind-to core")
              && !strstr(t, "taskset -c") && !strstr(t, "bind-to none"),
          "mpirun's one-core mask: %s", t);
    /* A wide mask, OMP_PLACES='{0}': the variables are the cause, only those that differ named. */
    const struct ts_verdict_setting one_place = { .num_threads = "2", .places = "{0}", .proc_bind = "spread" };
    CHECK(judge_two("0", "0", "0-1", &one_place, 1, 2, t, sizeof t) == TS_FINDING_STACKED
              && strstr(t, "fix: export OMP_PLACES=cores") && !strstr(t, "OMP_PROC_BIND=") && !strstr(t, "mask ("),
          "OMP_PLACES={0}: %s", t);
    /* Everything set as planned and still stacked: no export offered, the cause named as elsewhere. */
    CHECK(judge_two("0", "0", "0-1", &spread, 1, 2, t, sizeof t) == TS_FINDING_STACKED && !strstr(t, "export")
              && strstr(t, "the OpenMP variables already ask for the plan's binding"),
          "stacked though set as planned: %s", t);
    /* mpirun -np 2 --bind-to core, 2 threads a rank on 2 cores: the plan for the shape stacks
     * them as well; the finding asks for fewer threads. */
    {
        struct ts_node n = shape(1, 1, 2, 1);
        struct ts_binding_plan p = plan_of(&n, 2, 2, 0);
        struct ts_observed_thread obs[4];
        struct ts_finding f[TS_VERDICT_MAX_FINDINGS];
        const int count = observe_plan(&n, &p, obs); /* the plan's own table: r0 on core 0, r1 on core 1 */
        int found = 0;
        struct ts_error err = { 0 };
        REQUIRE(p.oversubscribed && count == 4, "2 ranks x 2 threads on 2 cores: not oversubscribed");
        REQUIRE(ts_binding_verdict(&n, &p, &mpirun, obs, count, f, &found, &err) == TS_OK, "%s", err.message);
        CHECK(found >= 1 && f[0].kind == TS_FINDING_STACKED
                  && strstr(f[0].text, "the job runs 4 threads on its 2 cores (2 PUs); fix: at most 1 thread a rank "
                                       "(export OMP_NUM_THREADS=1)"),
              "4 threads on 2 cores judged as planned: %d findings (%s)", found, found ? f[0].text : "");
        ts_binding_plan_free(&p);
        /* One thread a rank, as that fix says: nothing left. */
        p = plan_of(&n, 2, 1, 0);
        REQUIRE(ts_binding_verdict(&n, &p, &mpirun, obs, observe_plan(&n, &p, obs), f, &found, &err) == TS_OK, "%s",
                err.message);
        CHECK(found == 0, "one thread a rank: %d findings (%s)", found, found ? f[0].text : "");
        ts_binding_plan_free(&p);
        free(n.pus);
    }
    /* SMT 4, one core, 3 threads with two on one PU: no core is free, yet a PU is, so the fix
     * is the binding, not fewer threads. */
    {
        struct ts_node n = shape(1, 1, 1, 4);
        struct ts_binding_plan p = plan_of(&n, 1, 3, 0);
        struct ts_observed_thread obs[3];
        struct ts_finding f[TS_VERDICT_MAX_FINDINGS];
        const int count = observe_plan(&n, &p, obs);
        const char *masks[] = { "0", "1", "1" };
        for (int i = 0; i < count; i++)
            snprintf(obs[i].mask, sizeof obs[i].mask, "%s", masks[i]);
        int found = 0;
        struct ts_error err = { 0 };
        REQUIRE(ts_binding_verdict(&n, &p, &one_place, obs, count, f, &found, &err) == TS_OK, "%s", err.message);
        CHECK(found >= 1 && f[0].kind == TS_FINDING_STACKED
                  && strstr(f[0].text, "while the job has 4 PUs for its 3 threads: they take turns on it; fix: export "
                                       "OMP_NUM_THREADS=3 OMP_PLACES=cores")
                  && !strstr(f[0].text, "OMP_PROC_BIND=") && !strstr(f[0].text, "at most"),
              "two of 3 threads on one PU of a 4-PU core: %d findings (%s)", found, found ? f[0].text : "");
        ts_binding_plan_free(&p);
        free(n.pus);
    }
    /* Two ranks of one thread on one core (mpirun --bind-to none): the launcher's line, not
     * --bind-to none, and never an OpenMP line alone. */
    CHECK(judge_two("0", "0", "0-1", &mpirun, 2, 1, t, sizeof t) == TS_FINDING_STACKED
              && strstr(t, "threads r0.t0, r1.t0 are bound to core 0 together")
              && strstr(t, "fix: give each rank its own cores: mpirun --map-by ppr:2:node:PE=1 --bind-to core")
              && !strstr(t, "srun") && !strstr(t, "bind-to none"),
          "two ranks on core 0: %s", t);
    /* Unbound threads, OMP_PROC_BIND=false set: the fix names it, with the value that binds. */
    const struct ts_verdict_setting unbound = { .proc_bind = "false", .places = "cores" };
    CHECK(judge_two("0-1", "0-1", "0-1", &unbound, 1, 2, t, sizeof t) == TS_FINDING_UNBOUND
              && strstr(t, "rank 0: 2 of its 2 threads may run on several cores")
              && strstr(t, "fix: export OMP_PROC_BIND=spread") && !strstr(t, "OMP_PLACES="),
          "unbound: %s", t);
}

/* One layout (thread i on OS CPU pu_of[i], bound to it alone) judged both ways: 1 when topo and
 * run warn that threads share a core, 2 when advise --check finds so, or'd. */
static int sharing_both_ways(const struct ts_node *n, const int *pu_of, int t, int *turns)
{
    struct ts_binding_plan p = plan_of(n, 1, t, 0);
    struct ts_thread_rec rows[8];
    struct ts_observed_thread obs[8];
    char all[64];
    snprintf(all, sizeof all, "0-%d", n->n_pus - 1);
    *turns = 0;
    for (int i = 0; i < t; i++) {
        int core = -1;
        for (int k = 0; k < n->n_pus; k++)
            core = n->pus[k].os_index == pu_of[i] ? n->pus[k].core : core;
        rows[i] = (struct ts_thread_rec){
            .thread = i, .place = i, .cpu_start = pu_of[i], .cpu_end = pu_of[i], .core = core, .node = 0
        };
        snprintf(rows[i].place_cpus, sizeof rows[i].place_cpus, "%d", pu_of[i]);
        obs[i] = (struct ts_observed_thread){ .rank = 0, .thread = i, .cpu = pu_of[i] };
        snprintf(obs[i].mask, sizeof obs[i].mask, "%d", pu_of[i]);
        snprintf(obs[i].launch_mask, sizeof obs[i].launch_mask, "%s", all);
        for (int j = 0; j < i; j++)
            *turns |= pu_of[j] == pu_of[i];
    }
    struct ts_binding_facts facts = { .bound = 1,
                                      .n_threads = t,
                                      .available_cpus = n->n_pus,
                                      .available_cores = n->n_cores,
                                      .mask_cpus = n->n_pus,
                                      .mask_cores = n->n_cores,
                                      .machine_cpus = n->n_pus };
    snprintf(facts.mask_list, sizeof facts.mask_list, "%s", all);
    snprintf(facts.available_list, sizeof facts.available_list, "%s", all);
    char lines[16][512];
    const int warned = ts_affinity_warnings(&facts, rows, t, lines, 16);
    int topo = 0;
    for (int i = 0; i < warned; i++)
        topo |= strstr(lines[i], " share core ") != NULL || strstr(lines[i], "ON ONE CORE") != NULL;
    struct ts_finding f[TS_VERDICT_MAX_FINDINGS];
    int found = 0;
    struct ts_error err = { 0 };
    REQUIRE(ts_binding_verdict(n, &p, NULL, obs, t, f, &found, &err) == TS_OK, "%s", err.message);
    int advise = 0;
    for (int i = 0; i < found; i++)
        advise |= f[i].kind == TS_FINDING_STACKED || f[i].kind == TS_FINDING_SMT_SHARED;
    ts_binding_plan_free(&p);
    return topo | advise << 1;
}

/* topo and run (ts_affinity_warnings) and advise --check (ts_binding_verdict) judge threads that
 * share a core alike, over every way of putting 1 to 5 threads on the PUs of a 4-PU node (4
 * cores, 2 cores of 2 siblings, or 1 of 4): one says so exactly when the other does. The one difference
 * is by design: more threads than cores, each on a sibling of its own, is what advise plans
 * (OMP_PROC_BIND=close) and topo still notes as siblings split. Two threads on one PU always
 * take turns, and both always say so. */
static void agrees_with_topo(void)
{
    int layouts = 0;
    for (int smt = 1; smt <= 4; smt *= 2) {
        struct ts_node n = shape(1, 1, 4 / smt, smt);
        for (int t = 1; t <= 5; t++) {
            int total = 1;
            for (int i = 0; i < t; i++)
                total *= n.n_pus;
            for (int code = 0; code < total; code++) {
                int pu_of[8], turns, c = code;
                for (int i = 0; i < t; i++, c /= n.n_pus)
                    pu_of[i] = c % n.n_pus;
                const int both = sharing_both_ways(&n, pu_of, t, &turns);
                const int planned_smt = smt > 1 && t > n.n_cores && !turns;
                if (planned_smt)
                    CHECK(both == 1, "smt %d, %d threads on siblings of their own: judged %d", smt, t, both);
                else
                    CHECK(both == 0 || both == 3, "smt %d, %d threads (code %d): topo %s, advise %s", smt, t, code,
                          both & 1 ? "warns" : "is silent", both & 2 ? "finds" : "does not");
                CHECK(!turns || both == 3, "smt %d, %d threads on one PU: not said by both", smt, t);
                layouts++;
            }
        }
        free(n.pus);
    }
    printf("%d layouts judged alike\n", layouts);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "per_domain", one_rank_per_domain },
        { "domains", whole_and_shared_domains },
        { "smt", smt_and_oversubscription },
        { "partial", partial_allocation },
        { "sweep", sweep },
        { "verdicts", verdicts },
        { "fixes", fixes },
        { "counts", counts },
        { "agrees", agrees_with_topo },
    };
    return TS_RUN_CASES(cases);
}

/* `touchstone advise`: the binding to ask for, and with --check whether the running job got it. */
#include "commands.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_report.h"
#include "ts_affinity.h"
#include "ts_binding_plan.h"
#include "ts_binding_verdict.h"
#include "ts_conditions.h"
#include "ts_node.h"
#include "ts_topology.h"

/* The node to plan for: this machine, or the one an hwloc XML file or synthetic description
 * gives (its allowed PUs: a cpuset recorded in the XML is planned as the job's). */
static int load_node(const struct ts_advise_args *a, struct ts_node *node, struct ts_error *err)
{
    struct ts_topology_source src = { TS_TOPOLOGY_THIS_MACHINE, NULL };
    if (a->topology)
        src = (struct ts_topology_source){ TS_TOPOLOGY_XML, a->topology };
    else if (a->synthetic)
        src = (struct ts_topology_source){ TS_TOPOLOGY_SYNTHETIC, a->synthetic };
    ts_topology *topo = NULL;
    int status = ts_topology_load(&topo, &src, err);
    if (status != TS_OK) {
        if (src.text)
            ts_error_prefix(err, "advise: ");
        return status;
    }
    status = ts_node_from_topology(topo, node, err);
    ts_topology_destroy(topo);
    return status;
}

/* Ranks on this node: --ranks, else the MPI ranks that share this machine, else what Slurm
 * says a node runs, else 1. */
static int ranks_per_node(const struct ts_advise_args *a, const struct ts_dist *dist, char *source, size_t len)
{
    if (a->ranks > 0) {
        snprintf(source, len, "--ranks");
        return a->ranks;
    }
    if (dist && dist->started && dist->local_size > 0) {
        snprintf(source, len, "the job: %d MPI ranks on this node", dist->local_size);
        return dist->local_size;
    }
    const char *slurm = getenv("SLURM_NTASKS_PER_NODE");
    int n = slurm ? atoi(slurm) : 0; /* "2(x3)" when nodes differ: the first count */
    if (n > 0) {
        snprintf(source, len, "SLURM_NTASKS_PER_NODE=%s", slurm);
        return n;
    }
    snprintf(source, len, "one rank");
    return 1;
}

/* Every thread of a team of the runtime's size (OMP_NUM_THREADS, --threads): its mask and CPU. */
static int observe(int threads, struct ts_observed_thread **obs, int *n, struct ts_error *err)
{
    const int want = threads > 0 ? threads : omp_get_max_threads();
    *obs = calloc((size_t)want, sizeof **obs);
    if (!*obs)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d threads", want);
    int team = 0;
#pragma omp parallel num_threads(want)
    {
#pragma omp single
        team = omp_get_num_threads();
        struct ts_observed_thread *o = &(*obs)[omp_get_thread_num()];
        cpu_set_t set;
        CPU_ZERO(&set);
        o->thread = omp_get_thread_num();
        o->cpu = sched_getcpu();
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            ts_cpulist_format(&set, sizeof set, o->mask, sizeof o->mask);
    }
    *n = team;
    return TS_OK;
}

/* Under a launcher: every rank's threads to rank 0, which keeps those of the ranks on its own
 * host, numbered by their local rank (the plan is of one node). Each thread travels as a line
 * "HOST LOCAL_RANK THREAD CPU MASK". */
static int gather_host(const struct ts_dist *dist, struct ts_observed_thread **obs, int *n, int *ranks,
                       struct ts_error *err)
{
    size_t cap = (size_t)*n * 400 + 1, used = 0;
    char *mine = malloc(cap);
    if (!mine)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d threads' lines", *n);
    mine[0] = '\0';
    for (int i = 0; i < *n; i++)
        used += (size_t)snprintf(mine + used, cap - used, "%s %d %d %d %s\n", dist->host, dist->local_rank,
                                 (*obs)[i].thread, (*obs)[i].cpu, (*obs)[i].mask[0] ? (*obs)[i].mask : "?");
    char *all = NULL;
    int status = ts_dist_gather_text(dist, mine, &all, err);
    free(mine);
    if (status != TS_OK || !all)
        return status;
    int lines = 0;
    for (const char *p = all; *p; p++)
        lines += *p == '\n';
    struct ts_observed_thread *host = calloc(lines > 0 ? (size_t)lines : 1, sizeof *host);
    int kept = 0;
    for (char *line = all, *end; host && line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char name[256];
        struct ts_observed_thread o = { 0 };
        if (sscanf(line, "%255s %d %d %d %255s", name, &o.rank, &o.thread, &o.cpu, o.mask) == 5
            && strcmp(name, dist->host) == 0)
            host[kept++] = o;
    }
    free(all);
    if (!host)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d threads", lines);
    /* The ranks of this host by name: MPI_COMM_TYPE_SHARED would count the ranks of every
     * "node" that shares the kernel, as an emulated cluster's do. */
    *ranks = 0;
    for (int i = 0; i < kept; i++)
        *ranks = host[i].rank + 1 > *ranks ? host[i].rank + 1 : *ranks;
    free(*obs);
    *obs = host;
    *n = kept;
    return TS_OK;
}

/* What the machine does behind a run's back (ts_conditions.h), as findings with their fixes:
 * NUMA balancing moves pages away from where first touch put them; zone reclaim and a governor
 * other than performance (ts_conditions_warnings). */
static int distorting_conditions(struct ts_finding *f, int room)
{
    struct ts_conditions c;
    ts_conditions_read(getenv("TOUCHSTONE_CONDITIONS_ROOT"), NULL, &c);
    char lines[5][512];
    int n = 0;
    if (ts_conditions_balancing(&c))
        snprintf(lines[n++], sizeof lines[0],
                 "kernel.numa_balancing is %s: the kernel migrates pages behind first touch's back, so placement "
                 "and bandwidth drift during a run; fix: echo 0 > /proc/sys/kernel/numa_balancing (root), or run "
                 "under numactl --membind",
                 c.numa_balancing);
    n += ts_conditions_warnings(&c, lines + n, 4);
    for (int i = 0; i < n && i < room; i++) {
        f[i].kind = TS_FINDING_CONDITION;
        snprintf(f[i].text, sizeof f[i].text, "%.511s", lines[i]);
    }
    return n < room ? n : room;
}

int ts_advise_cmd(const struct ts_advise_args *a, const struct ts_dist *dist, struct ts_error *err)
{
    struct ts_node node;
    int status = load_node(a, &node, err);
    if (status != TS_OK)
        return status;
    char shape[160];
    struct ts_plan_request req = { .ranks = ranks_per_node(a, dist, shape, sizeof shape),
                                   .threads = a->threads,
                                   .use_smt = a->smt };
    struct ts_observed_thread *obs = NULL;
    int n_obs = 0;
    if (a->check) {
        status = observe(a->threads, &obs, &n_obs, err);
        req.threads = n_obs; /* the team the runtime gives is the job's */
        int host_ranks = 0;
        if (status == TS_OK && dist && dist->started)
            status = gather_host(dist, &obs, &n_obs, &host_ranks, err);
        if (status == TS_OK && host_ranks > 0 && a->ranks == 0) {
            req.ranks = host_ranks;
            snprintf(shape, sizeof shape, "the job: %d MPI rank%s on this host", host_ranks,
                     host_ranks == 1 ? "" : "s");
        }
        size_t used = strlen(shape);
        snprintf(shape + used, sizeof shape - used, ", %d thread%s a rank from %s", req.threads,
                 req.threads == 1 ? "" : "s",
                 a->threads                  ? "--threads"
                 : getenv("OMP_NUM_THREADS") ? "OMP_NUM_THREADS"
                                             : "the runtime");
    }
    struct ts_binding_plan plan = { 0 };
    if (status == TS_OK)
        status = ts_binding_plan_make(&node, &req, &plan, err);
    struct ts_finding findings[TS_VERDICT_MAX_FINDINGS];
    int n_findings = 0;
    if (status == TS_OK && a->check && (!dist || dist->rank == 0)) { /* rank 0 judges its host's ranks */
        status = ts_binding_verdict(&node, &plan, obs, n_obs, findings, &n_findings, err);
        if (status == TS_OK)
            n_findings += distorting_conditions(findings + n_findings, TS_VERDICT_MAX_FINDINGS - n_findings);
    }
    if (status == TS_OK && (!dist || dist->rank == 0)) {
        struct ts_advise_report r = { .node = &node,
                                      .plan = &plan,
                                      .shape_source = shape,
                                      .slurm = a->slurm,
                                      .checked = a->check,
                                      .verdict = n_findings > 0,
                                      .findings = findings,
                                      .n_findings = n_findings,
                                      .observed_threads = n_obs };
        if ((a->json ? ts_advise_print_json(&r, stdout) : ts_advise_print_text(&r, stdout)) != 0)
            status = ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "advise: writing the report");
    }
    if (status == TS_OK && n_findings > 0)
        status = TS_VERIFY_FAILED; /* exit 1: the job runs, but not as it could */
    ts_binding_plan_free(&plan);
    ts_node_free(&node);
    free(obs);
    return status;
}

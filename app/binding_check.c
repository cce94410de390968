/* Observing this process's threads and the machine for a binding verdict: what `advise --check`
 * and a run with check.binding = strict judge against advise's plan (ts_binding_verdict.h). */
#include "binding_check.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_affinity.h"
#include "ts_conditions.h"
#include "ts_node.h"

/* Every thread of a team of the runtime's size (OMP_NUM_THREADS, --threads): its mask and CPU. */
int ts_binding_observe(int threads, struct ts_observed_thread **obs, int *n, struct ts_error *err)
{
    const int want = threads > 0 ? threads : omp_get_max_threads();
    *obs = calloc((size_t)want, sizeof **obs);
    if (!*obs)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d threads", want);
    /* The mask before the runtime bound anything: what taskset or the launcher gave. */
    char launch[sizeof(*obs)->launch_mask];
    if (ts_affinity_launch_cpus(launch, sizeof launch) <= 0)
        launch[0] = '\0';
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
        memcpy(o->launch_mask, launch, sizeof o->launch_mask);
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            ts_cpulist_format(&set, sizeof set, o->mask, sizeof o->mask);
    }
    *n = team;
    return TS_OK;
}

/* Under a launcher: every rank's threads to rank 0, which keeps those of the ranks on its own
 * host, numbered by their local rank (the plan is of one node). Each thread travels as a line
 * "HOST LOCAL_RANK THREAD CPU MASK LAUNCH_MASK" ("?" for a mask not known). */
int ts_binding_gather_host(const struct ts_dist *dist, struct ts_observed_thread **obs, int *n, int *ranks,
                           struct ts_error *err)
{
    size_t cap = (size_t)*n * 700 + 1, used = 0;
    char *mine = malloc(cap);
    if (!mine)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d threads' lines", *n);
    mine[0] = '\0';
    for (int i = 0; i < *n; i++)
        used += (size_t)snprintf(mine + used, cap - used, "%s %d %d %d %s %s\n", dist->host, dist->local_rank,
                                 (*obs)[i].thread, (*obs)[i].cpu, (*obs)[i].mask[0] ? (*obs)[i].mask : "?",
                                 (*obs)[i].launch_mask[0] ? (*obs)[i].launch_mask : "?");
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
        if (sscanf(line, "%255s %d %d %d %255s %255s", name, &o.rank, &o.thread, &o.cpu, o.mask, o.launch_mask) == 6
            && strcmp(name, dist->host) == 0) {
            if (strcmp(o.launch_mask, "?") == 0)
                o.launch_mask[0] = '\0';
            host[kept++] = o;
        }
    }
    free(all);
    if (!host)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d threads", lines);
    /* The ranks of this host by name (MPI_COMM_TYPE_SHARED would count the ranks of every
     * "node" that shares the kernel, as an emulated cluster's do), numbered 0.. in the order of
     * their local ranks, as the plan numbers them. */
    *ranks = 0;
    for (int lowest = -1;;) {
        int next = -1;
        for (int i = 0; i < kept; i++)
            if (host[i].rank > lowest && (next < 0 || host[i].rank < next))
                next = host[i].rank;
        if (next < 0)
            break;
        for (int i = 0; i < kept; i++)
            if (host[i].rank == next)
                host[i].rank = -1 - *ranks; /* marked: renumbered */
        lowest = next;
        ++*ranks;
    }
    for (int i = 0; i < kept; i++)
        host[i].rank = -1 - host[i].rank;
    free(*obs);
    *obs = host;
    *n = kept;
    return TS_OK;
}

void ts_binding_setting(const struct ts_dist *dist, struct ts_verdict_setting *set)
{
    *set = (struct ts_verdict_setting){
        .num_threads = getenv("OMP_NUM_THREADS"),
        .places = getenv("OMP_PLACES"),
        .proc_bind = getenv("OMP_PROC_BIND"),
        .under_mpirun = (dist && strncmp(dist->launcher, "OMPI_", 5) == 0) || getenv("OMPI_COMM_WORLD_SIZE"),
        .under_slurm = getenv("SLURM_JOB_ID") != NULL,
    };
}

/* What the machine does behind a run's back (ts_conditions.h), as findings with their fixes:
 * NUMA balancing moves pages away from where first touch put them; zone reclaim and a governor
 * other than performance (ts_conditions_warnings). */
int ts_binding_conditions(struct ts_finding *f, int room)
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

int ts_binding_check_strict(const ts_topology *topo, int n_threads, struct ts_error *err)
{
    struct ts_node node;
    int status = ts_node_from_topology(topo, &node, err);
    if (status != TS_OK)
        return status;
    struct ts_observed_thread *obs = NULL;
    int n = 0;
    struct ts_binding_plan plan = { 0 };
    struct ts_finding findings[TS_VERDICT_MAX_FINDINGS];
    int found = 0;
    struct ts_verdict_setting set;
    ts_binding_setting(NULL, &set);
    status = ts_binding_observe(n_threads, &obs, &n, err);
    if (status == TS_OK)
        status = ts_binding_plan_make(&node, &(struct ts_plan_request){ .ranks = 1, .threads = n }, &plan, err);
    if (status == TS_OK)
        status = ts_binding_verdict(&node, &plan, &set, obs, n, findings, &found, err);
    if (status == TS_OK)
        found += ts_binding_conditions(findings + found, TS_VERDICT_MAX_FINDINGS - found);
    for (int i = 0; status == TS_OK && i < found; i++)
        fprintf(stderr, "touchstone: binding: %s: %s\n", ts_finding_kind_name(findings[i].kind), findings[i].text);
    if (status == TS_OK && found > 0) {
        fprintf(stderr,
                "touchstone: check.binding = strict: the binding of these %d threads loses (%d finding%s above): "
                "not running; touchstone advise prints the binding to ask for\n",
                n, found, found == 1 ? "" : "s");
        status = TS_VERIFY_FAILED;
    }
    ts_binding_plan_free(&plan);
    ts_node_free(&node);
    free(obs);
    return status;
}

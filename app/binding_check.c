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

#include "ts_loaded_latency.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numa_internal.h"
#include "topology_internal.h"
#include "ts_memory.h"
#include "ts_stats.h"

#define MAX_REPETITIONS 64
#define MAX_CPUS 1024
/* Bursts an injector reads between two looks at the stop flag: short enough that a long delay
 * still stops within a millisecond or so, long enough that the look costs nothing. */
#define BURSTS_PER_LOOK 16
/* Chase steps between two looks at the clock: 2^16, 6-20 ms of DRAM latency. */
#define CHASE_CHUNK ((int64_t)1 << 16)

static volatile uint64_t sink;

/* What the threads share while the curve is measured. */
struct shared {
    const struct ts_loaded_probes *probes;
    const struct ts_loaded_options *opt;
    struct node_buffers chase, inject;
    int64_t chase_lines, inject_lines; /* per injector */
    atomic_int stop;                   /* the chase of the point is done */
    atomic_int started;                /* injectors running at this point */
    double *gbs;                       /* [thread]: what each injector drew at this point */
    double times[MAX_REPETITIONS];
};

/* Thread t >= 1: reads its buffer at the point's delay until the chase is done. */
static void inject_until_stopped(struct shared *sh, int t, int64_t delay)
{
    const struct ts_loaded_probes *pr = sh->probes;
    const unsigned char *mine =
        (const unsigned char *)sh->inject.ptr[0] + (size_t)(t - 1) * (size_t)sh->inject_lines * pr->inject_line;
    const size_t burst = sh->opt->burst ? sh->opt->burst : 1;
    size_t look = burst * BURSTS_PER_LOOK;
    if (look > (size_t)sh->inject_lines)
        look = (size_t)sh->inject_lines;
    uint64_t spin = (uint64_t)t, sum = 0;
    int64_t lines = 0;
    size_t at = 0;
    atomic_fetch_add(&sh->started, 1);
    const double t0 = ts_seconds_now();
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        size_t n = (size_t)sh->inject_lines - at < look ? (size_t)sh->inject_lines - at : look;
        sum += pr->inject(mine + at * pr->inject_line, n, burst, (uint64_t)delay, &spin);
        lines += (int64_t)n;
        at += n;
        if (at >= (size_t)sh->inject_lines)
            at = 0;
    }
    const double seconds = ts_seconds_now() - t0;
    sh->gbs[t] = seconds > 0 ? (double)lines * (double)pr->inject_line / seconds * 1e-9 : 0.0;
    sink = sum ^ spin;
}

/* Thread 0: the chase's repetitions at one point, once the injectors run; returns how many. */
static int chase_point(struct shared *sh, int injectors, size_t *at)
{
    const struct ts_loaded_probes *pr = sh->probes;
    const struct ts_loaded_options *opt = sh->opt;
    while (atomic_load(&sh->started) < injectors)
        ;
    /* A short warm-up: the TLB and the injectors' steady state, not timed. */
    const uint64_t warm = (uint64_t)(opt->chase_steps / 8 > 0 ? opt->chase_steps / 8 : 1);
    *at = pr->chase_run(sh->chase.ptr[0], *at, warm);
    int reps = opt->repetitions < 1 ? 1 : opt->repetitions > MAX_REPETITIONS ? MAX_REPETITIONS : opt->repetitions;
    const double begin = ts_seconds_now();
    int r = 0, over = 0;
    while (r < reps && !over) {
        /* In chunks, the point's bound looked at between them: on a loaded node one repetition
         * could otherwise take seconds. A repetition cut short counts for the steps it made. */
        double seconds = 0.0;
        int64_t done = 0;
        while (done < opt->chase_steps && !over) {
            const int64_t c = opt->chase_steps - done < CHASE_CHUNK ? opt->chase_steps - done : CHASE_CHUNK;
            double t0 = ts_seconds_now();
            *at = pr->chase_run(sh->chase.ptr[0], *at, (uint64_t)c);
            double t1 = ts_seconds_now();
            seconds += t1 - t0;
            done += c;
            over = t1 - begin > opt->seconds_per_point;
        }
        sh->times[r++] = seconds * 1e9 / (double)done;
    }
    atomic_store(&sh->stop, 1);
    return r;
}

/* Writes the injector's share (its first touch, on the node the policy binds). */
static void touch(struct shared *sh, int t)
{
    unsigned char *mine =
        (unsigned char *)sh->inject.ptr[0] + (size_t)(t - 1) * (size_t)sh->inject_lines * sh->probes->inject_line;
    for (int64_t i = 0; i < sh->inject_lines; i++)
        memset(mine + (size_t)i * sh->probes->inject_line, (int)(i & 0x7f), sh->probes->inject_line);
}

static void run_points(struct shared *sh, struct team *tm, struct ts_loaded_curve *out)
{
    const int n = tm->n;
#pragma omp parallel num_threads(n)
    {
        struct binding bound = { 0 };
        int ok = ts_numa_team_bind(tm, &bound) == 0;
#pragma omp barrier
        const int t = omp_get_thread_num();
        const int go = tm->size == n && tm->failed_cpu < 0;
        size_t at = 0;
        if (go && t == 0)
            sh->probes->chase_build(sh->chase.ptr[0], (size_t)sh->chase_lines, sh->opt->seed);
        else if (go)
            touch(sh, t);
        for (int p = 0; go && p < out->n_points; p++) {
            const int64_t delay = out->points[p].delay;
            const int idle = delay < 0;
#pragma omp barrier
            if (t == 0) {
                out->points[p].repetitions = chase_point(sh, idle ? 0 : n - 1, &at);
                ts_best_and_median(sh->times, out->points[p].repetitions, &out->points[p].ns_best,
                                   &out->points[p].ns_median);
            } else if (!idle) {
                inject_until_stopped(sh, t, delay);
            }
#pragma omp barrier
#pragma omp master
            {
                double gbs = 0.0;
                for (int i = 1; i < n && !idle; i++)
                    gbs += sh->gbs[i];
                out->points[p].injected_gbs = gbs;
                atomic_store(&sh->stop, 0);
                atomic_store(&sh->started, 0);
            }
        }
        if (t == 0)
            sink = at;
        if (ok)
            ts_numa_unbind_thread(tm->topo, &bound);
    }
}

/* The points asked for; with no core to inject from, the idle ones alone. */
static void plan_points(const struct ts_loaded_options *opt, int injectors, struct ts_loaded_curve *out)
{
    for (int i = 0; i < opt->n_delays && i < TS_LOADED_MAX_POINTS; i++) {
        if (injectors == 0 && opt->delays[i] >= 0)
            continue;
        struct ts_loaded_point *pt = &out->points[out->n_points++];
        pt->delay = opt->delays[i] < 0 ? -1 : opt->delays[i];
        pt->injected_gbs = pt->ns_best = pt->ns_median = NAN;
    }
    if (injectors == 0)
        snprintf(out->note, sizeof out->note, "one core on node %d: nothing to inject from, its idle point alone",
                 out->cpu_node);
}

/* Sizes within the memory node's room: the injectors' buffers shrink first, then the chase. */
static void fit(int64_t cap, int injectors, size_t chase_line, size_t inject_line, int64_t *chase, int64_t *inject,
                struct ts_loaded_curve *out)
{
    if (injectors > 0 && *chase + (int64_t)injectors * *inject > cap) {
        int64_t left = cap - *chase;
        *inject = left > 0 ? left / injectors : 0;
        if (*inject < (int64_t)(1 << 20)) {
            *inject = (int64_t)1 << 20;
            *chase = cap - (int64_t)injectors * *inject;
        }
        snprintf(out->note, sizeof out->note, "buffers shrunk to the node's room: chase %lld MiB, %lld MiB an injector",
                 (long long)(*chase >> 20), (long long)(*inject >> 20));
    } else if (*chase > cap) {
        *chase = cap;
    }
    *chase = *chase / (int64_t)chase_line * (int64_t)chase_line;
    *inject = *inject / (int64_t)inject_line * (int64_t)inject_line;
}

int ts_loaded_latency_measure(const ts_topology *topo, const struct ts_loaded_probes *probes, int cpu_node,
                              int mem_node, const struct ts_loaded_options *opt, struct ts_loaded_curve *out,
                              struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    out->cpu_node = cpu_node;
    out->mem_node = mem_node;
    out->placement.fraction = NAN;
    if (!ts_topology_is_this_machine(topo))
        return ts_fail(err, TS_BAD_INPUT, "loaded latency: %s is not this machine, nothing of it can be measured",
                       ts_topology_label(topo));
    int cpus[MAX_CPUS];
    const int n = ts_numa_node_cpus(topo, cpu_node, cpus, MAX_CPUS);
    if (n < 1)
        return ts_fail(err, TS_BAD_INPUT, "loaded latency: node %d has no CPU this process may use", cpu_node);
    out->chaser_cpu = cpus[0];
    out->injectors = n - 1;
    struct ts_list list;
    ts_list_init(&list, out->injector_cpus, sizeof out->injector_cpus);
    for (int i = 1; i < n; i++)
        ts_list_add(&list, cpus[i]);
    ts_list_end(&list);
    plan_points(opt, n - 1, out);

    int64_t chase = opt->chase_bytes, inject = opt->inject_bytes;
    fit(ts_numa_memory_cap(mem_node), n - 1, probes->chase_line, probes->inject_line, &chase, &inject, out);
    if (chase < (int64_t)probes->chase_line || (n > 1 && inject < (int64_t)probes->inject_line) || opt->chase_steps < 1)
        return ts_fail(err, TS_RESOURCE_ERROR, "loaded latency: no room on node %d for the chase and its injectors",
                       mem_node);
    out->chase_bytes = chase;
    out->inject_bytes = n > 1 ? inject : 0;
    out->steps = opt->chase_steps;

    struct shared sh = { .probes = probes, .opt = opt };
    sh.chase_lines = chase / (int64_t)probes->chase_line;
    sh.inject_lines = inject / (int64_t)probes->inject_line;
    sh.gbs = calloc((size_t)n, sizeof *sh.gbs);
    if (!sh.gbs)
        return ts_fail(err, TS_RESOURCE_ERROR, "loaded latency: out of memory");
    int status = ts_numa_buffers_map(&sh.chase, 1, (size_t)chase, mem_node, 0, err);
    if (status == TS_OK && n > 1)
        status = ts_numa_buffers_map(&sh.inject, 1, (size_t)(inject * (n - 1)), mem_node, 1, err);
    if (status == TS_OK) {
        struct team tm = { .topo = topo, .cpus = cpus, .n = n, .failed_cpu = -1 };
        run_points(&sh, &tm, out);
        status = ts_numa_team_check(&tm, err);
    }
    if (status == TS_OK)
        status = ts_numa_buffers_audit(&sh.chase, mem_node, &out->placement, err);
    if (status == TS_OK && n > 1)
        status = ts_numa_buffers_audit(&sh.inject, mem_node, &out->placement, err);
    if (status != TS_OK)
        ts_error_prefix(err, "loaded latency, CPU node %d, memory node %d", cpu_node, mem_node);
    ts_numa_buffers_free(&sh.inject);
    ts_numa_buffers_free(&sh.chase);
    free(sh.gbs);
    return status;
}

/* The survey's loaded-latency section (issue 26; docs/survey.md "loaded_latency"): Intel MLC's
 * curve, latency against the bandwidth other cores inject, for every (CPU node, memory node),
 * measured by topo/ts_loaded_latency.h with kernels/ts_chase.h and kernels/ts_inject.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey_sections.h"
#include "ts_chase.h"
#include "ts_inject.h"
#include "ts_loaded_latency.h"
#include "ts_numa_matrix.h"
#include "ts_section.h"

#define MIB ((int64_t)1 << 20)
#define MAX_NODES 64
/* Lines an injector reads between two delays: 1 KiB, a burst the prefetchers see as a stream. */
#define BURST_LINES 16
/* Guesses for the estimate: a chase step over the curve (DRAM's idle ~100-200 ns, more at load;
 * a VM's nested page walks add to both: the 2-core VM's curve went from 174 to 187 ns, and 190
 * put the estimate within 10% of a quiet --quick's 1.2 s and --full's 13.7 s, 2026-12-05, where
 * 250 said 138% and 134%), and a line of the chase's build (a random write). */
#define GUESS_STEP_NS 190.0
#define GUESS_BUILD_NS 200.0

/* Delays of the delay chain (a multiply-add, ~4 cycles a step) after each burst: from the idle
 * point (-1, no injector) through long delays (a trickle) to none (all the injectors can draw). */
static const int64_t delays_full[] = { -1, 16384, 8192, 4096, 2048, 1024, 512, 256, 128, 64, 32, 16, 8, 0 };
static const int64_t delays_quick[] = { -1, 4096, 1024, 256, 64, 16, 0 };
static const int64_t delays_tiny[] = { -1, 256, 0 };

/* Everything the section's sizes depend on. */
struct plan {
    struct ts_loaded_options opt;
    int n_cpu, n_mem;
    int cpu_nodes[MAX_NODES], mem_nodes[MAX_NODES];
};

static void plan_for(const struct ts_section_ctx *ctx, struct plan *p)
{
    memset(p, 0, sizeof *p);
    struct ts_loaded_options *o = &p->opt;
    const int64_t *delays = ctx->scale < 1.0 ? delays_tiny : ctx->quick ? delays_quick : delays_full;
    o->n_delays = ctx->scale < 1.0 ? 3 : ctx->quick ? 7 : 14;
    for (int i = 0; i < o->n_delays; i++)
        o->delays[i] = delays[i];
    o->burst = BURST_LINES;
    o->seed = 1;
    /* Past the LLC as the NUMA matrix's chase: 8x it, at least 64 MiB; the injectors' buffers
     * together as large again, each at least 8 MiB, so that none of them reads from a cache. */
    int64_t past = 8 * ctx->llc_bytes > 64 * MIB ? 8 * ctx->llc_bytes : 64 * MIB;
    o->chase_bytes = o->inject_bytes = past;
    o->chase_steps = ctx->quick ? (int64_t)1 << 18 : (int64_t)1 << 20;
    o->repetitions = ctx->quick ? 3 : 5;
    o->seconds_per_point = ctx->quick ? 0.2 : 1.0;
    if (ctx->scale < 1.0) {
        int64_t b = (int64_t)(ctx->scale * (double)(64 * MIB));
        o->chase_bytes = o->inject_bytes = b < MIB ? MIB : b;
        o->chase_steps = (int64_t)1 << 13;
        o->repetitions = 2;
        o->seconds_per_point = 0.02;
    }
    ts_numa_list_nodes(ctx->topo, p->cpu_nodes, &p->n_cpu, p->mem_nodes, &p->n_mem, MAX_NODES);
}

static double estimate(const struct ts_section_ctx *ctx)
{
    struct plan p;
    plan_for(ctx, &p);
    const struct ts_loaded_options *o = &p.opt;
    const double rep = (double)o->chase_steps * GUESS_STEP_NS * 1e-9;
    double point = (double)o->repetitions * rep;
    if (point > o->seconds_per_point)
        point = o->seconds_per_point + rep;
    point += rep / 8; /* the warm-up */
    /* Building the chase (a random walk of writes) and touching the injectors' buffers. */
    double setup = (double)o->chase_bytes / TS_CHASE_LINE * GUESS_BUILD_NS * 1e-9 + 2.0 * (double)o->inject_bytes / 4e9;
    return (double)(p.n_cpu * p.n_mem) * ((double)o->n_delays * point + setup);
}

static double median(double *v, int n)
{
    if (n < 1)
        return NAN;
    for (int i = 1; i < n; i++) /* a handful of values: insertion sort */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The point of highest injection (the largest achieved bandwidth) of a curve; NULL with none. */
static const struct ts_loaded_point *most_loaded(const struct ts_loaded_curve *c)
{
    const struct ts_loaded_point *best = NULL;
    for (int i = 0; i < c->n_points; i++)
        if (c->points[i].delay >= 0 && isfinite(c->points[i].injected_gbs)
            && (!best || c->points[i].injected_gbs > best->injected_gbs))
            best = &c->points[i];
    return best;
}

static const struct ts_loaded_point *idle_point(const struct ts_loaded_curve *c)
{
    for (int i = 0; i < c->n_points; i++)
        if (c->points[i].delay < 0)
            return &c->points[i];
    return NULL;
}

static void append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    if (used < size)
        snprintf(buf + used, size - used, "%s%s", used ? "; " : "", text);
}

/* Facts, summary and note from the curves. */
static void conclude(struct ts_survey_section *out, const struct ts_loaded_curve *curves, int n)
{
    double idle[MAX_NODES], loaded[MAX_NODES], extra[MAX_NODES * MAX_NODES], gbs[MAX_NODES];
    int n_idle = 0, n_loaded = 0, n_extra = 0, extra_idle = 0;
    for (int i = 0; i < n; i++) {
        const struct ts_loaded_curve *c = &curves[i];
        if (c->cpu_node != c->mem_node)
            continue;
        const struct ts_loaded_point *p = idle_point(c), *q = most_loaded(c);
        if (p && isfinite(p->ns_median) && n_idle < MAX_NODES)
            idle[n_idle++] = p->ns_median;
        if (q && isfinite(q->ns_median) && n_loaded < MAX_NODES) {
            gbs[n_loaded] = q->injected_gbs;
            loaded[n_loaded++] = q->ns_median;
        }
        /* Remote memory at the same load: the remote curve's most loaded point against this
         * CPU node's local one; idle against idle when the node has no core to inject from
         * (the same injectors load both curves, so both have loaded points or neither). */
        const struct ts_loaded_point *base = q ? q : p;
        for (int j = 0; j < n && base && isfinite(base->ns_median); j++) {
            const struct ts_loaded_curve *r = &curves[j];
            const struct ts_loaded_point *rq = q ? most_loaded(r) : idle_point(r);
            if (r->cpu_node == c->cpu_node && r->mem_node != c->mem_node && rq && isfinite(rq->ns_median)) {
                extra[n_extra++] = rq->ns_median - base->ns_median;
                extra_idle += !q;
            }
        }
    }
    const double idle_ns = median(idle, n_idle), loaded_ns = median(loaded, n_loaded);
    const double gbs_at = median(gbs, n_loaded), extra_ns = median(extra, n_extra);
    ts_section_set_fact(out, "idle_local_ns", idle_ns, "ns");
    ts_section_set_fact(out, "loaded_local_ns", loaded_ns, "ns");
    ts_section_set_fact(out, "loaded_local_gbs", gbs_at, "GB/s");
    ts_section_set_fact(out, "remote_extra_ns", extra_ns, "ns");
    char s[512];
    int len = snprintf(s, sizeof s, "local latency %.1f ns idle", idle_ns);
    if (isfinite(loaded_ns))
        len += snprintf(s + len, sizeof s - (size_t)len, ", %.1f ns with %.1f GB/s injected", loaded_ns, gbs_at);
    if (isfinite(extra_ns))
        snprintf(s + len, sizeof s - (size_t)len, "; remote memory %+.1f ns %s", extra_ns,
                 extra_idle ? "idle" : "at that load");
    snprintf(out->summary, sizeof out->summary, "%s", s);
    if (n_loaded == 0)
        append(out->note, sizeof out->note,
               "no core to inject from (one core a node): the curve is its idle point alone, loaded_local_ns NaN");
    if (n_extra == 0)
        append(out->note, sizeof out->note, "no remote memory node measured: remote_extra_ns NaN");
    else if (extra_idle)
        append(out->note, sizeof out->note,
               "remote_extra_ns compares idle points: no core to inject from on some CPU node");
}

/* The table: a row per point of every curve. */
static int tabulate(struct ts_survey_section *out, const struct ts_loaded_curve *curves, int n, struct ts_error *err)
{
    int rows = 0;
    for (int i = 0; i < n; i++)
        rows += curves[i].n_points;
    int c_cpu = ts_section_num(out, "cpu_node", "", err), c_mem = ts_section_num(out, "mem_node", "", err);
    int c_curve = ts_section_text(out, "curve", err);
    int c_delay = ts_section_num(out, "delay", "", err), c_inj = ts_section_num(out, "injectors", "", err);
    int c_gbs = ts_section_num(out, "injected_gbs", "GB/s", err);
    int c_ns = ts_section_num(out, "latency_ns", "ns", err), c_best = ts_section_num(out, "latency_best_ns", "ns", err);
    int c_frac = ts_section_num(out, "placed_fraction", "", err);
    if (c_cpu < 0 || c_mem < 0 || c_curve < 0 || c_delay < 0 || c_inj < 0 || c_gbs < 0 || c_ns < 0 || c_best < 0
        || c_frac < 0)
        return TS_INTERNAL_ERROR;
    int status = ts_section_rows(out, rows, err);
    if (status != TS_OK)
        return status;
    int r = 0;
    for (int i = 0; i < n; i++) {
        const struct ts_loaded_curve *c = &curves[i];
        char name[TS_SECTION_TEXT];
        snprintf(name, sizeof name, "memory node %d from CPU node %d", c->mem_node, c->cpu_node);
        for (int k = 0; k < c->n_points; k++, r++) {
            const struct ts_loaded_point *p = &c->points[k];
            ts_section_set(out, c_cpu, r, c->cpu_node);
            ts_section_set(out, c_mem, r, c->mem_node);
            ts_section_set_text(out, c_curve, r, name);
            ts_section_set(out, c_delay, r, (double)p->delay);
            ts_section_set(out, c_inj, r, p->delay < 0 ? 0 : c->injectors);
            ts_section_set(out, c_gbs, r, p->delay < 0 ? 0.0 : p->injected_gbs);
            ts_section_set(out, c_ns, r, p->ns_median);
            ts_section_set(out, c_best, r, p->ns_best);
            ts_section_set(out, c_frac, r, c->placement.fraction);
        }
    }
    struct ts_section_plot *plot =
        ts_section_add_plot(out, TS_SECTION_LINES, "Latency against injected bandwidth", "injected_gbs", "latency_ns");
    if (plot)
        snprintf(plot->series, sizeof plot->series, "curve");
    return TS_OK;
}

static int measure(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err)
{
    struct plan p;
    plan_for(ctx, &p);
    if (p.n_cpu == 0 || p.n_mem == 0)
        return ts_fail(err, TS_BAD_INPUT, "loaded latency: hwloc shows no NUMA node with CPUs or memory we may use");
    const struct ts_loaded_probes probes = {
        .chase_line = TS_CHASE_LINE,
        .chase_build = ts_chase_build,
        .chase_run = ts_chase_run,
        .inject_line = TS_INJECT_LINE,
        .inject = ts_inject_pass,
    };
    const int n = p.n_cpu * p.n_mem;
    struct ts_loaded_curve *curves = calloc((size_t)n, sizeof *curves);
    if (!curves)
        return ts_fail(err, TS_RESOURCE_ERROR, "loaded latency: out of memory for %d curves", n);
    int status = TS_OK, done = 0;
    for (int c = 0; c < p.n_cpu && status == TS_OK; c++)
        for (int m = 0; m < p.n_mem && status == TS_OK; m++, done++)
            status = ts_loaded_latency_measure(ctx->topo, &probes, p.cpu_nodes[c], p.mem_nodes[m], &p.opt,
                                               &curves[done], err);
    if (status == TS_OK)
        status = tabulate(out, curves, n, err);
    if (status == TS_OK) {
        conclude(out, curves, n);
        for (int i = 0; i < n; i++) {
            const struct ts_loaded_curve *c = &curves[i];
            if (!isnan(c->placement.fraction)
                && (isnan(out->placed_fraction) || c->placement.fraction < out->placed_fraction))
                out->placed_fraction = c->placement.fraction;
            out->misplaced |= c->placement.misplaced;
            if (c->note[0] && c->injectors > 0) {
                char line[320];
                snprintf(line, sizeof line, "CPU node %d, memory node %d: %s", c->cpu_node, c->mem_node, c->note);
                append(out->note, sizeof out->note, line);
            }
        }
        if (out->misplaced)
            append(out->note, sizeof out->note, "some buffers' pages were not all on the memory node asked for");
    }
    free(curves);
    return status;
}

const struct ts_section_def ts_section_loaded_latency = {
    .name = "loaded_latency",
    .title = "Loaded latency: a pointer chase while the other cores inject reads",
    .estimate = estimate,
    .measure = measure,
};

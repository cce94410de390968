/* The working-set sweep (issue 26): read and triad bandwidth as the working set grows from
 * 16 KiB to 8x the last-level cache, by 1 thread and by every core of one domain, on the
 * domain's own memory; the cache levels inferred from where the curve steps down. A small
 * working set is swept many times per timed step (kernels/ts_mix.h's passes), as many as take
 * about the target time at the previous point's bandwidth, so each point is timeable and the
 * section's time stays bounded where memory is slow (emulated machines). */
#include "survey_sec_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "survey_sections.h"
#include "ts_mix.h"
#include "ts_numa_matrix.h"
#include "ts_section.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
#define SWEEP_FROM (16 * KIB)
#define LLC_MULTIPLE 8
/* The engine's chunk of a share (512 doubles): per-array sizes are whole chunks per thread, so
 * every thread's share is the same and starts on a line. */
#define CHUNK_BYTES (4 * KIB)
#define MAX_POINTS 256
#define MAX_CPUS 1024
#define MAX_PASSES ((int64_t)1 << 24)
/* The first point's passes come from this per-thread guess; a short pilot corrects it. */
#define GUESS_GBS 50.0

/* ---- the plan ---- */

struct sweep_plan {
    int64_t top;     /* the largest working set */
    int64_t llc;     /* the LLC it came from (hwloc's, or assumed) */
    int llc_assumed; /* 1: TS_SWEEP_ASSUMED_LLC */
    double ratio;    /* between consecutive working sets */
    double target;   /* seconds per timed step */
    int repetitions;
    int pilot;       /* measure the first point once more, to size its passes */
    int threads_all; /* the domain's cores */
    int node;
    int cpus[MAX_CPUS];
};

static void plan_sweep(const struct ts_section_ctx *ctx, struct sweep_plan *p)
{
    p->llc_assumed = ctx->llc_bytes <= 0;
    p->llc = p->llc_assumed ? TS_SWEEP_ASSUMED_LLC : ctx->llc_bytes;
    p->top = LLC_MULTIPLE * p->llc;
    /* quick: 4 points per factor 4 of size; full: 8. */
    p->ratio = ctx->quick ? sqrt(2.0) : pow(2.0, 0.25);
    /* Long enough that the barrier around a step (microseconds) is noise, short enough that a
     * busy machine seldom preempts one: longer steps measured slower there, not faster. */
    p->target = ctx->quick ? 1e-3 : 2e-3;
    p->repetitions = ctx->quick ? 3 : 5;
    p->pilot = ctx->scale >= 1.0;
    if (ctx->scale < 1.0) {
        double top = ctx->scale * (double)p->top;
        p->top = top < (double)(16 * SWEEP_FROM) ? 16 * SWEEP_FROM : (int64_t)top;
        p->ratio = 4.0;
        p->target *= ctx->scale > 0.02 ? ctx->scale : 0.02;
        p->repetitions = 2;
    }
    /* Triad's three arrays must fit with room to spare in what the system has free. */
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    int64_t avail = pages > 0 && page > 0 ? (int64_t)pages * (int64_t)page : 0;
    if (avail > 0 && p->top > avail / 4)
        p->top = avail / 4;
}

int ts_sweep_domain(const ts_topology *topo, int *node, int *cpus, int max)
{
    const int count = ts_topology_numa_count(topo);
    for (int i = 0; i < count; i++) {
        int os = ts_topology_numa_os_index(topo, i);
        int n = os >= 0 ? ts_numa_node_cpus(topo, os, cpus, max) : 0;
        if (n > 0) {
            *node = os;
            return n;
        }
    }
    return 0;
}

/* Elements per array for a working set of about bytes over arrays arrays, shared by threads:
 * the nearest whole number of chunks per thread, at least one. */
static int64_t elems_for(double bytes, int arrays, int threads)
{
    const double unit = (double)(CHUNK_BYTES * threads);
    double chunks = floor(bytes / (double)arrays / unit + 0.5);
    return (int64_t)(chunks < 1.0 ? 1.0 : chunks) * (CHUNK_BYTES * threads) / 8;
}

/* ---- one curve ---- */

struct point {
    int64_t bytes, passes;
    double gbs, gbs_best, placed;
};

struct curve {
    enum ts_mix_kind kind;
    int threads;
    int n;
    struct point pts[MAX_POINTS];
};

static int64_t passes_for(double target, double gbs, double bytes_per_pass)
{
    double p = ceil(target * gbs * 1e9 / bytes_per_pass);
    return p < 1.0 ? 1 : (p > (double)MAX_PASSES ? MAX_PASSES : (int64_t)p);
}

static int measure_point(const ts_topology *topo, const struct sweep_plan *p, const struct curve *c, int64_t elems,
                         int64_t passes, int repetitions, struct ts_numa_bandwidth *bw, struct ts_error *err)
{
    const struct ts_mix m = { .kind = c->kind, .nontemporal = 0, .passes = passes };
    const struct ts_numa_stream k = { ts_mix_info(c->kind)->name,
                                      ts_mix_n_arrays(c->kind),
                                      ts_mix_bytes_per_elem(&m),
                                      "",
                                      ts_mix_init,
                                      ts_mix_step,
                                      &m,
                                      NULL };
    return ts_numa_bandwidth_measure(topo, &k, p->cpus, c->threads, p->node, elems * 8, repetitions, bw, err);
}

static int measure_curve(const ts_topology *topo, const struct sweep_plan *p, struct curve *c, struct ts_error *err)
{
    const int arrays = ts_mix_n_arrays(c->kind);
    double gbs = GUESS_GBS * c->threads, before = 0.0;
    int64_t last = 0;
    c->n = 0;
    for (double w = (double)SWEEP_FROM; w <= (double)p->top * 1.0001 && c->n < MAX_POINTS; w *= p->ratio) {
        const int64_t elems = elems_for(w, arrays, c->threads);
        if (elems * 8 * arrays == last)
            continue;
        last = elems * 8 * arrays;
        const double per_pass = 8.0 * arrays * (double)elems;
        struct ts_numa_bandwidth bw;
        int status = TS_OK;
        if (c->n == 0 && p->pilot) /* the first point's bandwidth, for its passes */
            status = measure_point(topo, p, c, elems, passes_for(p->target / 4, gbs, per_pass), 1, &bw, err);
        if (status == TS_OK && c->n == 0 && p->pilot && bw.measured)
            gbs = bw.gbs_best;
        const int64_t passes = passes_for(p->target, gbs, per_pass);
        if (status == TS_OK)
            status = measure_point(topo, p, c, elems, passes, p->repetitions, &bw, err);
        if (status != TS_OK) {
            ts_error_prefix(err, "sweep: %s, %d thread(s), %lld B", ts_mix_info(c->kind)->name, c->threads,
                            (long long)last);
            return status;
        }
        struct point *pt = &c->pts[c->n++];
        *pt = (struct point){ last, passes, bw.measured ? bw.gbs_median : NAN, bw.measured ? bw.gbs_best : NAN,
                              bw.placement.fraction };
        /* The best, not the median, of the last two points: on a busy machine a slowed point
         * would shorten the next one's steps, and shorter steps are slowed less often: the
         * curve would zigzag. Bandwidth only falls with size, so this stays near the target. */
        if (bw.measured && bw.gbs_best > 0) {
            gbs = bw.gbs_best > before ? bw.gbs_best : before;
            before = bw.gbs_best;
        }
    }
    return TS_OK;
}

/* ---- inference ---- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A fall: more than 32% less bandwidth per doubling of the working set (2^0.4 = 1.32). */
static int falls(double x0, double y0, double x1, double y1)
{
    return log2(y0 / y1) > 0.4 * log2(x1 / x0);
}

struct run {
    int first, last;
    double level;
};

/* Level of points [first, last] of y: their median. */
static double level_of(const double *y, int first, int last)
{
    double v[MAX_POINTS];
    int n = 0;
    for (int i = first; i <= last; i++)
        v[n++] = y[i];
    return median_of(v, n);
}

/* Plateaus of (x, y): runs of at least two points joined by no fall, a run less than 25% below
 * the one before (or above it) merged into it. Returns how many. */
static int plateaus(const double *x, const double *y, int n, struct run *out)
{
    int count = 0, start = 0;
    for (int i = 1; i <= n; i++) {
        if (i < n && !falls(x[i - 1], y[i - 1], x[i], y[i]))
            continue;
        if (i - 1 > start) {
            double level = level_of(y, start, i - 1);
            if (count > 0 && level * 1.25 > out[count - 1].level) {
                out[count - 1].last = i - 1;
                out[count - 1].level = level_of(y, out[count - 1].first, i - 1);
            } else {
                out[count++] = (struct run){ start, i - 1, level };
            }
        }
        start = i;
    }
    return count;
}

/* Where the curve first falls below the midpoint of plateaus a and b, interpolated in log x. */
static double step_size(const double *x, const double *y, int n, const struct run *a, const struct run *b)
{
    const double mid = 0.5 * (a->level + b->level);
    for (int j = a->last + 1; j < n && j <= b->first; j++) {
        if (y[j] >= mid)
            continue;
        double f = (y[j - 1] - mid) / (y[j - 1] - y[j]);
        if (!(f >= 0.0 && f <= 1.0))
            f = 1.0;
        return x[j - 1] * pow(x[j] / x[j - 1], f);
    }
    return x[b->first];
}

void ts_sweep_infer(const double *bytes, const double *gbs, int n, struct ts_sweep_levels *out)
{
    memset(out, 0, sizeof *out);
    out->l1 = out->l2 = out->llc = out->first_gbs = out->last_gbs = NAN;
    double x[MAX_POINTS], raw[MAX_POINTS], y[MAX_POINTS];
    int m = 0;
    for (int i = 0; i < n && m < MAX_POINTS; i++)
        if (isfinite(bytes[i]) && isfinite(gbs[i]) && gbs[i] > 0) {
            x[m] = bytes[i];
            raw[m++] = gbs[i];
        }
    /* A median of three: one point a busy machine slowed does not make a step. */
    for (int i = 0; i < m; i++) {
        double v[3] = { raw[i > 0 ? i - 1 : i], raw[i], raw[i + 1 < m ? i + 1 : i] };
        y[i] = median_of(v, 3);
    }
    struct run runs[MAX_POINTS];
    const int k = plateaus(x, y, m, runs);
    out->plateaus = k;
    if (k == 0) {
        snprintf(out->why, sizeof out->why, "no flat stretch in the curve (%d points)", m);
        return;
    }
    out->first_gbs = runs[0].level;
    out->last_gbs = runs[k - 1].level;
    out->reached_memory = runs[k - 1].last == m - 1 && k > 1;
    const int steps = k - 1;
    double s[MAX_POINTS] = { 0 };
    for (int i = 0; i < steps; i++)
        s[i] = step_size(x, y, m, &runs[i], &runs[i + 1]);
    if (out->reached_memory) {
        out->llc = s[steps - 1];
        if (steps >= 2)
            out->l1 = s[0];
        if (steps >= 3)
            out->l2 = s[1];
    } else {
        if (steps >= 1)
            out->l1 = s[0];
        if (steps >= 2)
            out->l2 = s[1];
    }
    if (steps == 0)
        snprintf(out->why, sizeof out->why, "no step in the curve: one level from %.0f KiB to %.0f MiB",
                 x[0] / (double)KIB, x[m - 1] / (double)MIB);
    else if (!out->reached_memory)
        snprintf(out->why, sizeof out->why, "the curve still falls at %.0f MiB: the LLC may be larger than swept",
                 x[m - 1] / (double)MIB);
    else if (steps == 1)
        snprintf(out->why, sizeof out->why, "one step only: taken as the LLC's, L1 and L2 not told apart");
    else if (steps == 2)
        snprintf(out->why, sizeof out->why, "two steps: L1 and the LLC; no L2 told apart");
    else if (steps > 3)
        snprintf(out->why, sizeof out->why, "%d steps: those between the second and the last not named", steps);
}

/* ---- the table ---- */

enum { C_CURVE, C_KERNEL, C_THREADS, C_BYTES, C_SHARE, C_PASSES, C_GBS, C_BEST, C_PLACED, C_COUNT };

static int declare(struct ts_survey_section *out, int rows, struct ts_error *err)
{
    int ok =
        ts_section_text(out, "curve", err) == C_CURVE && ts_section_text(out, "kernel", err) == C_KERNEL
        && ts_section_num(out, "threads", "", err) == C_THREADS && ts_section_num(out, "bytes", "B", err) == C_BYTES
        && ts_section_num(out, "share_bytes", "B", err) == C_SHARE && ts_section_num(out, "passes", "", err) == C_PASSES
        && ts_section_num(out, "gbs", "GB/s", err) == C_GBS && ts_section_num(out, "gbs_best", "GB/s", err) == C_BEST
        && ts_section_num(out, "placed", "", err) == C_PLACED;
    if (!ok)
        return err->status ? err->status : TS_INTERNAL_ERROR;
    return ts_section_rows(out, rows, err);
}

static void fill_rows(struct ts_survey_section *out, const struct curve *curves, int n_curves)
{
    int row = 0;
    out->placed_fraction = NAN;
    for (int c = 0; c < n_curves; c++) {
        char label[TS_SECTION_TEXT];
        const char *kernel = curves[c].kind == TS_MIX_READ ? "read" : "triad";
        snprintf(label, sizeof label, "%s, %d thread%s", kernel, curves[c].threads, curves[c].threads > 1 ? "s" : "");
        for (int i = 0; i < curves[c].n; i++, row++) {
            const struct point *p = &curves[c].pts[i];
            ts_section_set_text(out, C_CURVE, row, label);
            ts_section_set_text(out, C_KERNEL, row, kernel);
            ts_section_set(out, C_THREADS, row, curves[c].threads);
            ts_section_set(out, C_BYTES, row, (double)p->bytes);
            ts_section_set(out, C_SHARE, row, (double)p->bytes / curves[c].threads);
            ts_section_set(out, C_PASSES, row, (double)p->passes);
            ts_section_set(out, C_GBS, row, p->gbs);
            ts_section_set(out, C_BEST, row, p->gbs_best);
            ts_section_set(out, C_PLACED, row, p->placed);
            if (!isnan(p->placed) && (isnan(out->placed_fraction) || p->placed < out->placed_fraction))
                out->placed_fraction = p->placed;
        }
    }
    out->misplaced = !isnan(out->placed_fraction) && out->placed_fraction < 1.0;
}

static void infer_curve(const struct curve *c, struct ts_sweep_levels *lv)
{
    double x[MAX_POINTS], y[MAX_POINTS];
    for (int i = 0; i < c->n; i++) {
        x[i] = (double)c->pts[i].bytes;
        y[i] = c->pts[i].gbs_best;
    }
    ts_sweep_infer(x, y, c->n, lv);
}

/* "48 KiB", "1.2 MiB", "?" */
static void size_text(char *buf, size_t len, double bytes)
{
    const double unit = bytes < (double)MIB ? (double)KIB : (double)MIB;
    const double v = bytes / unit;
    if (!isfinite(bytes))
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, unit == (double)KIB ? "KiB" : "MiB");
}

/* "16.4 GB/s", "? GB/s" */
static void gbs_text(char *buf, size_t len, double gbs)
{
    if (!isfinite(gbs))
        snprintf(buf, len, "? GB/s");
    else
        snprintf(buf, len, gbs < 100 ? "%.1f GB/s" : "%.0f GB/s", gbs);
}

static void append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

static void conclude(struct ts_survey_section *out, const struct sweep_plan *p, const struct ts_sweep_levels *one,
                     const struct ts_sweep_levels *all, int threads_all)
{
    ts_section_set_fact(out, "l1_bytes", one->l1, "B");
    ts_section_set_fact(out, "l2_bytes", one->l2, "B");
    ts_section_set_fact(out, "llc_bytes", one->llc, "B");
    ts_section_set_fact(out, "l1_bytes_all", all->l1, "B");
    ts_section_set_fact(out, "l2_bytes_all", all->l2, "B");
    ts_section_set_fact(out, "llc_bytes_all", all->llc, "B");
    /* 1 when the curves told all three levels apart and agree on the last (within 2x): only then
     * does the battery size its arrays from it; a curve with unnamed steps (a VM's noise, a cache
     * the host has and the guest does not show) would size it differently from run to run. */
    const int sure = !one->why[0] && !all->why[0] && one->llc > 0 && all->llc > 0 && one->llc <= 2 * all->llc
                     && all->llc <= 2 * one->llc;
    ts_section_set_fact(out, "llc_sure", sure, "");
    ts_section_set_fact(out, "threads_all", threads_all, "");
    ts_section_set_fact(out, "top_bytes", (double)p->top, "B");
    ts_section_set_fact(out, "read_l1_gbs", one->first_gbs, "GB/s");
    ts_section_set_fact(out, "read_mem_gbs", one->reached_memory ? one->last_gbs : NAN, "GB/s");
    ts_section_set_fact(out, "read_mem_gbs_all", all->reached_memory ? all->last_gbs : NAN, "GB/s");
    char l1[32], l2[32], llc[32];
    size_text(l1, sizeof l1, one->l1);
    size_text(l2, sizeof l2, one->l2);
    size_text(llc, sizeof llc, one->llc);
    char g1[32], gm[32], ga[32];
    gbs_text(g1, sizeof g1, one->first_gbs);
    gbs_text(gm, sizeof gm, one->reached_memory ? one->last_gbs : NAN);
    gbs_text(ga, sizeof ga, all->reached_memory ? all->last_gbs : NAN);
    snprintf(out->summary, sizeof out->summary,
             "L1 %s, L2 %s, LLC %s (inferred, 1 thread's read); read %s in L1, %s from memory (1 thread), %s (%d "
             "threads)",
             l1, l2, llc, g1, gm, ga, threads_all);
    char text[256];
    if (p->llc_assumed) {
        snprintf(text, sizeof text, "swept to 8x an assumed LLC of %lld MiB (hwloc shows no cache)",
                 (long long)(p->llc / MIB));
        append(out->note, sizeof out->note, text);
    }
    if (one->why[0]) {
        snprintf(text, sizeof text, "1 thread: %s", one->why);
        append(out->note, sizeof out->note, text);
    }
    if (all->why[0] && threads_all > 1) {
        snprintf(text, sizeof text, "%d threads: %s", threads_all, all->why);
        append(out->note, sizeof out->note, text);
    }
}

static int sweep_measure(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err)
{
    static struct sweep_plan p;
    static struct curve curves[4];
    plan_sweep(ctx, &p);
    p.threads_all = ts_sweep_domain(ctx->topo, &p.node, p.cpus, MAX_CPUS);
    if (p.threads_all < 1)
        return ts_fail(err, TS_BAD_INPUT, "sweep: no NUMA node with CPUs this process may use");
    const int n_curves = p.threads_all > 1 ? 4 : 2;
    int rows = 0;
    for (int c = 0; c < n_curves; c++) {
        curves[c].kind = c % 2 ? TS_MIX_2_1 : TS_MIX_READ;
        curves[c].threads = c < 2 ? 1 : p.threads_all;
        int status = measure_curve(ctx->topo, &p, &curves[c], err);
        if (status != TS_OK)
            return status;
        rows += curves[c].n;
    }
    int status = declare(out, rows, err);
    if (status != TS_OK)
        return status;
    fill_rows(out, curves, n_curves);
    struct ts_sweep_levels one, all;
    infer_curve(&curves[0], &one);
    infer_curve(&curves[n_curves - 2], &all);
    conclude(out, &p, &one, &all, p.threads_all);
    struct ts_section_plot *plot = ts_section_add_plot(
        out, TS_SECTION_LINES, "Bandwidth by working set, best step (read: 8 B, triad: 24 B an element)", "bytes",
        "gbs_best");
    if (plot) {
        snprintf(plot->series, sizeof plot->series, "curve");
        plot->log_x = 1;
    }
    return TS_OK;
}

/* The points' steps at about the target time each, or their sweeps at an assumed 25 GB/s a
 * thread past that; the first touch at 15 GB/s; 3 ms a point for mapping, binding the threads
 * and counting the pages (the 2-core Zen 5 VM at a load of 1.4: --quick 1.3 s, --full 5.0 s). */
static double sweep_estimate(const struct ts_section_ctx *ctx)
{
    struct sweep_plan p;
    plan_sweep(ctx, &p);
    int cpus[MAX_CPUS], node;
    const int all = ts_sweep_domain(ctx->topo, &node, cpus, MAX_CPUS);
    double seconds = 0.0;
    for (int c = 0; c < (all > 1 ? 4 : 2); c++) {
        const int threads = c < 2 ? 1 : all;
        for (double w = (double)SWEEP_FROM; w <= (double)p.top * 1.0001; w *= p.ratio) {
            const double sweep = w / (25e9 * threads);
            seconds += (p.repetitions + 1) * (sweep > p.target ? sweep : p.target) + w / 15e9 + 3e-3;
        }
        seconds += p.pilot ? p.target + 3e-3 : 0.0;
    }
    return seconds;
}

const struct ts_section_def ts_section_sweep = {
    .name = "sweep",
    .title = "Bandwidth by working set: the cache levels",
    .estimate = sweep_estimate,
    .measure = sweep_measure,
};

/* The survey's scaling section (issue 26): read (the kernel table's sum) and triad bandwidth with
 * 1..n cores of one NUMA domain, its memory local (CPU node = memory node), and the core count
 * at which each reaches 90% of its peak: how many cores a domain needs for bandwidth-bound work
 * (the verdict's "k cores saturate a domain"). The kernels are the NUMA matrix's
 * (kernels/ts_kernel_probe.h), so its numbers are the matrix's and the runs' own. Rates are the
 * best of the trials: the least disturbed on a shared node, which is what saturation asks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "survey_sec_bandwidth.h"
#include "ts_kernel_probe.h"
#include "ts_section.h"

#define FULL_TRIALS 5
#define QUICK_TRIALS 3
#define FULL_BUDGET 5.0
#define QUICK_BUDGET 1.0
#define EST_TOUCH_GBS 2.0
#define EST_SWEEP_GBS 8.0
/* A domain saturates at the fewest cores within this share of its peak. */
#define SATURATION 0.9

enum { READ, TRIAD, KERNELS };

struct plan {
    int nodes[TS_SEC_MAX_NODES]; /* CPU nodes with memory of their own */
    int n_nodes;
    int n_unlocal; /* CPU nodes without memory: not measured */
    int64_t array_bytes;
    int trials;
};

static enum ts_sec_counts counts_of(const struct ts_section_ctx *ctx)
{
    return ctx->quick ? TS_SEC_POWERS : TS_SEC_EVERY;
}

static int make_plan(const struct ts_section_ctx *ctx, struct plan *p)
{
    memset(p, 0, sizeof *p);
    int cpu_nodes[TS_SEC_MAX_NODES], mem_nodes[TS_SEC_MAX_NODES], n_cpu, n_mem;
    ts_numa_list_nodes(ctx->topo, cpu_nodes, &n_cpu, mem_nodes, &n_mem, TS_SEC_MAX_NODES);
    for (int c = 0; c < n_cpu; c++) {
        int local = 0;
        for (int m = 0; m < n_mem; m++)
            local |= mem_nodes[m] == cpu_nodes[c];
        if (local)
            p->nodes[p->n_nodes++] = cpu_nodes[c];
        else
            p->n_unlocal++;
    }
    p->array_bytes = ts_sec_array_bytes(ctx, p->nodes, p->n_nodes, 3);
    p->trials = ctx->quick ? QUICK_TRIALS : FULL_TRIALS;
    if (ctx->scale > 0 && ctx->scale < 1.0)
        p->trials = 3;
    return 0;
}

static int count_rows(const struct ts_section_ctx *ctx, const struct plan *p)
{
    int rows = 0;
    for (int d = 0; d < p->n_nodes; d++) {
        int cpus[TS_SEC_MAX_CPUS], counts[TS_SEC_MAX_CPUS];
        int n = ts_numa_node_cpus(ctx->topo, p->nodes[d], cpus, TS_SEC_MAX_CPUS);
        rows += KERNELS * ts_sec_thread_counts(n, counts_of(ctx), counts, TS_SEC_MAX_CPUS);
    }
    return rows;
}

static double scaling_estimate(const struct ts_section_ctx *ctx)
{
    struct plan p;
    if (make_plan(ctx, &p) != 0)
        return 0.0;
    /* The rates the survey measured as it started, else this kind of node's guess. */
    const double touch_gbs = ctx->touch_gbs > 0 ? ctx->touch_gbs : EST_TOUCH_GBS;
    const double sweep_gbs = ctx->sweep_gbs > 0 ? ctx->sweep_gbs : EST_SWEEP_GBS;
    /* Half the rows read one array, half triad three. */
    const double arrays = 2.0 * (double)p.array_bytes;
    return count_rows(ctx, &p) * arrays * (1.0 / (touch_gbs * 1e9) + (p.trials + 1) / (sweep_gbs * 1e9));
}

struct cols {
    int kernel, node, cores, cpus, gbs, gbs_median, of_peak, array_bytes, fraction, misplaced, series;
};

static int declare(struct ts_survey_section *s, struct cols *c, struct ts_error *err)
{
    c->kernel = ts_section_text(s, "kernel", err);
    c->node = ts_section_num(s, "node", "", err);
    c->cores = ts_section_num(s, "cores", "", err);
    c->cpus = ts_section_text(s, "cpus", err);
    c->gbs = ts_section_num(s, "gbs", "GB/s", err);
    c->gbs_median = ts_section_num(s, "gbs_median", "GB/s", err);
    c->of_peak = ts_section_num(s, "of_peak", "", err);
    c->array_bytes = ts_section_num(s, "array_bytes", "B", err);
    c->fraction = ts_section_num(s, "fraction", "", err);
    c->misplaced = ts_section_num(s, "misplaced", "", err);
    c->series = ts_section_text(s, "series", err);
    return c->series < 0 ? err->status : TS_OK;
}

/* One kernel's curve in one domain: rows [first, first + n) hold it, by cores. Sets each row's
 * share of the peak; returns the fewest cores within SATURATION of it (0 when nothing measured). */
static int saturation(struct ts_survey_section *out, const struct cols *c, int first, int n, double *peak)
{
    *peak = NAN;
    for (int r = first; r < first + n; r++) {
        const double g = out->cols[c->gbs].num[r];
        if (isfinite(g) && (isnan(*peak) || g > *peak))
            *peak = g;
    }
    int cores = 0;
    for (int r = first; r < first + n; r++) {
        const double g = out->cols[c->gbs].num[r];
        ts_section_set(out, c->of_peak, r, g / *peak);
        if (!cores && isfinite(g) && g >= SATURATION * *peak)
            cores = (int)out->cols[c->cores].num[r];
    }
    return cores;
}

struct result {
    int saturation[KERNELS]; /* the smallest over domains; 0 none */
    int domain_cores;        /* the cores of the domain triad's saturation comes from */
    double peak[KERNELS];    /* the largest over domains */
    char per_domain[256];
};

static int measure_domain(const struct ts_section_ctx *ctx, const struct plan *p, int node,
                          const struct ts_numa_stream *kernels, struct ts_sec_pace *pace, struct ts_survey_section *out,
                          const struct cols *c, int *row, struct result *res, struct ts_error *err)
{
    static const char *names[KERNELS] = { "read", "triad" };
    int cpus[TS_SEC_MAX_CPUS], counts[TS_SEC_MAX_CPUS];
    const int n = ts_numa_node_cpus(ctx->topo, node, cpus, TS_SEC_MAX_CPUS);
    const int n_counts = ts_sec_thread_counts(n, counts_of(ctx), counts, TS_SEC_MAX_CPUS);
    for (int k = 0; k < KERNELS; k++) {
        const struct ts_numa_stream *s = &kernels[k];
        const int first = *row;
        char series[TS_SECTION_TEXT];
        snprintf(series, sizeof series, "%s, node %d", names[k], node);
        for (int i = 0; i < n_counts; i++) {
            const int64_t elems = p->array_bytes / (int64_t)sizeof(double);
            const int trials = ts_sec_pace_trials(pace, s->bytes_per_elem * (double)elems);
            struct ts_numa_bandwidth b;
            int status =
                ts_numa_bandwidth_measure(ctx->topo, s, cpus, counts[i], node, p->array_bytes, trials, &b, err);
            if (status != TS_OK) {
                ts_error_prefix(err, "scaling: %s on node %d with %d cores", names[k], node, counts[i]);
                return status;
            }
            ts_sec_pace_learn(pace, &b, s->bytes_per_elem);
            ts_sec_add_placement(out, &b);
            char list[TS_SECTION_TEXT];
            ts_sec_cpus_text(cpus, counts[i], list, sizeof list);
            const int r = (*row)++;
            ts_section_set_text(out, c->kernel, r, names[k]);
            ts_section_set(out, c->node, r, node);
            ts_section_set(out, c->cores, r, counts[i]);
            ts_section_set_text(out, c->cpus, r, list);
            ts_section_set(out, c->gbs, r, b.measured ? b.gbs_best : NAN);
            ts_section_set(out, c->gbs_median, r, b.measured ? b.gbs_median : NAN);
            ts_section_set(out, c->array_bytes, r, (double)b.bytes_per_array);
            ts_section_set(out, c->fraction, r, b.placement.fraction);
            ts_section_set(out, c->misplaced, r, b.placement.misplaced);
            ts_section_set_text(out, c->series, r, series);
            if (!b.measured)
                ts_sec_note(out, b.note);
        }
        double peak;
        const int sat = saturation(out, c, first, n_counts, &peak);
        if (sat && (!res->saturation[k] || sat < res->saturation[k])) {
            res->saturation[k] = sat;
            if (k == TRIAD)
                res->domain_cores = n;
        }
        if (isfinite(peak) && (isnan(res->peak[k]) || peak > res->peak[k]))
            res->peak[k] = peak;
        if (k == TRIAD) {
            size_t used = strlen(res->per_domain);
            snprintf(res->per_domain + used, sizeof res->per_domain - used, "%snode %d: %d of %d cores",
                     used ? ", " : "", node, sat, n);
        }
    }
    return TS_OK;
}

static double fact_cores(int cores)
{
    return cores > 0 ? cores : NAN;
}

static int scaling_measure(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err)
{
    struct plan p;
    if (make_plan(ctx, &p) != 0)
        return ts_fail(err, TS_RESOURCE_ERROR, "scaling: cannot list the NUMA nodes");
    if (p.n_nodes == 0)
        return ts_fail(err, TS_BAD_INPUT, "scaling: no NUMA node has both CPUs and memory we may use");
    static struct ts_kernel_probe sum, triad;
    if (ts_kernel_probe_setup(&sum, TS_KERNEL_SUM) != 0 || ts_kernel_probe_setup(&triad, TS_KERNEL_TRIAD) != 0)
        return ts_fail(err, TS_INTERNAL_ERROR, "scaling: the kernel table has no sum or triad");
    const struct ts_numa_stream kernels[KERNELS] = {
        { "sum", 1, sum.kernel->bytes_per_unit, sum.kernel->byte_model, ts_kernel_probe_init, ts_kernel_probe_step,
          &sum, NULL },
        { "triad", 3, triad.kernel->bytes_per_unit, triad.kernel->byte_model, ts_kernel_probe_init,
          ts_kernel_probe_step, &triad, NULL },
    };
    struct cols c;
    int status = declare(out, &c, err);
    if (status == TS_OK)
        status = ts_section_rows(out, count_rows(ctx, &p), err);
    if (status != TS_OK)
        return status;
    struct result res = { .peak = { NAN, NAN } };
    struct ts_sec_pace pace = { .trials = p.trials, .budget = ctx->quick ? QUICK_BUDGET : FULL_BUDGET };
    int row = 0;
    for (int d = 0; d < p.n_nodes && status == TS_OK; d++)
        status = measure_domain(ctx, &p, p.nodes[d], kernels, &pace, out, &c, &row, &res, err);
    if (status != TS_OK)
        return status;

    ts_section_set_fact(out, "saturation_cores", fact_cores(res.saturation[TRIAD]), "cores");
    ts_section_set_fact(out, "peak_gbs", res.peak[TRIAD], "GB/s");
    ts_section_set_fact(out, "domain_cores", fact_cores(res.domain_cores), "cores");
    ts_section_set_fact(out, "read_saturation_cores", fact_cores(res.saturation[READ]), "cores");
    ts_section_set_fact(out, "read_peak_gbs", res.peak[READ], "GB/s");
    ts_section_set_fact(out, "array_bytes", (double)p.array_bytes, "B");
    snprintf(out->summary, sizeof out->summary,
             "triad peaks at %.1f GB/s, 90%% of it with %d core(s) (%s); read peaks at %.1f GB/s, 90%% with %d "
             "core(s)",
             res.peak[TRIAD], res.saturation[TRIAD], res.per_domain, res.peak[READ], res.saturation[READ]);
    if (p.n_unlocal) {
        char text[128];
        snprintf(text, sizeof text, "%d CPU node(s) without memory of their own: not measured", p.n_unlocal);
        ts_sec_note(out, text);
    }
    if (ctx->llc_bytes <= 0)
        ts_sec_note(out, "no last-level cache known: 32 MiB assumed, arrays sized past it");
    if (pace.reduced)
        ts_sec_note(out, "sweeps slow (an emulated machine?): some points got fewer trials");
    struct ts_section_plot *plot = ts_section_add_plot(
        out, TS_SECTION_LINES, "Bandwidth against cores in a NUMA domain (GB/s, best of the trials)", "cores", "gbs");
    if (plot)
        snprintf(plot->series, sizeof plot->series, "series");
    return TS_OK;
}

const struct ts_section_def ts_section_scaling = {
    .name = "scaling",
    .title = "Bandwidth scaling over the cores of a NUMA domain",
    .estimate = scaling_estimate,
    .measure = scaling_measure,
};

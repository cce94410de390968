/* The survey's stream section (issue 26): STREAM's four kernels (kernels/ts_stream_kernels.h) for
 * every (CPU node, memory node) pair and thread count, reported the STREAM way, best rate of the
 * trials in MB/s (10^6 bytes) by STREAM's byte counts and the avg/min/max time of one trial, next
 * to touchstone's GB/s median by the same bytes. Each kernel is one ts_numa_bandwidth_measure
 * (its arrays bound to the memory node and their pages counted, the threads bound one per core
 * of the CPU node), and its arrays checked after the trials as STREAM's checkSTREAMresults. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "survey_sec_bandwidth.h"
#include "ts_section.h"
#include "ts_stream_kernels.h"

#define FULL_TRIALS 10
#define QUICK_TRIALS 5
/* Seconds of timed sweeps one kernel may take before its trials are cut: an emulated machine
 * sweeps 20-50x slower; a real one with arrays of gigabytes still gets all its trials. */
#define FULL_BUDGET 10.0
#define QUICK_BUDGET 2.0
/* The estimate's pace of this kind of node (a loaded 2-core VM sweeps at 5-15 GB/s): a first
 * touch of 2 MiB pages, and one sweep. */
#define EST_TOUCH_GBS 2.0
#define EST_SWEEP_GBS 8.0

/* The plan: nodes, thread counts and the arrays' size. */
struct plan {
    int cpu_nodes[TS_SEC_MAX_NODES], mem_nodes[TS_SEC_MAX_NODES];
    int n_cpu, n_mem;
    int64_t array_bytes;
    int trials;
};

static enum ts_sec_counts counts_of(const struct ts_section_ctx *ctx)
{
    return ctx->quick ? TS_SEC_ENDS : TS_SEC_POWERS;
}

static int make_plan(const struct ts_section_ctx *ctx, struct plan *p)
{
    memset(p, 0, sizeof *p);
    ts_numa_list_nodes(ctx->topo, p->cpu_nodes, &p->n_cpu, p->mem_nodes, &p->n_mem, TS_SEC_MAX_NODES);
    p->array_bytes = ts_sec_array_bytes(ctx, p->mem_nodes, p->n_mem, 3);
    p->trials = ctx->quick ? QUICK_TRIALS : FULL_TRIALS;
    if (ctx->scale > 0 && ctx->scale < 1.0)
        p->trials = 3;
    return 0;
}

/* Rows: one per pair, thread count and kernel. */
static int count_rows(const struct ts_section_ctx *ctx, const struct plan *p)
{
    int rows = 0;
    for (int c = 0; c < p->n_cpu; c++) {
        int cpus[TS_SEC_MAX_CPUS], counts[64];
        int n = ts_numa_node_cpus(ctx->topo, p->cpu_nodes[c], cpus, TS_SEC_MAX_CPUS);
        rows += p->n_mem * ts_sec_thread_counts(n, counts_of(ctx), counts, 64) * TS_STREAM_COUNT;
    }
    return rows;
}

static double stream_estimate(const struct ts_section_ctx *ctx)
{
    struct plan p;
    if (make_plan(ctx, &p) != 0)
        return 0.0;
    /* The rates the survey measured as it started, else this kind of node's guess. */
    const double touch_gbs = ctx->touch_gbs > 0 ? ctx->touch_gbs : EST_TOUCH_GBS;
    const double sweep_gbs = ctx->sweep_gbs > 0 ? ctx->sweep_gbs : EST_SWEEP_GBS;
    const int rows = count_rows(ctx, &p);
    /* Per kernel on average 2.5 arrays touched once and swept (trials + 1) times. */
    const double touch = 2.5 * (double)p.array_bytes / (touch_gbs * 1e9);
    const double sweep = 2.5 * (double)p.array_bytes / (sweep_gbs * 1e9);
    return rows * (touch + sweep * (p.trials + 1));
}

/* The table's columns, by index. */
struct cols {
    int kernel, cpu_node, mem_node, threads, cpus, array_bytes, bytes_per_elem, trials, best_mbs, avg_time, min_time,
        max_time, gbs_median, check_errors, fraction, misplaced, point;
};

static int declare(struct ts_survey_section *s, struct cols *c, struct ts_error *err)
{
    c->kernel = ts_section_text(s, "kernel", err);
    c->cpu_node = ts_section_num(s, "cpu_node", "", err);
    c->mem_node = ts_section_num(s, "mem_node", "", err);
    c->threads = ts_section_num(s, "threads", "", err);
    c->cpus = ts_section_text(s, "cpus", err);
    c->array_bytes = ts_section_num(s, "array_bytes", "B", err);
    c->bytes_per_elem = ts_section_num(s, "bytes_per_elem", "B", err);
    c->trials = ts_section_num(s, "trials", "", err);
    c->best_mbs = ts_section_num(s, "best_mbs", "MB/s", err);
    c->avg_time = ts_section_num(s, "avg_time", "s", err);
    c->min_time = ts_section_num(s, "min_time", "s", err);
    c->max_time = ts_section_num(s, "max_time", "s", err);
    c->gbs_median = ts_section_num(s, "gbs_median", "GB/s", err);
    c->check_errors = ts_section_num(s, "check_errors", "", err);
    c->fraction = ts_section_num(s, "fraction", "", err);
    c->misplaced = ts_section_num(s, "misplaced", "", err);
    c->point = ts_section_text(s, "point", err);
    return c->point < 0 ? err->status : TS_OK;
}

/* What the facts need while the rows are filled. */
struct tally {
    double local_all[TS_STREAM_COUNT]; /* best MB/s, local memory, all cores: the best CPU node's */
    double local_one[TS_STREAM_COUNT]; /* one thread */
    double remote_ratio;               /* the lowest remote over local Triad, all cores */
    int64_t check_errors;
    int unchecked;
    char failed[128];
};

static void tally_row(struct tally *t, const struct ts_stream_kernel *k, int local, int threads, int all,
                      const struct ts_numa_bandwidth *b, double mbs)
{
    if (local && threads == all && (isnan(t->local_all[k->id]) || mbs > t->local_all[k->id]))
        t->local_all[k->id] = mbs;
    if (local && threads == 1 && (isnan(t->local_one[k->id]) || mbs > t->local_one[k->id]))
        t->local_one[k->id] = mbs;
    t->unchecked += !b->checked;
    t->check_errors += b->check_failures;
    if (b->check_failures > 0 && !strstr(t->failed, k->name)) {
        size_t used = strlen(t->failed);
        snprintf(t->failed + used, sizeof t->failed - used, "%s%s", used ? ", " : "", k->name);
    }
}

struct point {
    int cpu_node, mem_node, threads, all;
    const int *cpus;
};

static int measure_point(const struct ts_section_ctx *ctx, const struct plan *p, const struct point *pt,
                         struct ts_sec_pace *pace, struct ts_survey_section *out, const struct cols *c, int *row,
                         struct tally *t, double *triad_mbs, struct ts_error *err)
{
    char cpus[TS_SECTION_TEXT], label[TS_SECTION_TEXT];
    ts_sec_cpus_text(pt->cpus, pt->threads, cpus, sizeof cpus);
    snprintf(label, sizeof label, "cpu %d mem %d, %d thread%s", pt->cpu_node, pt->mem_node, pt->threads,
             pt->threads == 1 ? "" : "s");
    for (int id = 0; id < TS_STREAM_COUNT; id++) {
        const struct ts_stream_kernel *k = ts_stream_kernel(id);
        const struct ts_numa_stream s = { k->name,        k->n_arrays, k->bytes_per_elem, k->byte_model, ts_stream_init,
                                          ts_stream_step, k,           ts_stream_check };
        const int64_t elems = p->array_bytes / (int64_t)sizeof(double);
        const int trials = ts_sec_pace_trials(pace, k->bytes_per_elem * (double)elems);
        struct ts_numa_bandwidth b;
        int status = ts_numa_bandwidth_measure(ctx->topo, &s, pt->cpus, pt->threads, pt->mem_node, p->array_bytes,
                                               trials, &b, err);
        if (status != TS_OK) {
            ts_error_prefix(err, "stream: %s on CPU node %d, memory node %d, %d threads", k->name, pt->cpu_node,
                            pt->mem_node, pt->threads);
            return status;
        }
        ts_sec_pace_learn(pace, &b, k->bytes_per_elem);
        ts_sec_add_placement(out, &b);
        /* STREAM: MB/s = 1e-6 bytes / the best time. */
        const double mbs = b.measured ? 1e-6 * k->bytes_per_elem * (double)elems / b.seconds_min : NAN;
        const int r = (*row)++;
        ts_section_set_text(out, c->kernel, r, k->name);
        ts_section_set(out, c->cpu_node, r, pt->cpu_node);
        ts_section_set(out, c->mem_node, r, pt->mem_node);
        ts_section_set(out, c->threads, r, pt->threads);
        ts_section_set_text(out, c->cpus, r, cpus);
        ts_section_set(out, c->array_bytes, r, (double)b.bytes_per_array);
        ts_section_set(out, c->bytes_per_elem, r, k->bytes_per_elem);
        ts_section_set(out, c->trials, r, b.measured ? b.repetitions : NAN);
        ts_section_set(out, c->best_mbs, r, mbs);
        ts_section_set(out, c->avg_time, r, b.measured ? b.seconds_avg : NAN);
        ts_section_set(out, c->min_time, r, b.measured ? b.seconds_min : NAN);
        ts_section_set(out, c->max_time, r, b.measured ? b.seconds_max : NAN);
        ts_section_set(out, c->gbs_median, r, b.measured ? b.gbs_median : NAN);
        ts_section_set(out, c->check_errors, r, b.checked ? (double)b.check_failures : NAN);
        ts_section_set(out, c->fraction, r, b.placement.fraction);
        ts_section_set(out, c->misplaced, r, b.placement.misplaced);
        ts_section_set_text(out, c->point, r, label);
        if (!b.measured)
            ts_sec_note(out, b.note);
        if (b.measured)
            tally_row(t, k, pt->cpu_node == pt->mem_node, pt->threads, pt->all, &b, mbs);
        if (id == TS_STREAM_TRIAD)
            *triad_mbs = mbs;
    }
    return TS_OK;
}

static void facts(struct ts_survey_section *out, const struct plan *p, const struct tally *t,
                  const struct ts_section_ctx *ctx)
{
    static const char *keys[TS_STREAM_COUNT] = { "copy_best_mbs", "scale_best_mbs", "add_best_mbs", "triad_best_mbs" };
    for (int id = 0; id < TS_STREAM_COUNT; id++)
        ts_section_set_fact(out, keys[id], t->local_all[id], "MB/s");
    ts_section_set_fact(out, "triad_1t_best_mbs", t->local_one[TS_STREAM_TRIAD], "MB/s");
    ts_section_set_fact(out, "triad_remote_ratio", t->remote_ratio, "");
    ts_section_set_fact(out, "check_errors", t->unchecked ? NAN : (double)t->check_errors, "");
    ts_section_set_fact(out, "array_bytes", (double)p->array_bytes, "B");

    char text[256];
    if (t->unchecked)
        snprintf(text, sizeof text, "STREAM's check did not run on %d measurement(s)", t->unchecked);
    else if (t->check_errors)
        snprintf(text, sizeof text, "STREAM's check FAILED: %lld element(s) off their expected value (%s)",
                 (long long)t->check_errors, t->failed);
    else
        snprintf(text, sizeof text, "STREAM's check passed: every element of every array as expected (within 1e-13)");
    ts_sec_note(out, text);
    if (ctx->llc_bytes <= 0) {
        snprintf(text, sizeof text,
                 "no last-level cache known: %d MiB assumed, arrays sized past it (a larger host cache hwloc "
                 "does not see may still hold part of them)",
                 (int)(TS_SEC_ASSUMED_LLC >> 20));
        ts_sec_note(out, text);
    }
    if (p->n_mem < 2)
        ts_sec_note(out, "one memory node: no remote ratio");
    snprintf(out->summary, sizeof out->summary,
             "best of %d, all cores, local: Copy %.0f, Scale %.0f, Add %.0f, Triad %.0f MB/s; 1 thread Triad %.0f "
             "MB/s; %lld MiB arrays; check %s",
             p->trials, t->local_all[0], t->local_all[1], t->local_all[2], t->local_all[3],
             t->local_one[TS_STREAM_TRIAD], (long long)(p->array_bytes >> 20),
             t->unchecked      ? "not run"
             : t->check_errors ? "FAILED"
                               : "passed");
}

static int stream_measure(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err)
{
    struct plan p;
    if (make_plan(ctx, &p) != 0)
        return ts_fail(err, TS_RESOURCE_ERROR, "stream: cannot list the NUMA nodes");
    if (p.n_cpu == 0 || p.n_mem == 0)
        return ts_fail(err, TS_BAD_INPUT, "stream: hwloc shows no NUMA node with CPUs or memory we may use");
    struct cols c;
    int status = declare(out, &c, err);
    if (status == TS_OK)
        status = ts_section_rows(out, count_rows(ctx, &p), err);
    if (status != TS_OK)
        return status;
    struct tally t = { .remote_ratio = NAN };
    for (int id = 0; id < TS_STREAM_COUNT; id++)
        t.local_all[id] = t.local_one[id] = NAN;
    struct ts_sec_pace pace = { .trials = p.trials, .budget = ctx->quick ? QUICK_BUDGET : FULL_BUDGET };
    int row = 0;
    for (int ci = 0; ci < p.n_cpu && status == TS_OK; ci++) {
        int cpus[TS_SEC_MAX_CPUS], counts[64];
        const int n = ts_numa_node_cpus(ctx->topo, p.cpu_nodes[ci], cpus, TS_SEC_MAX_CPUS);
        const int n_counts = ts_sec_thread_counts(n, counts_of(ctx), counts, 64);
        double local = NAN, remote_worst = NAN;
        for (int mi = 0; mi < p.n_mem && status == TS_OK; mi++)
            for (int ti = 0; ti < n_counts && status == TS_OK; ti++) {
                const struct point pt = { p.cpu_nodes[ci], p.mem_nodes[mi], counts[ti], n, cpus };
                double triad = NAN;
                status = measure_point(ctx, &p, &pt, &pace, out, &c, &row, &t, &triad, err);
                if (counts[ti] != n)
                    continue;
                if (pt.cpu_node == pt.mem_node)
                    local = triad;
                else if (isnan(remote_worst) || triad < remote_worst)
                    remote_worst = triad;
            }
        const double ratio = remote_worst / local;
        if (isfinite(ratio) && (isnan(t.remote_ratio) || ratio < t.remote_ratio))
            t.remote_ratio = ratio;
    }
    if (status != TS_OK)
        return status;
    if (pace.reduced)
        ts_sec_note(out, "sweeps slow (an emulated machine?): some kernels got fewer trials (see trials)");
    facts(out, &p, &t, ctx);

    struct ts_section_plot *plot =
        ts_section_add_plot(out, TS_SECTION_BARS, "STREAM: best rate by kernel (MB/s, 10^6 B/s)", "kernel", "best_mbs");
    if (plot)
        snprintf(plot->series, sizeof plot->series, "point");
    return TS_OK;
}

const struct ts_section_def ts_section_stream = {
    .name = "stream",
    .title = "STREAM: Copy, Scale, Add, Triad",
    .estimate = stream_estimate,
    .measure = stream_measure,
};

/* The survey's stream and scaling sections (app/survey_sec_stream.c, app/survey_sec_scaling.c)
 * measured here at TOUCHSTONE_SURVEY_SCALE's size, their measure called as the runner calls it:
 * every row there and finite, STREAM's numbers consistent with each other (the best rate from
 * the min time by STREAM's bytes, min <= avg <= max), STREAM's check passed, each curve's peak
 * and saturation read from its rows, plots naming columns that exist, the facts the verdict
 * reads present, every page on the node asked for. Also the sizes and thread counts they plan,
 * without measuring. No timing threshold. */
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>

#include "survey_sec_bandwidth.h"
#include "ts_section.h"
#include "ts_test.h"
#include "ts_topology.h"

#define MIB ((int64_t)1 << 20)

static void counts_are(int n, enum ts_sec_counts which, const int *want, int n_want)
{
    int got[64];
    int k = ts_sec_thread_counts(n, which, got, 64);
    int same = k == n_want;
    for (int i = 0; same && i < k; i++)
        same = got[i] == want[i];
    CHECK(same, "thread counts of %d cores (mode %d): %d of them, first %d, last %d", n, (int)which, k, got[0],
          k ? got[k - 1] : -1);
}

static void plan(void)
{
    counts_are(1, TS_SEC_ENDS, (const int[]){ 1 }, 1);
    counts_are(2, TS_SEC_ENDS, (const int[]){ 1, 2 }, 2);
    counts_are(6, TS_SEC_POWERS, (const int[]){ 1, 2, 4, 6 }, 4);
    counts_are(8, TS_SEC_POWERS, (const int[]){ 1, 2, 4, 8 }, 4);
    counts_are(3, TS_SEC_EVERY, (const int[]){ 1, 2, 3 }, 3);
    counts_are(1, TS_SEC_POWERS, (const int[]){ 1 }, 1);
    int node = 0;
    struct ts_section_ctx ctx = { .quick = 0, .scale = 1.0 };
    /* STREAM's rule: 4x the LLC in full (32 MiB assumed when unknown), smaller in quick. */
    CHECK(ts_sec_array_bytes(&ctx, &node, 0, 3) == 128 * MIB, "full, LLC unknown: %lld bytes",
          (long long)ts_sec_array_bytes(&ctx, &node, 0, 3));
    ctx.llc_bytes = 8 * MIB;
    CHECK(ts_sec_array_bytes(&ctx, &node, 0, 3) == 32 * MIB, "full, 8 MiB LLC");
    ctx.quick = 1;
    CHECK(ts_sec_array_bytes(&ctx, &node, 0, 3) == 16 * MIB, "quick, 8 MiB LLC: still past it");
    ctx.scale = 0.001;
    CHECK(ts_sec_array_bytes(&ctx, &node, 0, 3) == MIB, "scaled down to the 1 MiB floor");
    struct ts_sec_pace pace = { .trials = 10, .budget = 1.0 };
    CHECK(ts_sec_pace_trials(&pace, 1e9) == 10, "no pace known yet: all the trials");
    pace.seconds_per_byte = 1e-9; /* a sweep of 1e9 bytes takes 1 s */
    CHECK(ts_sec_pace_trials(&pace, 1e9) == 2 && pace.reduced, "1 s a sweep, 1 s allowed: the floor of 2");
    pace.seconds_per_byte = 1e-11;
    pace.reduced = 0;
    CHECK(ts_sec_pace_trials(&pace, 1e9) == 10 && !pace.reduced, "10 ms a sweep: all 10");
}

static const ts_topology *topology(void)
{
    static ts_topology *topo;
    struct ts_error err = { 0 };
    if (!topo)
        REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology: %s", err.message);
    return topo;
}

/* What every section's table must satisfy. */
static void check_table(const struct ts_survey_section *s, int rows, const char *const *facts, int n_facts)
{
    CHECK(s->n_rows == rows, "%s: %d rows, %d planned", s->name, s->n_rows, rows);
    for (int c = 0; c < s->n_cols; c++)
        for (int r = 0; r < s->n_rows; r++) {
            if (s->cols[c].is_text)
                CHECK(s->cols[c].text[r][0] != '\0', "%s: %s row %d empty", s->name, s->cols[c].name, r);
            else
                CHECK(isfinite(s->cols[c].num[r]), "%s: %s row %d is %g (%s)", s->name, s->cols[c].name, r,
                      s->cols[c].num[r], s->note);
        }
    CHECK(s->n_plots >= 1, "%s: no plot", s->name);
    for (int p = 0; p < s->n_plots; p++) {
        const struct ts_section_plot *pl = &s->plots[p];
        CHECK(ts_section_column(s, pl->x) >= 0 && ts_section_column(s, pl->y) >= 0
                  && (!pl->series[0] || ts_section_column(s, pl->series) >= 0),
              "%s: plot %d names %s, %s, %s", s->name, p, pl->x, pl->y, pl->series);
    }
    for (int f = 0; f < n_facts; f++)
        CHECK(isfinite(ts_section_fact(s, facts[f])), "%s: fact %s is %g", s->name, facts[f],
              ts_section_fact(s, facts[f]));
    CHECK(s->summary[0] != '\0', "%s: no summary", s->name);
    if (numa_available() >= 0)
        CHECK(s->placed_fraction == 1.0 && !s->misplaced, "%s: placed fraction %g, misplaced %d", s->name,
              s->placed_fraction, s->misplaced);
    printf("%s: %d rows; %s\n  note: %s\n", s->name, s->n_rows, s->summary, s->note);
}

static double cell(const struct ts_survey_section *s, const char *col, int r)
{
    return s->cols[ts_section_column(s, col)].num[r];
}

static void stream(void)
{
    struct ts_section_ctx ctx = { .topo = topology(), .quick = 1, .scale = 0.01 };
    struct ts_survey_section s;
    struct ts_error err = { 0 };
    ts_section_init(&s, ts_section_stream.name, ts_section_stream.title);
    CHECK(ts_section_stream.estimate(&ctx) > 0, "no estimate");
    REQUIRE(ts_section_stream.measure(&ctx, &s, &err) == TS_OK, "stream: %s", err.message);
    int cpus[TS_SEC_MAX_CPUS], cpu_nodes[TS_SEC_MAX_NODES], mem_nodes[TS_SEC_MAX_NODES], n_cpu, n_mem;
    ts_numa_list_nodes(ctx.topo, cpu_nodes, &n_cpu, mem_nodes, &n_mem, TS_SEC_MAX_NODES);
    int rows = 0;
    for (int c = 0; c < n_cpu; c++) {
        const int cores = ts_numa_node_cpus(ctx.topo, cpu_nodes[c], cpus, TS_SEC_MAX_CPUS);
        rows += n_mem * 4 * (cores > 1 ? 2 : 1);
    }
    /* The first CPU node's rows first: its 1 and n threads, four kernels each. */
    const int n = ts_numa_node_cpus(ctx.topo, cpu_nodes[0], cpus, TS_SEC_MAX_CPUS);
    static const char *const facts[] = { "copy_best_mbs",     "scale_best_mbs", "add_best_mbs", "triad_best_mbs",
                                         "triad_1t_best_mbs", "check_errors",   "array_bytes" };
    check_table(&s, rows, facts, 7);
    CHECK(ts_section_fact(&s, "check_errors") == 0 && strstr(s.note, "check passed"), "STREAM's check: %s", s.note);
    if (n_mem == 1)
        CHECK(isnan(ts_section_fact(&s, "triad_remote_ratio")) && strstr(s.note, "one memory node"),
              "one node, yet a remote ratio %g", ts_section_fact(&s, "triad_remote_ratio"));
    else
        CHECK(isfinite(ts_section_fact(&s, "triad_remote_ratio")), "%d memory nodes, no remote ratio", n_mem);
    const int kernel = ts_section_column(&s, "kernel");
    static const char *names[] = { "Copy", "Scale", "Add", "Triad" };
    static const double bytes[] = { 16, 16, 24, 24 };
    for (int r = 0; r < s.n_rows; r++) {
        CHECK(strcmp(s.cols[kernel].text[r], names[r % 4]) == 0, "row %d is %s", r, s.cols[kernel].text[r]);
        CHECK(cell(&s, "bytes_per_elem", r) == bytes[r % 4], "row %d: %g B/element", r, cell(&s, "bytes_per_elem", r));
        const double mbs = 1e-6 * bytes[r % 4] * cell(&s, "array_bytes", r) / 8 / cell(&s, "min_time", r);
        CHECK(fabs(cell(&s, "best_mbs", r) - mbs) <= 1e-9 * mbs, "row %d: %g MB/s, the min time makes %g", r,
              cell(&s, "best_mbs", r), mbs);
        CHECK(cell(&s, "min_time", r) <= cell(&s, "avg_time", r) && cell(&s, "avg_time", r) <= cell(&s, "max_time", r),
              "row %d: min %g avg %g max %g", r, cell(&s, "min_time", r), cell(&s, "avg_time", r),
              cell(&s, "max_time", r));
        CHECK(cell(&s, "gbs_median", r) * 1e3 <= cell(&s, "best_mbs", r) * (1 + 1e-9), "row %d: median above best", r);
        CHECK(cell(&s, "check_errors", r) == 0 && cell(&s, "trials", r) == 3, "row %d: %g off, %g trials", r,
              cell(&s, "check_errors", r), cell(&s, "trials", r));
        if (r < 4 * (n > 1 ? 2 : 1))
            CHECK(cell(&s, "threads", r) == (r < 4 ? 1 : n), "row %d: %g threads", r, cell(&s, "threads", r));
    }
    if (n_cpu == 1 && n_mem == 1)
        CHECK(ts_section_fact(&s, "triad_best_mbs") == cell(&s, "best_mbs", s.n_rows - 1),
              "triad_best_mbs %g is not the all-core local Triad row's %g", ts_section_fact(&s, "triad_best_mbs"),
              cell(&s, "best_mbs", s.n_rows - 1));
    ts_section_free(&s);
}

static void scaling(void)
{
    struct ts_section_ctx ctx = { .topo = topology(), .quick = 0, .scale = 0.01 };
    struct ts_survey_section s;
    struct ts_error err = { 0 };
    ts_section_init(&s, ts_section_scaling.name, ts_section_scaling.title);
    CHECK(ts_section_scaling.estimate(&ctx) > 0, "no estimate");
    REQUIRE(ts_section_scaling.measure(&ctx, &s, &err) == TS_OK, "scaling: %s", err.message);
    int cpus[TS_SEC_MAX_CPUS], cpu_nodes[TS_SEC_MAX_NODES], mem_nodes[TS_SEC_MAX_NODES], n_cpu, n_mem;
    ts_numa_list_nodes(ctx.topo, cpu_nodes, &n_cpu, mem_nodes, &n_mem, TS_SEC_MAX_NODES);
    static const char *const facts[] = { "saturation_cores", "peak_gbs", "domain_cores", "read_saturation_cores",
                                         "read_peak_gbs" };
    if (n_cpu != 1 || n_mem != 1) { /* every domain with memory of its own: read and triad, every core count */
        int rows = 0;
        for (int c = 0; c < n_cpu; c++)
            for (int m = 0; m < n_mem; m++)
                rows += cpu_nodes[c] == mem_nodes[m] ? 2 * ts_numa_node_cpus(ctx.topo, cpu_nodes[c], cpus, 64) : 0;
        check_table(&s, rows, facts, 5);
        ts_section_free(&s);
        return;
    }
    const int n = ts_numa_node_cpus(ctx.topo, cpu_nodes[0], cpus, TS_SEC_MAX_CPUS);
    check_table(&s, 2 * n, facts, 5);
    CHECK(ts_section_fact(&s, "domain_cores") == n, "domain_cores %g, the node has %d",
          ts_section_fact(&s, "domain_cores"), n); /* --full: every core count, read and triad */
    /* The facts from the rows: triad's rows are the second n. */
    double peak = 0;
    int sat = 0;
    for (int r = n; r < 2 * n; r++)
        peak = cell(&s, "gbs", r) > peak ? cell(&s, "gbs", r) : peak;
    for (int r = n; r < 2 * n && !sat; r++)
        if (cell(&s, "gbs", r) >= 0.9 * peak)
            sat = (int)cell(&s, "cores", r);
    CHECK(ts_section_fact(&s, "peak_gbs") == peak && ts_section_fact(&s, "saturation_cores") == sat,
          "peak %g GB/s at 90%% with %g cores; the rows say %g, %d", ts_section_fact(&s, "peak_gbs"),
          ts_section_fact(&s, "saturation_cores"), peak, sat);
    for (int r = 0; r < s.n_rows; r++)
        CHECK(cell(&s, "of_peak", r) <= 1.0 && cell(&s, "cores", r) == 1 + r % n
                  && cell(&s, "gbs_median", r) <= cell(&s, "gbs", r),
              "row %d: %g of the peak, %g cores, median %g best %g", r, cell(&s, "of_peak", r), cell(&s, "cores", r),
              cell(&s, "gbs_median", r), cell(&s, "gbs", r));
    ts_section_free(&s);
}

int main(void)
{
    plan();
    stream();
    scaling();
    return ts_test_finish();
}

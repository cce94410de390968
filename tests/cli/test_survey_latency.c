/* The survey's loaded_latency and c2c sections (app/survey_sec_loaded_latency.c,
 * app/survey_sec_c2c.c) measured at a tiny scale on this machine: every table complete (a row
 * per point or per ordered pair, numbers finite where measured), plots naming existing columns,
 * the facts present, the pages placed on the node asked. No timing threshold: the numbers are
 * checked for sanity, not for speed. */
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "survey_sections.h"
#include "ts_section.h"
#include "ts_test.h"

static const double *column(const struct ts_survey_section *s, const char *name)
{
    int c = ts_section_column(s, name);
    REQUIRE(c >= 0 && !s->cols[c].is_text, "%s: no column of numbers '%s'", s->name, name);
    return s->cols[c].num;
}

static void plots_name_columns(const struct ts_survey_section *s)
{
    CHECK(s->n_plots >= 1, "%s: no plot", s->name);
    for (int i = 0; i < s->n_plots; i++) {
        const struct ts_section_plot *p = &s->plots[i];
        CHECK(ts_section_column(s, p->x) >= 0 && ts_section_column(s, p->y) >= 0, "%s plot %d: x '%s' or y '%s'",
              s->name, i, p->x, p->y);
        CHECK(!p->series[0] || ts_section_column(s, p->series) >= 0, "%s plot %d: series '%s'", s->name, i, p->series);
        CHECK(!p->value[0] || ts_section_column(s, p->value) >= 0, "%s plot %d: value '%s'", s->name, i, p->value);
        char b[sizeof p->boundaries];
        snprintf(b, sizeof b, "%s", p->boundaries);
        for (char *tok = strtok(b, ","); tok; tok = strtok(NULL, ","))
            CHECK(ts_section_column(s, tok) >= 0, "%s plot %d: boundary '%s'", s->name, i, tok);
    }
}

static int has_fact(const struct ts_survey_section *s, const char *key)
{
    for (int i = 0; i < s->n_facts; i++)
        if (strcmp(s->facts[i].key, key) == 0)
            return 1;
    return 0;
}

/* The scale and --quick the sections run at: 0.01 and quick, or argv's (by hand: "1 1" times
 * --quick at full size against its estimate). */
static double scale = 0.01;
static int quick = 1;

static void run(const struct ts_section_def *def, const ts_topology *topo, struct ts_survey_section *s)
{
    struct ts_section_ctx ctx = { .topo = topo, .quick = quick, .scale = scale };
    struct ts_error err = { 0 };
    ts_section_init(s, def->name, def->title);
    double guess = def->estimate(&ctx);
    CHECK(isfinite(guess) && guess > 0, "%s: estimate %g s", def->name, guess);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    REQUIRE(def->measure(&ctx, s, &err) == TS_OK, "%s: %s", def->name, err.message);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%s (estimate %.3f s, took %.3f s): %s | %s\n", def->name, guess,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), s->summary, s->note);
    plots_name_columns(s);
    CHECK(s->summary[0], "%s: no summary", def->name);
}

static void loaded_latency(const ts_topology *topo)
{
    struct ts_survey_section s;
    run(&ts_section_loaded_latency, topo, &s);
    const double *cpu = column(&s, "cpu_node"), *mem = column(&s, "mem_node"), *delay = column(&s, "delay");
    const double *gbs = column(&s, "injected_gbs"), *ns = column(&s, "latency_ns");
    int idle = 0, loaded = 0;
    for (int r = 0; r < s.n_rows && scale >= 1.0; r++) /* by hand: the curve */
        printf("  cpu %g mem %g delay %g: %.2f GB/s, %.1f ns\n", cpu[r], mem[r], delay[r], gbs[r], ns[r]);
    for (int r = 0; r < s.n_rows; r++) {
        CHECK(cpu[r] >= 0 && mem[r] >= 0, "row %d: nodes %g, %g", r, cpu[r], mem[r]);
        CHECK(isfinite(ns[r]) && ns[r] > 0, "row %d: latency %g ns", r, ns[r]);
        CHECK(isfinite(gbs[r]) && gbs[r] >= 0, "row %d: injected %g GB/s", r, gbs[r]);
        idle += delay[r] < 0 && gbs[r] == 0;
        loaded += delay[r] >= 0 && gbs[r] > 0;
    }
    const int cpus = numa_available() < 0 ? 2 : numa_num_task_cpus();
    CHECK(idle >= 1, "no idle point");
    /* The tiny scale's delays: the idle point and two loaded ones a curve, with a core to spare. */
    CHECK(cpus < 2 || loaded >= 2, "%d loaded points with %d CPUs", loaded, cpus);
    CHECK(has_fact(&s, "idle_local_ns") && isfinite(ts_section_fact(&s, "idle_local_ns")), "idle_local_ns");
    CHECK(has_fact(&s, "loaded_local_ns") && (cpus < 2 || isfinite(ts_section_fact(&s, "loaded_local_ns"))),
          "loaded_local_ns");
    CHECK(has_fact(&s, "remote_extra_ns"), "remote_extra_ns absent");
    if (numa_available() >= 0 && numa_num_configured_nodes() == 1)
        CHECK(s.placed_fraction == 1.0 && !s.misplaced, "placed fraction %g, misplaced %d", s.placed_fraction,
              s.misplaced);
    ts_section_free(&s);
}

static void c2c(const ts_topology *topo)
{
    struct ts_survey_section s;
    run(&ts_section_c2c, topo, &s);
    const double *a = column(&s, "cpu_a"), *b = column(&s, "cpu_b"), *ns = column(&s, "latency_ns");
    int n = 0;
    while (n * n < s.n_rows)
        n++;
    CHECK(n * n == s.n_rows, "%d rows: not a square of CPUs", s.n_rows);
    for (int r = 0; r < s.n_rows; r++) {
        if (a[r] == b[r])
            CHECK(isnan(ns[r]), "the diagonal (%g, %g) holds %g", a[r], b[r], ns[r]);
        else
            CHECK(isfinite(ns[r]) && ns[r] > 0, "pair (%g, %g): %g ns", a[r], b[r], ns[r]);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            CHECK(memcmp(&ns[i * n + j], &ns[j * n + i], sizeof(double)) == 0, "(%d, %d) differs from (%d, %d)", i, j,
                  j, i);
    static const char *const facts[] = { "smt_ns", "same_llc_ns", "cross_llc_ns", "cross_node_ns", "all_pairs_ns" };
    for (int i = 0; i < 5; i++)
        CHECK(has_fact(&s, facts[i]), "c2c: fact %s absent", facts[i]);
    CHECK(n < 2 || isfinite(ts_section_fact(&s, "all_pairs_ns")), "c2c: all_pairs_ns %g",
          ts_section_fact(&s, "all_pairs_ns"));
    ts_section_free(&s);
}

int main(int argc, char **argv)
{
    if (argc == 3) {
        scale = atof(argv[1]);
        quick = atoi(argv[2]);
    }
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "cannot load the topology: %s", err.message);
    loaded_latency(topo);
    c2c(topo);
    ts_topology_destroy(topo);
    return ts_test_finish();
}

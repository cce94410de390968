/* The survey's sweep and mixes sections (app/survey_sec_sweep.c, app/survey_sec_mixes.c):
 * the cache levels read off synthetic staircases (the rule of docs/survey.md, "sweep"), and
 * both sections measured at a tiny scale: every row filled with finite numbers, the plots
 * naming columns that exist, the facts present, every buffer on the node asked for. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "survey_sec_sweep.h"
#include "survey_sections.h"
#include "ts_section.h"
#include "ts_test.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* A staircase: level[k] below edge[k] bytes (k < levels), then level[levels], sampled by ratio
 * from 16 KiB to top; a cyclic sweep falls right past a cache's size. */
static int staircase(double *x, double *y, double ratio, double top, const double *edge, const double *level,
                     int levels)
{
    int n = 0;
    for (double w = 16 * KIB; w <= top; w *= ratio, n++) {
        int k = 0;
        while (k < levels && w > edge[k])
            k++;
        x[n] = w;
        y[n] = level[k];
    }
    return n;
}

static int within(double v, double want, double tolerance)
{
    return isfinite(v) && fabs(v / want - 1.0) <= tolerance;
}

static void infers_three_levels(void)
{
    static const double edge[] = { 48 * KIB, 1 * MIB, 32 * MIB }, level[] = { 400, 150, 60, 20 };
    double x[256], y[256];
    for (double ratio = sqrt(2.0); ratio > 1.1; ratio = pow(2.0, 0.25) - (ratio < 1.3) * 1) {
        int n = staircase(x, y, ratio, 256 * MIB, edge, level, 3);
        struct ts_sweep_levels lv;
        ts_sweep_infer(x, y, n, &lv);
        /* The size is known to a step of the sweep: within a ratio of it. */
        CHECK(within(lv.l1, 48 * KIB, ratio - 1), "ratio %.3f: L1 %.0f, not 48 KiB", ratio, lv.l1);
        CHECK(within(lv.l2, 1 * MIB, ratio - 1), "ratio %.3f: L2 %.0f, not 1 MiB", ratio, lv.l2);
        CHECK(within(lv.llc, 32 * MIB, ratio - 1), "ratio %.3f: LLC %.0f, not 32 MiB", ratio, lv.llc);
        CHECK(lv.reached_memory && lv.plateaus == 4 && lv.why[0] == '\0', "ratio %.3f: 4 plateaus, memory reached",
              ratio);
        CHECK(lv.first_gbs == 400 && lv.last_gbs == 20, "ratio %.3f: levels", ratio);
    }
}

/* One point slowed by half (a busy machine) makes no step. */
static void ignores_one_slow_point(void)
{
    static const double edge[] = { 32 * KIB, 512 * KIB, 16 * MIB }, level[] = { 300, 120, 50, 15 };
    double x[256], y[256];
    int n = staircase(x, y, sqrt(2.0), 256 * MIB, edge, level, 3);
    y[8] *= 0.5;
    struct ts_sweep_levels lv;
    ts_sweep_infer(x, y, n, &lv);
    CHECK(within(lv.l1, 32 * KIB, 0.42) && within(lv.l2, 512 * KIB, 0.42) && within(lv.llc, 16 * MIB, 0.42),
          "a slow point: L1 %.0f L2 %.0f LLC %.0f", lv.l1, lv.l2, lv.llc);
}

/* A curve still falling at its end: the LLC is not told, and why says so. */
static void llc_past_the_sweep(void)
{
    static const double edge[] = { 48 * KIB, 1 * MIB, 150 * MIB }, level[] = { 400, 150, 60, 20 };
    double x[256], y[256];
    int n = staircase(x, y, sqrt(2.0), 256 * MIB, edge, level, 3);
    struct ts_sweep_levels lv;
    ts_sweep_infer(x, y, n, &lv);
    CHECK(isnan(lv.llc) && !lv.reached_memory && strstr(lv.why, "LLC") != NULL, "LLC past the sweep: %.0f (%s)", lv.llc,
          lv.why);
    CHECK(within(lv.l1, 48 * KIB, 0.42), "L1 still found: %.0f", lv.l1);
    double flat[3] = { 10, 10, 10 }, xs[3] = { 16 * KIB, 32 * KIB, 64 * KIB };
    ts_sweep_infer(xs, flat, 3, &lv);
    CHECK(isnan(lv.l1) && isnan(lv.llc) && lv.why[0], "a flat curve: nothing inferred (%s)", lv.why);
}

static void inferred_llc_read_back(void)
{
    struct ts_survey_section sec[2];
    ts_section_init(&sec[0], "stream", "x");
    ts_section_init(&sec[1], "sweep", "y");
    struct ts_survey_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.n_sections = 2;
    rec.sections = sec;
    CHECK(ts_survey_inferred_llc(&rec) == 0, "no fact: 0");
    ts_section_set_fact(&sec[1], "llc_bytes", 33554432.0, "B");
    CHECK(ts_survey_inferred_llc(&rec) == 0, "a sweep not sure of its LLC: 0");
    ts_section_set_fact(&sec[1], "llc_sure", 1.0, "");
    CHECK(ts_survey_inferred_llc(&rec) == 33554432, "the sweep's llc_bytes, sure of it");
    ts_section_set_fact(&sec[1], "llc_bytes", NAN, "B");
    CHECK(ts_survey_inferred_llc(&rec) == 0, "NaN: 0");
    CHECK(ts_survey_inferred_llc(NULL) == 0, "no survey: 0");
    ts_section_free(&sec[0]);
    ts_section_free(&sec[1]);
}

static void table_complete(const struct ts_survey_section *s, const char *const *facts)
{
    CHECK(s->n_rows > 0 && s->n_cols > 0, "%s: rows %d, columns %d", s->name, s->n_rows, s->n_cols);
    for (int c = 0; c < s->n_cols; c++)
        for (int r = 0; r < s->n_rows && !s->cols[c].is_text; r++)
            CHECK(isfinite(s->cols[c].num[r]), "%s: %s[%d] is not finite", s->name, s->cols[c].name, r);
    CHECK(s->n_plots >= 1, "%s: a plot", s->name);
    for (int p = 0; p < s->n_plots; p++) {
        const struct ts_section_plot *pl = &s->plots[p];
        CHECK(ts_section_column(s, pl->x) >= 0 && ts_section_column(s, pl->y) >= 0
                  && (!pl->series[0] || ts_section_column(s, pl->series) >= 0),
              "%s: plot %d names columns that exist", s->name, p);
    }
    for (int f = 0; facts[f]; f++) {
        int found = 0;
        for (int i = 0; i < s->n_facts; i++)
            found |= strcmp(s->facts[i].key, facts[f]) == 0;
        CHECK(found, "%s: fact %s", s->name, facts[f]);
    }
    CHECK(s->summary[0] != '\0', "%s: a summary", s->name);
    CHECK(s->placed_fraction == 1.0 && !s->misplaced, "%s: placed %.3f on this one-node machine", s->name,
          s->placed_fraction);
}

static void measured(const struct ts_section_def *def, const char *const *facts)
{
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology: %s", err.message);
    const struct ts_section_ctx ctx = { .topo = topo, .quick = 1, .scale = 0.01 };
    struct ts_survey_section s;
    ts_section_init(&s, def->name, def->title);
    CHECK(def->estimate(&ctx) > 0 && def->estimate(&ctx) < 5, "%s: estimate %.2f s", def->name, def->estimate(&ctx));
    CHECK(def->measure(&ctx, &s, &err) == TS_OK, "%s: %s", def->name, err.message);
    table_complete(&s, facts);
    if (strcmp(def->name, "mixes") == 0) {
        int col = ts_section_column(&s, "stores");
        int nt = 0;
        for (int r = 0; col >= 0 && r < s.n_rows; r++)
            nt += strcmp(s.cols[col].text[r], "non-temporal") == 0;
        CHECK(s.n_rows == 9 && nt == 4, "mixes: 5 mixes, 4 with non-temporal stores too (%d rows)", s.n_rows);
    }
    ts_section_free(&s);
    ts_topology_destroy(topo);
}

/* test_survey_sweep show NAME SCALE [full]: measures one section and prints its table, facts
 * and time (by hand, for sizes and estimates; no verdict); estimate NAME SCALE [full] prints
 * the section's estimate. */
static int show(const char *name, double scale, int quick)
{
    const struct ts_section_def *def = strcmp(name, "sweep") == 0 ? &ts_section_sweep : &ts_section_mixes;
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology: %s", err.message);
    const struct ts_section_ctx ctx = { .topo = topo, .quick = quick, .scale = scale };
    struct ts_survey_section s;
    ts_section_init(&s, def->name, def->title);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = def->measure(&ctx, &s, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int r = 0; status == TS_OK && r < s.n_rows; r++) {
        for (int c = 0; c < s.n_cols; c++)
            if (s.cols[c].is_text)
                printf("%s%s", c ? " | " : "", s.cols[c].text[r]);
            else
                printf("%s%s=%.6g", c ? " | " : "", s.cols[c].name, s.cols[c].num[r]);
        printf("\n");
    }
    for (int f = 0; f < s.n_facts; f++)
        printf("fact %s = %.6g %s\n", s.facts[f].key, s.facts[f].value, s.facts[f].unit);
    printf("summary: %s\nnote: %s\nplaced %.3f; %.2f s (estimate %.2f s)%s%s\n", s.summary, s.note, s.placed_fraction,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), def->estimate(&ctx),
           status == TS_OK ? "" : "; failed: ", status == TS_OK ? "" : err.message);
    ts_section_free(&s);
    ts_topology_destroy(topo);
    return status == TS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "estimate") == 0) { /* estimate NAME SCALE [full]: seconds */
        ts_topology *topo = NULL;
        struct ts_error err = { 0 };
        REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology: %s", err.message);
        const struct ts_section_ctx ctx = { .topo = topo,
                                            .quick = !(argc > 4 && strcmp(argv[4], "full") == 0),
                                            .scale = atof(argv[3]) };
        printf("%.2f\n", (strcmp(argv[2], "sweep") == 0 ? &ts_section_sweep : &ts_section_mixes)->estimate(&ctx));
        ts_topology_destroy(topo);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "show") == 0)
        return show(argv[2], atof(argv[3]), !(argc > 4 && strcmp(argv[4], "full") == 0));
    infers_three_levels();
    ignores_one_slow_point();
    llc_past_the_sweep();
    inferred_llc_read_back();
    static const char *const sweep_facts[] = { "l1_bytes",      "l2_bytes",    "llc_bytes", "l1_bytes_all",
                                               "llc_bytes_all", "threads_all", NULL };
    static const char *const mixes_facts[] = { "read_gbs", "write_gbs", "nt_gain", NULL };
    measured(&ts_section_sweep, sweep_facts);
    measured(&ts_section_mixes, mixes_facts);
    return ts_test_finish();
}

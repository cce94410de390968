/* The survey's core-to-core section (issue 26; docs/survey.md "c2c"): one-way latency of a cache
 * line bounced between every pair of allowed CPUs (SMT siblings included), measured by
 * topo/ts_c2c.h with kernels/ts_pingpong.h, with each CPU's core, last-level cache, NUMA node and
 * package beside it for the heat map's boundaries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey_sections.h"
#include "ts_c2c.h"
#include "ts_pingpong.h"
#include "ts_section.h"
#include "ts_stats.h"

/* A guess of one round trip (two transfers of the line) for the estimate. */
#define GUESS_ROUND_TRIP_S 200e-9
/* --quick: the pairs together take at most about this long; past it a pair's time shrinks to
 * QUICK_PAIR_FLOOR seconds, and past that only every k-th pair is measured. */
#define QUICK_SECONDS 4.0
#define QUICK_PAIR_FLOOR 0.002
/* --full: every pair, each given FULL_SECONDS / pairs, within these bounds. */
#define FULL_SECONDS 120.0
#define FULL_PAIR_FLOOR 0.01
#define FULL_PAIR_CEILING 0.25

static void ping_reset(void *line)
{
    ts_pingpong_reset(line);
}

static uint64_t ping(void *line, uint64_t rounds)
{
    return ts_pingpong_ping(line, rounds);
}

static uint64_t answer(void *line)
{
    return ts_pingpong_answer(line);
}

static void stop(void *line)
{
    ts_pingpong_stop(line);
}

static void options_for(const struct ts_section_ctx *ctx, int64_t pairs, struct ts_c2c_options *o)
{
    memset(o, 0, sizeof *o);
    o->stride = 1;
    if (ctx->scale < 1.0) {
        o->rounds = 200;
        o->samples = 5;
        o->sample_seconds = 1e-4;
        o->seconds_per_pair = 0.01;
        return;
    }
    o->rounds = 1000;
    o->sample_seconds = 2e-4;
    if (ctx->quick) {
        o->samples = 31;
        o->seconds_per_pair = pairs > 0 ? QUICK_SECONDS / (double)pairs : 0.1;
        if (o->seconds_per_pair > 0.1)
            o->seconds_per_pair = 0.1;
        if (o->seconds_per_pair < QUICK_PAIR_FLOOR) {
            o->seconds_per_pair = QUICK_PAIR_FLOOR;
            o->stride = (int64_t)ceil((double)pairs * QUICK_PAIR_FLOOR / QUICK_SECONDS);
        }
        return;
    }
    o->samples = 101;
    o->seconds_per_pair = pairs > 0 ? FULL_SECONDS / (double)pairs : FULL_PAIR_CEILING;
    if (o->seconds_per_pair > FULL_PAIR_CEILING)
        o->seconds_per_pair = FULL_PAIR_CEILING;
    if (o->seconds_per_pair < FULL_PAIR_FLOOR)
        o->seconds_per_pair = FULL_PAIR_FLOOR;
}

/* One pair's time: its samples, each the shorter of its rounds and its target, within the bound;
 * plus rebinding the two threads. */
static double pair_seconds(const struct ts_c2c_options *o)
{
    double sample = (double)o->rounds * GUESS_ROUND_TRIP_S;
    if (sample > o->sample_seconds)
        sample = o->sample_seconds;
    double t = (double)o->samples * sample;
    return (t > o->seconds_per_pair ? o->seconds_per_pair + sample : t) + 50e-6;
}

static double estimate(const struct ts_section_ctx *ctx)
{
    struct ts_c2c c;
    struct ts_error err = { 0 };
    if (ts_c2c_cpus(ctx->topo, &c, &err) != TS_OK)
        return 0.0;
    struct ts_c2c_options o;
    options_for(ctx, c.pairs, &o);
    const double pairs = (double)((c.pairs + o.stride - 1) / o.stride);
    ts_c2c_free(&c);
    return 0.02 + pairs * pair_seconds(&o); /* the team of two threads started once */
}

enum relation { SELF, SMT, SAME_LLC, CROSS_LLC, SAME_NODE, CROSS_NODE, N_RELATIONS };
static const char *const relation_names[N_RELATIONS] = { "self",      "smt",       "same_llc",
                                                         "cross_llc", "same_node", "cross_node" };

/* How two CPUs share: the innermost domain they have in common. same_node: a node's pairs when
 * hwloc shows no cache to tell same_llc from cross_llc. */
static enum relation relation_of(const struct ts_c2c *c, const struct ts_c2c_cpu *a, const struct ts_c2c_cpu *b)
{
    if (a == b)
        return SELF;
    if (a->core >= 0 && a->core == b->core)
        return SMT;
    if (c->llc_level > 0 && a->llc >= 0 && a->llc == b->llc)
        return SAME_LLC;
    if (a->node == b->node)
        return c->llc_level > 0 ? CROSS_LLC : SAME_NODE;
    return CROSS_NODE;
}

/* The median of each relation's measured pairs (each pair once), NaN where none. */
static void medians(const struct ts_c2c *c, double med[N_RELATIONS], double *all)
{
    const size_t pairs = (size_t)(c->pairs > 0 ? c->pairs : 1);
    double *v = malloc(pairs * sizeof *v), *w = malloc(pairs * sizeof *w);
    *all = NAN;
    for (int r = 0; r < N_RELATIONS; r++)
        med[r] = NAN;
    if (!v || !w) {
        free(v);
        free(w);
        return;
    }
    size_t n_all = 0;
    for (int r = 0; r < N_RELATIONS; r++) {
        size_t n = 0;
        for (int i = 0; i < c->n; i++)
            for (int j = i + 1; j < c->n; j++) {
                double ns = c->ns[(size_t)i * (size_t)c->n + (size_t)j];
                if (isnan(ns) || relation_of(c, &c->cpus[i], &c->cpus[j]) != (enum relation)r)
                    continue;
                v[n++] = ns;
                w[n_all++] = ns;
            }
        if (n > 0) {
            qsort(v, n, sizeof *v, ts_compare_doubles);
            med[r] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        }
    }
    if (n_all > 0) {
        qsort(w, n_all, sizeof *w, ts_compare_doubles);
        *all = n_all % 2 ? w[n_all / 2] : 0.5 * (w[n_all / 2 - 1] + w[n_all / 2]);
    }
    free(v);
    free(w);
}

static void append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    if (used < size)
        snprintf(buf + used, size - used, "%s%s", used ? "; " : "", text);
}

static void conclude(struct ts_survey_section *out, const struct ts_c2c *c, const struct ts_c2c_options *o)
{
    double med[N_RELATIONS], all;
    medians(c, med, &all);
    ts_section_set_fact(out, "smt_ns", med[SMT], "ns");
    ts_section_set_fact(out, "same_llc_ns", med[SAME_LLC], "ns");
    ts_section_set_fact(out, "cross_llc_ns", med[CROSS_LLC], "ns");
    ts_section_set_fact(out, "cross_node_ns", med[CROSS_NODE], "ns");
    ts_section_set_fact(out, "same_node_ns", med[SAME_NODE], "ns");
    ts_section_set_fact(out, "all_pairs_ns", all, "ns");
    ts_section_set_fact(out, "pairs_measured", (double)c->pairs_measured, "");
    char s[512];
    int len = snprintf(s, sizeof s, "one-way %.1f ns, the median of %lld pair(s) of %d CPUs", all,
                       (long long)c->pairs_measured, c->n);
    static const char *const labels[N_RELATIONS] = { "", "SMT", "same LLC", "cross LLC", "same node", "cross node" };
    for (int r = SMT; r < N_RELATIONS && len < (int)sizeof s; r++)
        if (isfinite(med[r]))
            len += snprintf(s + len, sizeof s - (size_t)len, "; %s %.1f ns", labels[r], med[r]);
    snprintf(out->summary, sizeof out->summary, "%s", s);
    char line[256];
    if (c->n < 2)
        append(out->note, sizeof out->note, "one CPU: no pair to measure");
    if (o->stride > 1) {
        snprintf(line, sizeof line,
                 "--quick: every %lld-th pair measured (%lld of %lld), the others NaN; --full measures all",
                 (long long)o->stride, (long long)c->pairs_measured, (long long)c->pairs);
        append(out->note, sizeof out->note, line);
    }
    if (isnan(med[SMT]))
        append(out->note, sizeof out->note, "no SMT siblings: smt_ns NaN");
    if (c->llc_level == 0)
        append(out->note, sizeof out->note,
               "hwloc shows no cache: same_llc_ns and cross_llc_ns NaN, a node's pairs are same_node");
    if (isnan(med[CROSS_NODE]))
        append(out->note, sizeof out->note, "one NUMA node: cross_node_ns NaN");
}

static int tabulate(struct ts_survey_section *out, const struct ts_c2c *c, struct ts_error *err)
{
    static const char *const names[] = { "cpu_a",  "cpu_b",     "latency_ns", "package_a", "node_a", "llc_a",
                                         "core_a", "package_b", "node_b",     "llc_b",     "core_b" };
    int col[11];
    for (int i = 0; i < 11; i++)
        if ((col[i] = ts_section_num(out, names[i], i == 2 ? "ns" : "", err)) < 0)
            return TS_INTERNAL_ERROR;
    int c_rel = ts_section_text(out, "relation", err);
    if (c_rel < 0)
        return TS_INTERNAL_ERROR;
    if ((int64_t)c->n * c->n > TS_SECTION_MAX_ROWS)
        return ts_fail(err, TS_INTERNAL_ERROR, "core-to-core latency: %d CPUs, more pairs than a table holds", c->n);
    int status = ts_section_rows(out, c->n * c->n, err);
    if (status != TS_OK)
        return status;
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < c->n; j++) {
            const int r = i * c->n + j;
            const struct ts_c2c_cpu *a = &c->cpus[i], *b = &c->cpus[j];
            const double v[11] = { a->cpu,  b->cpu,     c->ns[r], a->package, a->node, a->llc,
                                   a->core, b->package, b->node,  b->llc,     b->core };
            for (int k = 0; k < 11; k++)
                ts_section_set(out, col[k], r, v[k]);
            ts_section_set_text(out, c_rel, r, relation_names[relation_of(c, a, b)]);
        }
    struct ts_section_plot *plot =
        ts_section_add_plot(out, TS_SECTION_HEAT, "Core-to-core latency, one way (ns)", "cpu_b", "cpu_a");
    if (plot) {
        snprintf(plot->value, sizeof plot->value, "latency_ns");
        snprintf(plot->boundaries, sizeof plot->boundaries, "package_a,node_a,llc_a,core_a");
    }
    return TS_OK;
}

static int measure(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err)
{
    const struct ts_c2c_probes probes = {
        .line_bytes = sizeof(struct ts_pingpong),
        .reset = ping_reset,
        .ping = ping,
        .answer = answer,
        .stop = stop,
    };
    struct ts_c2c cpus;
    int status = ts_c2c_cpus(ctx->topo, &cpus, err);
    if (status != TS_OK)
        return status;
    struct ts_c2c_options o;
    options_for(ctx, cpus.pairs, &o);
    ts_c2c_free(&cpus);
    struct ts_c2c c;
    status = ts_c2c_measure(ctx->topo, &probes, &o, &c, err);
    if (status != TS_OK)
        return status;
    status = tabulate(out, &c, err);
    if (status == TS_OK)
        conclude(out, &c, &o);
    ts_c2c_free(&c);
    return status;
}

const struct ts_section_def ts_section_c2c = {
    .name = "c2c",
    .title = "Core-to-core latency: a cache line bounced between every pair of CPUs",
    .estimate = estimate,
    .measure = measure,
};

/* The table of the survey's sections, in the order they run (a section that others read, the
 * working-set sweep's cache sizes, comes before them), and the runner that records around each
 * what every section records. */
#include "survey_sections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ts_conditions.h"
#include "ts_disturbed.h"
#include "ts_machine.h"
#include "ts_section.h"
#include "ts_summary.h"

const struct ts_section_def *const ts_survey_section_defs[] = {
    &ts_section_sweep,
    &ts_section_stream,
    &ts_section_scaling,
    &ts_section_mixes,
    &ts_section_loaded_latency,
    &ts_section_c2c,
    NULL,
};

static const struct ts_section_def *def_named(const char *name, size_t len)
{
    for (int i = 0; ts_survey_section_defs[i]; i++)
        if (strlen(ts_survey_section_defs[i]->name) == len && strncmp(ts_survey_section_defs[i]->name, name, len) == 0)
            return ts_survey_section_defs[i];
    return NULL;
}

/* 1 when list (NULL: every section) names name. */
static int named(const char *list, const char *name)
{
    if (!list)
        return 1;
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p += n;
        p += *p == ',';
    }
    return 0;
}

int ts_survey_sections_check(const char *list, struct ts_error *err)
{
    char known[512] = "";
    for (int i = 0; ts_survey_section_defs[i]; i++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", ts_survey_section_defs[i]->name);
    }
    if (!list[0])
        return ts_fail(err, TS_BAD_INPUT, "survey: --sections needs names (of: %s)", known[0] ? known : "none yet");
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (!def_named(p, n))
            return ts_fail(err, TS_BAD_INPUT, "survey: --sections: '%.*s' is not a section (the sections: %s)", (int)n,
                           p, known[0] ? known : "none yet");
        for (const char *q = p + n + (p[n] == ','); *q;) { /* each once */
            size_t m = strcspn(q, ",");
            if (m == n && strncmp(p, q, n) == 0)
                return ts_fail(err, TS_BAD_INPUT, "survey: --sections names '%.*s' twice", (int)n, p);
            q += m;
            q += *q == ',';
        }
        p += n;
        if (*p == ',' && !p[1])
            return ts_fail(err, TS_BAD_INPUT, "survey: --sections ends with a comma");
        p += *p == ',';
    }
    return TS_OK;
}

int ts_survey_sections_missing(const struct ts_survey_rec *s)
{
    int n = 0;
    for (int i = 0; ts_survey_section_defs[i]; i++)
        n += !ts_survey_section_of(s, ts_survey_section_defs[i]->name);
    return n;
}

static int to_measure(const struct ts_section_def *d, const char *only, const struct ts_survey_rec *s)
{
    return only ? named(only, d->name) : !ts_survey_section_of(s, d->name);
}

double ts_survey_sections_estimate(const struct ts_section_ctx *ctx, const struct ts_survey_rec *s, const char *only)
{
    double total = 0.0;
    for (int i = 0; ts_survey_section_defs[i]; i++)
        if (to_measure(ts_survey_section_defs[i], only, s))
            total += ts_survey_section_defs[i]->estimate(ctx);
    return total;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void append(char *buf, size_t size, const char *key, const char *value)
{
    size_t used = strlen(buf);
    if (used < size)
        snprintf(buf + used, size - used, "%s%s=%s", used ? "; " : "", key, value);
}

/* What the node was like: the conditions that distort memory numbers, then (judge) whether
 * other processes took the CPUs while the section ran. */
static void record_conditions(struct ts_survey_section *sec)
{
    struct ts_conditions c;
    ts_conditions_read(NULL, NULL, &c);
    sec->conditions[0] = '\0';
    append(sec->conditions, sizeof sec->conditions, "thp", c.thp_enabled);
    append(sec->conditions, sizeof sec->conditions, "thp_defrag", c.thp_defrag);
    append(sec->conditions, sizeof sec->conditions, "numa_balancing", c.numa_balancing);
    append(sec->conditions, sizeof sec->conditions, "governor", c.governor);
    append(sec->conditions, sizeof sec->conditions, "cpu_mhz", c.cpu_mhz);
    append(sec->conditions, sizeof sec->conditions, "smt_active", c.smt_active);
    append(sec->conditions, sizeof sec->conditions, "load", c.load_average);
}

static void judge(struct ts_survey_section *sec, const struct ts_machine_watch *w, int watched)
{
    struct ts_machine_rec m;
    if (!watched || w->n_cpus <= 0 || ts_machine_watch_stop(w, &m) != 0)
        return;
    /* The section's threads are this process's: watch_stop already took its CPU time off. */
    struct ts_disturb_facts f;
    ts_disturb_facts_of(w->n_cpus, m.elapsed, 0.0, NAN, &m, &f);
    char why[600];
    sec->disturbed = ts_disturbed(&f, why, sizeof why);
    struct ts_disturb_numbers n;
    ts_disturb_numbers(&f, &n);
    char text[64];
    snprintf(text, sizeof text, "%.1f%%", 100.0 * n.others_share);
    append(sec->conditions, sizeof sec->conditions, "others_share", isnan(n.others_share) ? "unknown" : text);
    if (sec->disturbed > 0) {
        size_t used = strlen(sec->note);
        snprintf(sec->note + used, sizeof sec->note - used, "%sdisturbed: %.400s", used ? "; " : "", why);
    }
}

static void command_of(const struct ts_section_ctx *ctx, const char *mode, struct ts_survey_section *sec)
{
    char scale[64] = "";
    if (ctx->scale < 1.0)
        snprintf(scale, sizeof scale, "TOUCHSTONE_SURVEY_SCALE=%g ", ctx->scale);
    snprintf(sec->command, sizeof sec->command, "%s%s survey --sections %s --%s -o %s", scale, ctx->exe, sec->name,
             mode, ctx->dir);
}

/* The slot of name in s: its old table (emptied) or a new one at the end. */
static struct ts_survey_section *slot(struct ts_survey_rec *s, const char *name, struct ts_error *err)
{
    struct ts_survey_section *old = ts_survey_section_of(s, name);
    if (old) {
        ts_section_free(old);
        return old;
    }
    struct ts_survey_section *grown = realloc(s->sections, (size_t)(s->n_sections + 1) * sizeof *grown);
    if (!grown) {
        ts_fail(err, TS_RESOURCE_ERROR, "survey: out of memory for section %s", name);
        return NULL;
    }
    s->sections = grown;
    memset(&s->sections[s->n_sections], 0, sizeof *grown);
    return &s->sections[s->n_sections++];
}

static int measure_one(struct ts_section_ctx *ctx, const struct ts_sections_run *run, const struct ts_section_def *d,
                       struct ts_survey_rec *s, struct ts_error *err)
{
    fprintf(stderr, "[section] %s (estimate %.0f s) ... ", d->name, d->estimate(ctx));
    fflush(stderr);
    struct ts_survey_section *sec = slot(s, d->name, err);
    if (!sec)
        return TS_RESOURCE_ERROR;
    ts_section_init(sec, d->name, d->title);
    record_conditions(sec);
    struct ts_machine_watch w;
    const int watched = ts_machine_watch_start(&w) == 0;
    const double t0 = now();
    ctx->survey = s;
    int st = d->measure(ctx, sec, err);
    sec->seconds = now() - t0;
    judge(sec, &w, watched);
    if (watched)
        ts_machine_watch_free(&w);
    command_of(ctx, run->mode, sec);
    if (st != TS_OK) {
        fprintf(stderr, "failed\n");
        ts_error_prefix(err, "survey: section %s: ", d->name);
        /* Not kept half-measured: the slot goes, the others keep their order. */
        ts_section_free(sec);
        const long at = sec - s->sections;
        memmove(sec, sec + 1, (size_t)(s->n_sections - 1 - at) * sizeof *sec);
        s->n_sections--;
        return st;
    }
    fprintf(stderr, "%.1f s%s\n", sec->seconds, sec->disturbed > 0 ? " DISTURBED" : "");
    if (!ctx->llc_bytes)
        ctx->llc_bytes = ts_survey_inferred_llc(s);
    return run->save ? run->save(run->save_arg, s, err) : TS_OK;
}

int ts_survey_sections_run(struct ts_section_ctx *ctx, const struct ts_sections_run *run, struct ts_survey_rec *s,
                           struct ts_error *err)
{
    for (int i = 0; ts_survey_section_defs[i]; i++) {
        const struct ts_section_def *d = ts_survey_section_defs[i];
        if (!ctx->llc_bytes && !run->only) /* a resumed survey's sweep counts too */
            ctx->llc_bytes = ts_survey_inferred_llc(s);
        if (!to_measure(d, run->only, s))
            continue;
        if (run->stop && *run->stop)
            return TS_OK;
        int st = measure_one(ctx, run, d, s, err);
        if (st != TS_OK)
            return st;
    }
    return TS_OK;
}

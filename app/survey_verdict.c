#include "survey_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Below this ratio two times are called the same: the spread of a few iterations on a shared
 * machine is of this order (docs/survey.md, "The verdict"). */
#define SAME 1.05

static const struct ts_survey_run *find(const struct ts_survey_rec *s, int group, const char *kernel,
                                        const char *variant, int threads)
{
    for (int i = 0; i < s->n_runs; i++) {
        const struct ts_survey_run *r = &s->runs[i];
        if (r->group == group && r->state == TS_SURVEY_DONE && !isnan(r->time_median) && r->time_median > 0
            && strcmp(r->kernel, kernel) == 0 && (!variant || strcmp(r->variant, variant) == 0)
            && (threads <= 0 || r->threads == threads))
            return r;
    }
    return NULL;
}

static struct ts_survey_sentence *next(struct ts_survey_rec *s)
{
    if (s->n_sentences >= TS_SURVEY_MAX_SENTENCES)
        return NULL;
    struct ts_survey_sentence *t = &s->sentences[s->n_sentences++];
    memset(t, 0, sizeof *t);
    return t;
}

static void addf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void addf(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

static void source(struct ts_survey_sentence *t, const char *name)
{
    addf(t->sources, sizeof t->sources, "%s%s", t->sources[0] ? "," : "", name);
}

static void percent(char *buf, size_t size, double fraction)
{
    if (isnan(fraction))
        snprintf(buf, size, "not audited");
    else
        snprintf(buf, size, "%.0f%%", 100.0 * fraction);
}

/* The kernels of a group's runs, in run order, each once. */
static int kernels_of(const struct ts_survey_rec *s, int group, const char *out[], int max)
{
    int n = 0;
    for (int i = 0; i < s->n_runs; i++) {
        if (s->runs[i].group != group)
            continue;
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= strcmp(out[k], s->runs[i].kernel) == 0;
        if (!seen && n < max)
            out[n++] = s->runs[i].kernel;
    }
    return n;
}

static void init_sentence(struct ts_survey_rec *s)
{
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_INIT, k, 8);
    const struct ts_survey_run *worst_par = NULL, *worst_ser = NULL;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const struct ts_survey_run *par = find(s, TS_SURVEY_INIT, k[i], "parallel", 0);
        const struct ts_survey_run *ser = par ? find(s, TS_SURVEY_INIT, k[i], "serial", par->threads) : NULL;
        if (ser && ser->time_median / par->time_median > worst) {
            worst = ser->time_median / par->time_median;
            worst_par = par;
            worst_ser = ser;
        }
    }
    struct ts_survey_sentence *t = worst_par ? next(s) : NULL;
    if (!t)
        return;
    char lp[32], ls[32];
    percent(lp, sizeof lp, worst_par->local_fraction);
    percent(ls, sizeof ls, worst_ser->local_fraction);
    if (worst >= SAME)
        addf(t->text, sizeof t->text, "Serial init costs %.2fx on %s with %d threads", worst, worst_par->kernel,
             worst_par->threads);
    else
        addf(t->text, sizeof t->text, "Serial init costs nothing measurable on %s with %d threads (%.2fx)",
             worst_par->kernel, worst_par->threads, worst);
    addf(t->text, sizeof t->text,
         ": %.3g s per iteration against %.3g s with parallel init, pages local to their thread %s against %s",
         worst_ser->time_median, worst_par->time_median, ls, lp);
    if (n > 1)
        addf(t->text, sizeof t->text, " (the worst of %d kernels)", n);
    /* One NUMA node (or a kernel that moved the pages): serial init puts them where parallel
     * init does, and whatever it costs is not placement. */
    if (fabs(worst_ser->local_fraction - worst_par->local_fraction) < 0.01)
        addf(t->text, sizeof t->text, "; the pages are as local either way, so that is not placement");
    addf(t->text, sizeof t->text, ".");
    source(t, worst_ser->name);
    source(t, worst_par->name);
}

static void binding_sentence(struct ts_survey_rec *s)
{
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_BINDING, k, 8);
    for (int i = 0; i < n; i++) {
        const struct ts_survey_run *close = find(s, TS_SURVEY_BINDING, k[i], "close", 0);
        const struct ts_survey_run *spread = find(s, TS_SURVEY_BINDING, k[i], "spread", 0);
        const struct ts_survey_run *unbound = find(s, TS_SURVEY_BINDING, k[i], "unbound", 0);
        const struct ts_survey_run *stacked = find(s, TS_SURVEY_BINDING, k[i], "stacked", 0);
        const struct ts_survey_run *best = close && spread ? (spread->time_median < close->time_median ? spread : close)
                                           : close         ? close
                                                           : spread;
        if (!best || (!unbound && !stacked))
            continue;
        struct ts_survey_sentence *t = next(s);
        if (!t)
            return;
        if (unbound && unbound->time_median / best->time_median >= SAME)
            addf(t->text, sizeof t->text,
                 "Bind with OMP_PLACES=cores OMP_PROC_BIND=%s: on %s with %d threads it is %.2fx faster than "
                 "unbound (OMP_PROC_BIND=false, %.3g s against %.3g s per iteration)",
                 best->variant, best->kernel, best->threads, unbound->time_median / best->time_median,
                 best->time_median, unbound->time_median);
        else if (unbound)
            addf(t->text, sizeof t->text,
                 "Binding made no measurable difference on %s with %d threads: OMP_PROC_BIND=%s %.3g s, unbound "
                 "%.3g s per iteration (%.2fx)",
                 best->kernel, best->threads, best->variant, best->time_median, unbound->time_median,
                 unbound->time_median / best->time_median);
        else
            addf(t->text, sizeof t->text, "With OMP_PLACES=cores OMP_PROC_BIND=%s, %s with %d threads takes %.3g s",
                 best->variant, best->kernel, best->threads, best->time_median);
        if (stacked)
            addf(t->text, sizeof t->text, "; all %d threads stacked on one CPU take %.2fx as long", stacked->threads,
                 stacked->time_median / best->time_median);
        addf(t->text, sizeof t->text, ".");
        source(t, best->name);
        if (unbound)
            source(t, unbound->name);
        if (stacked)
            source(t, stacked->name);
        return;
    }
}

static void scaling_sentence(struct ts_survey_rec *s)
{
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_SCALING, k, 8);
    struct ts_survey_sentence *t = NULL;
    int most = 0;
    for (int i = 0; i < s->n_runs; i++)
        if (s->runs[i].group == TS_SURVEY_SCALING && s->runs[i].threads > most)
            most = s->runs[i].threads;
    int said = 0;
    for (int i = 0; i < n; i++) {
        const struct ts_survey_run *one = find(s, TS_SURVEY_SCALING, k[i], NULL, 1);
        const struct ts_survey_run *all = find(s, TS_SURVEY_SCALING, k[i], NULL, most);
        if (!one || !all || most < 2)
            continue;
        if (!t && !(t = next(s)))
            return;
        const double speedup = one->time_median / all->time_median;
        if (!said)
            addf(t->text, sizeof t->text, "At all %d cores the speed-up over 1 thread is ", most);
        addf(t->text, sizeof t->text, "%s%.2fx on %s (%.0f%% efficiency, %.3g GB/s)", said ? ", " : "", speedup, k[i],
             100.0 * speedup / most, all->gbs_median);
        said++;
        source(t, one->name);
        source(t, all->name);
    }
    if (t)
        addf(t->text, sizeof t->text, ".");
}

static double mean_of(const struct ts_survey_matrix *m, int local, size_t offset)
{
    double sum = 0;
    int n = 0;
    for (int k = 0; k < m->n_cpu_nodes * m->n_mem_nodes; k++) {
        const struct ts_survey_cell *c = &m->cell[k];
        const double v = *(const double *)(const void *)((const char *)c + offset);
        if ((c->cpu_node == c->mem_node) == local && !isnan(v) && !c->misplaced) {
            sum += v;
            n++;
        }
    }
    return n ? sum / n : NAN;
}

static void memory_sentence(struct ts_survey_rec *s)
{
    if (!s->has_matrix)
        return;
    const struct ts_survey_matrix *m = &s->matrix;
    struct ts_survey_sentence *t = next(s);
    if (!t)
        return;
    source(t, "matrix");
    const double lat_local = mean_of(m, 1, offsetof(struct ts_survey_cell, latency_ns));
    const double read_local = mean_of(m, 1, offsetof(struct ts_survey_cell, read_gbs));
    if (m->n_cpu_nodes == 1 && m->n_mem_nodes == 1) {
        const struct ts_survey_cell *c = &m->cell[0];
        addf(t->text, sizeof t->text,
             "The NUMA matrix is 1x1 (one NUMA node): there is no remote memory; local idle latency %.3g ns",
             c->latency_ns);
        if (!isnan(c->latency_huge_ns))
            addf(t->text, sizeof t->text, " (%.3g ns with 2 MiB pages)", c->latency_huge_ns);
        if (!isnan(c->latency_loaded_ns))
            addf(t->text, sizeof t->text, ", %.3g ns while the other cores stream", c->latency_loaded_ns);
        addf(t->text, sizeof t->text, ", read %.3g GB/s and triad %.3g GB/s with %d threads", c->read_gbs, c->triad_gbs,
             c->threads);
        if (c->misplaced)
            addf(t->text, sizeof t->text, " (pages not all on node %d: marked)", c->mem_node);
    } else {
        const double lat_remote = mean_of(m, 0, offsetof(struct ts_survey_cell, latency_ns));
        const double read_remote = mean_of(m, 0, offsetof(struct ts_survey_cell, read_gbs));
        addf(t->text, sizeof t->text, "Remote memory is %.2fx slower than local (%dx%d NUMA matrix)",
             lat_remote / lat_local, m->n_cpu_nodes, m->n_mem_nodes);
        addf(t->text, sizeof t->text, ": idle latency %.3g ns against %.3g ns, read %.3g GB/s against %.3g GB/s",
             lat_remote, lat_local, read_remote, read_local);
        if (m->misplaced_cells)
            addf(t->text, sizeof t->text, "; %d cells had pages off their memory node and are left out",
                 m->misplaced_cells);
    }
    if (s->emulated)
        addf(t->text, sizeof t->text, " (an emulated machine: these timings mean nothing)");
    addf(t->text, sizeof t->text, ".");
}

static void policy_sentence(struct ts_survey_rec *s)
{
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_POLICY, k, 8);
    for (int i = 0; i < n; i++) {
        const struct ts_survey_run *ft = find(s, TS_SURVEY_POLICY, k[i], "firsttouch", 0);
        const struct ts_survey_run *il = ft ? find(s, TS_SURVEY_POLICY, k[i], "interleave", ft->threads) : NULL;
        if (!il)
            continue;
        struct ts_survey_sentence *t = next(s);
        if (!t)
            return;
        const double ratio = il->time_median / ft->time_median;
        addf(t->text, sizeof t->text,
             "Interleaving %s's pages over the nodes takes %.2fx the time of first touch with %d threads (%.3g s "
             "against %.3g s per iteration)%s.",
             ft->kernel, ratio, ft->threads, il->time_median, ft->time_median,
             s->has_matrix && s->matrix.n_mem_nodes == 1 ? ", the same pages on one node" : "");
        source(t, il->name);
        source(t, ft->name);
        return;
    }
}

void ts_survey_verdict(struct ts_survey_rec *s)
{
    s->n_sentences = 0;
    memset(s->sentences, 0, sizeof s->sentences);
    init_sentence(s);
    binding_sentence(s);
    scaling_sentence(s);
    memory_sentence(s);
    policy_sentence(s);
}

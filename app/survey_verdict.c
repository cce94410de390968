#include "survey_verdict.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_sides.h"
#include "survey_points.h"
#include "survey_verdict_sections.h"

struct verdict_state {
    struct ts_survey_rec *s;
    int blocked_by_disturbance; /* judgements left undone because disturbed runs were left out */
    int busy;                   /* a first pass found some: the matrix's and the sections' sentences say so too */
};

static enum survey_judgement judge(struct verdict_state *v, const struct survey_point *a, const struct survey_point *b,
                                   double *p_value)
{
    return ts_survey_judge(a, b, p_value, &v->blocked_by_disturbance);
}

static struct ts_survey_sentence *next(struct ts_survey_rec *s)
{
    if (s->n_sentences >= TS_SURVEY_MAX_SENTENCES)
        return NULL;
    struct ts_survey_sentence *t = &s->sentences[s->n_sentences++];
    memset(t, 0, sizeof *t);
    return t;
}

/* A name that does not fit is left out whole, never cut (the report links every name). */
static void source(struct ts_survey_sentence *t, const char *name)
{
    const size_t used = strlen(t->sources);
    if (used + strlen(name) + 2 < sizeof t->sources)
        ts_verdict_addf(t->sources, sizeof t->sources, "%s%s", used ? "," : "", name);
}

static void sources(struct ts_survey_sentence *t, const struct survey_point *p)
{
    for (int i = 0; i < p->n_runs; i++)
        source(t, p->runs[i]->name);
}

static void percent(char *buf, size_t size, double fraction)
{
    if (isnan(fraction))
        snprintf(buf, size, "not audited");
    else
        snprintf(buf, size, "%.0f%%", 100.0 * fraction);
}

/* "0.0121-0.0134 s over 3 runs": a point's spread, what a difference must clear. */
static void spread(char *buf, size_t size, const struct survey_point *p)
{
    snprintf(buf, size, "%.3g-%.3g s over %d runs", p->low, p->high, p->n);
}

/* Why a pair was not judged: the usable runs a side, and the disturbed ones left out. */
static void too_few(char *buf, size_t size, const char *what_a, const struct survey_point *a, const char *what_b,
                    const struct survey_point *b)
{
    const int left_out = a->n_disturbed + b->n_disturbed;
    snprintf(buf, size,
             "%d undisturbed run%s of %s and %d of %s, a judgement needs %d of each (%d disturbed run%s left out)",
             b->n, b->n == 1 ? "" : "s", what_b, a->n, what_a, TS_SIDE_MIN_RUNS, left_out, left_out == 1 ? "" : "s");
}

/* The p-value of a separation, as compare prints it. */
static void apart_text(char *buf, size_t size, const struct survey_point *a, const struct survey_point *b,
                       double p_value)
{
    snprintf(buf, size, "%d v %d runs, every one of one side beyond every one of the other: Mann-Whitney p = %.2g",
             b->n, a->n, p_value);
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

/* Init: serial against parallel first touch. A kernel where serial is slower beyond the noise
 * is the finding (the worst of them); otherwise the first kernel's judgement is said. */
static void init_sentence(struct verdict_state *v)
{
    struct ts_survey_rec *s = v->s;
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_INIT, k, 8), pick = -1;
    struct survey_point par[8], ser[8];
    enum survey_judgement j[8];
    double p[8], worst = 0;
    for (int i = 0; i < n; i++) {
        par[i] = ts_survey_point(s, TS_SURVEY_INIT, k[i], "parallel", 0);
        ser[i] = par[i].run ? ts_survey_point(s, TS_SURVEY_INIT, k[i], "serial", par[i].run->threads)
                            : (struct survey_point){ 0 };
        if (!par[i].n_done || !ser[i].n_done) {
            j[i] = JUDGE_TOO_FEW;
            continue;
        }
        j[i] = judge(v, &par[i], &ser[i], &p[i]);
        if (pick < 0)
            pick = i;
        if (j[i] == JUDGE_B_SLOWER && ser[i].median / par[i].median > worst) {
            worst = ser[i].median / par[i].median;
            pick = i;
        }
    }
    struct ts_survey_sentence *t = pick >= 0 ? next(s) : NULL;
    if (!t)
        return;
    const struct survey_point *a = &par[pick], *b = &ser[pick];
    const char *kernel = a->run->kernel;
    const int threads = a->run->threads;
    char sa[96], sb[96], why[300], la[32], lb[32];
    switch (j[pick]) {
    case JUDGE_TOO_FEW:
        too_few(why, sizeof why, "parallel init", a, "serial init", b);
        ts_verdict_addf(t->text, sizeof t->text, "Init not judged on %s with %d threads: %s", kernel, threads, why);
        break;
    case JUDGE_OVERLAP:
        spread(sa, sizeof sa, a);
        spread(sb, sizeof sb, b);
        ts_verdict_addf(t->text, sizeof t->text,
                        "Serial and parallel init differ by nothing beyond the noise on %s with %d threads: serial %s, "
                        "parallel %s per iteration overlap",
                        kernel, threads, sb, sa);
        break;
    case JUDGE_B_SLOWER:
    case JUDGE_B_FASTER:
        percent(la, sizeof la, a->local);
        percent(lb, sizeof lb, b->local);
        apart_text(why, sizeof why, a, b, p[pick]);
        if (j[pick] == JUDGE_B_SLOWER)
            ts_verdict_addf(t->text, sizeof t->text,
                            "Serial init costs %.2fx on %s with %d threads: %.3g s per iteration against %.3g s with "
                            "parallel init (%s), pages local to their thread %s against %s",
                            b->median / a->median, kernel, threads, b->median, a->median, why, lb, la);
        else
            ts_verdict_addf(
                t->text, sizeof t->text,
                "Serial init was faster than parallel init on %s with %d threads: %.3g s per iteration against "
                "%.3g s (%s), pages local to their thread %s against %s",
                kernel, threads, b->median, a->median, why, lb, la);
        /* One NUMA node (or a kernel that moved the pages): serial init puts them where parallel
         * init does, and whatever it costs is not placement. */
        if (fabs(b->local - a->local) < 0.01)
            ts_verdict_addf(t->text, sizeof t->text, "; the pages are as local either way, so that is not placement");
        break;
    }
    if (n > 1)
        ts_verdict_addf(t->text, sizeof t->text, " (%s of %d kernels)",
                        j[pick] == JUDGE_B_SLOWER ? "the worst" : "the first", n);
    ts_verdict_addf(t->text, sizeof t->text, ".");
    sources(t, b);
    sources(t, a);
}

/* Binding: unbound and stacked against the better of close and spread. Threads stacked on one
 * CPU that beat threads spread over the cores contradict what binding can do: then the
 * binding runs measured something else, and that is the sentence. */
static void binding_sentence(struct verdict_state *v)
{
    struct ts_survey_rec *s = v->s;
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_BINDING, k, 8);
    for (int i = 0; i < n; i++) {
        struct survey_point close = ts_survey_point(s, TS_SURVEY_BINDING, k[i], "close", 0);
        struct survey_point spread_ = ts_survey_point(s, TS_SURVEY_BINDING, k[i], "spread", 0);
        struct survey_point unbound = ts_survey_point(s, TS_SURVEY_BINDING, k[i], "unbound", 0);
        struct survey_point stacked = ts_survey_point(s, TS_SURVEY_BINDING, k[i], "stacked", 0);
        /* The better bound point: the one with the lower median of usable runs. */
        const struct survey_point *best = !spread_.n_done                                            ? &close
                                          : !close.n_done                                            ? &spread_
                                          : spread_.n && (!close.n || spread_.median < close.median) ? &spread_
                                                                                                     : &close;
        if (!best->n_done || (!unbound.n_done && !stacked.n_done))
            continue;
        struct ts_survey_sentence *t = next(s);
        if (!t)
            return;
        const char *kernel = best->run->kernel;
        const int threads = best->run->threads;
        char sa[96], sb[96], why[300];
        double p_unbound = NAN, p_stacked = NAN;
        enum survey_judgement ju = unbound.n_done ? judge(v, best, &unbound, &p_unbound) : JUDGE_TOO_FEW;
        enum survey_judgement js =
            stacked.n_done && stacked.run->threads > 1 ? judge(v, best, &stacked, &p_stacked) : JUDGE_TOO_FEW;
        if (js == JUDGE_B_FASTER) {
            apart_text(why, sizeof why, best, &stacked, p_stacked);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "Anomaly, not a finding: on %s all %d threads stacked on one CPU ran faster than with "
                "OMP_PROC_BIND=%s over %d cores (%.3g s against %.3g s per iteration, %s), which binding cannot "
                "do: these runs measured something else (other work on the cores, or threads not placed as "
                "asked), so they say nothing about binding.",
                kernel, stacked.run->threads, best->run->variant, threads, stacked.median, best->median, why);
            sources(t, best);
            sources(t, &stacked);
            sources(t, &unbound);
            return;
        }
        if (ju == JUDGE_B_SLOWER) {
            apart_text(why, sizeof why, best, &unbound, p_unbound);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "Bind with OMP_PLACES=cores OMP_PROC_BIND=%s: on %s with %d threads it is %.2fx faster than "
                "unbound (OMP_PROC_BIND=false, %.3g s against %.3g s per iteration, %s)",
                best->run->variant, kernel, threads, unbound.median / best->median, best->median, unbound.median, why);
        } else if (ju == JUDGE_B_FASTER) {
            apart_text(why, sizeof why, best, &unbound, p_unbound);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "Unbound threads (OMP_PROC_BIND=false) ran faster than OMP_PROC_BIND=%s on %s with %d threads: "
                "%.3g s against %.3g s per iteration (%s)",
                best->run->variant, kernel, threads, unbound.median, best->median, why);
        } else if (ju == JUDGE_OVERLAP) {
            spread(sa, sizeof sa, best);
            spread(sb, sizeof sb, &unbound);
            ts_verdict_addf(t->text, sizeof t->text,
                            "Binding made no difference beyond the noise on %s with %d threads: OMP_PROC_BIND=%s %s, "
                            "unbound %s per iteration overlap",
                            kernel, threads, best->run->variant, sa, sb);
        } else if (unbound.n_done) {
            too_few(why, sizeof why, "bound", best, "unbound", &unbound);
            ts_verdict_addf(t->text, sizeof t->text, "Binding not judged on %s with %d threads: %s", kernel, threads,
                            why);
        } else
            ts_verdict_addf(t->text, sizeof t->text, "Binding on %s with %d threads", kernel, threads);
        if (js == JUDGE_B_SLOWER)
            ts_verdict_addf(t->text, sizeof t->text, "; all %d threads stacked on one CPU take %.2fx as long",
                            stacked.run->threads, stacked.median / best->median);
        else if (js == JUDGE_OVERLAP) {
            spread(sa, sizeof sa, &stacked);
            ts_verdict_addf(t->text, sizeof t->text,
                            "; all %d threads stacked on one CPU took no measurably longer (%s per iteration)",
                            stacked.run->threads, sa);
        }
        ts_verdict_addf(t->text, sizeof t->text, ".");
        sources(t, best);
        sources(t, &unbound);
        sources(t, &stacked);
        return;
    }
}

/* Scaling: 1 thread against all cores, per kernel. More cores that take longer beyond the noise
 * are an anomaly, never a speed-up below 1. */
static void scaling_sentence(struct verdict_state *v)
{
    struct ts_survey_rec *s = v->s;
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_SCALING, k, 8);
    struct ts_survey_sentence *t = NULL;
    int most = 0;
    for (int i = 0; i < s->n_runs; i++)
        if (s->runs[i].group == TS_SURVEY_SCALING && s->runs[i].threads > most)
            most = s->runs[i].threads;
    if (most < 2)
        return;
    for (int i = 0; i < n; i++) {
        struct survey_point one = ts_survey_point(s, TS_SURVEY_SCALING, k[i], NULL, 1);
        struct survey_point all = ts_survey_point(s, TS_SURVEY_SCALING, k[i], NULL, most);
        if (!one.n_done || !all.n_done)
            continue;
        if (!t && !(t = next(s)))
            return;
        double p;
        char sa[96], sb[96], why[300];
        const char *sep = t->text[0] ? "; " : "";
        switch (judge(v, &one, &all, &p)) {
        case JUDGE_B_FASTER: {
            const double speedup = one.median / all.median;
            apart_text(why, sizeof why, &one, &all, p);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "%sAt all %d cores the speed-up over 1 thread is %.2fx on %s (%.0f%% efficiency, %.3g GB/s; %s)", sep,
                most, speedup, k[i], 100.0 * speedup / most, all.gbs, why);
            break;
        }
        case JUDGE_B_SLOWER:
            apart_text(why, sizeof why, &one, &all, p);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "%sAnomaly, not a finding: %s took longer with all %d cores than with 1 thread (%.3g s against "
                "%.3g s per iteration, %s); more cores cannot slow a kernel down unless something else is at "
                "work (other processes on the cores, or arrays so small that starting the threads costs more "
                "than the work)",
                sep, k[i], most, all.median, one.median, why);
            break;
        case JUDGE_OVERLAP:
            spread(sa, sizeof sa, &one);
            spread(sb, sizeof sb, &all);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "%s%s is no faster with all %d cores than with 1 thread beyond the noise: 1 thread %s, %d threads "
                "%s per iteration overlap",
                sep, k[i], most, sa, most, sb);
            break;
        case JUDGE_TOO_FEW:
            too_few(why, sizeof why, "1 thread", &one, "all cores", &all);
            ts_verdict_addf(t->text, sizeof t->text, "%sScaling not judged on %s: %s", sep, k[i], why);
            break;
        }
        sources(t, &one);
        sources(t, &all);
    }
    if (t)
        ts_verdict_addf(t->text, sizeof t->text, ".");
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

static void memory_sentence(struct verdict_state *v)
{
    struct ts_survey_rec *s = v->s;
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
        ts_verdict_addf(t->text, sizeof t->text,
                        "The NUMA matrix is 1x1 (one NUMA node): there is no remote memory; local idle latency %.3g ns",
                        c->latency_ns);
        if (!isnan(c->latency_huge_ns))
            ts_verdict_addf(t->text, sizeof t->text, " (%.3g ns with 2 MiB pages)", c->latency_huge_ns);
        if (!isnan(c->latency_loaded_ns))
            ts_verdict_addf(t->text, sizeof t->text, ", %.3g ns while the other cores stream", c->latency_loaded_ns);
        ts_verdict_addf(t->text, sizeof t->text, ", read %.3g GB/s and triad %.3g GB/s with %d threads", c->read_gbs,
                        c->triad_gbs, c->threads);
        if (c->misplaced)
            ts_verdict_addf(t->text, sizeof t->text, " (pages not all on node %d: marked)", c->mem_node);
    } else {
        const double lat_remote = mean_of(m, 0, offsetof(struct ts_survey_cell, latency_ns));
        const double read_remote = mean_of(m, 0, offsetof(struct ts_survey_cell, read_gbs));
        ts_verdict_addf(t->text, sizeof t->text, "Remote memory is %.2fx slower than local (%dx%d NUMA matrix)",
                        lat_remote / lat_local, m->n_cpu_nodes, m->n_mem_nodes);
        ts_verdict_addf(t->text, sizeof t->text,
                        ": idle latency %.3g ns against %.3g ns, read %.3g GB/s against %.3g GB/s", lat_remote,
                        lat_local, read_remote, read_local);
        if (m->misplaced_cells)
            ts_verdict_addf(t->text, sizeof t->text, "; %d cells had pages off their memory node and are left out",
                            m->misplaced_cells);
    }
    if (s->emulated)
        ts_verdict_addf(t->text, sizeof t->text, " (an emulated machine: these timings mean nothing)");
    else if (v->busy)
        ts_verdict_addf(t->text, sizeof t->text,
                        " (measured on a node too busy to judge the runs: run it again when quiet)");
    ts_verdict_addf(t->text, sizeof t->text, ".");
}

static void policy_sentence(struct verdict_state *v)
{
    struct ts_survey_rec *s = v->s;
    const char *k[8];
    int n = kernels_of(s, TS_SURVEY_POLICY, k, 8);
    for (int i = 0; i < n; i++) {
        struct survey_point ft = ts_survey_point(s, TS_SURVEY_POLICY, k[i], "firsttouch", 0);
        struct survey_point il = ft.run ? ts_survey_point(s, TS_SURVEY_POLICY, k[i], "interleave", ft.run->threads)
                                        : (struct survey_point){ 0 };
        if (!ft.n_done || !il.n_done)
            continue;
        struct ts_survey_sentence *t = next(s);
        if (!t)
            return;
        const char *one_node = s->has_matrix && s->matrix.n_mem_nodes == 1 ? ", the same pages on one node" : "";
        const int threads = ft.run->threads;
        double p;
        char sa[96], sb[96], why[300];
        switch (judge(v, &ft, &il, &p)) {
        case JUDGE_B_FASTER:
        case JUDGE_B_SLOWER:
            apart_text(why, sizeof why, &ft, &il, p);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "Interleaving %s's pages over the nodes takes %.2fx the time of first touch with %d threads (%.3g s "
                "against %.3g s per iteration, %s)%s.",
                k[i], il.median / ft.median, threads, il.median, ft.median, why, one_node);
            break;
        case JUDGE_OVERLAP:
            spread(sa, sizeof sa, &ft);
            spread(sb, sizeof sb, &il);
            ts_verdict_addf(
                t->text, sizeof t->text,
                "Interleaving %s's pages over the nodes makes no difference beyond the noise with %d threads: "
                "interleave %s, first touch %s per iteration overlap%s.",
                k[i], threads, sb, sa, one_node);
            break;
        case JUDGE_TOO_FEW:
            too_few(why, sizeof why, "first touch", &ft, "interleave", &il);
            ts_verdict_addf(t->text, sizeof t->text, "Policy not judged on %s with %d threads: %s.", k[i], threads,
                            why);
            break;
        }
        sources(t, &il);
        sources(t, &ft);
        return;
    }
}

/* When disturbed runs left a judgement undone: how busy the node was, first in the verdict. */
static void busy_sentence(struct verdict_state *v, struct ts_survey_sentence *t)
{
    const struct ts_survey_rec *s = v->s;
    int done = 0, disturbed = 0, n_share = 0;
    const struct ts_survey_run *first = NULL;
    double share[TS_SURVEY_MAX_RUNS], load = NAN;
    for (int i = 0; i < s->n_runs; i++) {
        const struct ts_survey_run *r = &s->runs[i];
        if (r->state != TS_SURVEY_DONE)
            continue;
        done++;
        if (r->disturbed <= 0)
            continue;
        disturbed++;
        if (!first)
            first = r;
        if (!isnan(r->others_share) && n_share < TS_SURVEY_MAX_RUNS)
            share[n_share++] = r->others_share;
        if (!isnan(r->load_excess) && (isnan(load) || r->load_excess > load))
            load = r->load_excess;
    }
    ts_verdict_addf(t->text, sizeof t->text,
                    "The node was too busy to judge: %d of %d runs were disturbed by other work", disturbed, done);
    if (n_share)
        ts_verdict_addf(t->text, sizeof t->text, " (other processes took a median %.0f%% of their CPUs' time",
                        100.0 * ts_survey_median(share, n_share));
    if (!isnan(load))
        ts_verdict_addf(t->text, sizeof t->text, "%sthe load average reached %.1f beyond their own threads",
                        n_share ? ", " : " (", load);
    if (first)
        ts_verdict_addf(t->text, sizeof t->text, "%sthe first, %s: %s)", n_share || !isnan(load) ? "; " : " (",
                        first->name, first->disturbed_why);
    else if (n_share || !isnan(load))
        ts_verdict_addf(t->text, sizeof t->text, ")");
    ts_verdict_addf(
        t->text, sizeof t->text,
        ", and %d judgement%s had fewer than %d undisturbed runs a side; run the survey again when the node is "
        "quiet (a new -o DIR, or remove this one).",
        v->blocked_by_disturbance, v->blocked_by_disturbance == 1 ? "" : "s", TS_SIDE_MIN_RUNS);
    for (int i = 0; i < s->n_runs; i++)
        if (s->runs[i].state == TS_SURVEY_DONE && s->runs[i].disturbed > 0)
            source(t, s->runs[i].name);
}

static int sentences(struct ts_survey_rec *s, int busy)
{
    s->n_sentences = 0;
    memset(s->sentences, 0, sizeof s->sentences);
    /* The first sentence is kept for the node's business, said once the others are judged. */
    struct ts_survey_sentence *first = next(s);
    struct verdict_state v = { .s = s, .busy = busy };
    init_sentence(&v);
    binding_sentence(&v);
    scaling_sentence(&v);
    memory_sentence(&v);
    policy_sentence(&v);
    for (int i = 0; i < TS_N_SECTION_SENTENCES; i++) {
        struct ts_survey_sentence said;
        struct ts_survey_sentence *t;
        if (ts_survey_section_sentence(s, (enum ts_section_sentence)i, busy, &said) && (t = next(s)))
            *t = said;
    }
    if (v.blocked_by_disturbance)
        busy_sentence(&v, first);
    else {
        memmove(&s->sentences[0], &s->sentences[1], (size_t)(s->n_sentences - 1) * sizeof s->sentences[0]);
        s->n_sentences--;
    }
    return v.blocked_by_disturbance > 0;
}

void ts_survey_verdict(struct ts_survey_rec *s)
{
    /* Twice: whether the node was too busy is known only once every pair was judged, and the
     * matrix's sentence, before the last, says so too. */
    if (sentences(s, 0))
        sentences(s, 1);
}

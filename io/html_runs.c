/* The sections that compare runs: serial against parallel init, one binding against another,
 * and how a configuration scales with threads (ranks x threads when ranks). A plain set of
 * runs is grouped by what the runs share; a survey's runs by the group the survey gave them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_doc.h"

#define KEY 1024

struct groups {
    int n;
    int *of;          /* group of each run of idx */
    char (*key)[KEY]; /* per group */
};

/* Groups the runs idx[0..n) by their configuration without what leave_out names. */
static int group_runs(const struct html_ctx *c, const int *idx, int n, int leave_out, struct groups *g)
{
    g->n = 0;
    g->of = malloc((size_t)(n ? n : 1) * sizeof *g->of);
    g->key = malloc((size_t)(n ? n : 1) * sizeof *g->key);
    if (!g->of || !g->key)
        return -1;
    for (int k = 0; k < n; k++) {
        char key[KEY];
        html_config_key(&c->runs[idx[k]], leave_out, key, sizeof key);
        int j = 0;
        while (j < g->n && strcmp(g->key[j], key) != 0)
            j++;
        if (j == g->n)
            memcpy(g->key[g->n++], key, KEY);
        g->of[k] = j;
    }
    return 0;
}

static void groups_free(struct groups *g)
{
    free(g->of);
    free(g->key);
}

static void table_head(struct hbuf *b, const char *const *cols, int n)
{
    hb_raw(b, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr>");
    for (int i = 0; i < n; i++)
        hb_fmt(b, "<th>%s</th>", cols[i]);
    hb_raw(b, "</tr></thead><tbody>\n");
}

static void table_end(struct hbuf *b)
{
    hb_raw(b, "</tbody></table></div>\n");
}

/* A label for pictures: the survey's variant, else what differs within the group. */
static void run_label(const struct html_ctx *c, int i, int leave_out, char *buf, size_t size)
{
    const struct ts_run_summary *s = &c->runs[i];
    if (c->survey && c->survey->runs[i].variant[0] && c->survey->repeats > 1)
        snprintf(buf, size, "%.60s #%d", c->survey->runs[i].variant, (int)c->survey->runs[i].repeat);
    else if (c->survey && c->survey->runs[i].variant[0])
        snprintf(buf, size, "%.60s", c->survey->runs[i].variant);
    else if (leave_out == HTML_KEY_INIT)
        snprintf(buf, size, "%s (%.40s)", s->init_mode, c->label[i]);
    else if (leave_out == HTML_KEY_BIND)
        snprintf(buf, size, "%.30s/%.20s", s->places[0] ? s->places : "unset",
                 s->proc_bind[0] ? s->proc_bind : "unset");
    else
        snprintf(buf, size, "%.60s", c->label[i]);
}

/* Bar charts of one group: one per metric, runs as bars. */
static void group_bars(struct hbuf *b, const struct html_ctx *c, const int *idx, int n, const struct groups *g, int gi,
                       int leave_out, int with_init)
{
    char(*labels)[96] = malloc((size_t)n * sizeof *labels);
    const char **names = malloc((size_t)n * sizeof *names);
    double *v = malloc((size_t)n * 4 * sizeof *v);
    if (!labels || !names || !v) {
        b->failed = 1;
        free(labels);
        free(names);
        free(v);
        return;
    }
    int m = 0;
    for (int k = 0; k < n; k++) {
        if (g->of[k] != gi)
            continue;
        const struct ts_run_summary *s = &c->runs[idx[k]];
        run_label(c, idx[k], leave_out, labels[m], sizeof labels[m]);
        char why[8];
        if (html_disturbed(c, idx[k], why, sizeof why) > 0) /* said on the bar, where the number is */
            snprintf(labels[m] + strnlen(labels[m], 80), sizeof labels[m] - strnlen(labels[m], 80), " DISTURBED");
        names[m] = labels[m];
        v[m] = s->init_time;
        v[n + m] = s->time_median * 1e3;
        v[2 * n + m] = s->gbs_median;
        v[3 * n + m] = s->local_fraction * 100;
        m++;
    }
    hb_raw(b, "<div class=\"charts\">\n");
    if (with_init)
        html_bars(b, "init (first touch) time", "s", names, v, m, "%.3g");
    html_bars(b, "median time per iteration", "ms", names, v + n, m, "%.4g");
    if (!with_init)
        html_bars(b, "median bandwidth", "GB/s", names, v + 2 * n, m, "%.4g");
    html_bars(b, "pages on the node of the thread that owns them", "%", names, v + 3 * n, m, "%.1f");
    hb_raw(b, "</div>\n");
    free(labels);
    free(names);
    free(v);
}

/* The table of idx's runs. */
static void runs_table(struct hbuf *b, const struct html_ctx *c, const int *idx, int n)
{
    static const char *const cols[] = { "run",        "configuration",  "threads",  "init",
                                        "OMP_PLACES", "OMP_PROC_BIND",  "init (s)", "median (ms)",
                                        "GB/s",       "local fraction", "verified", "disturbed" };
    table_head(b, cols, (int)(sizeof cols / sizeof cols[0]));
    for (int k = 0; k < n; k++) {
        const struct ts_run_summary *s = &c->runs[idx[k]];
        char key[KEY];
        html_config_key(s, HTML_KEY_INIT | HTML_KEY_BIND | HTML_KEY_THREADS, key, sizeof key);
        hb_raw(b, "<tr><td>");
        html_run_link(b, c, idx[k]);
        hb_raw(b, "</td>");
        hb_td_text(b, key);
        if (s->n_ranks > 1)
            hb_fmt(b, "<td class=\"n\" data-v=\"%d\">%d x %d</td>", (int)s->n_threads, (int)s->n_ranks,
                   (int)(s->n_threads / s->n_ranks));
        else
            hb_td_num(b, "%.0f", s->n_threads);
        hb_td_text(b, s->init_mode);
        hb_td_text(b, s->places);
        hb_td_text(b, s->proc_bind);
        hb_td_num(b, "%.4g", s->init_time);
        hb_td_num(b, "%.4g", s->time_median * 1e3);
        hb_td_num(b, "%.4g", s->gbs_median);
        hb_td_num(b, "%.3f", s->local_fraction);
        hb_td_text(b, s->verified ? "yes" : "NO");
        char why[600];
        const int disturbed = html_disturbed(c, idx[k], why, sizeof why);
        if (disturbed > 0) {
            hb_raw(b, "<td class=\"warn\" title=\"");
            hb_esc(b, why);
            hb_raw(b, "\">DISTURBED</td>");
        } else
            hb_td_text(b, disturbed == 0 ? "no" : "not known");
        hb_raw(b, "</tr>\n");
    }
    table_end(b);
}

static int count_distinct(const struct html_ctx *c, const int *idx, int n, const struct groups *g, int gi, int what)
{
    int distinct = 0;
    for (int k = 0; k < n; k++) {
        if (g->of[k] != gi)
            continue;
        const struct ts_run_summary *s = &c->runs[idx[k]];
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) {
            const struct ts_run_summary *o = &c->runs[idx[j]];
            if (g->of[j] != gi)
                continue;
            if (what == HTML_KEY_INIT)
                seen = strcmp(o->init_mode, s->init_mode) == 0;
            else if (what == HTML_KEY_BIND)
                seen = strcmp(o->places, s->places) == 0 && strcmp(o->proc_bind, s->proc_bind) == 0;
            else
                seen = o->n_threads == s->n_threads && o->n_ranks == s->n_ranks;
        }
        distinct += !seen;
    }
    return distinct;
}

/* A comparison section: idx's runs grouped without `what`, bars for each group that varies it. */
static void compare(struct hbuf *b, const struct html_ctx *c, const int *idx, int n, int what, const char *none)
{
    struct groups g;
    if (group_runs(c, idx, n, what, &g) != 0) {
        groups_free(&g);
        b->failed = 1;
        return;
    }
    int drawn = 0;
    for (int gi = 0; gi < g.n; gi++) {
        if (count_distinct(c, idx, n, &g, gi, what) < 2)
            continue;
        hb_raw(b, "<h3>");
        hb_esc(b, g.key[gi]);
        hb_raw(b, "</h3>\n");
        group_bars(b, c, idx, n, &g, gi, what, what == HTML_KEY_INIT);
        drawn++;
    }
    if (!drawn) {
        hb_raw(b, "<p class=\"empty\">");
        hb_raw(b, none);
        hb_raw(b, "</p>\n");
    }
    groups_free(&g);
    runs_table(b, c, idx, n);
}

static int *run_list(struct hbuf *b, const struct html_ctx *c, int group, int *n)
{
    int *idx = malloc((size_t)(c->n_runs ? c->n_runs : 1) * sizeof *idx);
    if (!idx) {
        b->failed = 1;
        *n = 0;
        return NULL;
    }
    *n = html_runs_of(c, group, idx);
    return idx;
}

static void no_runs(struct hbuf *b, const struct html_ctx *c, const char *group)
{
    if (c->survey)
        hb_fmt(b,
               "<p class=\"empty\">The survey has no %s run done yet (pending or failed runs are listed under "
               "<a href=\"#commands\">commands</a>).</p>\n",
               group);
    else
        hb_raw(b, "<p class=\"empty\">No run was read.</p>\n");
}

void html_init(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"init\">\n<h2>Serial against parallel initialisation</h2>\n");
    hb_raw(b, "<p class=\"muted\">Under first touch a page goes to the node of the thread that first writes it: "
              "a serial init puts every page on one node, a parallel one next to the thread that uses it.</p>\n");
    int n = 0;
    int *idx = run_list(b, c, TS_SURVEY_INIT, &n);
    if (n == 0)
        no_runs(b, c, "init");
    else
        compare(b, c, idx, n, HTML_KEY_INIT,
                "No serial and parallel pair among these runs: run the same configuration with and without "
                "<code>--serial-init</code> to see what first touch is worth.");
    if (c->survey) {
        hb_raw(b, "<h3>Memory policy: first touch against interleave</h3>\n");
        int m = idx ? html_runs_of(c, TS_SURVEY_POLICY, idx) : 0;
        struct groups g = { 0 };
        if (m > 0 && group_runs(c, idx, m, 0, &g) == 0) {
            for (int k = 0; k < m; k++)
                g.of[k] = 0; /* one group: the policies side by side */
            group_bars(b, c, idx, m, &g, 0, 0, 0);
            runs_table(b, c, idx, m);
        } else if (m > 0) {
            b->failed = 1;
        } else {
            no_runs(b, c, "policy");
        }
        groups_free(&g);
    }
    free(idx);
    hb_raw(b, "</section>\n");
}

void html_binding(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"binding\">\n<h2>Binding</h2>\n");
    hb_raw(b, "<p class=\"muted\">The same work under different OMP_PLACES and OMP_PROC_BIND: how much a binding "
              "costs or gains, and where the pages ended up.</p>\n");
    int n = 0;
    int *idx = run_list(b, c, TS_SURVEY_BINDING, &n);
    if (n == 0)
        no_runs(b, c, "binding");
    else
        compare(b, c, idx, n, HTML_KEY_BIND,
                "No configuration here was run under two bindings: nothing to compare (set "
                "<code>openmp.places</code> and <code>openmp.proc_bind</code> to vary them).");
    free(idx);
    hb_raw(b, "</section>\n");
}

/* A line chart of series against threads: xs[s][p], ys[s][p], np[s] points, names[s]. */
static void line_chart(struct hbuf *b, const char *title, const char *unit, int n_series, const char *const *names,
                       double *const *xs, double *const *ys, const int *np, double ideal)
{
    const int W = 560, H = 300, L = 60, R = 20, T = 28, B = 50;
    double xmax = 1, ymax = ideal > 0 ? ideal : 0;
    for (int s = 0; s < n_series; s++)
        for (int p = 0; p < np[s]; p++) {
            if (xs[s][p] > xmax)
                xmax = xs[s][p];
            if (isfinite(ys[s][p]) && ys[s][p] > ymax)
                ymax = ys[s][p];
        }
    if (ymax <= 0)
        ymax = 1;
    ymax *= 1.1;
    const int legend = 16 * n_series;
    hb_fmt(b, "<figure><svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\"><title>", W, H + legend, W);
    hb_esc(b, title);
    hb_raw(b, " (");
    hb_esc(b, unit);
    hb_raw(b, ") against threads</title>");
    hb_raw(b, "<text x=\"4\" y=\"16\" class=\"ct\">");
    hb_esc(b, title);
    hb_raw(b, "</text>");
    const double pw = W - L - R, ph = H - T - B;
#define PX(x) (L + (x) / xmax * pw)
#define PY(y) (T + ph - (y) / ymax * ph)
    for (int k = 0; k <= 4; k++) {
        const double y = ymax * k / 4;
        hb_fmt(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>", L, PY(y), W - R, PY(y));
        hb_fmt(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>", L - 4, PY(y) + 4, y);
    }
    hb_fmt(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", L, T + (int)ph, W - R, T + (int)ph);
    hb_fmt(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", L, T, L, T + (int)ph);
    /* x ticks: every thread count once (repeats and other series share them: drawn again, the
     * labels would pile up on each other), none closer than 24 px to the last one drawn. */
    double seen = -INFINITY, drawn_px = -1e9;
    for (;;) {
        double next = INFINITY;
        for (int s = 0; s < n_series; s++)
            for (int p = 0; p < np[s]; p++)
                if (xs[s][p] > seen && xs[s][p] < next)
                    next = xs[s][p];
        if (!isfinite(next))
            break;
        seen = next;
        if (PX(next) >= drawn_px + 24) {
            hb_fmt(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%.0f</text>", PX(next),
                   T + (int)ph + 14, next);
            drawn_px = PX(next);
        }
    }
    hb_fmt(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">threads (ranks x threads per rank)</text>", L + pw / 2,
           T + (int)ph + 32);
    hb_fmt(b, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" text-anchor=\"middle\">", T + ph / 2,
           T + ph / 2);
    hb_esc(b, unit);
    hb_raw(b, "</text>");
    if (ideal > 0)
        hb_fmt(b,
               "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>"
               "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"muted\">ideal</text>",
               L, PY(ideal), W - R, PY(ideal), W - R, PY(ideal) - 3);
    for (int s = 0; s < n_series; s++) {
        const char *color = html_category_color(s);
        hb_fmt(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        for (int p = 0; p < np[s]; p++)
            if (isfinite(ys[s][p]))
                hb_fmt(b, "%.1f,%.1f ", PX(xs[s][p]), PY(ys[s][p]));
        hb_raw(b, "\"/>");
        for (int p = 0; p < np[s]; p++)
            if (isfinite(ys[s][p])) {
                hb_fmt(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", PX(xs[s][p]), PY(ys[s][p]),
                       color);
                hb_fmt(b, "%.0f threads: %.4g ", xs[s][p], ys[s][p]);
                hb_esc(b, unit);
                hb_raw(b, "</title></circle>");
            }
        hb_fmt(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">", L,
               H + s * 16, color, L + 16, H + s * 16 + 11);
        hb_escn(b, names[s], 90);
        hb_raw(b, "</text>");
    }
#undef PX
#undef PY
    hb_raw(b, "</svg></figure>\n");
}

static const struct html_ctx *by_threads_ctx; /* qsort has no context argument */

static int by_threads(const void *pa, const void *pb)
{
    const struct ts_run_summary *x = &by_threads_ctx->runs[*(const int *)pa],
                                *y = &by_threads_ctx->runs[*(const int *)pb];
    return (x->n_threads > y->n_threads) - (x->n_threads < y->n_threads);
}

void html_scaling(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"scaling\">\n<h2>Scaling</h2>\n");
    hb_raw(b, "<p class=\"muted\">Bandwidth and parallel efficiency against threads, one curve per configuration "
              "(efficiency = speed-up over the fewest threads x those threads / threads; 1 is ideal).</p>\n");
    int n = 0;
    int *idx = run_list(b, c, TS_SURVEY_SCALING, &n);
    struct groups g = { 0 };
    if (n == 0) {
        no_runs(b, c, "scaling");
    } else if (group_runs(c, idx, n, HTML_KEY_THREADS, &g) != 0) {
        b->failed = 1;
    } else {
        int n_series = 0;
        double **xs = calloc((size_t)g.n, sizeof *xs), **gbs = calloc((size_t)g.n, sizeof *gbs);
        double **eff = calloc((size_t)g.n, sizeof *eff);
        int *np = calloc((size_t)g.n, sizeof *np), *members = malloc((size_t)n * sizeof *members);
        const char **names = calloc((size_t)g.n, sizeof *names);
        for (int gi = 0; xs && gbs && eff && np && members && names && gi < g.n; gi++) {
            if (count_distinct(c, idx, n, &g, gi, HTML_KEY_THREADS) < 2)
                continue;
            int m = 0;
            for (int k = 0; k < n; k++)
                if (g.of[k] == gi)
                    members[m++] = idx[k];
            by_threads_ctx = c;
            qsort(members, (size_t)m, sizeof *members, by_threads);
            const int s = n_series++;
            xs[s] = malloc((size_t)m * sizeof **xs);
            gbs[s] = malloc((size_t)m * sizeof **gbs);
            eff[s] = malloc((size_t)m * sizeof **eff);
            if (!xs[s] || !gbs[s] || !eff[s]) {
                b->failed = 1;
                break;
            }
            const struct ts_run_summary *base = &c->runs[members[0]];
            for (int k = 0; k < m; k++) {
                const struct ts_run_summary *r = &c->runs[members[k]];
                xs[s][k] = r->n_threads;
                gbs[s][k] = r->gbs_median;
                eff[s][k] = base->time_median / r->time_median * base->n_threads / r->n_threads;
            }
            np[s] = m;
            names[s] = g.key[gi];
        }
        if (n_series == 0) {
            hb_raw(b, "<p class=\"empty\">No configuration here was run at two thread counts: no curve to draw "
                      "(run it with <code>--threads N</code> for a few N).</p>\n");
        } else if (!b->failed) {
            line_chart(b, "median bandwidth", "GB/s", n_series, names, xs, gbs, np, 0);
            line_chart(b, "parallel efficiency", "1", n_series, names, xs, eff, np, 1);
        }
        for (int s = 0; xs && gbs && eff && s < g.n; s++) {
            free(xs[s]);
            free(gbs[s]);
            free(eff[s]);
        }
        free(xs);
        free(gbs);
        free(eff);
        free(np);
        free(members);
        free(names);
        runs_table(b, c, idx, n);
    }
    groups_free(&g);
    free(idx);
    hb_raw(b, "</section>\n");
}

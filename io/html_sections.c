/* The survey's sections in the report (issue 26): each drawn from its own plot specs, whatever
 * it measures: LINES (y against x, a curve per series), BARS (y for each x, coloured by series)
 * and HEAT (value over x columns and y rows, lines where a domain changes), with its summary,
 * note, marks, conditions and command, and its table folded away. Every text is the file's:
 * escaped. Each plot is an <svg class="section-plot"> whose measured points, bars and cells
 * have class "mark" (tests/html/browser_check.sh checks that each one draws some). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_doc.h"
#include "ts_section.h"
#include "ts_units.h"

#define MAX_SERIES 12
#define MAX_BARS 96
#define MAX_HEAT 256
#define MAX_LEVELS 6
#define MAX_TABLE_ROWS 2000

typedef char label_t[TS_SECTION_TEXT];

static const struct ts_section_column *column(const struct ts_survey_section *x, const char *name)
{
    const int k = name[0] ? ts_section_column(x, name) : -1;
    return k >= 0 ? &x->cols[k] : NULL;
}

/* Row r of c as a label: its text, or its number. */
static void cell_label(const struct ts_section_column *c, int r, char *buf, size_t size)
{
    if (!c)
        snprintf(buf, size, "%s", "");
    else if (c->is_text)
        snprintf(buf, size, "%s", c->text[r]);
    else
        snprintf(buf, size, "%.6g", c->num[r]);
}

/* The index of buf in labels[0..*n), added when absent and room is left; -1 past max. */
static int label_index(label_t *labels, int *n, int max, const char *buf)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(labels[i], buf) == 0)
            return i;
    if (*n >= max)
        return -1;
    snprintf(labels[*n], sizeof labels[*n], "%s", buf);
    return (*n)++;
}

static void not_drawn(struct hbuf *b, const struct ts_section_plot *p, const char *why)
{
    hb_raw(b, "<p class=\"empty plot-empty\">");
    hb_esc(b, p->title);
    hb_raw(b, ": not drawn (");
    hb_raw(b, why);
    hb_raw(b, ").</p>\n");
}

/* "name (unit)" of an axis. */
static void axis_name(struct hbuf *b, const struct ts_section_column *c)
{
    hb_esc(b, c->name);
    if (c->unit[0]) {
        hb_raw(b, " (");
        hb_esc(b, c->unit);
        hb_raw(b, ")");
    }
}

static void svg_open(struct hbuf *b, int w, int h, const struct ts_section_plot *p, const struct ts_section_column *cx,
                     const struct ts_section_column *cy)
{
    hb_fmt(b, "<figure><svg class=\"chart section-plot\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\"><title>", w, h,
           w);
    hb_esc(b, p->title);
    hb_raw(b, ": ");
    axis_name(b, cy);
    hb_raw(b, " against ");
    axis_name(b, cx);
    hb_raw(b, "</title><text x=\"4\" y=\"16\" class=\"ct\">");
    hb_esc(b, p->title);
    hb_raw(b, "</text>");
}

/* A tick's label: bytes as "32 KiB" on a byte axis, else the number. */
static void tick_label(struct hbuf *b, const struct ts_section_column *c, double v)
{
    if (strcmp(c->unit, "B") == 0 && v >= 1 && v < 1e19) {
        char text[32];
        ts_bytes_text((uint64_t)llround(v), text, sizeof text);
        hb_esc(b, text);
    } else
        hb_fmt(b, "%.3g", v);
}

/* Sorts idx[0..n) by the x value of each row (insertion: a curve has a few dozen points). */
static void sort_by_x(int *idx, int n, const double *x)
{
    for (int i = 1; i < n; i++) {
        const int k = idx[i];
        int j = i - 1;
        for (; j >= 0 && x[idx[j]] > x[k]; j--)
            idx[j + 1] = idx[j];
        idx[j + 1] = k;
    }
}

struct frame {
    int W, H, L, R, T, B;
    double x0, x1, y0, y1; /* data ranges (x in log10 when log) */
    int log;
};

static double fx(const struct frame *f, double x)
{
    const double v = f->log ? log10(x) : x;
    return f->L + (v - f->x0) / (f->x1 - f->x0) * (f->W - f->L - f->R);
}

static double fy(const struct frame *f, double y)
{
    return f->T + (f->H - f->T - f->B) * (1 - (y - f->y0) / (f->y1 - f->y0));
}

static void axes(struct hbuf *b, const struct frame *f, const struct ts_section_column *cx,
                 const struct ts_section_column *cy)
{
    const int bottom = f->H - f->B;
    for (int k = 0; k <= 4; k++) {
        const double y = f->y0 + (f->y1 - f->y0) * k / 4;
        hb_fmt(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>", f->L, fy(f, y), f->W - f->R,
               fy(f, y));
        hb_fmt(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>", f->L - 4, fy(f, y) + 4, y);
    }
    hb_fmt(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", f->L, bottom, f->W - f->R, bottom);
    hb_fmt(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", f->L, f->T, f->L, bottom);
    /* x ticks: on a log axis powers of 2 for bytes, of 10 otherwise; at most 8 */
    if (f->log) {
        const int bytes = strcmp(cx->unit, "B") == 0;
        const double base = bytes ? log10(2) : 1;
        const int e0 = (int)ceil(f->x0 / base - 1e-9), e1 = (int)floor(f->x1 / base + 1e-9);
        const int step = (e1 - e0) / 8 + 1;
        for (int e = e0; e <= e1; e += step) {
            const double v = pow(bytes ? 2 : 10, e);
            hb_fmt(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">", fx(f, v), bottom + 14);
            tick_label(b, cx, v);
            hb_raw(b, "</text>");
        }
    } else
        for (int k = 0; k <= 4; k++) {
            const double v = f->x0 + (f->x1 - f->x0) * k / 4;
            hb_fmt(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">", fx(f, v), bottom + 14);
            tick_label(b, cx, v);
            hb_raw(b, "</text>");
        }
    hb_fmt(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", f->L + (f->W - f->L - f->R) / 2.0, bottom + 32);
    axis_name(b, cx);
    if (f->log)
        hb_raw(b, ", logarithmic");
    const double mid = f->T + (f->H - f->T - f->B) / 2.0;
    hb_fmt(b, "</text><text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" text-anchor=\"middle\">", mid, mid);
    axis_name(b, cy);
    hb_raw(b, "</text>");
}

static void legend(struct hbuf *b, int x, int y, label_t *names, int n)
{
    for (int s = 0; s < n; s++) {
        hb_fmt(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">", x,
               y + s * 16, html_category_color(s), x + 16, y + s * 16 + 11);
        hb_escn(b, names[s], 60);
        hb_raw(b, "</text>");
    }
}

/* Each row's series (-1: not drawn, past MAX_SERIES), the names in names; returns how many. */
static int series_of(const struct ts_survey_section *x, const struct ts_section_column *cs, int *of, label_t *names)
{
    int n = 0;
    char buf[TS_SECTION_TEXT];
    for (int r = 0; r < x->n_rows; r++) {
        cell_label(cs, r, buf, sizeof buf);
        of[r] = cs ? label_index(names, &n, MAX_SERIES, buf) : 0;
    }
    if (!cs) {
        snprintf(names[0], sizeof names[0], "%s", "");
        n = x->n_rows > 0;
    }
    return n;
}

static void lines_plot(struct hbuf *b, const struct ts_survey_section *x, const struct ts_section_plot *p, int *of,
                       int *idx, label_t *names)
{
    const struct ts_section_column *cx = column(x, p->x), *cy = column(x, p->y), *cs = column(x, p->series);
    if (!cx || !cy || cx->is_text || cy->is_text) {
        not_drawn(b, p, "x and y are not both columns of numbers");
        return;
    }
    struct frame f = { .W = 560, .H = 300, .L = 64, .R = 20, .T = 28, .B = 54, .log = p->log_x != 0 };
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    const int n_series = series_of(x, cs, of, names);
    for (int r = 0; r < x->n_rows; r++) {
        const double xv = cx->num[r], yv = cy->num[r];
        if (of[r] < 0 || !isfinite(xv) || !isfinite(yv) || (f.log && xv <= 0)) {
            of[r] = -1;
            continue;
        }
        xmin = fmin(xmin, xv), xmax = fmax(xmax, xv), ymin = fmin(ymin, yv), ymax = fmax(ymax, yv);
    }
    if (!isfinite(xmin)) {
        not_drawn(b, p, "no point measured");
        return;
    }
    f.x0 = f.log ? log10(xmin) : xmin;
    f.x1 = f.log ? log10(xmax) : xmax;
    if (f.x1 <= f.x0)
        f.x0 -= 0.5, f.x1 += 0.5;
    f.y0 = ymin < 0 ? ymin * 1.1 : 0;
    f.y1 = ymax > 0 ? ymax * 1.1 : 1;
    const int legend_h = cs ? 16 * n_series + 4 : 0;
    svg_open(b, f.W, f.H + legend_h, p, cx, cy);
    axes(b, &f, cx, cy);
    for (int s = 0; s < n_series; s++) {
        int n = 0;
        for (int r = 0; r < x->n_rows; r++)
            if (of[r] == s)
                idx[n++] = r;
        sort_by_x(idx, n, cx->num);
        const char *color = html_category_color(s);
        hb_fmt(b, "<polyline class=\"mark\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        for (int k = 0; k < n; k++)
            hb_fmt(b, "%.1f,%.1f ", fx(&f, cx->num[idx[k]]), fy(&f, cy->num[idx[k]]));
        hb_raw(b, "\"/>");
        for (int k = 0; k < n; k++) {
            const int r = idx[k];
            hb_fmt(b, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", fx(&f, cx->num[r]),
                   fy(&f, cy->num[r]), color);
            if (cs) {
                hb_escn(b, names[s], 60);
                hb_raw(b, ": ");
            }
            tick_label(b, cx, cx->num[r]);
            hb_raw(b, " ");
            hb_esc(b, cx->unit);
            hb_fmt(b, ", %.4g ", cy->num[r]);
            hb_esc(b, cy->unit);
            hb_raw(b, "</title></circle>");
        }
    }
    if (cs)
        legend(b, f.L, f.H, names, n_series);
    hb_raw(b, "</svg></figure>\n");
}

static void bars_plot(struct hbuf *b, const struct ts_survey_section *x, const struct ts_section_plot *p, int *of,
                      int *idx, label_t *names)
{
    const struct ts_section_column *cx = column(x, p->x), *cy = column(x, p->y), *cs = column(x, p->series);
    if (!cx || !cy || cy->is_text) {
        not_drawn(b, p, "y is not a column of numbers");
        return;
    }
    const int n_series = series_of(x, cs, of, names);
    /* Bars grouped by x in the order first seen, each row one bar. */
    label_t cats[MAX_BARS];
    int n_cats = 0, n = 0, *cat = idx + x->n_rows;
    char buf[TS_SECTION_TEXT];
    double max = 0;
    for (int r = 0; r < x->n_rows && n < MAX_BARS; r++) {
        cell_label(cx, r, buf, sizeof buf);
        const int c = of[r] < 0 ? -1 : label_index(cats, &n_cats, MAX_BARS, buf);
        if (c < 0)
            continue;
        cat[r] = c;
        idx[n++] = r;
        if (isfinite(cy->num[r]) && cy->num[r] > max)
            max = cy->num[r];
    }
    if (n == 0 || max <= 0) {
        not_drawn(b, p, "no value above zero measured");
        return;
    }
    const int label_w = 150, bar_w = 280, row_h = 18, gap = 6, top = 26, legend_h = cs ? 16 * n_series + 4 : 0;
    const int w = label_w + bar_w + 90, h = top + n * row_h + n_cats * gap + 40 + legend_h;
    svg_open(b, w, h, p, cx, cy);
    int y = top, drawn = 0;
    for (int c = 0; c < n_cats; c++) {
        hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 6, y + 13);
        hb_escn(b, cats[c], 24);
        hb_raw(b, "</text>");
        for (int k = 0; k < n; k++) {
            const int r = idx[k];
            if (cat[r] != c)
                continue;
            const double v = cy->num[r];
            if (!isfinite(v) || v <= 0)
                hb_fmt(b, "<text x=\"%d\" y=\"%d\" class=\"muted\">%s</text>", label_w + 4, y + 13,
                       isfinite(v) ? "0 or less" : "not measured");
            else {
                const double len = v / max * bar_w;
                hb_fmt(b, "<rect class=\"mark\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
                       label_w, y + 2, len, row_h - 4, html_category_color(cs ? of[r] : 0));
                hb_escn(b, cats[c], 60);
                if (cs) {
                    hb_raw(b, ", ");
                    hb_escn(b, names[of[r]], 60);
                }
                hb_fmt(b, ": %.4g ", v);
                hb_esc(b, cy->unit);
                hb_fmt(b, "</title></rect><text x=\"%.1f\" y=\"%d\">%.3g</text>", label_w + len + 4, y + 13, v);
            }
            y += row_h;
            drawn++;
        }
        y += gap;
    }
    hb_fmt(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", label_w, y, label_w + bar_w, y);
    hb_fmt(b, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3g</text>", label_w,
           y + 14, label_w + bar_w, y + 14, max);
    hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"muted\">", label_w + bar_w / 2, y + 28);
    axis_name(b, cy);
    hb_raw(b, "</text>");
    if (cs)
        legend(b, label_w, y + 36, names, n_series);
    hb_raw(b, "</svg></figure>\n");
    if (drawn < x->n_rows)
        hb_fmt(b, "<p class=\"muted\">%d of %d rows drawn.</p>\n", drawn, (int)x->n_rows);
}

/* The distinct values of c, numbers ascending, texts as first seen (at most MAX_HEAT); each
 * row's index in at. Returns how many, or -1 past MAX_HEAT. */
static int axis_values(const struct ts_survey_section *x, const struct ts_section_column *c, label_t *labels, int *at)
{
    int n = 0;
    char buf[TS_SECTION_TEXT];
    if (!c->is_text) {
        double *v = malloc(sizeof *v * MAX_HEAT);
        if (!v)
            return -1;
        for (int r = 0; r < x->n_rows; r++) {
            int k = 0;
            while (k < n && !(v[k] == c->num[r] || (isnan(v[k]) && isnan(c->num[r]))))
                k++;
            if (k == n) {
                if (n >= MAX_HEAT) {
                    free(v);
                    return -1;
                }
                v[n++] = c->num[r];
            }
        }
        for (int i = 1; i < n; i++) { /* ascending, NaN last */
            const double t = v[i];
            int j = i - 1;
            for (; j >= 0 && (isnan(v[j]) || v[j] > t) && !isnan(t); j--)
                v[j + 1] = v[j];
            v[j + 1] = t;
        }
        for (int i = 0; i < n; i++)
            snprintf(labels[i], sizeof labels[i], "%.6g", v[i]);
        free(v);
    }
    for (int r = 0; r < x->n_rows; r++) {
        cell_label(c, r, buf, sizeof buf);
        at[r] = label_index(labels, &n, MAX_HEAT, buf);
        if (at[r] < 0)
            return -1;
    }
    return n;
}

/* Where a domain changes along an axis: brk[i] > 0 before index i, the wider the outer. dom
 * holds each index's domain labels, levels of them. */
static void breaks(label_t (*dom)[MAX_LEVELS], const int *known, int n, int levels, int *brk)
{
    for (int i = 0; i < n; i++) {
        brk[i] = 0;
        for (int k = 0; i > 0 && k < levels && known[i] && known[i - 1]; k++)
            if (strcmp(dom[i][k], dom[i - 1][k]) != 0) {
                brk[i] = levels - k + 1;
                break;
            }
    }
}

/* Each axis index's domains: rows from the boundary columns themselves; columns from their
 * "_b" twin when the boundary column ends in "_a" (node_a, node_b), else from the row with the
 * same label (a square matrix of CPUs against CPUs). */
static int domains(const struct ts_survey_section *x, const struct ts_section_plot *p, const int *row_at,
                   const int *col_at, label_t *row_labels, int rows, label_t *col_labels, int cols, int *row_brk,
                   int *col_brk)
{
    const struct ts_section_column *lv[MAX_LEVELS], *lv_b[MAX_LEVELS];
    int levels = 0, twins = 1;
    char name[sizeof x->cols[0].name + 2];
    for (const char *q = p->boundaries; *q && levels < MAX_LEVELS;) {
        const size_t len = strcspn(q, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), q);
        lv[levels] = column(x, name);
        lv_b[levels] = NULL;
        if (len >= 2 && strcmp(name + len - 2, "_a") == 0) {
            name[len - 1] = 'b';
            lv_b[levels] = column(x, name);
        }
        if (lv[levels]) {
            twins &= lv_b[levels] != NULL;
            levels++;
        }
        q += len + (q[len] == ',');
    }
    if (levels == 0)
        return 0;
    label_t(*rd)[MAX_LEVELS] = calloc((size_t)rows, sizeof *rd);
    label_t(*cd)[MAX_LEVELS] = calloc((size_t)cols, sizeof *cd);
    int *rk = calloc((size_t)rows, sizeof *rk), *ck = calloc((size_t)cols, sizeof *ck);
    if (!rd || !cd || !rk || !ck) {
        free(rd), free(cd), free(rk), free(ck);
        return -1;
    }
    for (int r = 0; r < x->n_rows; r++) {
        if (!rk[row_at[r]]) {
            rk[row_at[r]] = 1;
            for (int k = 0; k < levels; k++)
                cell_label(lv[k], r, rd[row_at[r]][k], sizeof rd[0][0]);
        }
        if (!ck[col_at[r]] && twins) {
            ck[col_at[r]] = 1;
            for (int k = 0; k < levels; k++)
                cell_label(lv_b[k], r, cd[col_at[r]][k], sizeof cd[0][0]);
        }
    }
    for (int j = 0; j < cols && !twins; j++)
        for (int i = 0; i < rows; i++)
            if (rk[i] && strcmp(col_labels[j], row_labels[i]) == 0) {
                ck[j] = 1;
                memcpy(cd[j], rd[i], sizeof cd[j]);
                break;
            }
    breaks(rd, rk, rows, levels, row_brk);
    breaks(cd, ck, cols, levels, col_brk);
    free(rd), free(cd), free(rk), free(ck);
    return levels;
}

static void heat_plot(struct hbuf *b, const struct ts_survey_section *x, const struct ts_section_plot *p, int *row_at,
                      int *col_at)
{
    const struct ts_section_column *cx = column(x, p->x), *cy = column(x, p->y), *cv = column(x, p->value);
    if (!cx || !cy || !cv || cv->is_text) {
        not_drawn(b, p, "its value is not a column of numbers");
        return;
    }
    label_t *rl = calloc(MAX_HEAT, sizeof *rl), *cl = calloc(MAX_HEAT, sizeof *cl);
    double *v = malloc(sizeof *v * MAX_HEAT * MAX_HEAT);
    int *brk = calloc(2 * MAX_HEAT, sizeof *brk);
    const char **rp = calloc(MAX_HEAT, sizeof *rp), **cp = calloc(MAX_HEAT, sizeof *cp);
    int rows = -1, cols = -1, any = 0;
    if (!rl || !cl || !v || !brk || !rp || !cp)
        b->failed = 1;
    else if ((rows = axis_values(x, cy, rl, row_at)) < 0 || (cols = axis_values(x, cx, cl, col_at)) < 0)
        not_drawn(b, p, "more rows or columns than the report draws");
    else if (rows > 0 && cols > 0) {
        for (int i = 0; i < rows * cols; i++)
            v[i] = NAN;
        for (int r = 0; r < x->n_rows; r++) {
            v[row_at[r] * cols + col_at[r]] = cv->num[r];
            any |= isfinite(cv->num[r]);
        }
        for (int i = 0; i < rows; i++)
            rp[i] = rl[i];
        for (int j = 0; j < cols; j++)
            cp[j] = cl[j];
        const int levels = domains(x, p, row_at, col_at, rl, rows, cl, cols, brk, brk + MAX_HEAT);
        const int cw = cols * 56 <= 520 ? 56 : 520 / cols > 3 ? 520 / cols : 3;
        const int ch = rows * 40 <= 400 ? 40 : 400 / rows > 3 ? 400 / rows : 3;
        const struct html_heat h = { .title = p->title,
                                     .unit = cv->unit,
                                     .row_name = cy->name,
                                     .col_name = cx->name,
                                     .rows = rows,
                                     .cols = cols,
                                     .v = v,
                                     .col_step = 1,
                                     .cell_w = cw,
                                     .cell_h = ch,
                                     .values = cw >= 40 && ch >= 18,
                                     .fmt = "%.3g",
                                     .row_labels = rp,
                                     .col_labels = cp,
                                     .row_break = levels > 0 ? brk : NULL,
                                     .col_break = levels > 0 ? brk + MAX_HEAT : NULL,
                                     .svg_class = "heat section-plot" };
        if (levels < 0)
            b->failed = 1;
        else if (any) {
            hb_raw(b, "<p class=\"muted\">Rows: ");
            hb_esc(b, cy->name);
            hb_raw(b, "; columns: ");
            hb_esc(b, cx->name);
            hb_raw(b, "; colour: ");
            axis_name(b, cv);
            if (levels > 0) {
                hb_raw(b, "; lines where ");
                hb_esc(b, p->boundaries);
                hb_raw(b, " change, the thicker the outer");
            }
            hb_raw(b, ".</p>\n");
            html_heat_map(b, &h);
        } else
            not_drawn(b, p, "no value measured");
    } else
        not_drawn(b, p, "no row measured");
    free(rl), free(cl), free(v), free(brk), free(rp), free(cp);
}

static void table(struct hbuf *b, const struct ts_survey_section *x)
{
    const int shown = x->n_rows < MAX_TABLE_ROWS ? x->n_rows : MAX_TABLE_ROWS;
    hb_fmt(b, "<details><summary>The table (%d row%s", (int)x->n_rows, x->n_rows == 1 ? "" : "s");
    if (shown < x->n_rows)
        hb_fmt(b, ", the first %d shown: <code>touchstone survey --dump</code> prints all", shown);
    hb_raw(b, ")</summary><div class=\"scroll\"><table><thead><tr>");
    for (int c = 0; c < x->n_cols; c++) {
        hb_raw(b, "<th>");
        axis_name(b, &x->cols[c]);
        hb_raw(b, "</th>");
    }
    hb_raw(b, "</tr></thead><tbody>\n");
    for (int r = 0; r < shown; r++) {
        hb_raw(b, "<tr>");
        for (int c = 0; c < x->n_cols; c++)
            if (x->cols[c].is_text)
                hb_td_text(b, x->cols[c].text[r]);
            else
                hb_td_num(b, "%.6g", x->cols[c].num[r]);
        hb_raw(b, "</tr>\n");
    }
    hb_raw(b, "</tbody></table></div></details>\n");
}

static void facts(struct hbuf *b, const struct ts_survey_section *x)
{
    if (x->n_facts <= 0)
        return;
    hb_raw(b, "<table class=\"facts\"><thead><tr><th>fact</th><th>value</th><th>unit</th></tr></thead><tbody>\n");
    for (int f = 0; f < x->n_facts; f++) {
        hb_raw(b, "<tr>");
        hb_td_text(b, x->facts[f].key);
        hb_td_num(b, "%.4g", x->facts[f].value);
        hb_td_text(b, x->facts[f].unit);
        hb_raw(b, "</tr>\n");
    }
    hb_raw(b, "</tbody></table>\n");
}

static void header(struct hbuf *b, const struct ts_survey_section *x)
{
    hb_raw(b, "<article class=\"survey-section\" id=\"section-");
    hb_esc(b, x->name);
    hb_fmt(b, "\" data-plots=\"%d\">\n<h3>", (int)x->n_plots);
    hb_esc(b, x->title[0] ? x->title : x->name);
    if (x->misplaced)
        hb_raw(b, " <span class=\"bad misplaced\">MISPLACED</span>");
    if (x->disturbed > 0)
        hb_raw(b, " <span class=\"warn disturbed\">DISTURBED</span>");
    hb_raw(b, "</h3>\n<p class=\"summary\">");
    hb_esc(b, x->summary[0] ? x->summary : "(no summary)");
    hb_raw(b, "</p>\n");
    if (x->misplaced)
        hb_fmt(b,
               "<p class=\"bad\">Misplaced: only %.0f%% of some buffer's pages were on the memory node asked for, "
               "so its numbers do not measure that node.</p>\n",
               isnan(x->placed_fraction) ? 0.0 : 100 * x->placed_fraction);
    if (x->disturbed > 0)
        hb_raw(b, "<p class=\"warn\">Disturbed: other processes took its CPUs while it ran.</p>\n");
    if (x->note[0]) {
        hb_raw(b, "<p class=\"note\">");
        hb_esc(b, x->note);
        hb_raw(b, "</p>\n");
    }
}

static void footer(struct hbuf *b, const struct ts_survey_section *x)
{
    hb_raw(b, "<p class=\"muted\">Conditions: ");
    hb_esc(b, x->conditions[0] ? x->conditions : "not recorded");
    if (!isnan(x->seconds))
        hb_fmt(b, "; took %.3g s", x->seconds);
    if (!isnan(x->placed_fraction))
        hb_fmt(b, "; pages on the node asked: %.3g (smallest fraction of a buffer)", x->placed_fraction);
    hb_raw(b, ".</p>\n<p>Measure it again: <code>");
    hb_esc(b, x->command);
    hb_raw(b, "</code></p>\n");
}

static void one_section(struct hbuf *b, const struct ts_survey_section *x)
{
    header(b, x);
    const size_t n = (size_t)(x->n_rows > 0 ? x->n_rows : 1);
    int *of = malloc(n * sizeof *of), *idx = malloc(2 * n * sizeof *idx);
    label_t *names = calloc(MAX_SERIES, sizeof *names);
    if (!of || !idx || !names)
        b->failed = 1;
    for (int i = 0; of && idx && names && i < x->n_plots; i++) {
        const struct ts_section_plot *p = &x->plots[i];
        if (p->kind == TS_SECTION_LINES)
            lines_plot(b, x, p, of, idx, names);
        else if (p->kind == TS_SECTION_BARS)
            bars_plot(b, x, p, of, idx, names);
        else
            heat_plot(b, x, p, of, idx);
    }
    free(of), free(idx), free(names);
    facts(b, x);
    footer(b, x);
    table(b, x);
    hb_raw(b, "</article>\n");
}

void html_sections(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"sections\">\n<h2>The memory system</h2>\n");
    if (!c->survey) {
        hb_raw(b, "<p class=\"empty\">A plain set of runs has no survey sections: <code>touchstone survey</code> "
                  "measures them (bandwidth against the working set, STREAM, scaling, latency under load, "
                  "core-to-core latency).</p>\n</section>\n");
        return;
    }
    const struct ts_survey_rec *s = c->survey;
    if (s->n_sections <= 0 || !s->sections) {
        hb_raw(b, "<p class=\"empty\">This survey holds no sections (not measured yet, or a survey file written "
                  "before them).</p>\n</section>\n");
        return;
    }
    hb_raw(b, "<p class=\"muted\">Each section measures one side of the node's memory system; its plots are drawn "
              "from its own table, which follows it folded. docs/survey.md says what each measures.</p>\n");
    for (int i = 0; i < s->n_sections; i++)
        one_section(b, &s->sections[i]);
    hb_raw(b, "</section>\n");
}

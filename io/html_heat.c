/* The heat maps: the survey's NUMA matrix (latency and bandwidth apart, misplaced cells
 * marked) and each run's per-thread per-iteration times (imbalance at a glance). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_doc.h"
#include "ts_units.h"

#define MAX_COLS 120
#define MAX_ROWS 256
#define MAX_MAPS 8
#define MAX_MATRIX_NODES 64

void html_heat_map(struct hbuf *b, const struct html_heat *h)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < h->rows * h->cols; i++)
        if (isfinite(h->v[i])) {
            lo = fmin(lo, h->v[i]);
            hi = fmax(hi, h->v[i]);
        }
    const int L = 96, T = 26, legend_h = h->marked ? 58 : 44;
    const int W = L + h->cols * h->cell_w + 12, H = T + 18 + h->rows * h->cell_h + legend_h;
    const int shown_w = W < 560 ? 560 : W;
    hb_fmt(b, "<figure><svg class=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\"><title>",
           h->svg_class ? h->svg_class : "heat", shown_w, H, shown_w);
    hb_esc(b, h->title);
    hb_raw(b, " (");
    hb_esc(b, h->unit);
    hb_raw(b, ")</title><text x=\"4\" y=\"16\" class=\"ct\">");
    hb_esc(b, h->title);
    hb_raw(b, " (");
    hb_esc(b, h->unit);
    hb_raw(b, ")</text>");
    /* column labels: every one when there is room, else every tenth */
    const int every = h->cell_w >= 40 ? 1 : 10;
    for (int j = 0; j < h->cols; j += every) {
        if (h->col_labels) {
            hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"muted\">",
                   L + j * h->cell_w + h->cell_w / 2, T + 12);
            hb_escn(b, h->col_labels[j], 12);
            hb_raw(b, "</text>");
            continue;
        }
        hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"muted\">%s %d</text>",
               L + j * h->cell_w + h->cell_w / 2, T + 12, every == 1 ? h->col_name : "",
               h->col_ids ? h->col_ids[j] : j * h->col_step);
    }
    for (int i = 0; i < h->rows; i++) {
        const int y = T + 18 + i * h->cell_h;
        if (h->row_labels && (h->cell_h >= 10 || i % 10 == 0)) {
            hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"muted\">", L - 4, y + h->cell_h / 2 + 4);
            hb_escn(b, h->row_labels[i], 14);
            hb_raw(b, "</text>");
        } else if (h->cell_h >= 10 || i % 10 == 0)
            hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"muted\">%s %d</text>", L - 4,
                   y + h->cell_h / 2 + 4, h->row_name, h->row_ids ? h->row_ids[i] : i);
        for (int j = 0; j < h->cols; j++) {
            const double v = h->v[i * h->cols + j];
            const double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
            char color[8];
            html_heat_color(t, color);
            const int x = L + j * h->cell_w;
            const int bad = h->marked && h->marked[i * h->cols + j];
            if (h->row_labels && h->col_labels) {
                hb_raw(b, "<g><title>");
                hb_esc(b, h->row_name);
                hb_raw(b, " ");
                hb_escn(b, h->row_labels[i], 64);
                hb_raw(b, ", ");
                hb_esc(b, h->col_name);
                hb_raw(b, " ");
                hb_escn(b, h->col_labels[j], 64);
                hb_raw(b, ": ");
            } else
                hb_fmt(b, "<g><title>%s %d, %s %d: ", h->row_name, h->row_ids ? h->row_ids[i] : i, h->col_name,
                       h->col_ids ? h->col_ids[j] : j * h->col_step);
            hb_num(b, "%.4g", v);
            hb_raw(b, " ");
            hb_esc(b, h->unit);
            if (bad)
                hb_raw(b, "; MISPLACED: its pages were not all on the memory node");
            if (h->notes && h->notes[i * h->cols + j][0]) {
                hb_raw(b, "; ");
                hb_escn(b, h->notes[i * h->cols + j], 256);
            }
            /* class mark: a measured value drawn (the browser check counts them) */
            hb_fmt(b, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s/>", x, y, h->cell_w,
                   h->cell_h, isfinite(v) ? color : "#e0e0e0", isfinite(v) ? " class=\"mark\"" : "");
            if (bad)
                hb_fmt(b,
                       "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"bad misplaced\"/>"
                       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"bad\"/>",
                       x + 2, y + 2, h->cell_w - 4, h->cell_h - 4, x + 2, y + 2, x + h->cell_w - 2, y + h->cell_h - 2);
            if (h->values) {
                hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">", x + h->cell_w / 2,
                       y + h->cell_h / 2 + (bad ? 0 : 4), isfinite(v) && t > 0.45 ? "#fff" : "#111");
                hb_num(b, h->fmt, v);
                hb_raw(b, "</text>");
                if (bad)
                    hb_fmt(b,
                           "<rect x=\"%d\" y=\"%d\" width=\"64\" height=\"14\" fill=\"#fff\"/>"
                           "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#c0392b\">misplaced</text>",
                           x + h->cell_w / 2 - 32, y + h->cell_h / 2 + 4, x + h->cell_w / 2, y + h->cell_h / 2 + 15);
            }
            hb_raw(b, "</g>");
        }
    }
    /* domain boundaries: a line before each row or column where a domain changes, thicker for
     * the outer ones */
    const int top = T + 18, bottom = T + 18 + h->rows * h->cell_h, right = L + h->cols * h->cell_w;
    for (int i = 1; h->row_break && i < h->rows; i++)
        if (h->row_break[i] > 0)
            hb_fmt(
                b,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#111\" stroke-width=\"%d\" class=\"domain\"/>",
                L, top + i * h->cell_h, right, top + i * h->cell_h, h->row_break[i]);
    for (int j = 1; h->col_break && j < h->cols; j++)
        if (h->col_break[j] > 0)
            hb_fmt(
                b,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#111\" stroke-width=\"%d\" class=\"domain\"/>",
                L + j * h->cell_w, top, L + j * h->cell_w, bottom, h->col_break[j]);
    /* legend: the scale from the smallest to the largest value */
    const int ly = T + 18 + h->rows * h->cell_h + 10;
    for (int k = 0; k < 10; k++) {
        char color[8];
        html_heat_color(k / 9.0, color);
        hb_fmt(b, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"10\" fill=\"%s\"/>", L + k * 16, ly, color);
    }
    hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", L - 4, ly + 9);
    hb_num(b, h->fmt, isfinite(lo) ? lo : NAN);
    hb_fmt(b, "</text><text x=\"%d\" y=\"%d\">", L + 164, ly + 9);
    hb_num(b, h->fmt, isfinite(hi) ? hi : NAN);
    hb_raw(b, " ");
    hb_esc(b, h->unit);
    hb_fmt(b, "</text><text x=\"%d\" y=\"%d\" class=\"muted\">grey: not measured", L, ly + 26);
    if (h->marked) /* a line of its own: a phone-wide figure is 560 units */
        hb_fmt(b,
               "</text><text x=\"%d\" y=\"%d\" class=\"muted\">red outline and cross: misplaced (pages not "
               "all on the memory node)",
               L - 90, ly + 40);
    hb_raw(b, "</text></svg></figure>\n");
}

static void matrix_table(struct hbuf *b, const struct ts_survey_matrix *m)
{
    static const char *const cols[] = {
        "CPU node",           "memory node",         "threads",     "latency 4 KiB (ns)",
        "latency 2 MiB (ns)", "loaded latency (ns)", "read (GB/s)", "triad (GB/s)",
        "pages on node",      "placement",           "note"
    };
    hb_raw(b, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr>");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        hb_fmt(b, "<th>%s</th>", cols[i]);
    hb_raw(b, "</tr></thead><tbody>\n");
    for (int i = 0; i < m->n_cpu_nodes * m->n_mem_nodes; i++) {
        const struct ts_survey_cell *x = &m->cell[i];
        hb_raw(b, x->misplaced ? "<tr class=\"misplaced\">" : "<tr>");
        hb_td_num(b, "%.0f", x->cpu_node);
        hb_td_num(b, "%.0f", x->mem_node);
        hb_td_num(b, "%.0f", x->threads);
        hb_td_num(b, "%.1f", x->latency_ns);
        hb_td_num(b, "%.1f", x->latency_huge_ns);
        hb_td_num(b, "%.1f", x->latency_loaded_ns);
        hb_td_num(b, "%.2f", x->read_gbs);
        hb_td_num(b, "%.2f", x->triad_gbs);
        hb_td_num(b, "%.3f", x->fraction);
        hb_raw(b, x->misplaced ? "<td class=\"bad\">misplaced</td>" : "<td>verified</td>");
        hb_raw(b, "<td>");
        hb_escn(b, x->note, sizeof x->note);
        hb_raw(b, "</td></tr>\n");
    }
    hb_raw(b, "</tbody></table></div>\n");
}

void html_matrix(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"matrix\">\n<h2>The NUMA matrix</h2>\n");
    if (!c->survey) {
        hb_raw(b, "<p class=\"empty\">A plain set of runs has no NUMA matrix: <code>touchstone survey</code> measures "
                  "it (every CPU node against every memory node).</p>\n</section>\n");
        return;
    }
    const struct ts_survey_matrix *m = &c->survey->matrix;
    if (m->n_cpu_nodes > MAX_MATRIX_NODES || m->n_mem_nodes > MAX_MATRIX_NODES) {
        hb_fmt(b, "<p class=\"empty\">A matrix of %d x %d nodes: more than this report draws.</p>\n</section>\n",
               (int)m->n_cpu_nodes, (int)m->n_mem_nodes);
        return;
    }
    const int cells = m->n_cpu_nodes * m->n_mem_nodes;
    if (!c->survey->has_matrix || m->n_cpu_nodes <= 0 || m->n_mem_nodes <= 0 || !m->cell || !m->cpu_nodes
        || !m->mem_nodes) {
        hb_raw(b, "<p class=\"empty\">The survey has not measured the matrix yet (interrupted before it, or "
                  "resumed runs pending).</p>\n</section>\n");
        return;
    }
    char chase[32], llc[32], stream[32];
    ts_bytes_text((uint64_t)(m->chase_bytes > 0 ? m->chase_bytes : 0), chase, sizeof chase);
    ts_bytes_text((uint64_t)(m->llc_bytes > 0 ? m->llc_bytes : 0), llc, sizeof llc);
    ts_bytes_text((uint64_t)(m->stream_bytes > 0 ? m->stream_bytes : 0), stream, sizeof stream);
    hb_fmt(b,
           "<p class=\"muted\">Threads on each CPU node (rows) using memory of each node (columns). Latency: a "
           "dependent pointer chase over a random cycle in %s (%s%s%s); bandwidth: ",
           chase,
           m->llc_bytes <= 0               ? "no last-level cache size known"
           : m->chase_bytes > m->llc_bytes ? "past the "
                                           : "within the ",
           m->llc_bytes > 0 ? llc : "",
           m->llc_bytes <= 0               ? ""
           : m->chase_bytes > m->llc_bytes ? " LLC"
                                           : " LLC: a cache's latency, not memory's");
    hb_escn(b, m->byte_model_read, sizeof m->byte_model_read);
    hb_raw(b, " and ");
    hb_escn(b, m->byte_model_triad, sizeof m->byte_model_triad);
    hb_fmt(b, " over %s. Every buffer's pages were checked on its memory node before its number counts.</p>\n", stream);
    if (c->survey->emulated) {
        hb_raw(b, "<p class=\"warn\">Emulated machine: timings mean nothing here (");
        hb_esc(b, c->survey->emulated_why[0] ? c->survey->emulated_why : "the survey says so");
        hb_raw(b, "). The placement of each cell is still verified.</p>\n");
    }
    if (m->misplaced_cells > 0)
        hb_fmt(b,
               "<p class=\"bad\">%d cell%s misplaced: the pages were not all on the memory node, so %s number "
               "does not measure that pair.</p>\n",
               (int)m->misplaced_cells, m->misplaced_cells == 1 ? " is" : "s are",
               m->misplaced_cells == 1 ? "its" : "their");
    double *v = malloc((size_t)cells * sizeof *v);
    int *marked = malloc((size_t)cells * sizeof *marked);
    int *rows = malloc((size_t)m->n_cpu_nodes * sizeof *rows), *cols = malloc((size_t)m->n_mem_nodes * sizeof *cols);
    char(*notes)[256] = malloc((size_t)cells * sizeof *notes);
    if (!v || !marked || !rows || !cols || !notes) {
        b->failed = 1;
    } else {
        for (int i = 0; i < m->n_cpu_nodes; i++)
            rows[i] = m->cpu_nodes[i];
        for (int j = 0; j < m->n_mem_nodes; j++)
            cols[j] = m->mem_nodes[j];
        for (int i = 0; i < cells; i++) {
            marked[i] = m->cell[i].misplaced != 0;
            memcpy(notes[i], m->cell[i].note, sizeof notes[i]);
            notes[i][sizeof notes[i] - 1] = '\0';
        }
        static const struct {
            const char *title, *unit, *fmt;
            size_t offset;
            int latency;
        } maps[] = {
            { "idle latency, 4 KiB pages", "ns", "%.1f", offsetof(struct ts_survey_cell, latency_ns), 1 },
            { "idle latency, 2 MiB pages", "ns", "%.1f", offsetof(struct ts_survey_cell, latency_huge_ns), 1 },
            { "loaded latency (the other threads streaming)", "ns", "%.1f",
              offsetof(struct ts_survey_cell, latency_loaded_ns), 1 },
            { "read bandwidth (sum)", "GB/s", "%.2f", offsetof(struct ts_survey_cell, read_gbs), 0 },
            { "triad bandwidth", "GB/s", "%.2f", offsetof(struct ts_survey_cell, triad_gbs), 0 },
        };
        for (int latency = 1; latency >= 0; latency--) {
            hb_raw(b, latency ? "<h3>Latency</h3>\n" : "<h3>Bandwidth</h3>\n");
            for (size_t k = 0; k < sizeof maps / sizeof maps[0]; k++) {
                if (maps[k].latency != latency)
                    continue;
                int any = 0;
                for (int i = 0; i < cells; i++) {
                    v[i] = *(const double *)(const void *)((const char *)&m->cell[i] + maps[k].offset);
                    any |= !isnan(v[i]);
                }
                if (!any) {
                    hb_raw(b, "<p class=\"empty\">");
                    hb_raw(b, maps[k].title);
                    hb_raw(b, ": not measured in any cell.</p>\n");
                    continue;
                }
                const struct html_heat h = { .title = maps[k].title,
                                             .unit = maps[k].unit,
                                             .row_name = "CPU node",
                                             .col_name = "memory",
                                             .rows = m->n_cpu_nodes,
                                             .cols = m->n_mem_nodes,
                                             .v = v,
                                             .marked = marked,
                                             .notes = notes,
                                             .row_ids = rows,
                                             .col_ids = cols,
                                             .col_step = 1,
                                             .cell_w = 110,
                                             .cell_h = 48,
                                             .values = 1,
                                             .fmt = maps[k].fmt };
                html_heat_map(b, &h);
            }
        }
        matrix_table(b, m);
    }
    free(v);
    free(marked);
    free(rows);
    free(cols);
    free(notes);
    hb_raw(b, "</section>\n");
}

/* One run's times as threads x iterations, columns averaging col_step iterations each. */
static void thread_map(struct hbuf *b, const struct html_ctx *c, int i)
{
    const struct ts_run_summary *s = &c->runs[i];
    const int rows = s->n_threads < MAX_ROWS ? s->n_threads : MAX_ROWS;
    const int64_t iters = s->n_iterations;
    const int step = (int)((iters + MAX_COLS - 1) / MAX_COLS);
    const int cols = (int)((iters + step - 1) / step);
    double *v = malloc((size_t)rows * (size_t)cols * sizeof *v);
    if (!v) {
        b->failed = 1;
        return;
    }
    double worst = 0, sum = 0;
    int counted = 0;
    for (int t = 0; t < rows; t++)
        for (int j = 0; j < cols; j++) {
            double acc = 0;
            int n = 0;
            for (int64_t k = (int64_t)j * step; k < iters && k < (int64_t)(j + 1) * step; k++) {
                const double x = s->thread_iteration[(size_t)t * (size_t)iters + (size_t)k];
                if (!isnan(x)) {
                    acc += x;
                    n++;
                }
            }
            v[t * cols + j] = n ? acc / n * 1e3 : NAN;
            if (n) {
                worst = fmax(worst, v[t * cols + j]);
                sum += v[t * cols + j];
                counted++;
            }
        }
    hb_raw(b, "<h3>");
    html_run_link(b, c, i);
    hb_raw(b, "</h3>\n<p class=\"muted\">");
    hb_fmt(b, "%d thread%s x %lld iteration%s", (int)s->n_threads, s->n_threads == 1 ? "" : "s", (long long)iters,
           iters == 1 ? "" : "s");
    if (step > 1)
        hb_fmt(b, " (each column the mean of %d iterations)", step);
    if (counted)
        hb_fmt(b, "; slowest cell %.3g ms, mean %.3g ms, ratio %.2f", worst, sum / counted, worst / (sum / counted));
    hb_raw(b, ".</p>\n");
    const int cw = cols <= 12 ? 40 : cols <= 40 ? 12 : 5, ch = rows <= 16 ? 18 : rows <= 64 ? 8 : 3;
    const struct html_heat h = { .title = "time per thread and iteration",
                                 .unit = "ms",
                                 .row_name = "thread",
                                 .col_name = "it.",
                                 .rows = rows,
                                 .cols = cols,
                                 .v = v,
                                 .col_step = step,
                                 .cell_w = cw,
                                 .cell_h = ch,
                                 .values = 0,
                                 .fmt = "%.3g" };
    html_heat_map(b, &h);
    free(v);
}

void html_threads(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"threads\">\n<h2>Per-thread times</h2>\n");
    hb_raw(b, "<p class=\"muted\">Each thread's time in each timed iteration (<code>/timings/thread_iteration</code>): "
              "a dark row is a slow thread (imbalance, a busy core, remote pages), a dark column a slow iteration "
              "for everyone (the machine).</p>\n");
    int shown = 0, read = 0;
    for (int i = 0; i < c->n_runs; i++) {
        if (!html_has_run(c, i))
            continue;
        read++;
        if (shown >= MAX_MAPS || c->runs[i].n_iterations == 0 || !c->runs[i].thread_iteration)
            continue;
        thread_map(b, c, i);
        shown++;
    }
    if (shown == 0)
        hb_raw(b, "<p class=\"empty\">No run here has timed iterations to show.</p>\n");
    else if (read > shown)
        hb_fmt(b, "<p class=\"muted\">%d of %d runs are drawn.</p>\n", shown, read);
    hb_raw(b, "</section>\n");
}

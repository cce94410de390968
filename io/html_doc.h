/* The HTML report's parts (io/ts_html.h), internal to ts_io: a growing text buffer that escapes
 * whatever came from a file, the pictures' helpers (colours, bars, axes), and one function per
 * section, each writing its own <section>. */
#ifndef TOUCHSTONE_IO_HTML_DOC_H
#define TOUCHSTONE_IO_HTML_DOC_H

#include <stddef.h>

#include "ts_run_read.h"
#include "ts_survey_rec.h"

struct hbuf {
    char *p;
    size_t len, cap;
    int failed; /* memory ran out: everything after is dropped, the caller reports it */
};

/* Markup written as is: only literals and numbers of ours, never text from a file. */
void hb_raw(struct hbuf *b, const char *s);
void hb_fmt(struct hbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text from a file or a user, escaped for element content and attribute values alike (& < > "
 * ' become entities, control characters '?'). */
void hb_esc(struct hbuf *b, const char *s);
void hb_escn(struct hbuf *b, const char *s, size_t n);
/* A number with fmt ("%.3g"), or an en dash for NaN (not measured). */
void hb_num(struct hbuf *b, const char *fmt, double v);
/* A table cell holding a number: its value in data-v for the sort, the text formatted. */
void hb_td_num(struct hbuf *b, const char *fmt, double v);
void hb_td_text(struct hbuf *b, const char *s);

/* A colour of a sequential scale (0: light, 1: dark), "#rrggbb", and of category k. */
void html_heat_color(double t, char out[8]);
const char *html_category_color(int k);

/* A horizontal bar chart as inline SVG: one bar per label, values in unit (NaN: no bar, "not
 * measured"); title is the picture's <title> and heading. */
void html_bars(struct hbuf *b, const char *title, const char *unit, const char *const *labels, const double *values,
               int n, const char *fmt);

/* A heat map as inline SVG: rows x cols cells coloured from the smallest to the largest finite
 * value (NaN grey), a colour scale with the unit under it. */
struct html_heat {
    const char *title, *unit, *row_name, *col_name;
    int rows, cols;
    const double *v;    /* rows x cols; NaN: not measured */
    const int *marked;  /* rows x cols or NULL: cells to outline as misplaced */
    char (*notes)[256]; /* rows x cols or NULL: each cell's note */
    const int *row_ids, *col_ids;
    int col_step;               /* threads: iterations per column */
    int cell_w, cell_h, values; /* values: print each cell's value */
    const char *fmt;
    /* A survey section's map: labels of its own (NULL: "row_name id"), and where a domain
     * changes (row_break[i] > 0: a line of that width before row i; NULL: none). */
    const char *const *row_labels, *const *col_labels;
    const int *row_break, *col_break;
    const char *svg_class; /* NULL: "heat" */
};
void html_heat_map(struct hbuf *b, const struct html_heat *h);

/* What the sections share: the report's input and each run's anchor name. */
struct html_ctx {
    const struct ts_survey_rec *survey; /* NULL: a plain set of runs */
    const struct ts_run_summary *runs;
    int n_runs;
    char (*anchor)[80]; /* "NAME" of id="run-NAME", one per run, unique */
    char (*label)[96];  /* a short name of each run for pictures: the survey's name, the file's stem */
};

/* Whether other work disturbed run i (common/ts_disturbed.h, the rule compare and report use):
 * 1 yes (why says why), 0 no, -1 not known. */
int html_disturbed(const struct html_ctx *c, int i, char *why, size_t size);
/* The runs read and, of them, disturbed; with a paragraph saying so (class "warn disturbed")
 * when any was, before the numbers. */
void html_disturbed_note(struct hbuf *b, const struct html_ctx *c);

/* Whether run i was read (a survey's pending or failed runs were not). */
int html_has_run(const struct html_ctx *c, int i);
/* <a href="#run-NAME">label</a> of run i. */
void html_run_link(struct hbuf *b, const struct html_ctx *c, int i);
/* Runs of the survey group g (a plain set: every read run) into idx; returns how many. */
int html_runs_of(const struct html_ctx *c, int group, int *idx);
/* A one-line description of the run's configuration except what varies (a mask of HTML_KEY_*). */
enum { HTML_KEY_INIT = 1, HTML_KEY_BIND = 2, HTML_KEY_THREADS = 4 };
void html_config_key(const struct ts_run_summary *s, int leave_out, char *buf, size_t size);

void html_verdict(struct hbuf *b, const struct html_ctx *c);
void html_node(struct hbuf *b, const struct html_ctx *c);
void html_placement(struct hbuf *b, const struct html_ctx *c);
void html_init(struct hbuf *b, const struct html_ctx *c);
void html_binding(struct hbuf *b, const struct html_ctx *c);
void html_scaling(struct hbuf *b, const struct html_ctx *c);
void html_matrix(struct hbuf *b, const struct html_ctx *c);
void html_sections(struct hbuf *b, const struct html_ctx *c);
void html_threads(struct hbuf *b, const struct html_ctx *c);
void html_conditions(struct hbuf *b, const struct html_ctx *c);
void html_commands(struct hbuf *b, const struct html_ctx *c);

#endif

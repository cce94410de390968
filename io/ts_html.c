/* The HTML report as a document: head (inline CSS for screens, phones and print), a table of
 * contents, the sections in their fixed order, the small sort script; then the file written
 * as every output is, through a temporary name and a rename. */
#include "ts_html.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_doc.h"
#include "ts_disturbed.h"
#include "ts_summary.h"
#include "ts_file_place.h"

static const char css[] =
    "<style>\n"
    ":root{--fg:#1b1b1b;--muted:#666;--line:#ccc;--bad:#c0392b;--warn:#b35900;--bg:#fff}\n"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg);"
    "margin:0 auto;max-width:1100px;padding:0 12px}\n"
    "h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.25em;border-bottom:1px solid var(--line);"
    "padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em}\n"
    "nav{font-size:.9em;margin:.4em 0 1em}nav a{margin-right:.8em;white-space:nowrap}\n"
    "section{margin-bottom:1.5em}figure{margin:.6em 0;overflow-x:auto}\n"
    "p,li,h3,dd,figcaption{overflow-wrap:anywhere}\n" /* paths: a phone's width is 390 px */
    ".charts{display:flex;flex-wrap:wrap;gap:0 1.5em}.charts figure{flex:0 1 460px}\n"
    "svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}svg .ct{font-weight:600}\n"
    "svg .muted,.muted{color:var(--muted);fill:var(--muted)}svg .axis{stroke:#333;stroke-width:1}\n"
    "svg .grid{stroke:#ddd;stroke-width:1}svg .bad{stroke:var(--bad);stroke-width:3;fill:none}\n"
    ".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.9em;margin:.5em 0}\n"
    "th,td{border:1px solid var(--line);padding:.25em .5em;text-align:left;vertical-align:top}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "table.sortable th{cursor:pointer;background:#f3f3f3}table.sortable th:after{content:' \\2195';color:#999}\n"
    "pre{background:#f6f6f6;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}\n"
    ".empty{color:var(--muted);font-style:italic}.warn{color:var(--warn);font-weight:600}"
    ".bad{color:var(--bad);font-weight:600}\n"
    ".verdict li{margin:.3em 0}.src{font-size:.85em;color:var(--muted)}\n"
    "@media (max-width:600px){body{font-size:14px;padding:0 6px}th,td{padding:.2em .3em}}\n"
    "@media print{nav{display:none}section{break-inside:avoid-page}figure,table,svg{break-inside:avoid}"
    "a{color:inherit;text-decoration:none}body{max-width:none}pre{white-space:pre-wrap}"
    "table.sortable th:after{content:''}}\n"
    "</style>\n";

/* Sorts a table of class sortable by the clicked column: numbers by data-v, text otherwise
 * ("0:23570", a node and its free MiB, is text: parseFloat would read every row as 0). */
static const char script[] =
    "<script>\n"
    "(function(){\n"
    "function key(c){var v=c.getAttribute('data-v');return v!==null?v:c.textContent;}\n"
    "function sortBy(th){var t=th.closest('table'),b=t.tBodies[0];if(!b)return;\n"
    "var i=Array.prototype.indexOf.call(th.parentNode.children,th);\n"
    "var up=th.getAttribute('data-dir')!=='a';th.setAttribute('data-dir',up?'a':'d');\n"
    "var rows=Array.prototype.slice.call(b.rows);\n"
    "rows.sort(function(x,y){var p=x.cells[i],q=y.cells[i];if(!p||!q)return 0;\n"
    "var u=key(p),v=key(q),nu=Number(u),nv=Number(v),c;\n"
    "if(u===''&&v!=='')c=1;else if(v===''&&u!=='')c=-1;\n"
    "else c=(isFinite(nu)&&isFinite(nv))?nu-nv:0;if(c===0)c=u.localeCompare(v);return up?c:-c;});\n"
    "rows.forEach(function(r){b.appendChild(r);});}\n"
    "var hs=document.querySelectorAll('table.sortable thead th');\n"
    "for(var k=0;k<hs.length;k++){hs[k].addEventListener('click',function(e){sortBy(e.currentTarget);});}\n"
    "})();\n"
    "</script>\n";

int html_has_run(const struct html_ctx *c, int i)
{
    if (c->survey && c->survey->runs[i].state != TS_SURVEY_DONE)
        return 0;
    return c->runs[i].n_threads > 0;
}

int html_disturbed(const struct html_ctx *c, int i, char *why, size_t size)
{
    /* A survey judged its runs itself, with what it saw of the node while each ran. */
    if (c->survey && c->survey->runs[i].state == TS_SURVEY_DONE) {
        snprintf(why, size, "%s", c->survey->runs[i].disturbed_why);
        return c->survey->runs[i].disturbed;
    }
    const struct ts_run_summary *s = &c->runs[i];
    struct ts_disturb_facts f;
    ts_disturb_facts_of(s->n_threads, s->kernel_time, s->involuntary, s->wait, s->has_machine ? &s->machine : NULL, &f);
    return ts_disturbed(&f, why, size);
}

void html_disturbed_note(struct hbuf *b, const struct html_ctx *c)
{
    int read = 0, disturbed = 0, first = -1;
    char why[600] = "", scratch[600];
    for (int i = 0; i < c->n_runs; i++) {
        if (!html_has_run(c, i))
            continue;
        read++;
        if (html_disturbed(c, i, first < 0 ? why : scratch, first < 0 ? sizeof why : sizeof scratch) > 0) {
            disturbed++;
            if (first < 0)
                first = i;
        }
    }
    if (disturbed == 0)
        return;
    hb_fmt(b,
           "<p class=\"warn disturbed\">DISTURBED: %d of %d runs: other work took their CPUs while they computed, "
           "so their times are the machine's as much as the configuration's (marked DISTURBED in the tables and "
           "charts below; the first, ",
           disturbed, read);
    html_run_link(b, c, first);
    hb_raw(b, ": ");
    hb_esc(b, why);
    hb_raw(b, "). Run them again on a quiet node before reading a difference into them.</p>\n");
}

void html_run_link(struct hbuf *b, const struct html_ctx *c, int i)
{
    hb_raw(b, "<a href=\"#run-");
    hb_esc(b, c->anchor[i]);
    hb_raw(b, "\">");
    hb_esc(b, c->label[i]);
    hb_raw(b, "</a>");
}

int html_runs_of(const struct html_ctx *c, int group, int *idx)
{
    int n = 0;
    for (int i = 0; i < c->n_runs; i++)
        if (html_has_run(c, i) && (!c->survey || c->survey->runs[i].group == group))
            idx[n++] = i;
    return n;
}

void html_config_key(const struct ts_run_summary *s, int leave_out, char *buf, size_t size)
{
    char problem[96], threads[48] = "", init[48] = "", bind[400] = "";
    ts_run_size_text(s, problem, sizeof problem);
    if (!(leave_out & HTML_KEY_THREADS)) {
        if (s->n_ranks > 1)
            snprintf(threads, sizeof threads, ", %d ranks x %d threads", (int)s->n_ranks,
                     (int)(s->n_threads / s->n_ranks));
        else
            snprintf(threads, sizeof threads, ", %d thread%s", (int)s->n_threads, s->n_threads == 1 ? "" : "s");
    }
    if (!(leave_out & HTML_KEY_INIT))
        snprintf(init, sizeof init, ", %s init", s->init_mode);
    if (!(leave_out & HTML_KEY_BIND))
        snprintf(bind, sizeof bind, ", OMP_PLACES=%s OMP_PROC_BIND=%s", s->places[0] ? s->places : "unset",
                 s->proc_bind[0] ? s->proc_bind : "unset");
    snprintf(buf, size, "%s %s%s%s, policy %s%s%s%s", s->kernel, problem, s->variant[0] ? " " : "", s->variant,
             s->policy, init, threads, bind);
}

/* The anchor name: letters, digits, '.', '_' and '-' of name, anything else '_', made unique
 * among the first i by a suffix. */
static void make_anchor(struct html_ctx *c, int i, const char *name)
{
    char base[64];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof base; p++)
        base[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.'
                                   || *p == '_' || *p == '-'
                               ? *p
                               : '_');
    base[n] = '\0';
    if (n == 0)
        snprintf(base, sizeof base, "%d", i + 1);
    snprintf(c->anchor[i], sizeof c->anchor[i], "%s", base);
    for (int k = 2, clash = 1; clash; k++) {
        clash = 0;
        for (int j = 0; j < i && !clash; j++)
            clash = strcmp(c->anchor[j], c->anchor[i]) == 0;
        if (clash)
            snprintf(c->anchor[i], sizeof c->anchor[i], "%s-%d", base, k);
    }
}

/* A plain run's name: its file's stem ("runs/sum-t4.h5" -> "sum-t4"). */
static void file_stem(const char *file, char *buf, size_t size)
{
    const char *slash = strrchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    size_t len = strlen(base);
    if (len > 3 && strcmp(base + len - 3, ".h5") == 0)
        len -= 3;
    snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), base);
}

static void document(struct hbuf *b, const struct html_ctx *c)
{
    static const char *const ids[TS_HTML_N_SECTIONS] = TS_HTML_SECTIONS;
    hb_raw(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<meta name=\"generator\" content=\"touchstone\">\n<title>");
    if (c->survey) {
        hb_raw(b, "touchstone survey of ");
        hb_esc(b, c->survey->host);
    } else {
        hb_fmt(b, "touchstone report of %d run%s", c->n_runs, c->n_runs == 1 ? "" : "s");
    }
    hb_raw(b, "</title>\n");
    hb_raw(b, css);
    hb_raw(b, "</head>\n<body>\n<header><h1>");
    if (c->survey) {
        hb_raw(b, "touchstone survey: ");
        hb_esc(b, c->survey->host);
    } else {
        hb_raw(b, "touchstone report");
    }
    hb_raw(b, "</h1>\n<nav>");
    for (int i = 0; i < TS_HTML_N_SECTIONS; i++)
        hb_fmt(b, "<a href=\"#%s\">%s</a>\n", ids[i], ids[i]);
    hb_raw(b, "</nav></header>\n<main>\n");
    void (*const sections[TS_HTML_N_SECTIONS])(struct hbuf *, const struct html_ctx *) = {
        html_verdict, html_node,     html_placement, html_init,       html_binding,  html_scaling,
        html_matrix,  html_sections, html_threads,   html_conditions, html_commands,
    };
    for (int i = 0; i < TS_HTML_N_SECTIONS; i++)
        sections[i](b, c);
    hb_raw(b, "</main>\n<footer class=\"muted\"><p>Written by touchstone");
    if (c->survey) {
        hb_raw(b, " ");
        hb_esc(b, c->survey->program_version);
    } else if (c->n_runs > 0) {
        hb_raw(b, " ");
        hb_esc(b, c->runs[0].program_version);
    }
    if (c->n_runs > 0 && c->runs[0].build_commit[0]) {
        const struct ts_run_summary *r = &c->runs[0];
        hb_raw(b, " (built from commit ");
        hb_esc(b, r->build_commit);
        hb_raw(b, "; ");
        hb_esc(b, r->build_compiler);
        hb_raw(b, "; OpenMP ");
        hb_esc(b, r->build_openmp);
        hb_raw(b, "; MPI ");
        hb_esc(b, r->build_mpi);
        hb_raw(b, "; HDF5 ");
        hb_esc(b, r->build_hdf5);
        hb_raw(b, ")");
    }
    hb_raw(b, "; docs/reading-the-report.md says how to read it.</p></footer>\n");
    hb_raw(b, script);
    hb_raw(b, "</body>\n</html>\n");
}

int ts_html_build(const struct ts_survey_rec *survey, const struct ts_run_summary *runs, int n_runs, char **html,
                  size_t *size, struct ts_error *err)
{
    *html = NULL;
    *size = 0;
    if (n_runs < 0 || (n_runs > 0 && !runs) || (survey && (n_runs != survey->n_runs || (n_runs > 0 && !survey->runs))))
        return ts_fail(err, TS_BAD_INPUT, "report: %d run summaries for a survey of %d runs", n_runs,
                       survey ? (int)survey->n_runs : 0);
    struct html_ctx c = { .survey = survey, .runs = runs, .n_runs = n_runs };
    const size_t slots = n_runs > 0 ? (size_t)n_runs : 1;
    c.anchor = calloc(slots, sizeof *c.anchor);
    c.label = calloc(slots, sizeof *c.label);
    struct hbuf b = { 0 };
    if (c.anchor && c.label) {
        for (int i = 0; i < n_runs; i++) {
            if (survey)
                snprintf(c.label[i], sizeof c.label[i], "%.*s", (int)sizeof c.label[i] - 1, survey->runs[i].name);
            else
                file_stem(runs[i].file, c.label[i], sizeof c.label[i]);
            make_anchor(&c, i, c.label[i]);
        }
        document(&b, &c);
    }
    free(c.anchor);
    free(c.label);
    if (!c.anchor || !c.label || b.failed || !b.p) {
        free(b.p);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "report: building the HTML report");
    }
    *html = b.p;
    *size = b.len;
    return TS_OK;
}

int ts_html_write(const char *path, const struct ts_survey_rec *survey, const struct ts_run_summary *runs, int n_runs,
                  struct ts_error *err)
{
    char *html = NULL, tmp[PATH_MAX];
    size_t size = 0;
    if (ts_file_refuse_special(path, "output", err) || ts_html_build(survey, runs, n_runs, &html, &size, err))
        return err->status;
    int fd = ts_file_create_temp(path, tmp, sizeof tmp, err);
    int st = fd < 0 ? err->status : ts_file_store(fd, html, size, tmp, path, err);
    free(html);
    struct ts_place place = { .path = path, .replace = 1 };
    if (fd >= 0 && st == TS_OK)
        st = ts_file_place(tmp, &place, err);
    if (st != TS_OK) {
        if (fd >= 0)
            ts_file_remove_temp(tmp, err);
        return st;
    }
    return ts_file_sync_dir(path, err);
}

/* The report's sections in words: the verdict on top, the distorting factors, and the commands
 * that reproduce each run (where each run's anchor is). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_doc.h"
#include "ts_section.h"

/* "a,b, matrix" as links: a run's name to its anchor, "matrix" to the matrix section,
 * "section:NAME" to that section of the memory system. */
static void sources(struct hbuf *b, const struct html_ctx *c, const char *list)
{
    char one[128];
    const char *p = list;
    int first = 1;
    hb_raw(b, " <span class=\"src\">(from ");
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t lead = strspn(p, " ");
        snprintf(one, sizeof one, "%.*s", (int)(n > lead ? n - lead : 0), p + lead);
        while (one[0] && one[strlen(one) - 1] == ' ')
            one[strlen(one) - 1] = '\0';
        if (one[0]) {
            hb_raw(b, first ? "" : ", ");
            first = 0;
            int run = -1;
            for (int i = 0; i < c->n_runs && run < 0; i++)
                if (strcmp(c->survey->runs[i].name, one) == 0)
                    run = i;
            if (strcmp(one, "matrix") == 0)
                hb_raw(b, "<a href=\"#matrix\">the NUMA matrix</a>");
            else if (strncmp(one, "section:", 8) == 0 && ts_survey_section_of(c->survey, one + 8)) {
                hb_raw(b, "<a href=\"#section-");
                hb_esc(b, one + 8);
                hb_raw(b, "\">the ");
                hb_esc(b, one + 8);
                hb_raw(b, " section</a>");
            } else if (run >= 0)
                html_run_link(b, c, run);
            else
                hb_esc(b, one);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    hb_raw(b, first ? "no source given)</span>" : ")</span>");
}

static void survey_verdict(struct hbuf *b, const struct html_ctx *c)
{
    const struct ts_survey_rec *s = c->survey;
    int done = 0, failed = 0;
    for (int i = 0; i < s->n_runs; i++) {
        done += s->runs[i].state == TS_SURVEY_DONE;
        failed += s->runs[i].state == TS_SURVEY_FAILED;
    }
    hb_raw(b, "<p>");
    hb_esc(b, s->mode);
    hb_raw(b, " survey of <b>");
    hb_esc(b, s->host);
    hb_raw(b, "</b>, started ");
    hb_esc(b, s->start_time);
    hb_fmt(b, ": %d of %d runs done, %d failed, NUMA matrix %s.", done, (int)s->n_runs, failed,
           s->has_matrix ? "measured" : "not measured");
    if (!s->complete)
        hb_raw(b, " <span class=\"warn\">The survey is not complete: resume it to fill in the rest.</span>");
    hb_raw(b, "</p>\n");
    html_disturbed_note(b, c);
    if (s->emulated) {
        hb_raw(b, "<p class=\"warn\">This machine is emulated: timings mean nothing here (");
        hb_esc(b, s->emulated_why[0] ? s->emulated_why : "the survey says so");
        hb_raw(b, "); placement is still verified.</p>\n");
    }
    const int n = s->n_sentences < 0                         ? 0
                  : s->n_sentences > TS_SURVEY_MAX_SENTENCES ? TS_SURVEY_MAX_SENTENCES
                                                             : s->n_sentences;
    if (n == 0) {
        hb_raw(b, "<p class=\"empty\">No verdict: the survey has not measured enough to draw one yet.</p>\n");
        return;
    }
    hb_raw(b, "<ol class=\"verdict\">\n");
    for (int i = 0; i < n; i++) {
        hb_raw(b, "<li>");
        hb_escn(b, s->sentences[i].text, sizeof s->sentences[i].text);
        char list[sizeof s->sentences[i].sources + 1];
        snprintf(list, sizeof list, "%.*s", (int)sizeof s->sentences[i].sources, s->sentences[i].sources);
        sources(b, c, list);
        hb_raw(b, "</li>\n");
    }
    hb_raw(b, "</ol>\n");
}

/* A plain set of runs: what it holds, in facts, no judgement. */
static void runs_header(struct hbuf *b, const struct html_ctx *c)
{
    int read = 0, verified = 0, lo = 0, hi = 0, incomplete = 0, warned = 0;
    const char *first = NULL, *last = NULL;
    for (int i = 0; i < c->n_runs; i++) {
        const struct ts_run_summary *s = &c->runs[i];
        if (!html_has_run(c, i))
            continue;
        read++;
        verified += s->verified != 0;
        incomplete += !s->complete;
        warned += s->n_warnings > 0;
        lo = read == 1 || s->n_threads < lo ? s->n_threads : lo;
        hi = read == 1 || s->n_threads > hi ? s->n_threads : hi;
        if (!first || strcmp(s->start_time, first) < 0)
            first = s->start_time;
        if (!last || strcmp(s->start_time, last) > 0)
            last = s->start_time;
    }
    if (read == 0) {
        hb_raw(b, "<p class=\"empty\">No run to report on.</p>\n");
        return;
    }
    hb_fmt(b, "<p>%d run%s", read, read == 1 ? "" : "s");
    hb_raw(b, " of ");
    int kinds = 0;
    for (int i = 0; i < c->n_runs; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = html_has_run(c, j) && strcmp(c->runs[j].kernel, c->runs[i].kernel) == 0;
        if (!seen && html_has_run(c, i)) {
            hb_raw(b, kinds++ ? ", " : "");
            hb_esc(b, c->runs[i].kernel);
        }
    }
    hb_raw(b, " on ");
    int hosts = 0;
    for (int i = 0; i < c->n_runs; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = html_has_run(c, j) && strcmp(c->runs[j].host, c->runs[i].host) == 0;
        if (!seen && html_has_run(c, i)) {
            hb_raw(b, hosts++ ? ", " : "<b>");
            hb_esc(b, c->runs[i].host);
        }
    }
    hb_raw(b, "</b>, started ");
    hb_esc(b, first);
    if (strcmp(first, last) != 0) {
        hb_raw(b, " to ");
        hb_esc(b, last);
    }
    if (lo == hi)
        hb_fmt(b, ", %d thread%s each", lo, lo == 1 ? "" : "s");
    else
        hb_fmt(b, ", %d to %d threads", lo, hi);
    hb_fmt(b, ". %d of %d verified", verified, read);
    if (incomplete)
        hb_fmt(b, ", <span class=\"warn\">%d stopped early</span>", incomplete);
    if (warned)
        hb_fmt(b, ", <span class=\"warn\">%d with warnings</span> (see <a href=\"#conditions\">conditions</a>)",
               warned);
    hb_raw(b, ".</p>\n");
    html_disturbed_note(b, c);
    hb_raw(b, "<p class=\"muted\">A plain set of runs has no verdict: <code>touchstone survey</code> draws "
              "one. The sections below compare what these runs allow.</p>\n");
}

void html_verdict(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"verdict\">\n<h2>Verdict</h2>\n");
    if (c->survey)
        survey_verdict(b, c);
    else
        runs_header(b, c);
    hb_raw(b, "</section>\n");
}

void html_conditions(struct hbuf *b, const struct html_ctx *c)
{
    static const char *const names[TS_N_CONDITIONS] = TS_CONDITION_NAMES;
    hb_raw(b, "<section id=\"conditions\">\n<h2>Conditions</h2>\n");
    hb_raw(b, "<p class=\"muted\">What can distort the numbers: the machine's state when each run started "
              "(<code>/environment</code>) and what the run warned about.</p>\n");
    if (c->survey) {
        hb_raw(b, "<p>Array size ");
        hb_fmt(b, "%lld bytes", (long long)c->survey->array_bytes);
        hb_raw(b, ": ");
        hb_esc(b, c->survey->size_reason);
        hb_raw(b, "</p>\n");
    }
    int any = 0;
    for (int i = 0; i < c->n_runs; i++)
        any |= html_has_run(c, i);
    if (!any) {
        hb_raw(b, "<p class=\"empty\">No run was read, so there are no conditions to show.</p>\n</section>\n");
        return;
    }
    hb_raw(b, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>run</th>");
    for (int k = 0; k < TS_N_CONDITIONS; k++)
        hb_fmt(b, "<th>%s</th>", names[k]);
    hb_raw(b, "<th>warnings</th></tr></thead><tbody>\n");
    for (int i = 0; i < c->n_runs; i++) {
        if (!html_has_run(c, i))
            continue;
        hb_raw(b, "<tr><td>");
        html_run_link(b, c, i);
        hb_raw(b, "</td>");
        for (int k = 0; k < TS_N_CONDITIONS; k++)
            hb_td_text(b, c->runs[i].conditions[k][0] ? c->runs[i].conditions[k] : "not recorded");
        hb_td_num(b, "%.0f", (double)c->runs[i].n_warnings);
        hb_raw(b, "</tr>\n");
    }
    hb_raw(b, "</tbody></table></div>\n");
    for (int i = 0; i < c->n_runs; i++) {
        if (!html_has_run(c, i) || !c->runs[i].warning_text)
            continue;
        hb_raw(b, "<h3>Warnings of ");
        html_run_link(b, c, i);
        hb_raw(b, "</h3>\n<pre>");
        hb_escn(b, c->runs[i].warning_text, 65536);
        hb_raw(b, "</pre>\n");
    }
    hb_raw(b, "</section>\n");
}

/* A run file's name as a link: relative, of plain characters only, so that no scheme
 * ("javascript:", "http:") and no markup can ride on it. */
static int linkable(const char *file)
{
    const size_t n = strnlen(file, sizeof((struct ts_survey_run *)0)->file);
    return n > 0 && n < sizeof((struct ts_survey_run *)0)->file && file[0] != '/'
           && strspn(file, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/=,+") == n;
}

static void one_command(struct hbuf *b, const struct html_ctx *c, int i)
{
    const struct ts_run_summary *s = &c->runs[i];
    hb_raw(b, "<div id=\"run-");
    hb_esc(b, c->anchor[i]);
    hb_raw(b, "\" class=\"run\"><h3>");
    hb_esc(b, c->label[i]);
    hb_raw(b, "</h3>\n<p>");
    if (c->survey) {
        static const char *const groups[] = TS_SURVEY_GROUP_NAMES, *const states[] = TS_SURVEY_STATE_NAMES;
        const struct ts_survey_run *r = &c->survey->runs[i];
        const int g = r->group >= 0 && r->group < TS_SURVEY_N_GROUPS ? r->group : -1;
        const int st = r->state >= 0 && r->state <= TS_SURVEY_FAILED ? r->state : -1;
        hb_raw(b, "group ");
        hb_raw(b, g >= 0 ? groups[g] : "unknown");
        hb_raw(b, ", ");
        hb_esc(b, r->kernel);
        hb_raw(b, " ");
        hb_esc(b, r->variant);
        hb_fmt(b, ", %d threads, ", (int)r->threads);
        hb_raw(b, st == TS_SURVEY_FAILED    ? "<span class=\"bad\">"
                  : st == TS_SURVEY_PENDING ? "<span class=\"warn\">"
                                            : "<span>");
        hb_raw(b, st >= 0 ? states[st] : "unknown state");
        if (st == TS_SURVEY_FAILED)
            hb_fmt(b, " (exit status %d)", (int)r->exit_status);
        hb_raw(b, "</span>");
        if (r->file[0] && linkable(r->file)) {
            hb_raw(b, ", file <a href=\"");
            hb_esc(b, r->file);
            hb_raw(b, "\">");
            hb_esc(b, r->file);
            hb_raw(b, "</a>");
        } else if (r->file[0]) {
            hb_raw(b, ", file <code>");
            hb_escn(b, r->file, sizeof r->file);
            hb_raw(b, "</code>");
        }
        hb_raw(b, ".</p>\n<pre><code>");
        hb_esc(b, r->command[0] ? r->command : "(no command recorded)");
        hb_raw(b, "</code></pre>\n");
    } else {
        hb_raw(b, "file <code>");
        hb_esc(b, s->file);
        hb_raw(b, "</code>, host ");
        hb_esc(b, s->host);
        hb_raw(b, ", started ");
        hb_esc(b, s->start_time);
        hb_raw(b, ", config <code>");
        hb_esc(b, s->config_path);
        hb_raw(b, "</code>.</p>\n<pre><code>");
        hb_raw(b, "OMP_PLACES=");
        hb_esc(b, s->places[0] ? s->places : "''");
        hb_raw(b, " OMP_PROC_BIND=");
        hb_esc(b, s->proc_bind[0] ? s->proc_bind : "''");
        hb_raw(b, " ");
        hb_esc(b, s->command_line[0] ? s->command_line : "(the file does not record its command line)");
        hb_raw(b, "</code></pre>\n");
    }
    if (html_has_run(c, i)) {
        char key[1024];
        html_config_key(s, 0, key, sizeof key);
        hb_raw(b, "<p class=\"muted\">");
        hb_esc(b, key);
        hb_raw(b, "; median ");
        hb_num(b, "%.4g", s->time_median * 1e3);
        hb_raw(b, " ms per iteration, ");
        hb_num(b, "%.4g", s->gbs_median);
        hb_raw(b, " GB/s");
        hb_raw(b, s->verified ? ", verified" : ", <span class=\"bad\">not verified</span>");
        hb_raw(b, ".</p>\n");
    } else if (c->survey && c->survey->runs[i].state == TS_SURVEY_DONE) {
        hb_raw(b, "<p class=\"warn\">Its file was not read back.</p>\n");
    }
    hb_raw(b, "</div>\n");
}

void html_commands(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"commands\">\n<h2>Commands</h2>\n");
    if (c->survey) {
        hb_raw(b, "<p>The survey itself:</p>\n<pre><code>");
        hb_esc(b, c->survey->command);
        hb_raw(b, "</code></pre>\n<p>Each run, as the survey ran it (environment included):</p>\n");
    } else {
        hb_raw(b, "<p>Each run's command line as typed, with the binding it ran under (the file's "
                  "<code>/config</code> holds every key: <code>touchstone show FILE</code>).</p>\n");
    }
    if (c->n_runs == 0)
        hb_raw(b, "<p class=\"empty\">No run.</p>\n");
    for (int i = 0; i < c->n_runs; i++)
        one_command(b, c, i);
    hb_raw(b, "</section>\n");
}

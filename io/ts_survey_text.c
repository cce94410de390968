/* The sections of a survey as text: --dump's lines and the summary's. */
#include "ts_survey_text.h"

#include <math.h>

static const char *kind_name(int kind)
{
    static const char *const names[] = { "lines", "bars", "heat" };
    return kind >= TS_SECTION_LINES && kind <= TS_SECTION_HEAT ? names[kind] : "unknown";
}

static void dump_row(FILE *out, const struct ts_survey_section *x, int r)
{
    fprintf(out, "measured row %s %d", x->name, r);
    for (int c = 0; c < x->n_cols; c++) {
        const struct ts_section_column *col = &x->cols[c];
        if (col->is_text)
            fprintf(out, " %s=%s", col->name, col->text ? col->text[r] : "");
        else
            fprintf(out, " %s=%.10g", col->name, col->num ? col->num[r] : NAN);
    }
    fputc('\n', out);
}

static void dump_section(FILE *out, const struct ts_survey_section *x)
{
    /* rows are measured: a section bounded by time as well as count may stop early */
    fprintf(out, "section %s columns=%d plots=%d title=%s\n", x->name, x->n_cols, x->n_plots, x->title);
    fprintf(out, "section-command %s %s\n", x->name, x->command);
    fprintf(out, "measured section %s rows=%d facts=%d seconds=%.6g placed_fraction=%.6g misplaced=%d disturbed=%d\n",
            x->name, x->n_rows, x->n_facts, x->seconds, x->placed_fraction, x->misplaced, x->disturbed);
    fprintf(out, "measured section-summary %s %s\n", x->name, x->summary);
    fprintf(out, "measured section-note %s %s\n", x->name, x->note);
    fprintf(out, "measured section-conditions %s %s\n", x->name, x->conditions);
    for (int c = 0; c < x->n_cols; c++)
        fprintf(out, "column %s %s %s unit=%s\n", x->name, x->cols[c].name, x->cols[c].is_text ? "text" : "number",
                x->cols[c].unit);
    for (int p = 0; p < x->n_plots; p++) {
        const struct ts_section_plot *q = &x->plots[p];
        fprintf(out, "plot %s %d %s x=%s y=%s series=%s value=%s log_x=%d boundaries=%s title=%s\n", x->name, p + 1,
                kind_name(q->kind), q->x, q->y, q->series, q->value, q->log_x, q->boundaries, q->title);
    }
    for (int f = 0; f < x->n_facts; f++)
        fprintf(out, "measured fact %s %s=%.6g %s\n", x->name, x->facts[f].key, x->facts[f].value, x->facts[f].unit);
    for (int r = 0; r < x->n_rows; r++)
        dump_row(out, x, r);
}

void ts_survey_dump_sections(FILE *out, const struct ts_survey_rec *s)
{
    fprintf(out, "n_sections %d\n", s->n_sections);
    for (int i = 0; s->sections && i < s->n_sections; i++)
        dump_section(out, &s->sections[i]);
}

void ts_survey_print_sections(FILE *out, const struct ts_survey_rec *s)
{
    if (s->n_sections <= 0 || !s->sections)
        return;
    fprintf(out, "\nsections (MISPLACED: some buffer's pages were not all on the node asked; DISTURBED: other "
                 "work took its CPUs)\n");
    for (int i = 0; i < s->n_sections; i++) {
        const struct ts_survey_section *x = &s->sections[i];
        fprintf(out, "  %s: %s", x->name, x->title);
        if (x->misplaced)
            fprintf(out, " MISPLACED (%.0f%% of the pages placed)",
                    isnan(x->placed_fraction) ? 0.0 : 100 * x->placed_fraction);
        if (x->disturbed > 0)
            fprintf(out, " DISTURBED");
        if (!isnan(x->seconds))
            fprintf(out, " (%.0f s)", x->seconds);
        fprintf(out, "\n    %s\n", x->summary[0] ? x->summary : "(no summary)");
        if (x->note[0])
            fprintf(out, "    note: %s\n", x->note);
        if (x->command[0])
            fprintf(out, "    again: %s\n", x->command);
    }
}

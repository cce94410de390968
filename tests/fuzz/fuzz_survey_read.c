/* The survey-file reader (io/ts_survey_file.h, ts_survey_read_image: the bytes of a survey.h5,
 * read in this process). Every input ends in a record that keeps what the survey and the
 * report rely on (docs/survey.md, "The survey file") or in TS_BAD_INPUT naming the file, with
 * nothing allocated left and nothing of the file open in HDF5. */
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "ts_section.h"
#include "ts_survey_file.h"

#define NAME "fuzzed-survey.h5"

static void check_text(const char *what, const char *s, size_t size)
{
    FUZZ_CHECK(memchr(s, '\0', size) != NULL, "%s is not terminated", what);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "%s holds control character 0x%02x", what, *p);
}

#define TEXT(f) check_text(#f, s->f, sizeof s->f)

/* A section as the report and the summary rely on it: ts_section_check's rules, safe texts,
 * every cell's values there, numbers finite or NaN. */
static void check_section(const struct ts_survey_section *x)
{
    char why[200];
    FUZZ_CHECK(ts_section_check(x, why, sizeof why) == 0, "section accepted that does not add up: %s", why);
    check_text("title", x->title, sizeof x->title);
    check_text("command", x->command, sizeof x->command);
    check_text("conditions", x->conditions, sizeof x->conditions);
    check_text("summary", x->summary, sizeof x->summary);
    check_text("note", x->note, sizeof x->note);
    for (int c = 0; c < x->n_cols; c++) {
        const struct ts_section_column *col = &x->cols[c];
        check_text("unit", col->unit, sizeof col->unit);
        FUZZ_CHECK(x->n_rows == 0 || (col->is_text ? col->text != NULL : col->num != NULL), "column %s empty",
                   col->name);
        for (int r = 0; r < x->n_rows; r++) {
            if (col->is_text)
                check_text("text cell", col->text[r], TS_SECTION_TEXT);
            else
                FUZZ_CHECK(isnan(col->num[r]) || isfinite(col->num[r]), "column %s row %d infinite", col->name, r);
        }
    }
    for (int p = 0; p < x->n_plots; p++)
        check_text("plot title", x->plots[p].title, sizeof x->plots[p].title);
    for (int f = 0; f < x->n_facts; f++)
        check_text("fact unit", x->facts[f].unit, sizeof x->facts[f].unit);
}

static void check_survey(const struct ts_survey_rec *s)
{
    FUZZ_CHECK(s->format == TS_SURVEY_FORMAT || s->format == 2, "format %d", s->format);
    FUZZ_CHECK(s->n_sections >= 0 && (s->n_sections == 0) == (s->sections == NULL), "%d sections, array %p",
               s->n_sections, (void *)s->sections);
    FUZZ_CHECK(s->format >= 3 || s->n_sections == 0, "format %d with %d sections", s->format, s->n_sections);
    for (int i = 0; i < s->n_sections; i++) {
        check_section(&s->sections[i]);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(s->sections[i].name, s->sections[j].name) != 0, "section %s twice", s->sections[i].name);
    }
    FUZZ_CHECK(strcmp(s->mode, "quick") == 0 || strcmp(s->mode, "full") == 0, "mode '%s'", s->mode);
    TEXT(command);
    TEXT(program_version);
    TEXT(host);
    TEXT(start_time);
    TEXT(emulated_why);
    TEXT(size_reason);
    FUZZ_CHECK(s->n_runs >= 0 && s->n_runs <= TS_SURVEY_MAX_RUNS && (s->n_runs == 0) == (s->runs == NULL),
               "%d runs, array %p", s->n_runs, (void *)s->runs);
    for (int i = 0; i < s->n_runs; i++) {
        const struct ts_survey_run *r = &s->runs[i];
        TEXT(runs[i].name);
        TEXT(runs[i].file);
        TEXT(runs[i].kernel);
        TEXT(runs[i].variant);
        TEXT(runs[i].command);
        FUZZ_CHECK(strncmp(r->file, "runs/", 5) == 0 && !strstr(r->file, "..") && !strchr(r->file + 5, '/'),
                   "run file '%s' outside runs/", r->file);
        FUZZ_CHECK(r->group >= 0 && r->group < TS_SURVEY_N_GROUPS, "group %d", r->group);
        FUZZ_CHECK(r->state >= TS_SURVEY_PENDING && r->state <= TS_SURVEY_FAILED, "state %d", r->state);
        FUZZ_CHECK(r->threads >= 1, "threads %d", r->threads);
        FUZZ_CHECK(r->state != TS_SURVEY_DONE || r->time_median >= 0, "done without a time");
    }
    FUZZ_CHECK(s->n_sentences >= 0 && s->n_sentences <= TS_SURVEY_MAX_SENTENCES, "%d sentences", s->n_sentences);
    for (int i = 0; i < s->n_sentences; i++) {
        TEXT(sentences[i].text);
        TEXT(sentences[i].sources);
    }
    FUZZ_CHECK(s->has_matrix == (s->matrix.cell != NULL), "has_matrix %d, cells %p", s->has_matrix,
               (void *)s->matrix.cell);
    if (!s->has_matrix)
        return;
    const struct ts_survey_matrix *m = &s->matrix;
    FUZZ_CHECK(m->n_cpu_nodes >= 1 && m->n_mem_nodes >= 1 && m->cpu_nodes && m->mem_nodes, "a %d x %d matrix",
               m->n_cpu_nodes, m->n_mem_nodes);
    int misplaced = 0;
    for (int k = 0; k < m->n_cpu_nodes * m->n_mem_nodes; k++) {
        const struct ts_survey_cell *c = &m->cell[k];
        TEXT(matrix.cell[k].cpus);
        TEXT(matrix.cell[k].note);
        FUZZ_CHECK(c->cpu_node == m->cpu_nodes[k / m->n_mem_nodes] && c->mem_node == m->mem_nodes[k % m->n_mem_nodes],
                   "cell %d is (%d, %d), out of its row or column", k, c->cpu_node, c->mem_node);
        FUZZ_CHECK(isnan(c->fraction) || (c->fraction >= 0 && c->fraction <= 1), "fraction %g", c->fraction);
        misplaced += c->misplaced;
    }
    FUZZ_CHECK(misplaced == m->misplaced_cells, "%d cells marked, %d counted", misplaced, m->misplaced_cells);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_hdf5_heap_known_bad(data, size)) {
        fuzz_note("survey_read: skipped, a global heap HDF5 1.10 cannot read");
        return 0;
    }
    struct ts_survey_rec s;
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_survey_read_image(data, size, NAME, &s, &err);
    fuzz_note("survey_read: %s", status == TS_OK ? "read" : err.message);
    if (status == TS_OK)
        check_survey(&s);
    else {
        FUZZ_CHECK(status == TS_BAD_INPUT, "status %d", status);
        FUZZ_CHECK(strstr(err.message, NAME) != NULL, "the error does not name the file: %s", err.message);
        FUZZ_CHECK(!s.runs && !s.matrix.cell && !s.matrix.cpu_nodes && !s.matrix.mem_nodes,
                   "arrays left after an error");
    }
    ts_survey_free(&s);
    ssize_t open_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    FUZZ_CHECK(open_ids == 0, "%zd HDF5 objects still open after the read", open_ids);
    return 0;
}

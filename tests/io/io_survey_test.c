/* The survey file (io/ts_survey_file.h): written and read back field for field (its sections
 * too: texts, NaN, several plots, facts), and refused when damaged (truncated, another format
 * version, counts that disagree, sections that do not add up), with the path in the message; a
 * format 2 file (before sections) read. One case per argv[1]; `format SRC DST VERSION` is the CLI tests' helper: a copy of a
 * survey file with another format version. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "io_fixture.h"
#include "ts_section.h"
#include "ts_survey_file.h"
#include "ts_survey_text.h"
#include "ts_test.h"

static void fill(struct ts_survey_rec *s)
{
    memset(s, 0, sizeof *s);
    s->format = TS_SURVEY_FORMAT;
    strcpy(s->mode, "quick");
    strcpy(s->command, "touchstone survey --quick -o 'my dir'");
    strcpy(s->program_version, "0.1.0");
    strcpy(s->host, "node1");
    strcpy(s->start_time, "2026-12-04T09:00:00Z");
    s->emulated = 1;
    strcpy(s->emulated_why, "qemu's TCG");
    s->array_bytes = 335544320;
    strcpy(s->size_reason, "10x an assumed 32 MiB last-level cache");
    s->n_runs = 3;
    s->repeats = 3;
    s->runs = calloc(3, sizeof *s->runs);
    REQUIRE(s->runs, "no memory");
    const char *names[] = { "stencil2d-init-parallel-t2", "stencil2d-init-serial-t2", "triad-scaling-t1" };
    for (int i = 0; i < 3; i++) {
        struct ts_survey_run *r = &s->runs[i];
        strcpy(r->name, names[i]);
        snprintf(r->file, sizeof r->file, "runs/%s.h5", names[i]);
        r->group = i < 2 ? TS_SURVEY_INIT : TS_SURVEY_SCALING;
        strcpy(r->kernel, i < 2 ? "stencil2d" : "triad");
        strcpy(r->variant, i == 0 ? "parallel" : i == 1 ? "serial" : "threads=1");
        r->threads = i < 2 ? 2 : 1;
        snprintf(r->command, sizeof r->command, "OMP_NUM_THREADS=%d OMP_PLACES='{0}' touchstone run x.ini", r->threads);
        r->state = i == 0 ? TS_SURVEY_DONE : i == 1 ? TS_SURVEY_FAILED : TS_SURVEY_PENDING;
        r->exit_status = i == 1 ? 2 : 0;
        r->seconds = i == 2 ? NAN : 1.5 + i;
        r->time_median = i == 0 ? 0.0576 : NAN;
        r->gbs_median = i == 0 ? 17.5 : NAN;
        r->local_fraction = i == 0 ? 1.0 : NAN;
        r->repeat = 1 + i;
        r->disturbed = i == 0 ? 1 : -1;
        strcpy(r->disturbed_why, i == 0 ? "other processes took 78.0% of the CPUs' time (above 5%)" : "");
        r->others_share = i == 0 ? 0.78 : NAN;
        r->load_excess = i == 0 ? 2.5 : NAN;
    }
    s->has_matrix = 1;
    struct ts_survey_matrix *m = &s->matrix;
    m->n_cpu_nodes = m->n_mem_nodes = 2;
    m->cpu_nodes = calloc(2, sizeof(int32_t));
    m->mem_nodes = calloc(2, sizeof(int32_t));
    m->cell = calloc(4, sizeof *m->cell);
    REQUIRE(m->cpu_nodes && m->mem_nodes && m->cell, "no memory");
    m->cpu_nodes[1] = m->mem_nodes[1] = 1;
    for (int k = 0; k < 4; k++) {
        struct ts_survey_cell *c = &m->cell[k];
        c->cpu_node = k / 2;
        c->mem_node = k % 2;
        c->threads = 2;
        strcpy(c->cpus, k < 2 ? "0-1" : "2-3");
        c->latency_ns = 90 + 50 * (c->cpu_node != c->mem_node);
        c->latency_huge_ns = k == 3 ? NAN : 80;
        c->latency_loaded_ns = 120;
        c->read_gbs = 20;
        c->triad_gbs = 15;
        c->fraction = k == 2 ? 0.5 : 1.0;
        c->misplaced = k == 2;
        c->huge_granted = k != 3;
        if (k == 3)
            strcpy(c->note, "2 MiB pages asked, not granted");
    }
    m->chase_bytes = m->stream_bytes = 64 << 20;
    m->llc_bytes = 0;
    strcpy(m->byte_model_read, "8 B/element");
    strcpy(m->byte_model_triad, "24 B/element");
    m->misplaced_cells = 1;
    s->n_sentences = 2;
    strcpy(s->sentences[0].text, "Serial init costs 1.38x on stencil2d with 2 threads.");
    strcpy(s->sentences[0].sources, "stencil2d-init-serial-t2,stencil2d-init-parallel-t2");
    strcpy(s->sentences[1].text, "Remote memory is 1.56x slower than local.");
    strcpy(s->sentences[1].sources, "matrix");
    io_fixture_sections(s, 0);
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void compare_section(const struct ts_survey_section *x, const struct ts_survey_section *y);

static void compare(const struct ts_survey_rec *a, const struct ts_survey_rec *b)
{
    CHECK(a->format == b->format && strcmp(a->mode, b->mode) == 0 && strcmp(a->command, b->command) == 0
              && strcmp(a->program_version, b->program_version) == 0 && strcmp(a->host, b->host) == 0
              && strcmp(a->start_time, b->start_time) == 0 && a->complete == b->complete && a->emulated == b->emulated
              && strcmp(a->emulated_why, b->emulated_why) == 0 && a->array_bytes == b->array_bytes
              && a->repeats == b->repeats && strcmp(a->size_reason, b->size_reason) == 0,
          "the root's fields differ after the round trip (mode %s, command %s)", b->mode, b->command);
    REQUIRE(a->n_runs == b->n_runs, "%d runs read back, %d written", b->n_runs, a->n_runs);
    for (int i = 0; i < a->n_runs; i++) {
        const struct ts_survey_run *x = &a->runs[i], *y = &b->runs[i];
        CHECK(strcmp(x->name, y->name) == 0 && strcmp(x->file, y->file) == 0 && x->group == y->group
                  && strcmp(x->kernel, y->kernel) == 0 && strcmp(x->variant, y->variant) == 0
                  && x->threads == y->threads && strcmp(x->command, y->command) == 0 && x->state == y->state
                  && x->exit_status == y->exit_status && same_double(x->seconds, y->seconds)
                  && same_double(x->time_median, y->time_median) && same_double(x->gbs_median, y->gbs_median)
                  && same_double(x->local_fraction, y->local_fraction) && x->repeat == y->repeat
                  && x->disturbed == y->disturbed && strcmp(x->disturbed_why, y->disturbed_why) == 0
                  && same_double(x->others_share, y->others_share) && same_double(x->load_excess, y->load_excess),
              "run %d (%s) differs after the round trip (read back: %s, %s, %g s)", i, x->name, y->name, y->command,
              y->seconds);
    }
    REQUIRE(a->has_matrix == b->has_matrix && a->matrix.n_cpu_nodes == b->matrix.n_cpu_nodes
                && a->matrix.n_mem_nodes == b->matrix.n_mem_nodes,
            "the matrix's shape differs after the round trip");
    const struct ts_survey_matrix *m = &a->matrix, *n = &b->matrix;
    CHECK(m->chase_bytes == n->chase_bytes && m->stream_bytes == n->stream_bytes && m->llc_bytes == n->llc_bytes
              && strcmp(m->byte_model_read, n->byte_model_read) == 0
              && strcmp(m->byte_model_triad, n->byte_model_triad) == 0 && m->misplaced_cells == n->misplaced_cells,
          "the matrix's attributes differ after the round trip");
    for (int i = 0; i < m->n_cpu_nodes; i++)
        CHECK(m->cpu_nodes[i] == n->cpu_nodes[i], "cpu node %d: %d read back, %d written", i, n->cpu_nodes[i],
              m->cpu_nodes[i]);
    for (int j = 0; j < m->n_mem_nodes; j++)
        CHECK(m->mem_nodes[j] == n->mem_nodes[j], "memory node %d: %d read back, %d written", j, n->mem_nodes[j],
              m->mem_nodes[j]);
    for (int k = 0; k < m->n_cpu_nodes * m->n_mem_nodes; k++) {
        const struct ts_survey_cell *x = &m->cell[k], *y = &n->cell[k];
        CHECK(x->cpu_node == y->cpu_node && x->mem_node == y->mem_node && x->threads == y->threads
                  && strcmp(x->cpus, y->cpus) == 0 && same_double(x->latency_ns, y->latency_ns)
                  && same_double(x->latency_huge_ns, y->latency_huge_ns)
                  && same_double(x->latency_loaded_ns, y->latency_loaded_ns) && same_double(x->read_gbs, y->read_gbs)
                  && same_double(x->triad_gbs, y->triad_gbs) && same_double(x->fraction, y->fraction)
                  && x->misplaced == y->misplaced && x->huge_granted == y->huge_granted
                  && strcmp(x->note, y->note) == 0,
              "cell %d differs after the round trip", k);
    }
    REQUIRE(a->n_sentences == b->n_sentences, "%d sentences read back, %d written", b->n_sentences, a->n_sentences);
    for (int i = 0; i < a->n_sentences; i++)
        CHECK(strcmp(a->sentences[i].text, b->sentences[i].text) == 0
                  && strcmp(a->sentences[i].sources, b->sentences[i].sources) == 0,
              "sentence %d differs after the round trip: %s [%s]", i, b->sentences[i].text, b->sentences[i].sources);
    REQUIRE(a->n_sections == b->n_sections, "%d sections read back, %d written", b->n_sections, a->n_sections);
    for (int i = 0; i < a->n_sections; i++)
        compare_section(&a->sections[i], &b->sections[i]);
}

static void compare_section(const struct ts_survey_section *x, const struct ts_survey_section *y)
{
    CHECK(strcmp(x->name, y->name) == 0 && strcmp(x->title, y->title) == 0 && strcmp(x->command, y->command) == 0
              && strcmp(x->conditions, y->conditions) == 0 && strcmp(x->summary, y->summary) == 0
              && strcmp(x->note, y->note) == 0 && same_double(x->seconds, y->seconds)
              && same_double(x->placed_fraction, y->placed_fraction) && x->misplaced == y->misplaced
              && x->disturbed == y->disturbed,
          "section %s's attributes differ after the round trip (read back: %s, %s)", x->name, y->name, y->summary);
    REQUIRE(x->n_rows == y->n_rows && x->n_cols == y->n_cols && x->n_plots == y->n_plots && x->n_facts == y->n_facts,
            "section %s: %d rows, %d columns, %d plots, %d facts read back; %d, %d, %d, %d written", x->name, y->n_rows,
            y->n_cols, y->n_plots, y->n_facts, x->n_rows, x->n_cols, x->n_plots, x->n_facts);
    for (int c = 0; c < x->n_cols; c++) {
        const struct ts_section_column *u = &x->cols[c], *v = &y->cols[c];
        CHECK(strcmp(u->name, v->name) == 0 && strcmp(u->unit, v->unit) == 0 && u->is_text == v->is_text,
              "section %s column %d: %s (%s) read back as %s (%s)", x->name, c, u->name, u->unit, v->name, v->unit);
        for (int r = 0; r < x->n_rows && u->is_text == v->is_text; r++) {
            /* Invalid UTF-8 comes back as '?', as every string of the file. */
            const int bad = u->is_text && (unsigned char)u->text[r][0] == 0xff;
            CHECK(u->is_text ? strcmp(bad ? "??" : u->text[r], v->text[r]) == 0 : same_double(u->num[r], v->num[r]),
                  "section %s column %s row %d differs after the round trip", x->name, u->name, r);
        }
    }
    for (int p = 0; p < x->n_plots; p++) {
        const struct ts_section_plot *u = &x->plots[p], *v = &y->plots[p];
        CHECK(u->kind == v->kind && strcmp(u->title, v->title) == 0 && strcmp(u->x, v->x) == 0
                  && strcmp(u->y, v->y) == 0 && strcmp(u->series, v->series) == 0 && strcmp(u->value, v->value) == 0
                  && u->log_x == v->log_x && strcmp(u->boundaries, v->boundaries) == 0,
              "section %s plot %d differs after the round trip", x->name, p);
    }
    for (int f = 0; f < x->n_facts; f++)
        CHECK(strcmp(x->facts[f].key, y->facts[f].key) == 0 && same_double(x->facts[f].value, y->facts[f].value)
                  && strcmp(x->facts[f].unit, y->facts[f].unit) == 0,
              "section %s fact %d (%s) differs after the round trip", x->name, f, x->facts[f].key);
}

/* Replaces an integer attribute of a written file, through the HDF5 API (deleted and created
 * again: HDF5 1.10 cannot always write an attribute in place in a file another process wrote). */
static int set_attr(const char *path, const char *obj, const char *name, int value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t space = H5Screate(H5S_SCALAR);
    int bad = f < 0 || space < 0 || H5Adelete_by_name(f, obj, name, H5P_DEFAULT) < 0;
    hid_t a = bad ? -1 : H5Acreate_by_name(f, obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int32_t v = value;
    bad = bad || a < 0 || H5Awrite(a, H5T_NATIVE_INT32, &v) < 0;
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    if (f >= 0)
        H5Fclose(f);
    return bad;
}

/* Replaces a string attribute (variable length, as the writer's). */
static int set_str_attr(const char *path, const char *obj, const char *name, const char *value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t space = H5Screate(H5S_SCALAR), type = H5Tcopy(H5T_C_S1);
    int bad = f < 0 || space < 0 || type < 0 || H5Tset_size(type, H5T_VARIABLE) < 0
              || H5Adelete_by_name(f, obj, name, H5P_DEFAULT) < 0;
    hid_t a = bad ? -1 : H5Acreate_by_name(f, obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad = bad || a < 0 || H5Awrite(a, type, &value) < 0;
    if (a >= 0)
        H5Aclose(a);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (f >= 0)
        H5Fclose(f);
    return bad;
}

/* Moves (to non-NULL) or deletes a link of a written file. */
static int edit_link(const char *path, const char *from, const char *to)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    int bad = f < 0 || (to ? H5Lmove(f, from, f, to, H5P_DEFAULT, H5P_DEFAULT) : H5Ldelete(f, from, H5P_DEFAULT)) < 0;
    if (f >= 0)
        H5Fclose(f);
    return bad;
}

static void write_good(const char *path)
{
    struct ts_survey_rec s;
    fill(&s);
    struct ts_error err = { 0 };
    REQUIRE(ts_survey_write(path, &s, &err) == TS_OK, "writing %s: %s", path, err.message);
    ts_survey_free(&s);
}

/* The file at path must be refused with TS_BAD_INPUT, its path and want in the message. */
static void refused(const char *path, const char *want, const char *what)
{
    struct ts_survey_rec s;
    struct ts_error err = { 0 };
    int st = ts_survey_read(path, &s, &err);
    CHECK(st == TS_BAD_INPUT, "%s: read status %d, expected TS_BAD_INPUT (%s)", what, st, err.message);
    CHECK(strstr(err.message, path) != NULL, "%s: the message does not name the file: %s", what, err.message);
    CHECK(strstr(err.message, want) != NULL, "%s: expected '%s' in the message: %s", what, want, err.message);
    CHECK(s.runs == NULL && s.matrix.cell == NULL && s.sections == NULL, "%s: a refused read left memory behind", what);
}

static void roundtrip(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/survey.h5", dir);
    struct ts_survey_rec s, back;
    fill(&s);
    struct ts_error err = { 0 };
    REQUIRE(ts_survey_write(path, &s, &err) == TS_OK, "writing %s: %s", path, err.message);
    REQUIRE(ts_survey_read(path, &back, &err) == TS_OK, "reading %s back: %s", path, err.message);
    compare(&s, &back);
    ts_survey_free(&back);
    /* Overwritten in place: the second write replaces the first, whole. */
    s.n_runs = 1;
    s.has_matrix = 0;
    s.n_sentences = 0;
    REQUIRE(ts_survey_write(path, &s, &err) == TS_OK, "rewriting %s: %s", path, err.message);
    REQUIRE(ts_survey_read(path, &back, &err) == TS_OK, "reading %s back: %s", path, err.message);
    CHECK(back.n_runs == 1 && !back.has_matrix && back.n_sentences == 0, "the rewrite did not replace the file");
    ts_survey_free(&back);
    s.n_runs = 3;
    ts_survey_free(&s);
}

static void damaged(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/survey.h5", dir);
    write_good(path);
    REQUIRE(set_attr(path, "/", "format", TS_SURVEY_FORMAT + 1) == 0, "cannot edit %s", path);
    refused(path, "format", "another format version");

    write_good(path);
    REQUIRE(set_attr(path, "/matrix", "misplaced_cells", 0) == 0, "cannot edit %s", path);
    refused(path, "misplaced", "a misplaced count that disagrees with the cells");

    write_good(path);
    REQUIRE(set_attr(path, "/", "complete", 1) == 0, "cannot edit %s", path);
    refused(path, "pending", "complete with a pending run");

    write_good(path);
    write_good(path);
    REQUIRE(set_attr(path, "/", "repeats", 2) == 0, "cannot edit %s", path);
    refused(path, "repeat 3 of a survey of 2 repeats", "a run repeated more often than the survey says");
    write_good(path);
    REQUIRE(set_attr(path, "/", "repeats", 0) == 0, "cannot edit %s", path);
    refused(path, "repeats", "no repeats");
    write_good(path);
    REQUIRE(set_attr(path, "/", "n_runs", 4) == 0, "cannot edit %s", path);
    refused(path, "/runs", "more runs counted than the table holds");

    write_good(path);
    REQUIRE(truncate(path, 3000) == 0, "cannot truncate %s", path);
    refused(path, "", "a truncated file");

    char missing[4300];
    snprintf(missing, sizeof missing, "%s/none.h5", dir);
    struct ts_survey_rec s;
    struct ts_error err = { 0 };
    CHECK(ts_survey_read(missing, &s, &err) == TS_BAD_INPUT && strstr(err.message, missing), "a missing file: %s",
          err.message);
}

/* The sections (format 3) refused when they do not add up, and a format 2 file (no sections) read. */
static void sections_damaged(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/survey.h5", dir);
    static const struct {
        const char *obj, *name;
        int value;
        const char *want, *what;
    } ints[] = {
        { "/sections/sweep", "n_rows", 7, "n_rows", "a column shorter than n_rows" },
        { "/sections/sweep", "n_rows", 5, "n_rows", "a column longer than n_rows" },
        { "/sections", "n_sections", 4, "/sections", "more sections counted than listed" },
        { "/sections/c2c", "misplaced", 2, "misplaced", "misplaced neither 0 nor 1" },
        { "/sections/c2c", "disturbed", -2, "disturbed", "disturbed out of range" },
        { "/sections/stream", "n_plots", 5, "n_plots", "more plots than a section holds" },
        { "/sections/stream", "n_facts", 2, "/sections/stream/facts", "more facts counted than the table holds" },
        { "/sections/sweep", "n_rows", TS_SECTION_MAX_ROWS + 1, "n_rows", "too many rows" },
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        write_good(path);
        REQUIRE(set_attr(path, ints[i].obj, ints[i].name, ints[i].value) == 0, "cannot edit %s", path);
        refused(path, ints[i].want, ints[i].what);
    }
    static const struct {
        const char *obj, *name, *value, *want, *what;
    } strs[] = {
        { "/sections", "order", "sweep,../c2c,stream", "not a name", "a section name that climbs" },
        { "/sections", "order", "sweep,sweep,stream", "named twice", "a section listed twice" },
        { "/sections", "order", "sweep,c2c", "not a list of 3", "fewer sections listed than counted" },
        { "/sections/sweep", "columns", "bytes,kernel", "members, expected 2", "a column not listed" },
        { "/sections/sweep", "columns", "bytes,kernel,gbs,x", "3 members, expected 4", "a listed column missing" },
        { "/sections/sweep", "columns", "bytes,Kernel,gbs", "not a name", "a column name not an identifier" },
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        write_good(path);
        REQUIRE(set_str_attr(path, strs[i].obj, strs[i].name, strs[i].value) == 0, "cannot edit %s", path);
        refused(path, strs[i].want, strs[i].what);
    }
    /* A plot naming a column the section does not have: gbs renamed. */
    write_good(path);
    REQUIRE(edit_link(path, "/sections/sweep/columns/gbs", "/sections/sweep/columns/gbx") == 0
                && set_str_attr(path, "/sections/sweep", "columns", "bytes,kernel,gbx") == 0,
            "cannot edit %s", path);
    refused(path, "plot 0 names an x or y column", "a plot naming a missing column");
    /* Format 3 without /sections: refused (a writer of format 3 always writes it). */
    write_good(path);
    REQUIRE(edit_link(path, "/sections", NULL) == 0, "cannot edit %s", path);
    refused(path, "/sections", "format 3 without /sections");

    /* Format 2: the same file without /sections reads, with none. */
    write_good(path);
    REQUIRE(edit_link(path, "/sections", NULL) == 0 && set_attr(path, "/", "format", 2) == 0, "cannot edit %s", path);
    struct ts_survey_rec s;
    struct ts_error err = { 0 };
    REQUIRE(ts_survey_read(path, &s, &err) == TS_OK, "a format 2 file refused: %s", err.message);
    CHECK(s.format == 2 && s.n_sections == 0 && s.sections == NULL && s.n_runs == 3,
          "a format 2 file read as format %d with %d sections, %d runs", s.format, s.n_sections, s.n_runs);
    ts_survey_free(&s);
    write_good(path);
    REQUIRE(set_attr(path, "/", "format", 1) == 0, "cannot edit %s", path);
    refused(path, "format 1", "format 1");
}

/* The whole of what fn prints of s, in buf. */
static void printed(void (*fn)(FILE *, const struct ts_survey_rec *), const struct ts_survey_rec *s, char *buf,
                    size_t size)
{
    FILE *f = tmpfile();
    REQUIRE(f, "no temporary file");
    fn(f, s);
    rewind(f);
    const size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* --dump's and the summary's lines of the sections (io/ts_survey_text.h). */
static void sections_text(const char *dir)
{
    (void)dir;
    struct ts_survey_rec s;
    fill(&s);
    static char buf[1 << 16];
    printed(ts_survey_dump_sections, &s, buf, sizeof buf);
    static const char *const dump_lines[] = {
        "n_sections 3\n",
        "section sweep columns=3 plots=2 title=sweep title\n",
        "section-command c2c touchstone survey --sections c2c --quick -o 'd i r'\n",
        "measured section c2c rows=16 facts=2 seconds=1.5 placed_fraction=0.5 misplaced=1 disturbed=1\n",
        "measured section-summary stream stream: peak 24.1 GB/s; 90% at 1 core\n",
        "column sweep gbs number unit=GB/s\n",
        "column sweep kernel text unit=\n",
        "plot sweep 1 lines x=bytes y=gbs series=kernel value= log_x=1 boundaries= title=bandwidth\n",
        "plot c2c 1 heat x=cpu_b y=cpu_a series= value=ns log_x=0 boundaries=node_a,core_a title=core to core\n",
        "measured fact sweep peak_gbs=nan GB/s\n",
        "measured row sweep 4 bytes=262144 kernel=copy gbs=nan\n",
        "measured row stream 3 kernel=scale placement=remote gbs=17\n",
    };
    for (size_t i = 0; i < sizeof dump_lines / sizeof dump_lines[0]; i++)
        CHECK(strstr(buf, dump_lines[i]) != NULL, "--dump lacks the line %s", dump_lines[i]);
    printed(ts_survey_print_sections, &s, buf, sizeof buf);
    static const char *const summary_lines[] = {
        "\nsections (",
        "  c2c: c2c title MISPLACED (50% of the pages placed) DISTURBED (2 s)\n",
        "  stream: stream title (2 s)\n    stream: peak 24.1 GB/s; 90% at 1 core\n",
        "    note: one point not measured (NaN): too short to time\n",
        "    again: touchstone survey --sections sweep --quick -o 'd i r'\n",
    };
    for (size_t i = 0; i < sizeof summary_lines / sizeof summary_lines[0]; i++)
        CHECK(strstr(buf, summary_lines[i]) != NULL, "the summary lacks %s:\n%s", summary_lines[i], buf);
    ts_survey_free(&s);
    printed(ts_survey_print_sections, &s, buf, sizeof buf);
    CHECK(buf[0] == '\0', "a survey without sections printed a sections part: %s", buf);
}

static void writer_refuses(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/survey.h5", dir);
    struct ts_survey_rec s;
    fill(&s);
    strcpy(s.runs[1].file, "../../etc/passwd");
    struct ts_error err = { 0 };
    CHECK(ts_survey_write(path, &s, &err) == TS_INTERNAL_ERROR, "a run file outside runs/ was written: %s",
          err.message);
    CHECK(access(path, F_OK) != 0, "a refused record left a file behind");
    ts_survey_free(&s);
    /* Sections that do not add up: a plot naming no column, a name taken twice, a bad name. */
    for (int k = 0; k < 3; k++) {
        fill(&s);
        if (k == 0)
            strcpy(s.sections[0].plots[0].y, "missing");
        else if (k == 1)
            strcpy(s.sections[2].name, "sweep");
        else
            strcpy(s.sections[1].name, "c2c/../x");
        CHECK(ts_survey_write(path, &s, &err) == TS_INTERNAL_ERROR && strstr(err.message, "section"),
              "sections that do not add up (case %d) were written: %s", k, err.message);
        CHECK(access(path, F_OK) != 0, "a refused record left a file behind");
        ts_survey_free(&s);
    }
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "format") == 0) { /* format SRC DST VERSION */
        char cmd[8400];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", argv[2], argv[3]);
        return system(cmd) != 0 || set_attr(argv[3], "/", "format", atoi(argv[4])) != 0;
    }
    /* repeats DST N: a good survey file whose root says N repeats (its runs are repeats 1 to 3);
     * what made tests/fuzz/regressions/survey_read/run-repeat-beyond-repeats (N = 2). */
    if (argc == 4 && strcmp(argv[1], "repeats") == 0) {
        write_good(argv[2]);
        return set_attr(argv[2], "/", "repeats", atoi(argv[3])) != 0;
    }
    static const struct {
        const char *name;
        void (*run)(const char *dir);
    } cases[] = { { "roundtrip", roundtrip },
                  { "damaged", damaged },
                  { "writer_refuses", writer_refuses },
                  { "sections_damaged", sections_damaged },
                  { "sections_text", sections_text } };
    for (size_t i = 0; argc > 1 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        char dir[4096];
        io_dir_make(dir, sizeof dir);
        cases[i].run(dir);
        io_dir_remove(dir);
        return ts_test_finish();
    }
    fprintf(stderr, "usage: %s CASE | format SRC DST VERSION | repeats DST N\n", argv[0]);
    return 2;
}

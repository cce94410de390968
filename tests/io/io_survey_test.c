/* The survey file (io/ts_survey_file.h): written and read back field for field, and refused
 * when damaged (truncated, another format version, counts that disagree), with the path in the
 * message. One case per argv[1]; `format SRC DST VERSION` is the CLI tests' helper: a copy of a
 * survey file with another format version. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "io_fixture.h"
#include "ts_survey_file.h"
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
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

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
    CHECK(s.runs == NULL && s.matrix.cell == NULL, "%s: a refused read left memory behind", what);
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
    } cases[] = { { "roundtrip", roundtrip }, { "damaged", damaged }, { "writer_refuses", writer_refuses } };
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

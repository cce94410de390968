/* survey.h5: the root's attributes, /runs (one row per battery run), /matrix (the NUMA matrix,
 * when measured: its attributes and one row per cell), /verdict (one row per sentence) and
 * /sections (format 3: io/h5_sections.c).
 * docs/survey.md describes every item; a change of meaning bumps TS_SURVEY_FORMAT. */
#include "ts_survey_file.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_reader.h"
#include "h5_sections.h"
#include "h5_util.h"
#include "ts_run_read.h"
#include "ts_section.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_CELLS 65536

static const char *const kernels[] = { "sum", "triad", "stencil2d", "stencil3d" };

/* A run's name is its file's stem: lower-case letters, digits and "-_=.", not starting with '.'
 * (nothing that could climb out of runs/ or hide). */
static int valid_name(const char *s)
{
    return s[0] != '\0' && s[0] != '.' && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_=.") == strlen(s);
}

static int known_kernel(const char *k)
{
    for (size_t i = 0; i < COUNT(kernels); i++)
        if (strcmp(k, kernels[i]) == 0)
            return 1;
    return 0;
}

static int file_of_name(const struct ts_survey_run *r)
{
    char want[sizeof r->file];
    int n = snprintf(want, sizeof want, "runs/%s.h5", r->name);
    return n > 0 && (size_t)n < sizeof want && strcmp(want, r->file) == 0;
}

/* --- Writing ---------------------------------------------------------------------------------- */

#define RUN struct ts_survey_run

#define CELL struct ts_survey_cell

#define SENTENCE struct ts_survey_sentence

static int write_matrix(struct h5w *w, hid_t file, const struct ts_survey_matrix *m)
{
    const struct h5w_member cell_members[] = {
        H5W_NUM(CELL, cpu_node, H5T_NATIVE_INT32),
        H5W_NUM(CELL, mem_node, H5T_NATIVE_INT32),
        H5W_NUM(CELL, threads, H5T_NATIVE_INT32),
        H5W_STR(CELL, cpus),
        H5W_NUM(CELL, latency_ns, H5T_NATIVE_DOUBLE),
        H5W_NUM(CELL, latency_huge_ns, H5T_NATIVE_DOUBLE),
        H5W_NUM(CELL, latency_loaded_ns, H5T_NATIVE_DOUBLE),
        H5W_NUM(CELL, read_gbs, H5T_NATIVE_DOUBLE),
        H5W_NUM(CELL, triad_gbs, H5T_NATIVE_DOUBLE),
        H5W_NUM(CELL, fraction, H5T_NATIVE_DOUBLE),
        H5W_NUM(CELL, misplaced, H5T_NATIVE_INT32),
        H5W_NUM(CELL, huge_granted, H5T_NATIVE_INT32),
        H5W_STR(CELL, note),
    };
    hid_t g = h5w_group(w, file, "matrix");
    if (g < 0)
        return -1;
    const struct h5w_num_attr nums[] = {
        { "n_cpu_nodes", H5T_NATIVE_INT32, &m->n_cpu_nodes },
        { "n_mem_nodes", H5T_NATIVE_INT32, &m->n_mem_nodes },
        { "chase_bytes", H5T_NATIVE_INT64, &m->chase_bytes },
        { "stream_bytes", H5T_NATIVE_INT64, &m->stream_bytes },
        { "llc_bytes", H5T_NATIVE_INT64, &m->llc_bytes },
        { "misplaced_cells", H5T_NATIVE_INT32, &m->misplaced_cells },
    };
    const struct h5w_str_attr strs[] = {
        { "byte_model_read", m->byte_model_read },
        { "byte_model_triad", m->byte_model_triad },
    };
    int st = h5w_attr_nums(w, g, nums, COUNT(nums)) || h5w_attr_strs(w, g, strs, COUNT(strs))
             || h5w_table(w, g, "cells", sizeof(CELL), cell_members, COUNT(cell_members),
                          (int64_t)m->n_cpu_nodes * m->n_mem_nodes, m->cell,
                          "ns (latency_*), GB/s (read_gbs, triad_gbs), 1 (the rest)");
    H5Gclose(g);
    return st;
}

static int build(struct h5w *w, hid_t file, const void *ctx)
{
    const struct ts_survey_rec *s = ctx;
    const struct h5w_member run_members[] = {
        H5W_STR(RUN, name),
        H5W_STR(RUN, file),
        H5W_NUM(RUN, group, H5T_NATIVE_INT32),
        H5W_STR(RUN, kernel),
        H5W_STR(RUN, variant),
        H5W_NUM(RUN, threads, H5T_NATIVE_INT32),
        H5W_STR(RUN, command),
        H5W_NUM(RUN, state, H5T_NATIVE_INT32),
        H5W_NUM(RUN, exit_status, H5T_NATIVE_INT32),
        H5W_NUM(RUN, seconds, H5T_NATIVE_DOUBLE),
        H5W_NUM(RUN, time_median, H5T_NATIVE_DOUBLE),
        H5W_NUM(RUN, gbs_median, H5T_NATIVE_DOUBLE),
        H5W_NUM(RUN, local_fraction, H5T_NATIVE_DOUBLE),
        H5W_NUM(RUN, repeat, H5T_NATIVE_INT32),
        H5W_NUM(RUN, disturbed, H5T_NATIVE_INT32),
        H5W_STR(RUN, disturbed_why),
        H5W_NUM(RUN, others_share, H5T_NATIVE_DOUBLE),
        H5W_NUM(RUN, load_excess, H5T_NATIVE_DOUBLE),
    };
    const struct h5w_member sentence_members[] = {
        H5W_STR(SENTENCE, text),
        H5W_STR(SENTENCE, sources),
    };
    const struct h5w_str_attr strs[] = {
        { "mode", s->mode },
        { "command", s->command },
        { "program_version", s->program_version },
        { "host", s->host },
        { "start_time", s->start_time },
        { "emulated_why", s->emulated_why },
        { "size_reason", s->size_reason },
    };
    const struct h5w_num_attr nums[] = {
        { "format", H5T_NATIVE_INT32, &s->format },     { "complete", H5T_NATIVE_INT32, &s->complete },
        { "emulated", H5T_NATIVE_INT32, &s->emulated }, { "array_bytes", H5T_NATIVE_INT64, &s->array_bytes },
        { "n_runs", H5T_NATIVE_INT32, &s->n_runs },     { "has_matrix", H5T_NATIVE_INT32, &s->has_matrix },
        { "repeats", H5T_NATIVE_INT32, &s->repeats },   { "n_sentences", H5T_NATIVE_INT32, &s->n_sentences },
    };
    if (h5w_attr_nums(w, file, nums, COUNT(nums)) || h5w_attr_strs(w, file, strs, COUNT(strs)))
        return -1;
    if (h5w_table(w, file, "runs", sizeof(RUN), run_members, COUNT(run_members), s->n_runs, s->runs,
                  "s (seconds, time_median), GB/s (gbs_median), 1 (the rest)"))
        return -1;
    if (s->has_matrix && write_matrix(w, file, &s->matrix))
        return -1;
    if (h5_sections_write(w, file, s))
        return -1;
    return h5w_table(w, file, "verdict", sizeof(SENTENCE), sentence_members, COUNT(sentence_members), s->n_sentences,
                     s->sentences, "1");
}

/* What the writer refuses to put in a file: what its reader would refuse. */
static int check_record(const char *path, const struct ts_survey_rec *s, struct ts_error *err)
{
    const char *why = NULL;
    if (s->format != TS_SURVEY_FORMAT)
        why = "format is not TS_SURVEY_FORMAT";
    else if (s->n_runs < 0 || s->n_runs > TS_SURVEY_MAX_RUNS || (s->n_runs > 0 && !s->runs))
        why = "n_runs and runs disagree";
    else if (s->repeats < 1 || s->repeats > TS_SURVEY_MAX_REPEATS)
        why = "repeats out of range";
    else if (s->n_sentences < 0 || s->n_sentences > TS_SURVEY_MAX_SENTENCES)
        why = "n_sentences out of range";
    else if (strcmp(s->mode, "quick") != 0 && strcmp(s->mode, "full") != 0)
        why = "mode is neither quick nor full";
    else if (s->has_matrix
             && (s->matrix.n_cpu_nodes < 1 || s->matrix.n_mem_nodes < 1 || s->matrix.n_cpu_nodes > TS_SURVEY_MAX_NODES
                 || s->matrix.n_mem_nodes > TS_SURVEY_MAX_NODES
                 || (int64_t)s->matrix.n_cpu_nodes * s->matrix.n_mem_nodes > MAX_CELLS || !s->matrix.cell))
        why = "the matrix's counts and cells disagree";
    for (int i = 0; !why && i < s->n_runs; i++)
        if (!valid_name(s->runs[i].name) || !file_of_name(&s->runs[i]) || !known_kernel(s->runs[i].kernel))
            why = "a run's name, file or kernel is not one a survey writes";
    char detail[256];
    if (!why)
        why = h5_sections_problem(s, detail, sizeof detail);
    if (why)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write survey file %s: %s", path, why);
    return TS_OK;
}

int ts_survey_write(const char *path, const struct ts_survey_rec *s, struct ts_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (check_record(path, s, err))
        return err->status;
    return h5w_write_atomic(path, build, s, NULL, NULL, err);
}

/* --- Reading ---------------------------------------------------------------------------------- */

#define FIELD(T, f) offsetof(T, f), sizeof(((T *)0)->f)
/* A fixed-length string column of a table read back. */
#define STRCOL(T, f)                                                                                                   \
    {                                                                                                                  \
#f, offsetof(T, f), 0, sizeof(((T *)0)->f), 0, 0, 0                                                            \
    }

static int read_root(struct h5r *r, struct ts_survey_rec *s)
{
    int has = h5r_has_attr(r, "/", "format");
    if (has < 0)
        return r->err->status;
    if (!has)
        return h5r_fail(r, "/@format", "missing: an HDF5 file, but not a touchstone survey file");
    int64_t v = 0;
    if (h5r_int_attr(r, "/", "format", 1, INT32_MAX, &v))
        return r->err->status;
    /* Format 2 is format 3 without /sections: an older survey folder still resumes and reports. */
    if (v != TS_SURVEY_FORMAT && v != 2)
        return h5r_fail(r, "/@format", "survey file format %lld, this touchstone reads formats 2 to %d", (long long)v,
                        TS_SURVEY_FORMAT);
    s->format = (int32_t)v;
    static const struct {
        const char *name;
        size_t offset, size;
    } strs[] = {
        { "mode", FIELD(struct ts_survey_rec, mode) },
        { "command", FIELD(struct ts_survey_rec, command) },
        { "program_version", FIELD(struct ts_survey_rec, program_version) },
        { "host", FIELD(struct ts_survey_rec, host) },
        { "start_time", FIELD(struct ts_survey_rec, start_time) },
        { "emulated_why", FIELD(struct ts_survey_rec, emulated_why) },
        { "size_reason", FIELD(struct ts_survey_rec, size_reason) },
    };
    for (size_t i = 0; i < COUNT(strs); i++)
        if (h5r_str_attr(r, "/", strs[i].name, (char *)s + strs[i].offset, strs[i].size))
            return r->err->status;
    if (strcmp(s->mode, "quick") != 0 && strcmp(s->mode, "full") != 0)
        return h5r_fail(r, "/@mode", "'%s', expected quick or full", s->mode);
    static const struct {
        const char *name;
        size_t offset, size;
        int64_t min, max;
    } ints[] = {
        { "complete", FIELD(struct ts_survey_rec, complete), 0, 1 },
        { "emulated", FIELD(struct ts_survey_rec, emulated), 0, 1 },
        { "array_bytes", FIELD(struct ts_survey_rec, array_bytes), 1, (int64_t)1 << 50 },
        { "n_runs", FIELD(struct ts_survey_rec, n_runs), 0, TS_SURVEY_MAX_RUNS },
        { "repeats", FIELD(struct ts_survey_rec, repeats), 1, TS_SURVEY_MAX_REPEATS },
        { "has_matrix", FIELD(struct ts_survey_rec, has_matrix), 0, 1 },
        { "n_sentences", FIELD(struct ts_survey_rec, n_sentences), 0, TS_SURVEY_MAX_SENTENCES },
    };
    for (size_t i = 0; i < COUNT(ints); i++) {
        if (h5r_int_attr(r, "/", ints[i].name, ints[i].min, ints[i].max, &v))
            return r->err->status;
        if (ints[i].size == sizeof(int64_t))
            *(int64_t *)(void *)((char *)s + ints[i].offset) = v;
        else
            *(int32_t *)(void *)((char *)s + ints[i].offset) = (int32_t)v;
    }
    return TS_OK;
}

static int read_runs(struct h5r *r, struct ts_survey_rec *s)
{
    const struct h5r_col cols[] = {
        STRCOL(RUN, name),
        STRCOL(RUN, file),
        { "group", offsetof(RUN, group), H5T_NATIVE_INT32, 0, 0, TS_SURVEY_N_GROUPS - 1, 0 },
        STRCOL(RUN, kernel),
        STRCOL(RUN, variant),
        { "threads", offsetof(RUN, threads), H5T_NATIVE_INT32, 0, 1, 65536, 0 },
        STRCOL(RUN, command),
        { "state", offsetof(RUN, state), H5T_NATIVE_INT32, 0, TS_SURVEY_PENDING, TS_SURVEY_FAILED, 0 },
        { "exit_status", offsetof(RUN, exit_status), H5T_NATIVE_INT32, 0, -64, 255, 0 },
        { "seconds", offsetof(RUN, seconds), H5T_NATIVE_DOUBLE, 0, 0, 1e9, 1 },
        { "time_median", offsetof(RUN, time_median), H5T_NATIVE_DOUBLE, 0, 0, 1e9, 1 },
        { "gbs_median", offsetof(RUN, gbs_median), H5T_NATIVE_DOUBLE, 0, 0, HUGE_VAL, 1 },
        { "local_fraction", offsetof(RUN, local_fraction), H5T_NATIVE_DOUBLE, 0, 0, 1, 1 },
        { "repeat", offsetof(RUN, repeat), H5T_NATIVE_INT32, 0, 1, TS_SURVEY_MAX_REPEATS, 0 },
        { "disturbed", offsetof(RUN, disturbed), H5T_NATIVE_INT32, 0, -1, 1, 0 },
        STRCOL(RUN, disturbed_why),
        { "others_share", offsetof(RUN, others_share), H5T_NATIVE_DOUBLE, 0, 0, 1e9, 1 },
        { "load_excess", offsetof(RUN, load_excess), H5T_NATIVE_DOUBLE, 0, -1e9, 1e9, 1 },
    };
    if (s->n_runs == 0)
        return h5r_read_table(r, "/runs", 0, "n_runs", sizeof(RUN), cols, COUNT(cols), 0, NULL);
    s->runs = calloc((size_t)s->n_runs, sizeof *s->runs);
    if (!s->runs)
        return h5r_out_of_memory(r, "/runs", "%d rows", s->n_runs);
    if (h5r_read_table(r, "/runs", (hsize_t)s->n_runs, "n_runs", sizeof(RUN), cols, COUNT(cols), 0, s->runs))
        return r->err->status;
    for (int i = 0; i < s->n_runs; i++) {
        const RUN *u = &s->runs[i];
        char where[64];
        snprintf(where, sizeof where, "/runs[%d]", i);
        if (!valid_name(u->name))
            return h5r_fail(r, where, "name '%s' is not a name a survey writes", u->name);
        if (!file_of_name(u))
            return h5r_fail(r, where, "file '%s' is not runs/%s.h5", u->file, u->name);
        if (!known_kernel(u->kernel))
            return h5r_fail(r, where, "kernel '%s' is not a kernel of touchstone", u->kernel);
        if (u->state == TS_SURVEY_DONE && (u->exit_status != 0 || isnan(u->time_median)))
            return h5r_fail(r, where, "done, yet exit status %d and time_median %g", u->exit_status, u->time_median);
        if (u->repeat > s->repeats)
            return h5r_fail(r, where, "repeat %d of a survey of %d repeats", u->repeat, s->repeats);
        if (u->state == TS_SURVEY_PENDING && !isnan(u->time_median))
            return h5r_fail(r, where, "pending, yet a time_median of %g", u->time_median);
        for (int j = 0; j < i; j++)
            if (strcmp(s->runs[j].name, u->name) == 0)
                return h5r_fail(r, where, "name '%s' also names run %d", u->name, j);
    }
    return TS_OK;
}

static int read_matrix(struct h5r *r, struct ts_survey_rec *s)
{
    struct ts_survey_matrix *m = &s->matrix;
    if (h5r_group(r, "/matrix"))
        return r->err->status;
    static const struct {
        const char *name;
        size_t offset, size;
        int64_t min, max;
    } ints[] = {
        { "n_cpu_nodes", FIELD(struct ts_survey_matrix, n_cpu_nodes), 1, TS_SURVEY_MAX_NODES },
        { "n_mem_nodes", FIELD(struct ts_survey_matrix, n_mem_nodes), 1, TS_SURVEY_MAX_NODES },
        { "chase_bytes", FIELD(struct ts_survey_matrix, chase_bytes), 0, (int64_t)1 << 50 },
        { "stream_bytes", FIELD(struct ts_survey_matrix, stream_bytes), 0, (int64_t)1 << 50 },
        { "llc_bytes", FIELD(struct ts_survey_matrix, llc_bytes), 0, (int64_t)1 << 50 },
        { "misplaced_cells", FIELD(struct ts_survey_matrix, misplaced_cells), 0, MAX_CELLS },
    };
    int64_t v = 0;
    for (size_t i = 0; i < COUNT(ints); i++) {
        if (h5r_int_attr(r, "/matrix", ints[i].name, ints[i].min, ints[i].max, &v))
            return r->err->status;
        if (ints[i].size == sizeof(int64_t))
            *(int64_t *)(void *)((char *)m + ints[i].offset) = v;
        else
            *(int32_t *)(void *)((char *)m + ints[i].offset) = (int32_t)v;
    }
    if (h5r_str_attr(r, "/matrix", "byte_model_read", m->byte_model_read, sizeof m->byte_model_read)
        || h5r_str_attr(r, "/matrix", "byte_model_triad", m->byte_model_triad, sizeof m->byte_model_triad))
        return r->err->status;
    const int64_t n = (int64_t)m->n_cpu_nodes * m->n_mem_nodes;
    if (n > MAX_CELLS)
        return h5r_fail(r, "/matrix@n_cpu_nodes", "%d x %d cells, at most %d", m->n_cpu_nodes, m->n_mem_nodes,
                        MAX_CELLS);
    const struct h5r_col cols[] = {
        { "cpu_node", offsetof(CELL, cpu_node), H5T_NATIVE_INT32, 0, 0, 65535, 0 },
        { "mem_node", offsetof(CELL, mem_node), H5T_NATIVE_INT32, 0, 0, 65535, 0 },
        { "threads", offsetof(CELL, threads), H5T_NATIVE_INT32, 0, 0, 65536, 0 },
        STRCOL(CELL, cpus),
        { "latency_ns", offsetof(CELL, latency_ns), H5T_NATIVE_DOUBLE, 0, 0, 1e12, 1 },
        { "latency_huge_ns", offsetof(CELL, latency_huge_ns), H5T_NATIVE_DOUBLE, 0, 0, 1e12, 1 },
        { "latency_loaded_ns", offsetof(CELL, latency_loaded_ns), H5T_NATIVE_DOUBLE, 0, 0, 1e12, 1 },
        { "read_gbs", offsetof(CELL, read_gbs), H5T_NATIVE_DOUBLE, 0, 0, HUGE_VAL, 1 },
        { "triad_gbs", offsetof(CELL, triad_gbs), H5T_NATIVE_DOUBLE, 0, 0, HUGE_VAL, 1 },
        { "fraction", offsetof(CELL, fraction), H5T_NATIVE_DOUBLE, 0, 0, 1, 1 },
        { "misplaced", offsetof(CELL, misplaced), H5T_NATIVE_INT32, 0, 0, 1, 0 },
        { "huge_granted", offsetof(CELL, huge_granted), H5T_NATIVE_INT32, 0, 0, 1, 0 },
        STRCOL(CELL, note),
    };
    m->cell = calloc((size_t)n, sizeof *m->cell);
    m->cpu_nodes = calloc((size_t)m->n_cpu_nodes, sizeof *m->cpu_nodes);
    m->mem_nodes = calloc((size_t)m->n_mem_nodes, sizeof *m->mem_nodes);
    if (!m->cell || !m->cpu_nodes || !m->mem_nodes)
        return h5r_out_of_memory(r, "/matrix/cells", "%lld cells", (long long)n);
    if (h5r_read_table(r, "/matrix/cells", (hsize_t)n, "n_cpu_nodes x n_mem_nodes", sizeof(CELL), cols, COUNT(cols), 0,
                       m->cell))
        return r->err->status;
    /* Row by CPU node: the nodes are the first column's and the first row's, each distinct. */
    int misplaced = 0;
    for (int i = 0; i < m->n_cpu_nodes; i++)
        m->cpu_nodes[i] = m->cell[(int64_t)i * m->n_mem_nodes].cpu_node;
    for (int j = 0; j < m->n_mem_nodes; j++)
        m->mem_nodes[j] = m->cell[j].mem_node;
    for (int64_t k = 0; k < n; k++) {
        const CELL *c = &m->cell[k];
        const int i = (int)(k / m->n_mem_nodes), j = (int)(k % m->n_mem_nodes);
        char where[64];
        snprintf(where, sizeof where, "/matrix/cells[%lld]", (long long)k);
        if (c->cpu_node != m->cpu_nodes[i] || c->mem_node != m->mem_nodes[j])
            return h5r_fail(r, where, "cell (%d, %d) where row %d, column %d is (%d, %d)", c->cpu_node, c->mem_node, i,
                            j, m->cpu_nodes[i], m->mem_nodes[j]);
        if ((j > 0 && i == 0 && m->mem_nodes[j] <= m->mem_nodes[j - 1])
            || (i > 0 && j == 0 && m->cpu_nodes[i] <= m->cpu_nodes[i - 1]))
            return h5r_fail(r, where, "nodes not in increasing order");
        misplaced += c->misplaced;
    }
    if (misplaced != m->misplaced_cells)
        return h5r_fail(r, "/matrix@misplaced_cells", "%d, but %d cells are marked misplaced", m->misplaced_cells,
                        misplaced);
    return TS_OK;
}

static int read_verdict(struct h5r *r, struct ts_survey_rec *s)
{
    const struct h5r_col cols[] = {
        STRCOL(SENTENCE, text),
        STRCOL(SENTENCE, sources),
    };
    return h5r_read_table(r, "/verdict", (hsize_t)s->n_sentences, "n_sentences", sizeof(SENTENCE), cols, COUNT(cols), 0,
                          s->sentences);
}

static int read_opened(struct h5r *r, struct ts_survey_rec *s)
{
    if (read_root(r, s) || read_runs(r, s))
        return r->err->status;
    int has = h5r_has(r, "/matrix", H5I_GROUP);
    if (has < 0)
        return r->err->status;
    if (has != s->has_matrix)
        return h5r_fail(r, "/matrix", "%s, but /@has_matrix is %d", has ? "present" : "absent", s->has_matrix);
    if (has && read_matrix(r, s))
        return r->err->status;
    if (read_verdict(r, s) || (s->format >= 3 && h5_sections_read(r, s)))
        return r->err->status;
    if (s->complete) {
        for (int i = 0; i < s->n_runs; i++)
            if (s->runs[i].state == TS_SURVEY_PENDING)
                return h5r_fail(r, "/@complete", "1, but run %s is pending", s->runs[i].name);
        if (!s->has_matrix)
            return h5r_fail(r, "/@complete", "1, but the NUMA matrix was not measured");
    }
    return TS_OK;
}

static int read_file(struct h5r *r, int st, struct ts_survey_rec *out, struct ts_error *err)
{
    if (st == TS_OK && r->file >= 0) {
        st = read_opened(r, out);
        h5r_close(r);
    } else if (st == TS_OK)
        st = err->status;
    if (st != TS_OK)
        ts_survey_free(out);
    return st;
}

int ts_survey_read_direct(const char *path, struct ts_survey_rec *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    struct h5r r;
    int st = h5r_open_path(&r, path, err);
    return read_file(&r, st, out, err);
}

int ts_survey_read_image(const void *bytes, size_t n, const char *name, struct ts_survey_rec *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    struct h5r r;
    int st = h5r_open_image(&r, bytes, n, name, err);
    return read_file(&r, st, out, err);
}

static int check_read(const void *ctx, struct ts_error *err)
{
    struct ts_survey_rec scratch;
    int st = ts_survey_read_direct(ctx, &scratch, err);
    ts_survey_free(&scratch);
    return st;
}

int ts_survey_read(const char *path, struct ts_survey_rec *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    int st = ts_read_check_isolated(check_read, path, path, ts_read_limits_of(path), err);
    return st == TS_OK ? ts_survey_read_direct(path, out, err) : st;
}

void ts_survey_matrix_free(struct ts_survey_matrix *m)
{
    free(m->cpu_nodes);
    free(m->mem_nodes);
    free(m->cell);
    memset(m, 0, sizeof *m);
}

void ts_survey_free(struct ts_survey_rec *s)
{
    free(s->runs);
    ts_survey_matrix_free(&s->matrix);
    for (int i = 0; s->sections && i < s->n_sections; i++)
        ts_section_free(&s->sections[i]);
    free(s->sections);
    memset(s, 0, sizeof *s);
}

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run_set.h"
#include "runs_cmd.h"
#include "runs_table.h"

static const struct ts_column columns[] = {
    RC_FILE, RC_HOST, RC_START, RC_KERNEL, RC_SIZE, RC_THREADS, RC_PLACES, RC_BIND, RC_INIT, RC_POLICY,
    RC_ITERS, RC_INIT_S, RC_MEDIAN, RC_MIN, RC_Q1, RC_Q3, RC_SPREAD, RC_GBS, RC_GLUPS, RC_LOCAL,
    RC_IMBALANCE, RC_WARNINGS, RC_VERIFIED, RC_RESULT,
    { "same_result", "result vs run 1", TS_COL_TEXT, NULL, TS_SHOW_ALL },
    { "speedup", "speed-up vs run 1", TS_COL_NUM, "%.3f", TS_SHOW_ALL },
    { "speedup_low", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "speedup_high", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "speedup_range", "speed-up range (quartiles)", TS_COL_TEXT, NULL, TS_SHOW_PEOPLE },
    { "difference", "difference vs run 1", TS_COL_TEXT, NULL, TS_SHOW_ALL },
};

/* Times of different problems say nothing about each other: the fields that must agree. */
static const char *const must_agree[] = { "kernel", "size" };

static void field_of(const struct ts_run_summary *s, size_t field, char *buf, size_t size)
{
    if (field == 0)
        snprintf(buf, size, "%s", s->kernel);
    else
        ts_run_size_text(s, buf, size);
}

/* Appends "kernel (a.h5: sum, b.h5: triad)" for each field that differs; returns how many. */
static int differences(const struct ts_run_set *set, char *buf, size_t size)
{
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t f = 0; f < sizeof must_agree / sizeof must_agree[0]; f++) {
        char first[96], v[96];
        field_of(&set->runs[0], f, first, sizeof first);
        int differs = 0;
        for (size_t i = 1; i < set->n && !differs; i++) {
            field_of(&set->runs[i], f, v, sizeof v);
            differs = strcmp(v, first) != 0;
        }
        if (!differs)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s (", n++ ? " and " : "", must_agree[f]);
        for (size_t i = 0; i < set->n && used < size; i++) {
            field_of(&set->runs[i], f, v, sizeof v);
            used += (size_t)snprintf(buf + used, size - used, "%s%s: %s", i ? ", " : "", set->runs[i].file, v);
        }
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used, ")");
        if (used >= size)
            break;
    }
    return n;
}

static int fill(struct ts_table *t, const struct ts_run_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct ts_run_summary *s = &set->runs[i];
        struct ts_speedup up;
        ts_speedup_of(&set->runs[0], &set->stats[0], s, &set->stats[i], &up);
        char range[64];
        snprintf(range, sizeof range, "%.3f..%.3f", up.low, up.high);
        long row = ts_table_add_row(t);
        if (row < 0 || ts_runs_fill(t, (size_t)row, s, &set->stats[i]) != 0
            || ts_runs_text(t, (size_t)row, "same_result",
                            s->global == set->runs[0].global ? "identical" : "differs") != 0
            || ts_runs_text(t, (size_t)row, "speedup_range", range) != 0
            || ts_runs_text(t, (size_t)row, "difference", i ? up.verdict : "reference") != 0)
            return -1;
        ts_runs_num(t, (size_t)row, "speedup", up.value);
        ts_runs_num(t, (size_t)row, "speedup_low", up.low);
        ts_runs_num(t, (size_t)row, "speedup_high", up.high);
    }
    return 0;
}

int ts_compare_cmd(const struct ts_runs_args *a, struct ts_error *err)
{
    struct ts_run_set set;
    if (ts_run_set_load(&set, a->files, a->n_files, 0, "compare", err)) {
        ts_run_set_free(&set);
        return err->status;
    }
    char differ[1500], title[1800];
    int n_differ = differences(&set, differ, sizeof differ);
    if (n_differ && !a->force) {
        ts_run_set_free(&set);
        return ts_fail(err, TS_BAD_INPUT, "compare: the runs differ in %s; their times say nothing about each "
                       "other (--force compares them anyway)", differ);
    }
    snprintf(title, sizeof title,
             "touchstone compare: %zu runs against run 1%s%s\n"
             "speed-up = median time per iteration of run 1 / of this run; its range combines the quartiles\n"
             "of both runs' iteration times, and the difference is within noise when their middle halves overlap",
             set.n, n_differ ? "; --force: they differ in " : "", n_differ ? differ : "");
    struct ts_table t = { .name = "runs", .title = title, .cols = columns,
                          .n_cols = sizeof columns / sizeof columns[0], .transpose = 1,
                          .group_col = TS_TABLE_NO_GROUP };
    int st = fill(&t, &set) != 0 ? ts_fail_errno(err, TS_BAD_INPUT, ENOMEM, "compare")
             : ts_table_print(&t, a->format, stdout) != 0
                 ? ts_fail_errno(err, TS_BAD_INPUT, errno ? errno : EIO, "compare: cannot print the table")
                 : TS_OK;
    ts_table_free(&t);
    ts_run_set_free(&set);
    return st;
}

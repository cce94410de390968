#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare_sides.h"
#include "readback_set.h"
#include "readback_table.h"

/* One row per run; the side's figures repeat on each of its rows for programs, and people
 * get them once, in the table of sides below the runs. */
static const struct ts_column columns[] = {
    RC_FILE,
    { "side", "side", TS_COL_INT, NULL, TS_SHOW_ALL },
    RC_HOST,
    RC_START,
    RC_JOB,
    RC_KERNEL,
    RC_SIZE,
    RC_RANKS,
    RC_THREADS,
    RC_HOSTS,
    RC_DECOMP,
    RC_PLACES,
    RC_BIND,
    RC_INIT,
    RC_POLICY,
    RC_ITERS,
    RC_INIT_S,
    RC_INIT_BY_MACHINE,
    RC_MEDIAN,
    RC_MIN,
    RC_Q1,
    RC_Q3,
    RC_SPREAD,
    RC_GBS,
    RC_GLUPS,
    RC_LOCAL,
    RC_IMBALANCE,
    RC_HALO,
    RC_WARNINGS,
    RC_VERIFIED,
    RC_RESULT,
    { "same_result", "result vs run 1", TS_COL_TEXT, NULL, TS_SHOW_ALL },
    { "speedup", "speed-up vs side 1", TS_COL_NUM, "%.3f", TS_SHOW_ALL },
    RC_DISTURBED,
    RC_DISTURBED_WHY,
    RC_MACHINE,
    RC_INIT_BY_MACHINE_WHY,
    RC_INIT_NUMBERS,
    { "side_runs", "", TS_COL_INT, NULL, TS_SHOW_MACHINE },
    { "side_disturbed", "", TS_COL_INT, NULL, TS_SHOW_MACHINE },
    { "side_median_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "side_min_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "side_max_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "side_speedup", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "verdict", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "verdict_why", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "p_value", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
};

static const struct ts_column side_columns[] = {
    { "side", "side", TS_COL_INT, NULL, TS_SHOW_ALL },
    { "runs", "runs", TS_COL_TEXT, NULL, TS_SHOW_ALL },
    { "median", "median of medians (s)", TS_COL_NUM, "%.4g", TS_SHOW_ALL },
    { "range", "range between runs (s)", TS_COL_TEXT, NULL, TS_SHOW_ALL },
    { "speedup", "speed-up vs side 1", TS_COL_NUM, "%.3f", TS_SHOW_ALL },
    { "verdict", "verdict", TS_COL_TEXT, NULL, TS_SHOW_ALL },
    { "differs", "configuration", TS_COL_TEXT, NULL, TS_SHOW_ALL },
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

static int fill_runs(struct ts_table *t, const struct ts_run_set *set, const struct ts_side *sides, size_t n_sides)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct ts_run_summary *s = &set->runs[i];
        const struct ts_side *side = &sides[ts_side_of(sides, n_sides, i)];
        long row = ts_table_add_row(t);
        if (row < 0 || ts_runs_fill(t, (size_t)row, s, &set->stats[i]) != 0
            || ts_runs_text(t, (size_t)row, "same_result", s->global == set->runs[0].global ? "identical" : "differs")
                   != 0
            || ts_runs_text(t, (size_t)row, "verdict", side->verdict) != 0
            || ts_runs_text(t, (size_t)row, "verdict_why", side->why) != 0)
            return -1;
        const struct {
            const char *key;
            double v;
        } nums[] = {
            { "side", (double)(side - sides) + 1 }, { "speedup", sides[0].median / s->time_median },
            { "side_runs", (double)side->n },       { "side_disturbed", (double)side->n_disturbed },
            { "side_median_s", side->median },      { "side_min_s", side->low },
            { "side_max_s", side->high },           { "side_speedup", side->speedup },
            { "p_value", side->p_value },
        };
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
            ts_runs_num(t, (size_t)row, nums[k].key, nums[k].v);
    }
    return 0;
}

static int fill_sides(struct ts_table *t, const struct ts_side *sides, size_t n_sides)
{
    for (size_t k = 0; k < n_sides; k++) {
        const struct ts_side *side = &sides[k];
        char runs[64], range[96];
        snprintf(runs, sizeof runs, side->n_disturbed ? "%zu (%zu disturbed)" : "%zu", side->n, side->n_disturbed);
        if (isnan(side->low)) /* no run of the side has a timed iteration */
            snprintf(range, sizeof range, "-");
        else
            snprintf(range, sizeof range, "%.4g..%.4g", side->low, side->high);
        long row = ts_table_add_row(t);
        if (row < 0 || ts_runs_text(t, (size_t)row, "runs", runs) != 0
            || ts_runs_text(t, (size_t)row, "range", range) != 0
            || ts_runs_text(t, (size_t)row, "verdict", side->verdict) != 0
            || ts_runs_text(t, (size_t)row, "differs", k ? side->differs : "the reference") != 0)
            return -1;
        ts_runs_num(t, (size_t)row, "side", (double)k + 1);
        ts_runs_num(t, (size_t)row, "median", side->median);
        ts_runs_num(t, (size_t)row, "speedup", side->speedup);
    }
    return 0;
}

/* The median of the init times of runs [first, first + n). */
static double median_init(const struct ts_run_set *set, size_t first, size_t n, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = set->runs[first + i].init_time;
    for (size_t i = 1; i < n; i++) /* few runs: insertion sort */
        for (size_t j = i; j > 0 && scratch[j - 1] > scratch[j]; j--) {
            double t = scratch[j];
            scratch[j] = scratch[j - 1];
            scratch[j - 1] = t;
        }
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* Init times the machine took (common/ts_init_by_machine.h): each such run, then each side
 * whose init differs from side 1's with such a run on either side, said to be the machine's and
 * not placement's. */
static void print_init_notes(const struct ts_run_set *set, const struct ts_side *sides, size_t n_sides,
                             const char *bullet, FILE *out)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->stats[i].init_by_machine > 0)
            fprintf(out, "%sinit: %s: %.3g s, %s\n", bullet, set->runs[i].file, set->runs[i].init_time,
                    set->stats[i].init_by_machine_why);
    double *scratch = malloc(set->n * sizeof *scratch);
    for (size_t k = 1; scratch && k < n_sides; k++) {
        size_t machine = 0;
        for (size_t i = 0; i < sides[0].n; i++)
            machine += set->stats[sides[0].first + i].init_by_machine > 0;
        for (size_t i = 0; i < sides[k].n; i++)
            machine += set->stats[sides[k].first + i].init_by_machine > 0;
        if (machine == 0)
            continue;
        const double ref = median_init(set, sides[0].first, sides[0].n, scratch);
        const double here = median_init(set, sides[k].first, sides[k].n, scratch);
        fprintf(out,
                "%sside %zu: init %.3g s against %.3g s on side 1 (medians), not to be read as placement: the machine "
                "took the init of %zu of these %zu runs (its memory management, the hypervisor or other processes: "
                "the init lines say which)\n",
                bullet, k + 1, here, ref, machine, sides[0].n + sides[k].n);
    }
    free(scratch);
}

/* Below the tables for people: each verdict's reason, and what disturbed which run. */
static void print_notes(const struct ts_run_set *set, const struct ts_side *sides, size_t n_sides,
                        enum ts_table_format format, FILE *out)
{
    const char *bullet = format == TS_TABLE_MARKDOWN ? "- " : "";
    fputc('\n', out);
    if (n_sides == 1)
        fprintf(out,
                "%sone side: every run has the same configuration; put `vs` between runs to compare them as "
                "sides\n",
                bullet);
    for (size_t k = 1; k < n_sides; k++)
        fprintf(out, "%sside %zu: %s: %s\n", bullet, k + 1, sides[k].verdict, sides[k].why);
    for (size_t i = 0; i < set->n; i++)
        if (set->stats[i].disturbed > 0)
            fprintf(out, "%sdisturbed: %s: %s\n", bullet, set->runs[i].file, set->stats[i].disturbed_why);
    print_init_notes(set, sides, n_sides, bullet, out);
    /* The machine conditions that distort results, where a run differs from the first: one line
     * each, nothing when they agree. */
    int heading = 0;
    for (int k = 0; k < TS_N_CONDITIONS; k++)
        for (size_t i = 1; i < set->n; i++) {
            const struct ts_run_summary *first = &set->runs[0], *run = &set->runs[i];
            if (!ts_condition_differs(first, run, k))
                continue;
            if (!heading++)
                fprintf(out, "%smachine conditions that differ from %s's (docs/how-it-works.md):\n", bullet,
                        first->file);
            fprintf(out, "%s%s  %s vs %s", format == TS_TABLE_MARKDOWN ? "  - " : "  ", ts_condition_name(k),
                    first->conditions[k], run->conditions[k]);
            if (set->n > 2)
                fprintf(out, " (%s)", run->file);
            fputc('\n', out);
        }
}

static int print_all(const struct ts_run_set *set, const struct ts_side *sides, size_t n_sides, const char *title,
                     enum ts_table_format format)
{
    struct ts_column shown[sizeof columns / sizeof columns[0]];
    const int with_ranks = ts_runs_with_ranks(set->stats, set->n);
    struct ts_table t = { .name = "runs",
                          .title = title,
                          .cols = shown,
                          .n_cols = ts_runs_columns(columns, sizeof columns / sizeof columns[0], with_ranks, shown),
                          .transpose = 1,
                          .group_col = TS_TABLE_NO_GROUP };
    struct ts_table st = { .name = "sides",
                           .cols = side_columns,
                           .n_cols = sizeof side_columns / sizeof side_columns[0],
                           .group_col = TS_TABLE_NO_GROUP };
    int rc = fill_runs(&t, set, sides, n_sides) != 0 || fill_sides(&st, sides, n_sides) != 0 ? -2 : 0;
    int people = format == TS_TABLE_TEXT || format == TS_TABLE_MARKDOWN;
    if (rc == 0)
        rc = ts_table_print(&t, format, stdout);
    if (rc == 0 && people) {
        fputc('\n', stdout);
        rc = ts_table_print(&st, format, stdout);
        print_notes(set, sides, n_sides, format, stdout);
        rc = rc == 0 && fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
    }
    ts_table_free(&t);
    ts_table_free(&st);
    return rc;
}

/* The files without the `vs` words, and where a `vs` stood: before files[i] when split[i]. */
static int split_args(const struct ts_runs_args *a, char **files, unsigned char *split, int *n, struct ts_error *err)
{
    int pending = 0;
    *n = 0;
    for (int i = 0; i < a->n_files; i++) {
        if (strcmp(a->files[i], "vs") != 0) {
            split[*n] = (unsigned char)pending;
            files[(*n)++] = a->files[i];
            pending = 0;
        } else if (*n == 0 || pending || i + 1 == a->n_files)
            return ts_fail(err, TS_BAD_INPUT,
                           "compare: `vs` stands between run files (A1.h5 A2.h5 vs B1.h5 "
                           "B2.h5); a file named vs is ./vs");
        else
            pending = 1;
    }
    if (*n < 2)
        return ts_fail(err, TS_BAD_INPUT,
                       "compare: needs at least two run files, the first is the reference "
                       "(see touchstone --help)");
    return TS_OK;
}

int ts_compare_cmd(const struct ts_runs_args *a, struct ts_error *err)
{
    char **files = malloc((size_t)a->n_files * sizeof *files);
    unsigned char *split = calloc((size_t)a->n_files, 1);
    int n_files = 0;
    if (!files || !split) {
        free(files);
        free(split);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "compare");
    }
    struct ts_run_set set;
    memset(&set, 0, sizeof set);
    struct ts_side *sides = NULL;
    long n_sides = 0;
    char differ[1500], title[2400];
    int st = split_args(a, files, split, &n_files, err);
    if (st == TS_OK)
        st = ts_run_set_load(&set, files, n_files, 0, "compare", err);
    int n_differ = st == TS_OK ? differences(&set, differ, sizeof differ) : 0;
    if (st == TS_OK && n_differ && !a->force)
        st = ts_fail(err, TS_BAD_INPUT,
                     "compare: the runs differ in %s; their times say nothing about each "
                     "other (--force compares them anyway)",
                     differ);
    if (st == TS_OK && (n_sides = ts_sides_make(&set, split, &sides)) < 0)
        st = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "compare");
    if (st == TS_OK) {
        snprintf(title, sizeof title,
                 "touchstone compare: %zu runs in %ld side%s, side 1 the reference%s%s\n"
                 "a side is consecutive runs of one configuration (or up to a `vs`); its time is the median of its\n"
                 "runs' median times per iteration, its range their spread. A verdict needs %d undisturbed runs on\n"
                 "each side and every run of one side faster than every run of the other",
                 set.n, n_sides, n_sides == 1 ? "" : "s", n_differ ? "; --force: they differ in " : "",
                 n_differ ? differ : "", TS_SIDE_MIN_RUNS);
        int rc = print_all(&set, sides, (size_t)n_sides, title, a->format);
        if (rc == -2)
            st = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "compare");
        else if (rc != 0)
            st = ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "compare: cannot print the table");
    }
    free(sides);
    ts_run_set_free(&set);
    free(files);
    free(split);
    return st;
}

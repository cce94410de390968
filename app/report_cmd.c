#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "readback_set.h"
#include "readback_table.h"
#include "ts_html.h"
#include "ts_survey_file.h"

/* The configuration columns are in the group heading for people, in every row for programs. */
static const struct ts_column columns[] = {
    { "group", "", TS_COL_TEXT, NULL, TS_SHOW_ALL },
    { "kernel", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "size", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "init_mode", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "policy", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "omp_places", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "omp_proc_bind", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    RC_RANKS,
    RC_THREADS,
    RC_MEDIAN,
    RC_Q1,
    RC_Q3,
    { "speedup", "speed-up", TS_COL_NUM, "%.3f", TS_SHOW_ALL },
    { "efficiency", "efficiency", TS_COL_NUM, "%.3f", TS_SHOW_ALL },
    RC_HALO,
    RC_GBS,
    RC_GLUPS,
    RC_IMBALANCE,
    RC_LOCAL,
    RC_WARNINGS,
    RC_VERIFIED,
    RC_DISTURBED,
    RC_HOST,
    RC_FILE,
    /* compare's per-run fields too, for programs: the text stays one line per run */
    { "iterations", "", TS_COL_INT, NULL, TS_SHOW_MACHINE },
    { "init_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "time_min_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "result", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },
    { "start_time", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    { "job_id", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    RC_DISTURBED_WHY,
    RC_MACHINE,
    { "init_by_machine", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
    RC_INIT_BY_MACHINE_WHY,
    RC_INIT_NUMBERS,
    { "hosts", "", TS_COL_INT, NULL, TS_SHOW_MACHINE },
    { "decomposition", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE },
};

struct entry {
    size_t run, group;
};

static const struct ts_run_set *sorting; /* qsort has no context argument */

/* Threads of each rank, the mean when the ranks differ in it: what orders the rows. */
static double per_rank(const struct ts_run_set *set, size_t run)
{
    return (double)set->runs[run].n_threads / set->stats[run].ranks;
}

static int by_group_then_threads(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    const struct ts_run_summary *x = &sorting->runs[a->run], *y = &sorting->runs[b->run];
    const int xr = sorting->stats[a->run].ranks, yr = sorting->stats[b->run].ranks;
    const double xt = per_rank(sorting, a->run), yt = per_rank(sorting, b->run);
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (xr != yr)
        return xr < yr ? -1 : 1;
    if (xt != yt)
        return xt < yt ? -1 : 1;
    int c = strcmp(x->start_time, y->start_time);
    return c ? c : a->run < b->run ? -1 : a->run > b->run;
}

static void group_label(const struct ts_run_summary *s, char *buf, size_t size)
{
    char problem[96];
    ts_run_size_text(s, problem, sizeof problem);
    snprintf(buf, size, "%s %s, %s init, policy %s, OMP_PLACES=%s OMP_PROC_BIND=%s", s->kernel, problem, s->init_mode,
             s->policy, s->places, s->proc_bind);
}

/* Groups numbered in order of first appearance, so the output follows the arguments. */
static struct entry *grouped(const struct ts_run_set *set, char (*labels)[1024])
{
    struct entry *e = malloc(set->n * sizeof *e);
    if (!e)
        return NULL;
    size_t n_groups = 0;
    for (size_t i = 0; i < set->n; i++) {
        group_label(&set->runs[i], labels[i], sizeof labels[i]);
        size_t g = 0;
        while (g < i && strcmp(labels[g], labels[i]) != 0)
            g++;
        e[i] = (struct entry){ i, g < i ? e[g].group : n_groups++ };
    }
    sorting = set;
    qsort(e, set->n, sizeof *e, by_group_then_threads);
    return e;
}

/* The group's run with the fewest threads in all (ranks x threads: 1 rank x 1 thread when the
 * group has it), the fewer ranks of two with as many; from the group's first row, k. */
static size_t baseline(const struct ts_run_set *set, const struct entry *e, size_t k)
{
    size_t base = k;
    for (size_t j = k + 1; j < set->n && e[j].group == e[k].group; j++) {
        const struct ts_run_summary *s = &set->runs[e[j].run], *b = &set->runs[e[base].run];
        if (s->n_threads < b->n_threads
            || (s->n_threads == b->n_threads && set->stats[e[j].run].ranks < set->stats[e[base].run].ranks))
            base = j;
    }
    return base;
}

static int same_count(const struct ts_run_set *set, size_t a, size_t b)
{
    return set->runs[a].n_threads == set->runs[b].n_threads && set->stats[a].ranks == set->stats[b].ranks;
}

static int by_time(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The baseline's time: the median of the group's runs at the baseline's ranks and threads, as
 * repeats of one count are one point measured several times, not a scaling. NaN when none is timed. */
static double baseline_time(const struct ts_run_set *set, const struct entry *e, size_t k, size_t base, double *scratch)
{
    int n = 0;
    for (size_t j = k; j < set->n && e[j].group == e[k].group; j++)
        if (same_count(set, e[j].run, e[base].run) && !isnan(set->runs[e[j].run].time_median))
            scratch[n++] = set->runs[e[j].run].time_median;
    if (n == 0)
        return NAN;
    qsort(scratch, (size_t)n, sizeof *scratch, by_time);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* Whether the group of row k has no other run at the baseline's count than the baseline. */
static int base_alone(const struct ts_run_set *set, const struct entry *e, size_t k, size_t base)
{
    size_t first = k;
    while (first > 0 && e[first - 1].group == e[k].group)
        first--;
    for (size_t j = first; j < set->n && e[j].group == e[k].group; j++)
        if (j != base && same_count(set, e[j].run, e[base].run))
            return 0;
    return 1;
}

/* Speed-up and efficiency only for rows at another thread count than the group's baseline:
 * repeats at one count differ by noise alone, which a speed-up would state as a finding. */
static int fill(struct ts_table *t, const struct ts_run_set *set, const struct entry *e, char (*labels)[1024])
{
    double *scratch = malloc((set->n ? set->n : 1) * sizeof *scratch);
    if (!scratch)
        return -1;
    size_t base = 0;
    double base_time = NAN;
    for (size_t k = 0; k < set->n; k++) {
        if (k == 0 || e[k].group != e[k - 1].group) {
            base = baseline(set, e, k);
            base_time = baseline_time(set, e, k, base, scratch);
        }
        /* n_threads counts the threads of every rank */
        const struct ts_run_summary *s = &set->runs[e[k].run], *b = &set->runs[e[base].run];
        const int scaled = !same_count(set, e[k].run, e[base].run);
        /* The baseline alone at its count is 1 by definition; repeats at that count get none. */
        const int alone = !scaled && base_alone(set, e, k, base);
        double speedup = alone ? 1.0 : base_time / s->time_median;
        long row = ts_table_add_row(t);
        if (row < 0 || ts_runs_fill(t, (size_t)row, s, &set->stats[e[k].run]) != 0
            || ts_runs_text(t, (size_t)row, "group", labels[e[k].run]) != 0) {
            free(scratch);
            return -1;
        }
        ts_runs_num(t, (size_t)row, "speedup", scaled || alone ? speedup : NAN);
        ts_runs_num(t, (size_t)row, "efficiency", scaled || alone ? speedup * b->n_threads / s->n_threads : NAN);
    }
    free(scratch);
    return 0;
}

/* For people, above the table: how many runs other work disturbed, before anyone reads a number. */
static int print_disturbed_count(const struct ts_run_set *set, enum ts_table_format format, FILE *out)
{
    if (format != TS_TABLE_TEXT && format != TS_TABLE_MARKDOWN)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        n += set->stats[i].disturbed > 0;
    if (n > 0)
        fprintf(out,
                "%sDISTURBED: %zu of %zu runs: other work took their CPUs while they computed, so their times are "
                "the machine's as much as the configuration's (column disturbed; the reasons below the table). "
                "Run them again on a quiet node before reading a difference into them.\n\n",
                format == TS_TABLE_MARKDOWN ? "**" : "", n, set->n);
    return ferror(out) ? -1 : 0;
}

/* For people, below the table: what disturbed which run (CSV and JSON have disturbed_why). */
static int print_disturbed(const struct ts_run_set *set, enum ts_table_format format, FILE *out)
{
    if (format != TS_TABLE_TEXT && format != TS_TABLE_MARKDOWN)
        return 0;
    int first = 1;
    for (size_t i = 0; i < set->n; i++)
        if (set->stats[i].disturbed > 0) {
            fprintf(out, "%s%sdisturbed: %s: %s\n", first ? "\n" : "", format == TS_TABLE_MARKDOWN ? "- " : "",
                    set->runs[i].file, set->stats[i].disturbed_why);
            first = 0;
        }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* report --html of a survey: its one argument is the survey's folder (holding survey.h5, the
 * folder `touchstone survey -o DIR` made), and the report is the one survey --html writes. */
static int report_survey(const char *html, const char *dir, struct ts_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/survey.h5", dir);
    static struct ts_survey_rec s;
    int st = ts_survey_read(path, &s, err);
    if (st != TS_OK)
        return st;
    st = ts_html_write_survey(html, &s, dir, err);
    if (st == TS_OK
        && (printf("report: %s written (a survey of %d runs)\n", html, s.n_runs) < 0 || fflush(stdout) != 0))
        st = ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "report: cannot print to standard output");
    ts_survey_free(&s);
    return st;
}

static int is_survey_dir(const char *arg)
{
    struct stat st;
    char path[4096];
    snprintf(path, sizeof path, "%s/survey.h5", arg);
    return stat(arg, &st) == 0 && S_ISDIR(st.st_mode) && stat(path, &st) == 0;
}

int ts_report_cmd(const struct ts_runs_args *a, struct ts_error *err)
{
    if (a->html && a->n_files == 1 && is_survey_dir(a->files[0]))
        return report_survey(a->html, a->files[0], err);
    struct ts_run_set set;
    if (ts_run_set_load(&set, a->files, a->n_files, 1, "report", err)) {
        ts_run_set_free(&set);
        return err->status;
    }
    if (a->html) {
        /* The file is the output: nothing on stdout but where it went. */
        int st = ts_html_write(a->html, NULL, set.runs, (int)set.n, err);
        if (st == TS_OK
            && (printf("report: %s written (%zu run%s)\n", a->html, set.n, set.n == 1 ? "" : "s") < 0
                || fflush(stdout) != 0))
            st = ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "report: cannot print to standard output");
        ts_run_set_free(&set);
        return st;
    }
    char(*labels)[1024] = malloc(set.n * sizeof *labels);
    struct entry *e = labels ? grouped(&set, labels) : NULL;
    struct ts_column shown[sizeof columns / sizeof columns[0]];
    const int with_ranks = ts_runs_with_ranks(set.stats, set.n);
    struct ts_table t = {
        .name = "runs",
        .cols = shown,
        .n_cols = ts_runs_columns(columns, sizeof columns / sizeof columns[0], with_ranks, shown),
        .group_col = 0,
        .title = with_ranks ? "touchstone report: runs grouped by configuration, by ranks x threads per rank;\n"
                              "speed-up over the median of the fewest threads in all of the group (1 rank x 1 thread\n"
                              "when it has it), efficiency = speed-up x those threads / (ranks x threads per rank);\n"
                              "none for repeats at those threads"
                            : "touchstone report: runs grouped by configuration, by threads; speed-up over the\n"
                              "median of the fewest threads of the group, efficiency = speed-up x those threads /\n"
                              "threads; none for repeats at those threads"
    };
    int st = !e || fill(&t, &set, e, labels) != 0 ? ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "report")
             : print_disturbed_count(&set, a->format, stdout) != 0 || ts_table_print(&t, a->format, stdout) != 0
                     || print_disturbed(&set, a->format, stdout) != 0
                 ? ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "report: cannot print the table")
                 : TS_OK;
    ts_table_free(&t);
    free(e);
    free(labels);
    ts_run_set_free(&set);
    return st;
}

#include "readback_table.h"

#include <math.h>
#include <stdio.h>

void ts_runs_num(struct ts_table *t, size_t row, const char *key, double v)
{
    ts_table_num(t, row, ts_table_col(t, key), v);
}

int ts_runs_text(struct ts_table *t, size_t row, const char *key, const char *text)
{
    return ts_table_text(t, row, ts_table_col(t, key), text);
}

int ts_runs_fill(struct ts_table *t, size_t row, const struct ts_run_summary *s, const struct ts_run_stats *st)
{
    char size[96], spread[64], verified[48];
    ts_run_size_text(s, size, sizeof size);
    if (isnan(st->q1)) /* no timed iteration (stopped during the warm-up) */
        snprintf(spread, sizeof spread, "-");
    else
        snprintf(spread, sizeof spread, "%.4g..%.4g", st->q1, st->q3);
    /* A run a signal stopped was never verified: its file says passed = 0 for that reason. */
    snprintf(verified, sizeof verified, "%s", !s->complete ? "stopped early" : s->verified ? "PASSED" : "FAILED");
    const struct {
        const char *key, *text;
    } texts[] = {
        { "file", s->file },
        { "host", s->host },
        { "start_time", s->start_time },
        { "kernel", s->kernel },
        { "size", size },
        { "omp_places", s->places },
        { "omp_proc_bind", s->proc_bind },
        { "init_mode", s->init_mode },
        { "policy", s->policy },
        { "spread", spread },
        { "verified", verified },
        { "job_id", s->job_id },
        { "disturbed", ts_disturbed_text(st->disturbed) },
        { "disturbed_why", st->disturbed > 0 ? st->disturbed_why : "" },
    };
    const struct {
        const char *key;
        double v;
    } nums[] = {
        { "threads", s->n_threads },
        { "iterations", (double)s->n_iterations },
        { "init_s", s->init_time },
        { "time_median_s", s->time_median },
        { "time_min_s", s->time_min },
        { "time_q1_s", st->q1 },
        { "time_q3_s", st->q3 },
        { "gbs_median", s->gbs_median },
        { "glups_median", s->glups_median },
        { "local_fraction", s->local_fraction },
        { "imbalance", st->imbalance },
        { "result", s->global },
        { "warnings", (double)s->n_warnings },
        { "switches_per_thread_s", st->numbers.switch_rate },
        { "steal_share", st->numbers.steal_share },
        { "others_share", st->numbers.others_share },
        { "load_start", s->has_machine ? s->machine.load_start : NAN },
        { "load_end", s->has_machine ? s->machine.load_end : NAN },
        { "online_cpus", s->has_machine ? s->machine.online_cpus : NAN },
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (ts_runs_text(t, row, texts[i].key, texts[i].text) != 0)
            return -1;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        ts_runs_num(t, row, nums[i].key, nums[i].v);
    return 0;
}

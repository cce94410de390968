#include "readback_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ts_runs_num(struct ts_table *t, size_t row, const char *key, double v)
{
    ts_table_num(t, row, ts_table_col(t, key), v);
}

int ts_runs_text(struct ts_table *t, size_t row, const char *key, const char *text)
{
    return ts_table_text(t, row, ts_table_col(t, key), text);
}

int ts_runs_with_ranks(const struct ts_run_stats *stats, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (stats[i].ranks > 1)
            return 1;
    return 0;
}

size_t ts_runs_columns(const struct ts_column *cols, size_t n, int with_ranks, struct ts_column *out)
{
    static const char *const of_ranks[] = { "ranks", "hosts", "decomposition", "halo_share" };
    size_t kept = 0;
    for (size_t c = 0; c < n; c++) {
        int rank_col = 0;
        for (size_t k = 0; k < sizeof of_ranks / sizeof of_ranks[0]; k++)
            rank_col |= strcmp(cols[c].key, of_ranks[k]) == 0;
        if (rank_col && !with_ranks)
            continue;
        out[kept] = cols[c];
        if (with_ranks && strcmp(cols[c].key, "threads") == 0 && cols[c].title[0])
            out[kept].title = "threads per rank";
        kept++;
    }
    return kept;
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
        { "init_by_machine", ts_disturbed_text(st->init_by_machine) },
        { "init_by_machine_why", st->init_by_machine > 0 ? st->init_by_machine_why : "" },
        { "decomposition", s->n_ranks > 0 ? s->decomposition : "" },
    };
    const struct {
        const char *key;
        double v;
    } nums[] = {
        { "ranks", st->ranks },
        { "hosts", s->n_ranks > 0 ? s->n_hosts : 1 },
        { "threads", st->threads_per_rank },
        { "halo_share", st->halo_share },
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
        { "wait_share", st->numbers.wait_share },
        { "steal_share", st->numbers.steal_share },
        { "others_share", st->numbers.others_share },
        { "load_start", s->has_machine ? s->machine.load_start : NAN },
        { "load_end", s->has_machine ? s->machine.load_end : NAN },
        { "online_cpus", s->has_machine ? s->machine.online_cpus : NAN },
        { "init_stall_share", st->init_numbers.stall_share },
        { "init_steal_share", st->init_numbers.steal_share },
        { "init_others_share", st->init_numbers.others_share },
        { "init_stalls", st->init_numbers.stalls },
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (ts_runs_text(t, row, texts[i].key, texts[i].text) != 0)
            return -1;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        ts_runs_num(t, row, nums[i].key, nums[i].v);
    return 0;
}

#include "readback_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts_summary.h"
#include "ts_stats.h"

/* Linear interpolation between order statistics (numpy's default), on sorted values. */
static double quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + (pos - (double)i) * (sorted[i + 1] - sorted[i]);
}

static double imbalance(const struct ts_run_summary *s, double *column, double *ratios)
{
    size_t threads = (size_t)s->n_threads, iters = (size_t)s->n_iterations, used = 0;
    for (size_t i = 0; i < iters; i++) {
        size_t measured = 0;
        for (size_t t = 0; t < threads; t++)
            measured += !isnan(column[t] = s->thread_iteration[t * iters + i]);
        if (measured < threads) /* NaN: not measured (before a restart on another thread count) */
            continue;
        qsort(column, threads, sizeof *column, ts_compare_doubles);
        double median = quantile(column, threads, 0.5);
        if (median > 0)
            ratios[used++] = column[threads - 1] / median;
    }
    if (used == 0)
        return NAN;
    qsort(ratios, used, sizeof *ratios, ts_compare_doubles);
    return quantile(ratios, used, 0.5);
}

static void disturbance(const struct ts_run_summary *s, struct ts_run_stats *out)
{
    struct ts_disturb_facts f;
    ts_disturb_facts_of(s->n_threads, s->kernel_time, s->involuntary, s->wait, s->has_machine ? &s->machine : NULL, &f);
    out->disturbed = ts_disturbed(&f, out->disturbed_why, sizeof out->disturbed_why);
    ts_disturb_numbers(&f, &out->numbers);
}

static void init_judgement(const struct ts_run_summary *s, struct ts_run_stats *out)
{
    struct ts_init_facts f;
    ts_init_facts_of(s->has_init_machine ? &s->init_machine : NULL, s->has_init_memory ? &s->init_memory : NULL,
                     s->init_mode, s->n_ranks > 0 ? s->ranks[0].n_threads : s->n_threads, &f);
    ts_init_touch_of(s->init_counters, s->n_threads, s->ranks, s->n_ranks, s->init_mode, s->working_set_bytes, &f);
    out->init_by_machine = ts_init_by_machine(&f, out->init_by_machine_why, sizeof out->init_by_machine_why);
    ts_init_numbers(&f, &out->init_numbers);
}

static void ranks_of(const struct ts_run_summary *s, struct ts_run_stats *out)
{
    out->ranks = s->n_ranks > 0 ? s->n_ranks : 1;
    out->threads_per_rank = s->n_ranks > 0 ? s->ranks[0].n_threads : s->n_threads;
    for (int32_t r = 1; r < s->n_ranks; r++)
        if (s->ranks[r].n_threads != s->ranks[0].n_threads)
            out->threads_per_rank = NAN;
    double halo = 0.0, time = 0.0;
    const size_t iters = (size_t)s->n_iterations;
    for (size_t k = 0; k < (size_t)s->n_ranks * iters; k++)
        if (!isnan(s->rank_iteration[k]) && !isnan(s->rank_halo_iteration[k])) {
            time += s->rank_iteration[k];
            halo += s->rank_halo_iteration[k];
        }
    out->halo_share = time > 0.0 ? halo / time : NAN;
}

const char *ts_disturbed_text(int disturbed)
{
    return disturbed > 0 ? "yes" : disturbed == 0 ? "no" : "not known";
}

int ts_run_stats_of(const struct ts_run_summary *s, struct ts_run_stats *out)
{
    disturbance(s, out);
    init_judgement(s, out);
    ranks_of(s, out);
    size_t iters = (size_t)s->n_iterations;
    if (iters == 0) { /* stopped during the warm-up: nothing timed to describe */
        out->q1 = out->q3 = out->imbalance = NAN;
        return 0;
    }
    double *sorted = malloc(iters * sizeof *sorted);
    double *column = malloc((size_t)s->n_threads * sizeof *column);
    double *ratios = malloc(iters * sizeof *ratios);
    int st = sorted && column && ratios ? 0 : -1;
    if (st == 0) {
        memcpy(sorted, s->iteration, iters * sizeof *sorted);
        qsort(sorted, iters, sizeof *sorted, ts_compare_doubles);
        out->q1 = quantile(sorted, iters, 0.25);
        out->q3 = quantile(sorted, iters, 0.75);
        out->imbalance = imbalance(s, column, ratios);
    }
    free(sorted);
    free(column);
    free(ratios);
    return st;
}

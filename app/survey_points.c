#include "survey_points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_sides.h"
#include "ts_stats.h"

double ts_survey_median(double *v, int n)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, ts_compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct survey_point ts_survey_point(const struct ts_survey_rec *s, int group, const char *kernel, const char *variant,
                                    int threads)
{
    struct survey_point p = { .median = NAN, .low = NAN, .high = NAN, .gbs = NAN, .local = NAN };
    double times[TS_SURVEY_MAX_REPEATS], gbs[TS_SURVEY_MAX_REPEATS];
    for (int i = 0; i < s->n_runs; i++) {
        const struct ts_survey_run *r = &s->runs[i];
        if (r->group != group || strcmp(r->kernel, kernel) != 0 || (variant && strcmp(r->variant, variant) != 0)
            || (threads > 0 && r->threads != threads))
            continue;
        if (!p.run)
            p.run = r;
        if (r->state != TS_SURVEY_DONE || p.n_runs == TS_SURVEY_MAX_REPEATS)
            continue;
        p.runs[p.n_runs++] = r;
        p.n_done++;
        p.n_disturbed += r->disturbed > 0;
        if (r->disturbed > 0 || isnan(r->time_median) || !(r->time_median > 0))
            continue;
        if (p.n == 0)
            p.local = r->local_fraction;
        times[p.n] = r->time_median;
        gbs[p.n++] = r->gbs_median;
    }
    p.median = ts_survey_median(times, p.n); /* sorts times: the ends are the spread */
    p.low = p.n ? times[0] : NAN;
    p.high = p.n ? times[p.n - 1] : NAN;
    p.gbs = ts_survey_median(gbs, p.n);
    return p;
}

enum survey_judgement ts_survey_judge(const struct survey_point *a, const struct survey_point *b, double *p_value,
                                      int *blocked)
{
    *p_value = NAN;
    if (a->n < TS_SIDE_MIN_RUNS || b->n < TS_SIDE_MIN_RUNS) {
        if (a->n_disturbed + b->n_disturbed > 0)
            (*blocked)++;
        return JUDGE_TOO_FEW;
    }
    const int apart = ts_sides_separated(a->low, a->high, (size_t)a->n, b->low, b->high, (size_t)b->n, p_value);
    return apart > 0 ? JUDGE_B_FASTER : apart < 0 ? JUDGE_B_SLOWER : JUDGE_OVERLAP;
}

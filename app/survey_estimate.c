#include "survey_estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int known(double rate)
{
    return rate > 0 && isfinite(rate);
}

double ts_estimate_slowdown(double all, double one, int team, int cores)
{
    if (team >= cores || team < 1)
        return 1.0;
    if (!known(all) || !known(one))
        return sqrt((double)cores / team);
    return all / fmin(all, team * one);
}

struct ts_estimate_kernel ts_estimate_kernel_from(const char *name, double wall, double init, double touch_bytes,
                                                  int iterations, double step)
{
    struct ts_estimate_kernel k = { .init = init, .step = step, .touch_bytes = touch_bytes };
    snprintf(k.name, sizeof k.name, "%s", name);
    k.fixed = fmax(0.0, wall - init - (iterations + TS_ESTIMATE_WARMUP) * step);
    return k;
}

double ts_estimate_touch_gbs(const struct ts_estimate_rates *rates)
{
    double best = NAN;
    for (int i = 0; i < rates->n_kernels; i++) {
        const struct ts_estimate_kernel *k = &rates->kernels[i];
        if (k->init > 0 && k->touch_bytes > 0 && isfinite(k->step) && !(best >= k->touch_bytes / k->init * 1e-9))
            best = k->touch_bytes / k->init * 1e-9;
    }
    return known(best) ? best : rates->touch_all;
}

const struct ts_estimate_kernel *ts_estimate_kernel_of(const struct ts_estimate_rates *rates, const char *kernel)
{
    for (int i = 0; i < rates->n_kernels; i++)
        if (strcmp(rates->kernels[i].name, kernel) == 0)
            return &rates->kernels[i];
    return NULL;
}

double ts_estimate_run(const struct ts_battery_run *r, const struct ts_estimate_rates *rates)
{
    const struct ts_estimate_kernel *k = ts_estimate_kernel_of(rates, r->rec.kernel);
    double fixed = 0.0, step = NAN;
    if (k && isfinite(k->step)) {
        fixed = k->fixed;
        step = k->step;
    } else if (known(rates->gbs_all))
        step = r->touch_bytes / (rates->gbs_all * 1e9);
    const double touch = ts_estimate_touch_gbs(rates);
    const double init = known(touch) ? r->touch_bytes / (touch * 1e9) : NAN;
    return fixed + init * ts_estimate_slowdown(rates->gbs_all, rates->gbs_one, r->init_team, rates->cores)
           + step * (r->iterations + TS_ESTIMATE_WARMUP)
                 * ts_estimate_slowdown(rates->gbs_all, rates->gbs_one, r->team, rates->cores);
}

double ts_estimate_matrix(const struct ts_battery *b, const struct ts_estimate_rates *rates)
{
    if (!known(rates->gbs_all))
        return NAN;
    const double touch = known(rates->touch_all) ? b->matrix_touch / (rates->touch_all * 1e9) : 0.0;
    const double chase_ns = known(rates->chase_ns) ? rates->chase_ns : TS_ESTIMATE_CHASE_NS;
    return b->matrix_weight / (rates->gbs_all * 1e9) + touch + b->matrix_steps * chase_ns * 1e-9;
}

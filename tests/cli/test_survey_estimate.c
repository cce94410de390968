/* The survey's estimate up front (app/survey_estimate.c) on fixed rates whose right answer is
 * worked out by hand: how fewer cores slow a sweep and a first touch, a kernel's fixed cost from
 * its short run, a run's seconds from its own kernel's rates (all cores, a serial init, one core,
 * threads stacked on one CPU), the fallback to triad's rate for a kernel without a short run,
 * and the NUMA matrix's seconds. Nothing is timed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "survey_estimate.h"
#include "ts_test.h"

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want));
}

static struct ts_battery_run run_of(const char *kernel, int iterations, int team, int init_team, double touch_bytes)
{
    struct ts_battery_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.rec.kernel, sizeof r.rec.kernel, "%s", kernel);
    r.iterations = iterations;
    r.team = team;
    r.init_team = init_team;
    r.touch_bytes = touch_bytes;
    return r;
}

static void slowdown(void)
{
    /* Two cores, one reaching half the bandwidth of both: twice as long on one. */
    CHECK(near(ts_estimate_slowdown(80, 40, 1, 2), 2.0), "one of two cores at half the rate");
    CHECK(near(ts_estimate_slowdown(80, 40, 2, 2), 1.0), "all cores: no slowdown");
    /* Eight cores saturating at 80 GB/s, 30 GB/s each: 2 cores 60 GB/s, 4 cores the 80 GB/s. */
    CHECK(near(ts_estimate_slowdown(80, 30, 2, 8), 80.0 / 60.0), "2 of 8 cores");
    CHECK(near(ts_estimate_slowdown(80, 30, 4, 8), 1.0), "4 of 8 cores saturate");
    CHECK(near(ts_estimate_slowdown(80, NAN, 2, 8), 2.0), "one core's rate unknown: sqrt(8/2)");
    CHECK(near(ts_estimate_slowdown(0, 30, 2, 8), 2.0), "all cores' rate unknown: sqrt(8/2)");
}

static void kernel_from(void)
{
    /* 1 s in all: 0.2 s first touch, 3 iterations and the warm-up of 0.1 s: 0.4 s fixed. */
    struct ts_estimate_kernel k = ts_estimate_kernel_from("triad", 1.0, 0.2, 3, 0.1);
    CHECK(strcmp(k.name, "triad") == 0, "name %s", k.name);
    CHECK(near(k.fixed, 1.0 - 0.2 - (3 + TS_ESTIMATE_WARMUP) * 0.1), "fixed %g", k.fixed);
    CHECK(near(k.init, 0.2) && near(k.step, 0.1), "init %g step %g", k.init, k.step);
    k = ts_estimate_kernel_from("sum", 0.3, 0.2, 3, 0.1); /* a timer's jitter: never below 0 */
    CHECK(k.fixed == 0.0, "fixed %g below 0", k.fixed);
}

static void runs(void)
{
    struct ts_estimate_rates r = {
        .cores = 2,
        .gbs_all = 75,
        .gbs_one = 37.5,
        .touch_all = 10,
        .touch_one = 4,
        .n_kernels = 2,
        .kernels = { { "stencil2d", 0.1, 0.15, 0.017 }, { "triad", 0.2, 0.25, 0.0134 } },
    };
    CHECK(ts_estimate_kernel_of(&r, "triad") == &r.kernels[1], "triad's entry");
    CHECK(ts_estimate_kernel_of(&r, "sum") == NULL, "no entry for sum");
    const double warm = TS_ESTIMATE_WARMUP;
    /* All cores, parallel init: the short run's fixed cost and init, 50 iterations and the warm-up. */
    struct ts_battery_run run = run_of("stencil2d", 50, 2, 2, 2 * 335544320.0);
    CHECK(near(ts_estimate_run(&run, &r), 0.1 + 0.15 + (50 + warm) * 0.017), "all cores: %g",
          ts_estimate_run(&run, &r));
    /* Serial init: the first touch at one core's 4 GB/s against both cores' 10. */
    run = run_of("stencil2d", 50, 2, 1, 2 * 335544320.0);
    CHECK(near(ts_estimate_run(&run, &r), 0.1 + 0.15 * 2.5 + (50 + warm) * 0.017), "serial init: %g",
          ts_estimate_run(&run, &r));
    /* One thread (scaling t1) or two stacked on one CPU: init and sweeps at one core's rates. */
    run = run_of("triad", 10, 1, 1, 3 * 335544320.0);
    CHECK(near(ts_estimate_run(&run, &r), 0.2 + 0.25 * 2.5 + (10 + warm) * 0.0134 * 2.0), "one core: %g",
          ts_estimate_run(&run, &r));
    /* A kernel without a short run: its arrays touched at 10 GB/s and swept once an iteration at
     * 75 GB/s on all cores, no fixed cost known. */
    run = run_of("sum", 50, 2, 2, 335544320.0);
    CHECK(near(ts_estimate_run(&run, &r), 335544320.0 / 10e9 + (50 + warm) * 335544320.0 / 75e9),
          "sum at triad's rates: %g", ts_estimate_run(&run, &r));
    /* Nothing known of it: NaN, never a made-up number. */
    struct ts_estimate_rates none = { .cores = 2 };
    CHECK(isnan(ts_estimate_run(&run, &none)), "no rate: %g", ts_estimate_run(&run, &none));
    /* A failed short run (step NaN) falls back to triad's rates too. */
    r.kernels[0].step = NAN;
    run = run_of("stencil2d", 10, 2, 2, 1e9);
    CHECK(near(ts_estimate_run(&run, &r), 1e9 / 10e9 + (10 + warm) * 1e9 / 75e9), "failed short run: %g",
          ts_estimate_run(&run, &r));
}

static void matrix(void)
{
    struct ts_battery b;
    memset(&b, 0, sizeof b);
    b.matrix_weight = 4e9;
    b.matrix_touch = 1e9;
    b.matrix_steps = 1e7;
    const struct ts_estimate_rates r = { .cores = 2, .gbs_all = 80, .touch_all = 10 };
    CHECK(near(ts_estimate_matrix(&b, &r), 4e9 / 80e9 + 1e9 / 10e9 + 1e7 * TS_ESTIMATE_CHASE_NS * 1e-9), "matrix: %g",
          ts_estimate_matrix(&b, &r));
    const struct ts_estimate_rates none = { .cores = 2 };
    CHECK(isnan(ts_estimate_matrix(&b, &none)), "matrix without a rate: %g", ts_estimate_matrix(&b, &none));
}

int main(void)
{
    slowdown();
    kernel_from();
    runs();
    matrix();
    return ts_test_finish();
}

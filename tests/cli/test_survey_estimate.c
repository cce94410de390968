/* The survey's estimate up front (app/survey_estimate.c) on fixed rates whose right answer is
 * worked out by hand: how fewer cores slow a sweep and a first touch, a kernel's fixed cost from
 * its short run, the first touch's rate, a run's seconds from its own kernel's rates (all cores,
 * a serial init, one core), the fallback to triad's rate for a kernel without a short run, and
 * the NUMA matrix's seconds. Nothing is timed. */
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
    struct ts_estimate_kernel k = ts_estimate_kernel_from("triad", 1.0, 0.2, 3e9, 3, 0.1);
    CHECK(strcmp(k.name, "triad") == 0, "name %s", k.name);
    CHECK(near(k.fixed, 1.0 - 0.2 - (3 + TS_ESTIMATE_WARMUP) * 0.1), "fixed %g", k.fixed);
    CHECK(near(k.init, 0.2) && near(k.step, 0.1) && k.touch_bytes == 3e9, "init %g step %g", k.init, k.step);
    k = ts_estimate_kernel_from("sum", 0.3, 0.2, 1e9, 3, 0.1); /* a timer's jitter: never below 0 */
    CHECK(k.fixed == 0.0, "fixed %g below 0", k.fixed);
}

static void runs(void)
{
    /* Two cores, one core half as fast; stencil2d touched 2 GB in 0.1 s (20 GB/s), triad 3 GB in
     * 0.5 s (the kernel freeing pages for it: 6 GB/s): every run's first touch at 20 GB/s. */
    struct ts_estimate_rates r = {
        .cores = 2,
        .gbs_all = 75,
        .gbs_one = 37.5,
        .touch_all = 5,
        .n_kernels = 2,
        .kernels = { { "stencil2d", 0.1, 0.1, 0.017, 2e9 }, { "triad", 0.2, 0.5, 0.0134, 3e9 } },
    };
    CHECK(ts_estimate_kernel_of(&r, "triad") == &r.kernels[1], "triad's entry");
    CHECK(ts_estimate_kernel_of(&r, "sum") == NULL, "no entry for sum");
    CHECK(near(ts_estimate_touch_gbs(&r), 20.0), "the fastest first touch: %g GB/s", ts_estimate_touch_gbs(&r));
    const double warm = TS_ESTIMATE_WARMUP;
    /* All cores, parallel init: its fixed cost, 2 GB at 20 GB/s, 50 iterations and the warm-up. */
    struct ts_battery_run run = run_of("stencil2d", 50, 2, 2, 2e9);
    CHECK(near(ts_estimate_run(&run, &r), 0.1 + 0.1 + (50 + warm) * 0.017), "all cores: %g", ts_estimate_run(&run, &r));
    /* Serial init: the first touch on one core, half as fast. */
    run = run_of("stencil2d", 50, 2, 1, 2e9);
    CHECK(near(ts_estimate_run(&run, &r), 0.1 + 0.1 * 2 + (50 + warm) * 0.017), "serial init: %g",
          ts_estimate_run(&run, &r));
    /* One thread (scaling t1) or two stacked on one CPU: init and sweeps at one core's pace. */
    run = run_of("triad", 10, 1, 1, 3e9);
    CHECK(near(ts_estimate_run(&run, &r), 0.2 + 0.15 * 2 + (10 + warm) * 0.0134 * 2), "one core: %g",
          ts_estimate_run(&run, &r));
    /* A kernel without a short run: its arrays swept once an iteration at 75 GB/s on all cores,
     * touched at the 20 GB/s of the others, no fixed cost known. */
    run = run_of("sum", 50, 2, 2, 1e9);
    CHECK(near(ts_estimate_run(&run, &r), 1e9 / 20e9 + (50 + warm) * 1e9 / 75e9), "sum at triad's rates: %g",
          ts_estimate_run(&run, &r));
    /* Nothing known of it: NaN, never a made-up number. */
    struct ts_estimate_rates none = { .cores = 2 };
    CHECK(isnan(ts_estimate_run(&run, &none)), "no rate: %g", ts_estimate_run(&run, &none));
    /* Failed short runs (step NaN): triad's rate and the fresh pages' touch_all instead. */
    r.kernels[0].step = r.kernels[1].step = NAN;
    run = run_of("stencil2d", 10, 2, 2, 1e9);
    CHECK(near(ts_estimate_touch_gbs(&r), 5.0), "no short run: touch_all, %g", ts_estimate_touch_gbs(&r));
    CHECK(near(ts_estimate_run(&run, &r), 1e9 / 5e9 + (10 + warm) * 1e9 / 75e9), "failed short runs: %g",
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
    /* A chase step measured at 250 ns (a busy node) instead of the guess. */
    const struct ts_estimate_rates chased = { .cores = 2, .gbs_all = 80, .touch_all = 10, .chase_ns = 250 };
    CHECK(near(ts_estimate_matrix(&b, &chased), 4e9 / 80e9 + 1e9 / 10e9 + 1e7 * 250e-9), "matrix, chase measured: %g",
          ts_estimate_matrix(&b, &chased));
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

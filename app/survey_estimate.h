/* The survey's estimate up front of its battery (docs/survey.md, "The estimate up front"): each
 * run's seconds from the rates of its own kernel, measured as the survey starts by a short run of
 * that kernel at all cores (its fixed cost, its first touch, its time per iteration), and from
 * how much fewer cores slow a sweep and a first touch (triad on one core against all). Only the
 * arithmetic, so that a test can hold it to fixed rates; app/survey_cmd.c measures them. */
#ifndef TOUCHSTONE_APP_SURVEY_ESTIMATE_H
#define TOUCHSTONE_APP_SURVEY_ESTIMATE_H

#include "survey_battery.h"

#define TS_ESTIMATE_MAX_KERNELS 8
/* The untimed iterations before a run's timed ones: config run.warmup's default, which the
 * battery's runs keep. */
#define TS_ESTIMATE_WARMUP 1
/* A pointer-chase step of the NUMA matrix, a cache miss to DRAM, when none was measured: the
 * 2-core VM's idle latency (173 ns, 2026-12-05; bare metal's is often 80-120 ns). */
#define TS_ESTIMATE_CHASE_NS 170.0

/* One kernel's short run at all cores (parallel first touch, the battery's size). */
struct ts_estimate_kernel {
    char name[32];
    double fixed;       /* s: the run beyond its first touch and its sweeps (two process starts, the
                           binding's audit, the verification, the run file) */
    double init;        /* s: its arrays' first touch by all cores */
    double step;        /* s: one iteration by all cores (the median of the short run's) */
    double touch_bytes; /* its arrays' bytes */
};

struct ts_estimate_rates {
    int cores;        /* all cores: the team of the short runs */
    double gbs_all;   /* triad GB/s on all cores; 0 or NaN: unknown */
    double gbs_one;   /* triad GB/s on one core, likewise: how fewer cores slow a sweep and a first
                         touch (both stream memory: a serial init took 1.9x a parallel one on two
                         cores where triad took 2x, 2026-12-05) */
    double touch_all; /* GB/s of fresh pages first touched by all cores, for a kernel without a
                         short run */
    double chase_ns;  /* ns a step of the NUMA matrix's chases takes, its builds' lines included;
                         0 or NaN: unknown (TS_ESTIMATE_CHASE_NS) */
    int n_kernels;
    struct ts_estimate_kernel kernels[TS_ESTIMATE_MAX_KERNELS];
};

/* How many times longer work at rate all on all cores takes on team of them: all over the lesser
 * of all and team x one (bandwidth grows with cores until the memory saturates); the square root
 * of cores over team when a rate is unknown; 1 when team >= cores. */
double ts_estimate_slowdown(double all, double one, int team, int cores);

/* A kernel's rates from its short run: wall seconds, its first touch (init) of touch_bytes, how
 * many timed iterations it ran and their median (step); the fixed cost what the rest leaves, never
 * below 0. */
struct ts_estimate_kernel ts_estimate_kernel_from(const char *name, double wall, double init, double touch_bytes,
                                                  int iterations, double step);

/* The first touch's GB/s on all cores: the fastest of the short runs' (a run's first touch is at
 * times slowed by the kernel freeing pages for it: no other run need share that), else
 * touch_all. */
double ts_estimate_touch_gbs(const struct ts_estimate_rates *rates);

/* The kernel's entry in rates, NULL when none. */
const struct ts_estimate_kernel *ts_estimate_kernel_of(const struct ts_estimate_rates *rates, const char *kernel);

/* Seconds run r will take: its kernel's fixed cost, its arrays' first touch at
 * ts_estimate_touch_gbs slowed to init_team cores, and its iterations and warm-up at its kernel's
 * step slowed to team cores. A kernel without a short run: its arrays' bytes swept once an
 * iteration at gbs_all, no fixed cost. NaN when neither is known. */
double ts_estimate_run(const struct ts_battery_run *r, const struct ts_estimate_rates *rates);

/* Seconds the NUMA matrix of b will take: its bytes swept at gbs_all, touched at touch_all, its
 * chase steps at chase_ns each (else TS_ESTIMATE_CHASE_NS). NaN when gbs_all is unknown. */
double ts_estimate_matrix(const struct ts_battery *b, const struct ts_estimate_rates *rates);

#endif

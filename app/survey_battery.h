/* The survey's battery (docs/survey.md, "The battery"): which runs, in which order, with which
 * sizes, threads and binding, each a `touchstone run` of this binary with its command line and
 * OMP_* environment written out. The plan depends on the mode, the node (allowed cores, the
 * last-level cache, free memory) and TOUCHSTONE_SURVEY_SCALE alone, so that a rerun on the
 * same node makes the same plan and can resume a survey. */
#ifndef TOUCHSTONE_APP_SURVEY_BATTERY_H
#define TOUCHSTONE_APP_SURVEY_BATTERY_H

#include <stdint.h>

#include "ts_error.h"
#include "ts_survey_rec.h"
#include "ts_topology.h"

#define TS_BATTERY_MAX_ARGS 24
/* Runs of each point: three undisturbed runs a side is what compare needs for a verdict
 * (app/compare_sides.h, TS_SIDE_MIN_RUNS). TOUCHSTONE_SURVEY_REPEATS changes it (tests). */
#define TS_BATTERY_REPEATS 3
#define TS_BATTERY_MAX_REPEATS 9
/* In a plan's size_reason when the sweep's inferred last-level cache sized it. */
#define TS_BATTERY_SWEEP_SIZED "inferred by the working-set sweep"

struct ts_battery_run {
    struct ts_survey_run rec; /* name, file, group, kernel, variant, threads, command; state pending */
    char env[3][300];         /* OMP_NUM_THREADS=, OMP_PLACES=, OMP_PROC_BIND= */
    int n_args;
    char args[TS_BATTERY_MAX_ARGS][1100]; /* argv of the child after the program: run CONFIG --set ... */
    int iterations;
    int team;           /* the cores its threads run on: its threads, 1 when stacked on one CPU */
    int init_team;      /* the cores that first-touch its arrays: 1 for a serial init, else team */
    double weight;      /* relative cost when no rate is known: bytes x (iterations + init) / parallel share */
    double touch_bytes; /* its arrays' bytes: the pages it faults in fresh */
    double estimate;    /* seconds, from its kernel's rates measured as the survey starts
                           (app/survey_estimate.h); NaN until then or when unknown */
};

struct ts_battery {
    char mode[16];
    int cores;              /* allowed cores: the "all cores" of the battery */
    int64_t llc_bytes;      /* hwloc's last-level caches of the allowed cores, else the sweep's
                               inferred one; 0: unknown */
    int64_t array_bytes;    /* per array */
    double scale;           /* TOUCHSTONE_SURVEY_SCALE (tests), 1 without it */
    int repeats;            /* runs of each point, interleaved: round after round */
    int64_t hwloc_llc;      /* hwloc's last-level caches of the allowed cores; 0: it knows none */
    double matrix_weight;   /* the bytes the NUMA matrix sweeps, for the estimate */
    double matrix_touch;    /* the bytes it touches first */
    double matrix_steps;    /* the pointer-chase steps it takes, each a cache miss, for the estimate */
    int64_t uncapped_bytes; /* the size before the memory cap */
    int64_t cap_bytes;      /* the memory cap per array; 0: no limit known */
    char size_reason[256];  /* how array_bytes was chosen */
    char config[4096];      /* DIR/survey.ini, the config every run reads */
    int n_runs;
    struct ts_battery_run *runs;
};

/* Plans the battery of mode ("quick" or "full"), each point repeats times, round after round for the node of topo, its files under dir
 * (absolute), run by the program at exe. keep_bytes > 0: arrays of that size instead of the
 * node's choice (a survey resumed on a node whose free memory changed meanwhile). inferred_llc
 * > 0: the last-level cache the working-set sweep found, used when hwloc knows none (then also
 * in llc_bytes) instead of the assumed 32 MiB.
 * TS_RESOURCE_ERROR when memory runs out, TS_BAD_INPUT for a TOUCHSTONE_SURVEY_SCALE that is not
 * a number in (0, 1] or a TOUCHSTONE_SURVEY_REPEATS not from 1 to TS_BATTERY_MAX_REPEATS. */
int ts_battery_plan(const char *mode, const ts_topology *topo, const char *dir, const char *exe, int64_t keep_bytes,
                    int64_t inferred_llc, struct ts_battery *b, struct ts_error *err);
void ts_battery_free(struct ts_battery *b);

/* The text of DIR/survey.ini: comments only, every run's settings are on its command line. */
const char *ts_battery_config_text(void);

/* Appends word to the command line in buf, a space before it and quoted for a POSIX shell when
 * it holds anything but plain word characters. */
void ts_battery_append_word(char *buf, size_t size, const char *word);

#endif

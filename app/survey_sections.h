/* The survey's sections (record/ts_survey_section.h): each a measurement of the node's memory
 * system with one entry here, run after the battery and the NUMA matrix, in the order of the
 * table in survey_sections.c. A section's measure fills its table and facts; the runner around
 * it records what every section records (how long, the conditions, whether others took the
 * CPUs, the command that measures it again) and saves the survey file after each. */
#ifndef TOUCHSTONE_APP_SURVEY_SECTIONS_H
#define TOUCHSTONE_APP_SURVEY_SECTIONS_H

#include <signal.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_survey_rec.h"
#include "ts_topology.h"

/* What a section is handed. */
struct ts_section_ctx {
    const ts_topology *topo;
    int quick;                          /* --quick: the short version (seconds), else --full's */
    double scale;                       /* TOUCHSTONE_SURVEY_SCALE (tests): < 1 shrinks buffers and repetitions to
                          that share, so a test's section takes well under a second */
    int64_t llc_bytes;                  /* the last-level cache of a CPU of the survey: hwloc's; when hwloc knows
                          none, the working-set sweep's inferred size once it ran (when
                                           it is sure of it: fact llc_sure), else 0 */
    double sweep_gbs;                   /* triad over all cores of a domain at the battery's size, GB/s, measured as the
                         survey starts (its estimate up front); 0: not measured */
    double touch_gbs;                   /* the first touch of fresh pages in that measurement, GB/s; 0: unknown */
    const char *exe;                    /* this program (/proc/self/exe) */
    const char *dir;                    /* the survey's folder */
    const struct ts_survey_rec *survey; /* the sections measured before this one */
};

struct ts_section_def {
    const char *name;  /* the table's name in survey.h5, and --sections' word */
    const char *title; /* the report's heading */
    /* Seconds the section will take here (the survey's estimate up front). */
    double (*estimate)(const struct ts_section_ctx *ctx);
    /* Fills out (initialised by the runner: ts_section_init with name and title); TS_OK, or an
     * error with err saying why (the survey then fails, as for the matrix). */
    int (*measure)(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err);
};

extern const struct ts_section_def ts_section_sweep, ts_section_mixes;

/* The sections in their order, NULL-terminated. */
extern const struct ts_section_def *const ts_survey_section_defs[];

extern const struct ts_section_def ts_section_stream, ts_section_scaling;

/* TS_OK when list (--sections: names joined by ",") names only sections of the table, each
 * once; TS_BAD_INPUT naming the first that is not, and the known ones. */
int ts_survey_sections_check(const char *list, struct ts_error *err);

/* How many sections of the table s holds no measurement of. */
int ts_survey_sections_missing(const struct ts_survey_rec *s);

/* Seconds the sections still to measure will take (the sum of their estimates). */
double ts_survey_sections_estimate(const struct ts_section_ctx *ctx, const struct ts_survey_rec *s, const char *only);

/* What the runner needs besides the context. */
struct ts_sections_run {
    const char *only; /* --sections' list: these are measured (again); NULL: every
                                           section s holds none of */
    const char *mode; /* "quick", "full": for the commands */
    int (*save)(void *arg, struct ts_survey_rec *s, struct ts_error *err); /* after each section */
    void *save_arg;
    volatile sig_atomic_t *stop; /* set by a signal: no further section starts */
};

/* Measures the sections run->only names (or s lacks) in the table's order into s->sections
 * (a section measured again replaces its old table in place; a new one is appended, so the
 * file keeps the table's order), each followed by run->save; progress on stderr, one line a
 * section. Records what every section records: seconds, conditions, disturbed, the command.
 * The context's llc_bytes follows the sweep's inferred size ("llc_bytes" fact) when hwloc gave
 * none. Returns the first error (a section's or a save's). */
int ts_survey_sections_run(struct ts_section_ctx *ctx, const struct ts_sections_run *run, struct ts_survey_rec *s,
                           struct ts_error *err);

extern const struct ts_section_def ts_section_loaded_latency;
extern const struct ts_section_def ts_section_c2c;

#endif

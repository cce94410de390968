/* Turning a finished run into the plain-data record that io/ writes. */
#ifndef TOUCHSTONE_APP_RUN_RECORD_H
#define TOUCHSTONE_APP_RUN_RECORD_H

#include <stdio.h>

#include "binding.h"
#include "build_info.h"
#include "run_exec.h"
#include "ts_config.h"
#include "ts_kernel.h"
#include "ts_record.h"

/* Storage behind the record's borrowed pointers. */
struct ts_run_record {
    struct ts_record rec;
    struct ts_topology_rec topology;
    struct ts_timings_rec timings;
    struct ts_results_rec results;
    struct ts_verification_rec verification;
    struct ts_placement_rec placement;
    struct ts_placement_rec placement_end;
    struct ts_counters_rec counters;
    struct ts_machine_rec machine;
    struct ts_machine_rec init_machine;
    struct ts_init_memory_rec init_memory;
    struct ts_job_rec job;
    struct ts_build_info build; /* the root's build_*, as --version prints them */
    double *thread_times;       /* per-thread times of the completed iterations */
    struct ts_attr *config;
    struct ts_attr *environment;
    struct ts_attr binding[12];
    char *command_line;
    char *overrides;
    char host[256];
    char start_time[64];
    const char *warnings[64];
    char warning_text[64][1024];
    char condition_warnings[4][512]; /* what distorts results (ts_conditions.h), for the caller to warn */
    int n_condition_warnings;
    char *summary_text; /* the summary, its lines cut in place */
    const char **summary_lines;
};

/* Fills everything but topology, timings.total and the warnings; the machine conditions go to
 * /environment, and what distorts results among them to condition_warnings, for the caller. */
int ts_run_record_fill(struct ts_run_record *rr, const struct ts_config *cfg, const struct ts_binding_choice *binding,
                       const struct ts_run_exec *ex, const struct ts_verification *ver, int write_field, int argc,
                       char **argv, struct ts_error *err);

/* Fills /job from the Slurm environment, and whether the run continued a checkpoint. */
void ts_run_record_job(struct ts_run_record *rr, const struct ts_binding_choice *binding, const char *restarted_from,
                       int64_t steps_before_restart);

/* Renders the summary the run prints at the end (io/ts_summary.h) into the record's /summary:
 * call last before writing, so the file keeps exactly what is printed. TS_RESOURCE_ERROR when
 * memory ran out. */
int ts_run_record_summary(struct ts_run_record *rr, const char *output_path, struct ts_error *err);
/* Prints those lines. */
void ts_run_record_print_summary(const struct ts_run_record *rr, FILE *out);

/* Adds a warning (kept in order; silently capped at 64). */
void ts_run_record_warn(struct ts_run_record *rr, const char *text);

void ts_run_record_release(struct ts_run_record *rr);

/* Every config key and its resolved value, in key-table order (ts_config_key_count entries,
 * malloc'd), as /config and checkpoints store them. */
struct ts_attr *ts_config_attrs(const struct ts_config *cfg);

/* Records when the run started (call first). */
void ts_run_record_start(struct ts_run_record *rr);

#endif

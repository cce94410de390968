/* Making openmp.places / openmp.proc_bind effective. The OpenMP runtime reads OMP_PLACES and
 * OMP_PROC_BIND once, when it is loaded, so a value that the environment does not already
 * carry is applied by re-executing touchstone once with the variables set; the defaults
 * (cores, close) are given to the runtime as it starts (app/early.h) and need none. A value
 * set in the environment wins over the config and is reported as such. */
#ifndef TOUCHSTONE_APP_BINDING_H
#define TOUCHSTONE_APP_BINDING_H

#include "ts_config.h"
#include "ts_error.h"

struct ts_binding_choice {
    char places[256];
    char places_source[32]; /* "config" or "environment" */
    char proc_bind[32];
    char proc_bind_source[32];
    char config_places[256]; /* what the config asked for, to report an override */
    char config_proc_bind[32];
    char launch_cpus[256];      /* the process's CPU list before OpenMP bound anything; "" if unknown */
    char applied_places[1024];  /* the places the OpenMP runtime built, asked of it: "{0},{1:2}"; "" for none */
    char applied_proc_bind[16]; /* its policy for the first team: "false", "close", ... (omp_get_proc_bind) */
};

/* First in main, before anything reads the environment: ends app/early.c's answers and
 * remembers whether the runtime took the default binding from them; ts_binding_apply then keeps
 * it when the config asks for the same (and the runtime applied it). */
void ts_binding_take_early(void);

/* Decides the effective values; when one must come from the config and this process has not
 * been re-executed yet nor was it given at start (app/early.h), sets the variables and
 * re-executes argv (does not return on success).
 * The re-executed process gets the config text this one read (cfg->text), not the file again:
 * a pipe or FIFO reads only once, and a file may change in between. Otherwise fills choice and
 * returns TS_OK. */
int ts_binding_apply(const struct ts_config *cfg, char **argv, struct ts_binding_choice *choice, struct ts_error *err);

/* The config's openmp.places and openmp.proc_bind judged as the OpenMP runtime will read them
 * (app/omp_env.h): TS_BAD_INPUT, naming the key, its value and where it was set, for a value the
 * runtime would refuse and ignore. TS_OK for the defaults without looking, also for a default
 * value a file or --set gives again. */
int ts_binding_check_config(const struct ts_config *cfg, struct ts_error *err);

/* In the re-executed process: the config text the first pass read and handed over (a sealed
 * memfd whose number travels in TOUCHSTONE_CONFIG_FD). *text is malloc'd, or NULL when there
 * is none to take (not re-executed). Removes the variable and closes the memfd. Fails
 * (TS_BAD_INPUT) when the variable names a descriptor that is not the one handed over,
 * TS_IO_ERROR when it cannot be read, TS_RESOURCE_ERROR when memory runs out. */
int ts_binding_take_config(char **text, size_t *len, struct ts_error *err);

#endif

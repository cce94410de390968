/* The binding warnings `run` and `topo` both give, decided in one place, so that `topo CONFIG`
 * warns about exactly what `run CONFIG` will. */
#ifndef TOUCHSTONE_APP_BINDING_WARNINGS_H
#define TOUCHSTONE_APP_BINDING_WARNINGS_H

#include <stdint.h>

#include "binding.h"
#include "ts_record.h"
#include "ts_topology.h"

/* The threads as sampled (where each one is), and what a run saw during its iterations. */
struct ts_binding_observed {
    const struct ts_thread_rec *threads;
    int n_threads;
    const int32_t *init_node;  /* per thread: the node it first-touched from; NULL without an init */
    const int64_t *migrations; /* per thread: perf CPU migrations; NULL when not counted */
};

/* Writes the warnings into lines (up to max, each < 512 bytes) and returns how many: the
 * environment overriding the config's openmp.places or openmp.proc_bind, then everything
 * ts_affinity_warnings finds (binding off, more threads than CPUs, too few cores, threads
 * sharing a core, places naming CPUs outside the process's mask, threads that moved). Call
 * outside parallel regions, in the process whose OpenMP runtime has the binding. */
int ts_binding_warnings(const struct ts_binding_choice *binding, const ts_topology *topo,
                        const struct ts_binding_observed *seen, char (*lines)[512], int max);

/* The binding as the environment alone sets it (topo without a config): OMP_PLACES and
 * OMP_PROC_BIND with source "environment" ("unset" and "" when not set), no config values, so
 * no override warnings, and the mask the process started with. */
void ts_binding_from_environment(struct ts_binding_choice *choice);

#endif

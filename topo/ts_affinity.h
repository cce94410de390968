/* Where OpenMP threads are bound and where they really run, and what is wrong with it. */
#ifndef TS_AFFINITY_H
#define TS_AFFINITY_H

#include <stddef.h>

#include "ts_record.h"
#include "ts_topology.h"

/* Call from inside a parallel region, once per thread, before the timed loop: fills thread,
 * place, place_cpus, affinity, cpu_start, core and node of row. */
void ts_affinity_sample_start(const ts_topology *topo, struct ts_thread_rec *row);
/* Same thread, after the timed loop: fills cpu_end. */
void ts_affinity_sample_end(struct ts_thread_rec *row);

/* Formats a CPU set as a list ("0-3,8,10-11"). */
void ts_cpulist_format(const void *cpu_set, size_t set_size, char *buf, size_t len);

/* Number of CPUs in the calling thread's affinity mask. */
int ts_affinity_mask_cpus(void);

struct ts_binding_facts {
    int bound;             /* omp_get_proc_bind() != omp_proc_bind_false */
    int n_threads;
    int available_cpus;    /* CPUs the process may use (union of the places when bound, else its mask) */
};

/* Appends one warning line per problem to warnings (up to max, each < 512 bytes); returns how
 * many were written: binding off (threads may migrate), more threads than CPUs available,
 * several threads sharing one core (naming the core and the threads; all threads on one
 * core gets its own unmissable warning), a thread that moved CPU during the run. */
int ts_affinity_warnings(const struct ts_binding_facts *facts, const struct ts_thread_rec *rows,
                         int n_rows, char (*warnings)[512], int max);

#endif

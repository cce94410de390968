/* What else the machine did while a run computed: other processes' CPU time and a
 * hypervisor's steal on the CPUs the threads may use, and the load average, so that a run
 * slowed by its neighbours can be told from a slow configuration (docs/hdf5-schema.md, "/counters"). */
#ifndef TOUCHSTONE_TOPO_TS_MACHINE_H
#define TOUCHSTONE_TOPO_TS_MACHINE_H

#include <stdint.h>

#include "ts_record.h"

#define TS_MACHINE_STAT "/proc/stat"
#define TS_MACHINE_LOADAVG "/proc/loadavg"

/* The state at the start of an interval. */
struct ts_machine_watch {
    int n_cpus;
    int *cpus;       /* the CPUs watched, ascending OS numbers */
    uint64_t *busy;  /* per watched CPU, clock ticks: user + nice + system + irq + softirq */
    uint64_t *steal; /* per watched CPU, clock ticks */
    double wall;     /* CLOCK_MONOTONIC, s */
    double own_cpu;  /* getrusage(RUSAGE_SELF) user + system, s */
    double load;     /* 1-minute load average */
};

/* Call outside parallel regions, just before the interval: watches the CPUs the OpenMP
 * threads may use (the union of the places when binding is on, else the calling thread's
 * mask) and reads their counters. Returns 0, or -1 when /proc/stat or /proc/loadavg cannot
 * be read or memory ran out; the watch then holds nothing to free. */
int ts_machine_watch_start(struct ts_machine_watch *w);

/* Just after the interval: fills out with what happened since the start (others_cpu =
 * busy - own_cpu, 0 when the ticks' rounding makes it negative). Returns 0, or -1 when the
 * files cannot be read again; out is then untouched. */
int ts_machine_watch_stop(const struct ts_machine_watch *w, struct ts_machine_rec *out);

void ts_machine_watch_free(struct ts_machine_watch *w);

/* The parts, for tests. Reads the "cpuN ..." lines of a file like /proc/stat for the n
 * CPUs of cpus (ascending): busy and steal ticks of each. -1 when the file cannot be read
 * or one of the CPUs has no line. */
int ts_machine_read_ticks(const char *stat_path, const int *cpus, int n, uint64_t *busy, uint64_t *steal);

/* The first field of a file like /proc/loadavg; -1 when unreadable. */
int ts_machine_read_load(const char *loadavg_path, double *load);

/* Parses a CPU list ("0-3,8") into ascending numbers; returns how many (at most max), -1 when
 * it is not a list. */
int ts_machine_parse_cpus(const char *list, int *cpus, int max);

#endif

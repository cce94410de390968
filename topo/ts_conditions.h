/* The machine conditions that distort a run's results: NUMA balancing (pages move behind the
 * first-touch audit's back), transparent huge pages, zone reclaim, the CPU frequency governor
 * and clock, SMT, the load, the cgroup's cpuset and memory limit, free memory per NUMA node.
 * Read from a tree rooted at root ("/" on a real machine, a fake /proc and /sys in tests), so
 * that every run records them in /environment (TS_CONDITION_NAMES) and compare can say when two
 * runs differ in them. What the kernel does not expose reads "unknown", never an error. */
#ifndef TOUCHSTONE_TOPO_TS_CONDITIONS_H
#define TOUCHSTONE_TOPO_TS_CONDITIONS_H

#include <stddef.h>

#include "ts_record.h"

struct ts_conditions {
    char numa_balancing[16];    /* /proc/sys/kernel/numa_balancing: "0", "1", "2" (tiering), ... */
    char thp_enabled[32];       /* /sys/kernel/mm/transparent_hugepage/enabled's selected mode */
    char thp_defrag[32];        /* .../defrag's: always, defer, defer+madvise, madvise, never */
    char zone_reclaim_mode[16]; /* /proc/sys/vm/zone_reclaim_mode */
    char governor[128];         /* scaling_governor of the CPUs, the distinct ones joined by "," */
    char cpu_mhz[64];           /* scaling_cur_freq of the CPUs in MHz: "2400", or "1200-3400" */
    char smt[32];               /* /sys/devices/system/cpu/smt/control: on, off, notsupported, ... */
    char smt_active[16];        /* .../smt/active: "1" when sibling threads are online */
    char load_average[32];      /* the 1-minute load average of /proc/loadavg */
    char cpuset[256];           /* the CPUs our cgroup's cpuset lets us use (cpuset.cpus.effective) */
    char memory_limit_mib[32];  /* MiB left under the tightest cgroup memory limit, "none" */
    char numa_free_mib[512];    /* MemFree of each NUMA node in MiB: "0:1234 1:5678" */
    char cpus[256];             /* the CPUs governor and cpu_mhz were read for, "" when none */
};

/* Fills c from the tree at root (NULL reads "/"). cpus is a CPU list ("0-3,8") whose cpufreq
 * is read; NULL or "" reads the cgroup's cpuset, else the online CPUs. Never fails: what
 * cannot be read is "unknown" (memory_limit_mib "none" when no cgroup limits memory). */
void ts_conditions_read(const char *root, const char *cpus, struct ts_conditions *c);

/* 1 when NUMA balancing is on (numa_balancing known and not "0"). */
int ts_conditions_balancing(const struct ts_conditions *c);

/* Writes the conditions as /environment attributes named as TS_CONDITION_NAMES, in that order,
 * into out[0 .. TS_N_CONDITIONS): others_busy_percent, which only the watch over the run knows
 * (ts_machine.h), is others_busy (NULL: "unknown"). Returns TS_N_CONDITIONS. */
int ts_conditions_attrs(const struct ts_conditions *c, const char *others_busy, struct ts_attr *out);

/* The warnings with a clear fix: zone reclaim on, a frequency governor that is known and not
 * "performance" (NUMA balancing's needs the pages the audits saw move: the caller's). Up to max
 * lines; returns how many. */
int ts_conditions_warnings(const struct ts_conditions *c, char (*lines)[512], int max);

#endif

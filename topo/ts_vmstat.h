/* What the kernel's memory management did over an interval (the first touch): huge-page faults
 * and their fallbacks, compaction and reclaim stalls, page faults (/proc/vmstat), and the time
 * tasks waited on memory (/proc/pressure/memory, PSI). Both files count the whole machine, not
 * this process. Read from a tree rooted at root ("/" on a real machine, a fake /proc in tests),
 * as topo/ts_conditions.h reads its files. */
#ifndef TOUCHSTONE_TOPO_TS_VMSTAT_H
#define TOUCHSTONE_TOPO_TS_VMSTAT_H

#include <stdint.h>

#include "ts_record.h"

/* The counters kept, in the order of struct ts_vmstat.count. */
enum ts_vmstat_counter {
    TS_VM_THP_FAULT_ALLOC,
    TS_VM_THP_FAULT_FALLBACK,
    TS_VM_THP_FAULT_FALLBACK_CHARGE,
    TS_VM_COMPACT_STALL,
    TS_VM_COMPACT_FAIL,
    TS_VM_COMPACT_SUCCESS,
    TS_VM_ALLOCSTALL,
    TS_VM_PGFAULT,
    TS_VM_PGMAJFAULT,
    TS_VM_COUNTERS
};

/* One reading. */
struct ts_vmstat {
    int64_t count[TS_VM_COUNTERS]; /* -1: this kernel has no such line */
    double memory_stall;           /* s: the "some" total of /proc/pressure/memory; -1 without PSI */
    double wall;                   /* CLOCK_MONOTONIC when read, s */
};

/* Reads root/proc/vmstat and root/proc/pressure/memory (root NULL or "": "/"). allocstall is
 * the sum of the allocstall_* lines (one per zone since Linux 4.10, one "allocstall" before).
 * Returns 0, or -1 when /proc/vmstat cannot be read or is not one (no pgfault line); a
 * missing or unreadable pressure file is memory_stall -1, not an error. */
int ts_vmstat_read(const char *root, struct ts_vmstat *out);

/* What happened between two readings: each count's increase (-1 when either reading lacks
 * it), the memory stall's (-1 when either lacks it) and the wall time between them. */
void ts_vmstat_delta(const struct ts_vmstat *before, const struct ts_vmstat *after, struct ts_init_memory_rec *out);

#endif

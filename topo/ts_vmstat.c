#include "ts_vmstat.h"
#include "root_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const names[TS_VM_COUNTERS] = {
    "thp_fault_alloc",
    "thp_fault_fallback",
    "thp_fault_fallback_charge",
    "compact_stall",
    "compact_fail",
    "compact_success",
    "allocstall",
    "pgfault",
    "pgmajfault",
};

static FILE *open_under(const char *root, const char *rel)
{
    char path[4096];
    ts_path_under(path, sizeof path, root, rel);
    return path[0] ? fopen(path, "re") : NULL;
}

/* The counter a /proc/vmstat name stands for, or -1. allocstall_normal, allocstall_movable, ...
 * all count into allocstall. */
static int counter_of(const char *name)
{
    if (strncmp(name, "allocstall", 10) == 0 && (name[10] == '\0' || name[10] == '_'))
        return TS_VM_ALLOCSTALL;
    for (int i = 0; i < TS_VM_COUNTERS; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* The "some" line's total= of a pressure file, in seconds (the kernel counts microseconds). */
static double pressure_total(FILE *f)
{
    char line[256];
    while (fgets(line, sizeof line, f)) {
        const char *total = strstr(line, " total=");
        char *end;
        if (strncmp(line, "some ", 5) != 0 || !total)
            continue;
        unsigned long long us = strtoull(total + 7, &end, 10);
        return end > total + 7 && (*end == '\n' || *end == '\0') ? 1e-6 * (double)us : -1;
    }
    return -1;
}

int ts_vmstat_read(const char *root, struct ts_vmstat *out)
{
    for (int i = 0; i < TS_VM_COUNTERS; i++)
        out->count[i] = -1;
    out->memory_stall = -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    out->wall = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;

    FILE *f = open_under(root, "/proc/vmstat");
    if (!f)
        return -1;
    /* "name value" a line; anything else is skipped, and a line too long for the buffer whole. */
    char line[128];
    for (int whole = 1, ended; fgets(line, sizeof line, f); whole = ended) {
        char name[64], rest;
        int64_t value;
        ended = strchr(line, '\n') != NULL || feof(f);
        int k = whole && ended && sscanf(line, "%63s %" SCNd64 " %c", name, &value, &rest) == 2 && value >= 0
                    ? counter_of(name)
                    : -1;
        if (k >= 0)
            out->count[k] = (out->count[k] < 0 ? 0 : out->count[k]) + value;
    }
    fclose(f);
    if (out->count[TS_VM_PGFAULT] < 0)
        return -1;
    FILE *p = open_under(root, "/proc/pressure/memory");
    if (p) {
        out->memory_stall = pressure_total(p);
        fclose(p);
    }
    return 0;
}

void ts_vmstat_delta(const struct ts_vmstat *a, const struct ts_vmstat *b, struct ts_init_memory_rec *out)
{
    int64_t d[TS_VM_COUNTERS];
    for (int i = 0; i < TS_VM_COUNTERS; i++)
        d[i] = a->count[i] < 0 || b->count[i] < 0 ? -1 : b->count[i] >= a->count[i] ? b->count[i] - a->count[i] : 0;
    *out = (struct ts_init_memory_rec){
        .elapsed = b->wall - a->wall,
        .thp_fault_alloc = d[TS_VM_THP_FAULT_ALLOC],
        .thp_fault_fallback = d[TS_VM_THP_FAULT_FALLBACK],
        .thp_fault_fallback_charge = d[TS_VM_THP_FAULT_FALLBACK_CHARGE],
        .compact_stall = d[TS_VM_COMPACT_STALL],
        .compact_fail = d[TS_VM_COMPACT_FAIL],
        .compact_success = d[TS_VM_COMPACT_SUCCESS],
        .allocstall = d[TS_VM_ALLOCSTALL],
        .pgfault = d[TS_VM_PGFAULT],
        .pgmajfault = d[TS_VM_PGMAJFAULT],
        .memory_stall = a->memory_stall < 0 || b->memory_stall < 0 ? -1
                        : b->memory_stall >= a->memory_stall       ? b->memory_stall - a->memory_stall
                                                                   : 0,
    };
}

#include "ts_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "topology_internal.h"
#include "ts_affinity.h"
#include "ts_stats.h"

/* Longest CPU list read back from ts_affinity_available_cpus: ranges keep it short, and a
 * list cut with "..." is refused by the parser rather than half watched. */
#define CPU_LIST_BYTES 65536
#define MAX_CPUS 65536

int ts_machine_parse_cpus(const char *list, int *cpus, int max)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p || first < 0 || first >= MAX_CPUS)
            return -1;
        p = end;
        if (*p == '-') {
            last = strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first || last >= MAX_CPUS)
                return -1;
            p = end;
        }
        for (long c = first; c <= last; c++) {
            if (n >= max || (n > 0 && c <= cpus[n - 1]))
                return -1;
            cpus[n++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return n;
}

/* The position of cpu in the ascending cpus, or -1. */
static int find(const int *cpus, int n, long cpu)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (cpus[mid] == cpu)
            return mid;
        if (cpus[mid] < cpu)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int ts_machine_read_ticks(const char *stat_path, const int *cpus, int n, uint64_t *busy, uint64_t *steal)
{
    FILE *f = fopen(stat_path, "re");
    if (!f)
        return -1;
    int found = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        long cpu;
        char *end;
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
            continue;
        cpu = strtol(line + 3, &end, 10);
        int at = find(cpus, n, cpu);
        /* user nice system idle iowait irq softirq steal (guest time is inside user). */
        uint64_t v[8] = { 0 };
        if (at < 0
            || sscanf(end,
                      " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                      &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                   < 7)
            continue;
        busy[at] = v[0] + v[1] + v[2] + v[5] + v[6];
        steal[at] = v[7];
        found++;
    }
    fclose(f);
    return found == n ? 0 : -1;
}

int ts_machine_read_load(const char *loadavg_path, double *load)
{
    FILE *f = fopen(loadavg_path, "re");
    if (!f)
        return -1;
    int ok = fscanf(f, "%lf", load) == 1 && *load >= 0;
    fclose(f);
    return ok ? 0 : -1;
}

static double own_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec
           + 1e-6 * (double)ru.ru_stime.tv_usec;
}

void ts_machine_watch_free(struct ts_machine_watch *w)
{
    free(w->cpus);
    free(w->busy);
    free(w->steal);
    memset(w, 0, sizeof *w);
}

int ts_machine_watch_start(struct ts_machine_watch *w)
{
    memset(w, 0, sizeof *w);
    char *list = malloc(CPU_LIST_BYTES);
    int available = list ? ts_affinity_available_cpus(list, CPU_LIST_BYTES, NULL) : -1;
    if (available > 0 && available <= MAX_CPUS) {
        w->cpus = malloc((size_t)available * sizeof *w->cpus);
        w->busy = calloc((size_t)available, sizeof *w->busy);
        w->steal = calloc((size_t)available, sizeof *w->steal);
        if (w->cpus && w->busy && w->steal)
            w->n_cpus = ts_machine_parse_cpus(list, w->cpus, available);
    }
    free(list);
    if (w->n_cpus <= 0 || ts_machine_read_load(TS_MACHINE_LOADAVG, &w->load) != 0
        || ts_machine_read_ticks(TS_MACHINE_STAT, w->cpus, w->n_cpus, w->busy, w->steal) != 0) {
        ts_machine_watch_free(w);
        return -1;
    }
    w->own_cpu = own_cpu_seconds();
    w->wall = ts_seconds_now();
    return 0;
}

int ts_machine_watch_stop(const struct ts_machine_watch *w, struct ts_machine_rec *out)
{
    double wall = ts_seconds_now(), own = own_cpu_seconds(), load = 0;
    if (w->n_cpus <= 0)
        return -1;
    uint64_t *busy = calloc((size_t)w->n_cpus, sizeof *busy), *steal = calloc((size_t)w->n_cpus, sizeof *steal);
    int st = busy && steal && ts_machine_read_ticks(TS_MACHINE_STAT, w->cpus, w->n_cpus, busy, steal) == 0
                     && ts_machine_read_load(TS_MACHINE_LOADAVG, &load) == 0
                 ? 0
                 : -1;
    if (st == 0) {
        long hz = sysconf(_SC_CLK_TCK);
        double tick = 1.0 / (double)(hz > 0 ? hz : 100);
        uint64_t busy_ticks = 0, steal_ticks = 0;
        struct ts_list l;
        memset(out, 0, sizeof *out);
        ts_list_init(&l, out->cpus, sizeof out->cpus);
        for (int i = 0; i < w->n_cpus; i++) {
            /* A counter never runs backwards; if a CPU went offline and back, count nothing. */
            busy_ticks += busy[i] >= w->busy[i] ? busy[i] - w->busy[i] : 0;
            steal_ticks += steal[i] >= w->steal[i] ? steal[i] - w->steal[i] : 0;
            ts_list_add(&l, w->cpus[i]);
        }
        ts_list_end(&l);
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        out->n_cpus = w->n_cpus;
        out->online_cpus = online > 0 ? (int32_t)online : w->n_cpus;
        out->elapsed = wall - w->wall;
        out->own_cpu = own - w->own_cpu;
        out->busy = (double)busy_ticks * tick;
        out->others_cpu = out->busy > out->own_cpu ? out->busy - out->own_cpu : 0;
        out->steal = (double)steal_ticks * tick;
        out->clock_tick = tick;
        out->load_start = w->load;
        out->load_end = load;
    }
    free(busy);
    free(steal);
    return st;
}

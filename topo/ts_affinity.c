#include "ts_affinity.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* The kernel refuses a mask smaller than its own CPU count (EINVAL), so grow until it fits:
 * a fixed cpu_set_t stops at 1024 CPUs. */
static cpu_set_t *mask_get(size_t *size)
{
    for (int ncpus = CPU_SETSIZE; ncpus <= (1 << 20); ncpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpus);
        if (!set)
            return NULL;
        *size = CPU_ALLOC_SIZE(ncpus);
        if (sched_getaffinity(0, *size, set) == 0)
            return set;
        CPU_FREE(set);
        if (errno != EINVAL)
            return NULL;
    }
    return NULL;
}

int ts_affinity_mask_cpus(void)
{
    size_t size;
    cpu_set_t *set = mask_get(&size);
    if (!set)
        return -1;
    int n = CPU_COUNT_S(size, set);
    CPU_FREE(set);
    return n;
}

/* "" when unbound; "?" when memory ran out, so an empty list never lies about a place. */
static void place_format(int place, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    int n = place >= 0 ? omp_get_place_num_procs(place) : 0;
    if (n <= 0)
        return;
    int *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) {
        snprintf(buf, len, "?");
        return;
    }
    omp_get_place_proc_ids(place, ids);
    int max = 0;
    for (int i = 0; i < n; i++)
        max = ids[i] > max ? ids[i] : max;
    /* Places may list CPUs in any order ("{3,1}"); a set sorts them for the list. */
    cpu_set_t *set = CPU_ALLOC(max + 1);
    size_t size = CPU_ALLOC_SIZE(max + 1);
    if (set) {
        CPU_ZERO_S(size, set);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0)
                CPU_SET_S((size_t)ids[i], size, set);
        ts_cpulist_format(set, size, buf, len);
        CPU_FREE(set);
    } else {
        snprintf(buf, len, "?");
    }
    free(ids);
}

void ts_affinity_sample_start(const ts_topology *topo, struct ts_thread_rec *row)
{
    row->thread = omp_get_thread_num();
    row->place = omp_get_place_num();
    place_format(row->place, row->place_cpus, sizeof row->place_cpus);

    size_t size;
    cpu_set_t *mask = mask_get(&size);
    if (mask) {
        ts_cpulist_format(mask, size, row->affinity, sizeof row->affinity);
        CPU_FREE(mask);
    } else {
        snprintf(row->affinity, sizeof row->affinity, "?");
    }

    row->cpu_start = sched_getcpu();
    row->core = ts_topology_core_of_cpu(topo, row->cpu_start);
    row->node = ts_topology_node_of_cpu(topo, row->cpu_start);
}

void ts_affinity_sample_end(struct ts_thread_rec *row)
{
    row->cpu_end = sched_getcpu();
}

#include "ts_affinity.h"
#include "topology_internal.h"

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

/* The CPUs of places [first, last), sorted whatever order the places list them in ("{3,1}");
 * NULL when memory ran out. */
static hwloc_bitmap_t places_cpus(int first, int last)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int ok = set != NULL;
    for (int p = first; ok && p < last; p++) {
        int n = omp_get_place_num_procs(p);
        if (n <= 0)
            continue;
        int *ids = malloc((size_t)n * sizeof *ids);
        ok = ids != NULL;
        if (ok)
            omp_get_place_proc_ids(p, ids);
        for (int i = 0; ok && i < n; i++)
            ok = ids[i] < 0 || hwloc_bitmap_set(set, (unsigned)ids[i]) == 0;
        free(ids);
    }
    if (!ok) {
        hwloc_bitmap_free(set);
        return NULL;
    }
    return set;
}

void ts_affinity_place_cpus(int place, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (place < 0 || place >= omp_get_num_places())
        return;
    hwloc_bitmap_t set = places_cpus(place, place + 1);
    if (set)
        ts_bitmap_format(set, buf, len);
    else
        snprintf(buf, len, "?");
    hwloc_bitmap_free(set);
}

int ts_affinity_available_cpus(char *buf, size_t len, const char **source)
{
    snprintf(buf, len, "?");
    int n = -1;
    int places = omp_get_num_places();
    int bound = omp_get_proc_bind() != omp_proc_bind_false && places > 0;
    if (source)
        *source = bound ? "OpenMP places" : "affinity mask";
    if (bound) {
        hwloc_bitmap_t set = places_cpus(0, places);
        if (set) {
            n = hwloc_bitmap_weight(set);
            ts_bitmap_format(set, buf, len);
        }
        hwloc_bitmap_free(set);
        return n;
    }
    size_t size;
    cpu_set_t *mask = mask_get(&size);
    if (mask) {
        n = CPU_COUNT_S(size, mask);
        ts_cpulist_format(mask, size, buf, len);
        CPU_FREE(mask);
    }
    return n;
}

void ts_affinity_sample_start(const ts_topology *topo, struct ts_thread_rec *row)
{
    row->thread = omp_get_thread_num();
    row->place = omp_get_place_num();
    ts_affinity_place_cpus(row->place, row->place_cpus, sizeof row->place_cpus);

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

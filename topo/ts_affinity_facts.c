/* What a process may use, for the binding warnings: its CPUs and the cores they sit on. */
#include "ts_affinity.h"
#include "ts_topology_internal.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

void ts_affinity_available(const ts_topology *topo, const char *launch_cpus, struct ts_binding_facts *facts)
{
    const char *source;
    if (launch_cpus && launch_cpus[0])
        snprintf(facts->available_list, sizeof facts->available_list, "%s", launch_cpus);
    else
        ts_affinity_available_cpus(facts->available_list, sizeof facts->available_list, &source);

    hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), cores = hwloc_bitmap_alloc();
    if (cpus && cores && hwloc_bitmap_list_sscanf(cpus, facts->available_list) == 0) {
        unsigned cpu;
        hwloc_bitmap_foreach_begin(cpu, cpus) {
            int core = ts_topology_core_of_cpu(topo, (int)cpu);
            if (core >= 0)
                hwloc_bitmap_set(cores, (unsigned)core);
        }
        hwloc_bitmap_foreach_end();
        facts->available_cpus = hwloc_bitmap_weight(cpus);
        facts->available_cores = hwloc_bitmap_weight(cores);
    }
    hwloc_bitmap_free(cpus);
    hwloc_bitmap_free(cores);
}

void ts_affinity_outside(struct ts_binding_facts *facts, const int *named, int n)
{
    facts->places_outside[0] = '\0';
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), outside = hwloc_bitmap_alloc();
    if (allowed && outside && hwloc_bitmap_list_sscanf(allowed, facts->available_list) == 0) {
        for (int i = 0; i < n; i++)
            if (named[i] >= 0 && !hwloc_bitmap_isset(allowed, (unsigned)named[i]))
                hwloc_bitmap_set(outside, (unsigned)named[i]);
        if (!hwloc_bitmap_iszero(outside))
            ts_bitmap_format(outside, facts->places_outside, sizeof facts->places_outside);
    }
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(outside);
}

int ts_affinity_widen_to_places(char *cpus, size_t len)
{
    const char *source;
    if (len)
        cpus[0] = '\0';
    if (omp_get_proc_bind() == omp_proc_bind_false || omp_get_num_places() <= 0)
        return 0;
    if (ts_affinity_available_cpus(cpus, len, &source) <= 0)
        return -1;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int rc = -1;
    if (set && hwloc_bitmap_list_sscanf(set, cpus) == 0) {
        int size = hwloc_bitmap_last(set) + 1;
        cpu_set_t *mask = CPU_ALLOC(size);
        size_t bytes = CPU_ALLOC_SIZE(size);
        if (mask) {
            CPU_ZERO_S(bytes, mask);
            unsigned cpu;
            hwloc_bitmap_foreach_begin(cpu, set)
                CPU_SET_S(cpu, bytes, mask);
            hwloc_bitmap_foreach_end();
            rc = sched_setaffinity(0, bytes, mask);
            CPU_FREE(mask);
        }
    }
    hwloc_bitmap_free(set);
    return rc;
}

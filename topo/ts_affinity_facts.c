/* What a process may use, for the binding warnings: its CPUs and the cores they sit on. */
#include "ts_affinity.h"
#include "topology_internal.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The affinity mask the process started with. When OMP_PLACES or OMP_PROC_BIND is set, the
 * OpenMP runtime binds the initial thread to its first place while it loads, and afterwards
 * nothing tells what the process was given (a place list of one CPU then looks like a
 * one-CPU process). An executable's .preinit_array runs before any shared library's
 * initialiser, so the mask is read there. A raw system call: nothing (a sanitizer's
 * interceptors) need be ready yet, and nothing is allocated. 8192 CPUs is the kernel's
 * largest NR_CPUS on x86; a bigger machine makes the call fail, and the mask is unknown. */
static unsigned long launch_mask[8192 / (8 * sizeof(unsigned long))];
static long launch_mask_bytes; /* what the kernel wrote; 0 when unknown */

static void read_launch_mask(void)
{
    long n = syscall(SYS_sched_getaffinity, 0, sizeof launch_mask, launch_mask);
    launch_mask_bytes = n > 0 ? n : 0;
}

__attribute__((section(".preinit_array"), used)) static void (*read_launch_mask_first)(void) = read_launch_mask;

int ts_affinity_launch_cpus(char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (launch_mask_bytes <= 0)
        return -1;
    ts_cpulist_format(launch_mask, (size_t)launch_mask_bytes, buf, len);
    return CPU_COUNT_S((size_t)launch_mask_bytes, (const cpu_set_t *)(const void *)launch_mask);
}

int ts_affinity_restore_launch_mask(void)
{
    if (launch_mask_bytes <= 0) {
        errno = ENOENT;
        return -1;
    }
    return sched_setaffinity(0, (size_t)launch_mask_bytes, (const cpu_set_t *)(const void *)launch_mask);
}

/* CPUs and cores of a CPU list; 0 and 0 when it does not parse (a list cut short by "..."). */
static void count_list(const ts_topology *topo, const char *list, int *n_cpus, int *n_cores)
{
    *n_cpus = *n_cores = 0;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), cores = hwloc_bitmap_alloc();
    if (cpus && cores && list[0] && hwloc_bitmap_list_sscanf(cpus, list) == 0 && hwloc_bitmap_weight(cpus) > 0) {
        unsigned cpu;
        hwloc_bitmap_foreach_begin(cpu, cpus)
        {
            int core = ts_topology_core_of_cpu(topo, (int)cpu);
            if (core >= 0)
                hwloc_bitmap_set(cores, (unsigned)core);
        }
        hwloc_bitmap_foreach_end();
        *n_cpus = hwloc_bitmap_weight(cpus);
        *n_cores = hwloc_bitmap_weight(cores);
    }
    hwloc_bitmap_free(cpus);
    hwloc_bitmap_free(cores);
}

void ts_affinity_available(const ts_topology *topo, const char *launch_cpus, struct ts_binding_facts *facts)
{
    const char *source;
    if (launch_cpus && launch_cpus[0])
        snprintf(facts->mask_list, sizeof facts->mask_list, "%s", launch_cpus);
    else if (ts_affinity_launch_cpus(facts->mask_list, sizeof facts->mask_list) <= 0 && !facts->bound)
        ts_affinity_available_cpus(facts->mask_list, sizeof facts->mask_list, &source);
    count_list(topo, facts->mask_list, &facts->mask_cpus, &facts->mask_cores);

    /* Bound threads go only to the places' CPUs, whatever else the mask allows. */
    if (facts->bound && omp_get_num_places() > 0)
        ts_affinity_available_cpus(facts->available_list, sizeof facts->available_list, &source);
    else
        snprintf(facts->available_list, sizeof facts->available_list, "%s", facts->mask_list);
    count_list(topo, facts->available_list, &facts->available_cpus, &facts->available_cores);
    facts->under_slurm = getenv("SLURM_JOB_ID") != NULL;
    facts->under_mpirun = getenv("OMPI_COMM_WORLD_SIZE") != NULL;
    facts->machine_cpus = hwloc_bitmap_weight(hwloc_topology_get_topology_cpuset(topo->hw));
}

void ts_affinity_outside(struct ts_binding_facts *facts, const int *named, int n)
{
    facts->places_outside[0] = '\0';
    const char *mask = facts->mask_list[0] ? facts->mask_list : facts->available_list;
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), outside = hwloc_bitmap_alloc();
    if (allowed && outside && mask[0] && hwloc_bitmap_list_sscanf(allowed, mask) == 0) {
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
            hwloc_bitmap_foreach_begin(cpu, set) CPU_SET_S(cpu, bytes, mask);
            hwloc_bitmap_foreach_end();
            rc = sched_setaffinity(0, bytes, mask);
            CPU_FREE(mask);
        }
    }
    hwloc_bitmap_free(set);
    return rc;
}

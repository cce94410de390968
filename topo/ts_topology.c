#include "ts_topology.h"
#include "topology_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* On Linux, sysfs and /proc/cpuinfo tell hwloc everything we report (packages, cores, PUs,
 * caches, NUMA nodes, CPU model); its x86 backend would run cpuid on every PU, migrating this
 * thread to each in turn, a cost every run pays for nothing we use (bench/README.md, "Notes
 * behind the code"). Elsewhere the backend stays. */
static int skip_cpuid(hwloc_topology_t hw)
{
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
    return hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#else
    (void)hw;
    return 0;
#endif
}

int ts_topology_create(ts_topology **out, struct ts_error *err)
{
    *out = NULL;
    ts_topology *topo = calloc(1, sizeof *topo);
    if (!topo)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the topology");
    if (hwloc_topology_init(&topo->hw) != 0) {
        int e = errno;
        free(topo);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, e, "hwloc_topology_init failed");
    }
    /* Inside a Slurm allocation or a taskset the restricted view would hide the rest of the
     * machine, and the report must say what the job got compared with what exists. */
    if (hwloc_topology_set_flags(topo->hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0 || skip_cpuid(topo->hw) != 0
        || hwloc_topology_load(topo->hw) != 0) {
        int e = errno;
        hwloc_topology_destroy(topo->hw);
        free(topo);
        /* hwloc reads /sys and /proc: what fails there is a read, or memory. */
        return ts_fail_errno(err, e == ENOMEM ? TS_RESOURCE_ERROR : TS_IO_ERROR, e,
                             "hwloc could not load this machine's topology");
    }
    *out = topo;
    return TS_OK;
}

void ts_topology_destroy(ts_topology *topo)
{
    if (!topo)
        return;
    hwloc_topology_destroy(topo->hw);
    free(topo);
}

static hwloc_obj_t pu_of_cpu(const ts_topology *topo, int cpu)
{
    if (cpu < 0)
        return NULL;
    return hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)cpu);
}

int ts_topology_core_of_cpu(const ts_topology *topo, int cpu)
{
    hwloc_obj_t pu = pu_of_cpu(topo, cpu);
    hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_CORE, pu) : NULL;
    return core ? (int)core->logical_index : -1;
}

hwloc_obj_t ts_topology_node_of_cpuset(const ts_topology *topo, hwloc_const_cpuset_t set)
{
    /* With HBM, NVDIMM or CXL memory several nodes cover the same CPUs; the kernel's
     * default (first-touch) node is the ordinary DRAM one, which hwloc leaves without a
     * subtype (or, in newer versions, marks "DRAM"). */
    hwloc_obj_t first = NULL;
    hwloc_obj_t node = NULL;
    while ((node = hwloc_get_next_obj_covering_cpuset_by_type(topo->hw, set, HWLOC_OBJ_NUMANODE, node))) {
        if (!node->subtype || strcmp(node->subtype, "DRAM") == 0)
            return node;
        if (!first)
            first = node;
    }
    return first;
}

int ts_topology_node_of_cpu(const ts_topology *topo, int cpu)
{
    hwloc_obj_t pu = pu_of_cpu(topo, cpu);
    hwloc_obj_t node = pu ? ts_topology_node_of_cpuset(topo, pu->cpuset) : NULL;
    return node ? (int)node->os_index : -1;
}

int ts_topology_numa_count(const ts_topology *topo)
{
    return hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
}

int ts_topology_numa_os_index(const ts_topology *topo, int logical)
{
    if (logical < 0)
        return -1;
    hwloc_obj_t node = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, (unsigned)logical);
    return node ? (int)node->os_index : -1;
}

size_t ts_topology_cache_line(const ts_topology *topo, const char **source)
{
    const char *unused;
    if (!source)
        source = &unused;
    for (hwloc_obj_t c = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_L1CACHE, NULL); c;
         c = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_L1CACHE, c)) {
        if (c->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION && c->attr->cache.linesize > 0) {
            *source = "hwloc L1d";
            return c->attr->cache.linesize;
        }
    }
    long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    if (line > 0) {
        *source = "sysconf(_SC_LEVEL1_DCACHE_LINESIZE)";
        return (size_t)line;
    }
    /* 128 covers adjacent-line prefetch on x86 and the 128-byte lines of POWER and Apple M. */
    *source = "default (unknown, 128 is safe)";
    return 128;
}

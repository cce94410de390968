/* The last-level caches the threads' CPUs sit under: how much data the run can keep in cache. */
#include "ts_affinity.h"
#include "topology_internal.h"

#include <stdlib.h>
#include <string.h>

/* The deepest data or unified cache above a PU: its last-level cache. */
static hwloc_obj_t llc_of(const ts_topology *topo, int cpu)
{
    hwloc_obj_t pu = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)cpu) : NULL, llc = NULL;
    for (hwloc_obj_t o = pu ? pu->parent : NULL; o; o = o->parent)
        if (hwloc_obj_type_is_dcache(o->type) && (!llc || o->attr->cache.depth > llc->attr->cache.depth))
            llc = o;
    return llc;
}

void ts_affinity_llc(const ts_topology *topo, const int *cpus, int n, struct ts_llc *out)
{
    memset(out, 0, sizeof *out);
    hwloc_obj_t *seen = calloc(n > 0 ? (size_t)n : 1, sizeof *seen);
    if (!seen)
        return;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t llc = llc_of(topo, cpus[i]);
        int known = llc == NULL;
        for (int k = 0; k < out->instances && !known; k++)
            known = seen[k] == llc;
        if (known)
            continue;
        seen[out->instances++] = llc;
        int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo->hw, llc->cpuset, HWLOC_OBJ_CORE);
        int64_t size = (int64_t)llc->attr->cache.size;
        int64_t plausible = (int64_t)(cores > 0 ? cores : 1) * TS_LLC_MAX_BYTES_PER_CORE;
        out->cores += cores;
        out->reported_bytes += size;
        out->bytes += size < plausible ? size : plausible;
        if ((int)llc->attr->cache.depth > out->level)
            out->level = (int)llc->attr->cache.depth;
    }
    free(seen);
}

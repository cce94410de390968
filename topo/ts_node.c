#include "ts_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

/* The logical index of the first ancestor of pu of that type; -1 when it has none. */
static int ancestor_index(hwloc_topology_t hw, hwloc_obj_t pu, hwloc_obj_type_t type)
{
    hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(hw, type, pu);
    return a ? (int)a->logical_index : -1;
}

/* The NUMA node whose local CPUs hold the PU (hwloc 2 keeps NUMA nodes as memory children). */
static int numa_index(hwloc_topology_t hw, hwloc_obj_t pu)
{
    hwloc_obj_t node = NULL;
    while ((node = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, node)) != NULL)
        if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu->os_index))
            return (int)node->logical_index;
    return -1;
}

/* The deepest cache level above the PUs: the last-level cache. */
static int llc_index(hwloc_obj_t pu)
{
    int best = -1, best_depth = 0;
    for (hwloc_obj_t a = pu->parent; a; a = a->parent)
        if (hwloc_obj_type_is_cache(a->type) && a->attr && (int)a->attr->cache.depth > best_depth
            && a->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION) {
            best_depth = (int)a->attr->cache.depth;
            best = (int)a->logical_index;
        }
    return best;
}

int ts_node_from_topology(const ts_topology *topo, struct ts_node *node, struct ts_error *err)
{
    memset(node, 0, sizeof *node);
    hwloc_topology_t hw = topo->hw;
    const int n = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
    node->pus = calloc(n > 0 ? (size_t)n : 1, sizeof *node->pus);
    if (!node->pus)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for %d PUs", n);
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(hw);
    int run = 0; /* PUs of one core come one after the other in logical order */
    for (int i = 0; i < n; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, (unsigned)i);
        struct ts_node_pu *p = &node->pus[i];
        p->os_index = (int)pu->os_index;
        p->core = ancestor_index(hw, pu, HWLOC_OBJ_CORE);
        if (p->core < 0) /* a machine without cores in its description: each PU is one */
            p->core = i;
        p->package = ancestor_index(hw, pu, HWLOC_OBJ_PACKAGE);
        if (p->package < 0)
            p->package = 0;
        p->numa = numa_index(hw, pu);
        p->llc = llc_index(pu);
        p->allowed = allowed ? hwloc_bitmap_isset(allowed, pu->os_index) : 1;
        run = i > 0 && node->pus[i - 1].core == p->core ? run + 1 : 1;
        node->smt = run > node->smt ? run : node->smt;
        node->n_cores = p->core + 1 > node->n_cores ? p->core + 1 : node->n_cores;
        node->n_packages = p->package + 1 > node->n_packages ? p->package + 1 : node->n_packages;
        node->n_llc = p->llc + 1 > node->n_llc ? p->llc + 1 : node->n_llc;
    }
    node->n_pus = n;
    /* NUMA indices need not be dense among the PUs: count the distinct ones. */
    for (int i = 0; i < n; i++) {
        int seen = node->pus[i].numa < 0;
        for (int j = 0; j < i && !seen; j++)
            seen = node->pus[j].numa == node->pus[i].numa;
        node->n_numa += !seen;
    }
    node->n_numa_all = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
    /* "this machine", the XML file or "synthetic: DESC", as the topology was loaded. */
    snprintf(node->source, sizeof node->source, "%s", ts_topology_label(topo));
    return TS_OK;
}

void ts_node_free(struct ts_node *node)
{
    free(node->pus);
    node->pus = NULL;
    node->n_pus = 0;
}

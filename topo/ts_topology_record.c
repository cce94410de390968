#include "topology_internal.h"
#include "ts_thp.h"
#include "ts_topology.h"

#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hwloc says UNKNOWN with all bits set; the record says -1. */
static int32_t os_index_of(hwloc_obj_t obj)
{
    return obj->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (int32_t)obj->os_index;
}

static void fill_numa(const ts_topology *topo, struct ts_topology_rec *rec)
{
    for (int i = 0; i < rec->n_numa; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, (unsigned)i);
        rec->numa[i].os_index = os_index_of(node);
        rec->numa[i].memory_bytes = node->attr->numanode.local_memory;
        ts_bitmap_format(node->cpuset, rec->numa[i].cpus, sizeof rec->numa[i].cpus);
    }
}

/* Relative distances, 10 = local. Sources in order: hwloc (the OS's ACPI SLIT), libnuma
 * (the same table read by another path), and the one fact that needs no table: a node is
 * local to itself. An entry nobody knows stays -1, rather than a made-up 20 that would read
 * like a measurement. */
static void fill_distances(const ts_topology *topo, struct ts_topology_rec *rec)
{
    int n = rec->n_numa;
    for (int i = 0; i < n * n; i++)
        rec->distances[i] = -1;

    struct hwloc_distances_s *d = NULL;
    unsigned nr = 1;
    if (hwloc_distances_get_by_type(topo->hw, HWLOC_OBJ_NUMANODE, &nr, &d, HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0
        && nr >= 1) {
        for (unsigned i = 0; i < d->nbobjs; i++)
            for (unsigned j = 0; j < d->nbobjs; j++) {
                unsigned li = d->objs[i]->logical_index, lj = d->objs[j]->logical_index;
                if ((int)li < n && (int)lj < n)
                    rec->distances[li * (unsigned)n + lj] = (int32_t)d->values[i * d->nbobjs + j];
            }
        hwloc_distances_release(topo->hw, d);
    }

    /* libnuma reads this machine's table: no answer for a described one. */
    int have_libnuma = topo->this_machine && numa_available() >= 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int32_t *v = &rec->distances[i * n + j];
            if (*v < 0 && have_libnuma && rec->numa[i].os_index >= 0 && rec->numa[j].os_index >= 0) {
                int nd = numa_distance(rec->numa[i].os_index, rec->numa[j].os_index);
                if (nd > 0)
                    *v = nd;
            }
            if (*v < 0 && i == j)
                *v = 10;
        }
}

static void fill_cores(const ts_topology *topo, struct ts_topology_rec *rec)
{
    for (int i = 0; i < rec->n_cores_rec; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_CORE, (unsigned)i);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_PACKAGE, core);
        hwloc_obj_t node = ts_topology_node_of_cpuset(topo, core->cpuset);
        struct ts_core_rec *c = &rec->cores[i];
        c->index = (int32_t)core->logical_index;
        c->os_index = os_index_of(core);
        c->package = pkg ? (int32_t)pkg->logical_index : -1;
        c->numa = node ? os_index_of(node) : -1;
        ts_bitmap_format(core->cpuset, c->cpus, sizeof c->cpus);
    }
}

static const char *cache_type_name(hwloc_obj_cache_type_t t)
{
    return t == HWLOC_OBJ_CACHE_DATA ? "data" : t == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction" : "unified";
}

static int cache_order(const void *a, const void *b)
{
    const struct ts_cache_rec *x = a, *y = b;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    int t = strcmp(x->type, y->type);
    if (t)
        return t;
    return (x->size_bytes > y->size_bytes) - (x->size_bytes < y->size_bytes);
}

/* One row per (level, type, size, line): hybrid CPUs have P- and E-core L2s of different
 * sizes, and averaging them would describe neither. */
static int fill_caches(const ts_topology *topo, struct ts_topology_rec *rec)
{
    int total = 0;
    for (int t = HWLOC_OBJ_TYPE_MIN; t < HWLOC_OBJ_TYPE_MAX; t++)
        if (hwloc_obj_type_is_cache((hwloc_obj_type_t)t))
            total += hwloc_get_nbobjs_by_type(topo->hw, (hwloc_obj_type_t)t);
    rec->caches = calloc(total ? (size_t)total : 1, sizeof *rec->caches);
    if (!rec->caches)
        return -1;
    for (int t = HWLOC_OBJ_TYPE_MIN; t < HWLOC_OBJ_TYPE_MAX; t++) {
        if (!hwloc_obj_type_is_cache((hwloc_obj_type_t)t))
            continue;
        hwloc_obj_t c = NULL;
        while ((c = hwloc_get_next_obj_by_type(topo->hw, (hwloc_obj_type_t)t, c))) {
            struct ts_cache_rec key = { .level = (int32_t)c->attr->cache.depth,
                                        .size_bytes = c->attr->cache.size,
                                        .line_bytes = c->attr->cache.linesize };
            snprintf(key.type, sizeof key.type, "%s", cache_type_name(c->attr->cache.type));
            int k = 0;
            while (k < rec->n_caches
                   && (cache_order(&key, &rec->caches[k]) != 0 || key.line_bytes != rec->caches[k].line_bytes))
                k++;
            if (k == rec->n_caches)
                rec->caches[rec->n_caches++] = key;
            rec->caches[k].count++;
        }
    }
    qsort(rec->caches, (size_t)rec->n_caches, sizeof *rec->caches, cache_order);
    return 0;
}

int ts_topology_record(const ts_topology *topo, struct ts_topology_rec *rec, struct ts_error *err)
{
    memset(rec, 0, sizeof *rec);
    rec->n_packages = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PACKAGE);
    rec->n_cores = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_CORE);
    rec->n_pus = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PU);
    rec->n_numa = ts_topology_numa_count(topo);
    rec->n_cores_rec = rec->n_cores;

    size_t n_numa = rec->n_numa > 0 ? (size_t)rec->n_numa : 1;
    rec->numa = calloc(n_numa, sizeof *rec->numa);
    rec->distances = calloc(n_numa * n_numa, sizeof *rec->distances);
    rec->cores = calloc(rec->n_cores > 0 ? (size_t)rec->n_cores : 1, sizeof *rec->cores);
    if (!rec->numa || !rec->distances || !rec->cores || fill_caches(topo, rec) != 0) {
        ts_topology_record_free(rec);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the topology record");
    }
    fill_numa(topo, rec);
    fill_distances(topo, rec);
    fill_cores(topo, rec);

    const char *source;
    rec->cache_line_bytes = (uint32_t)ts_topology_cache_line(topo, &source);
    snprintf(rec->cache_line_source, sizeof rec->cache_line_source, "%s", source);
    /* The headers' release, and the API of the library actually loaded, in case they differ. */
    snprintf(rec->hwloc_version, sizeof rec->hwloc_version, "%s (runtime API %#x)", HWLOC_VERSION,
             hwloc_get_api_version());
    if (topo->this_machine)
        ts_thp_mode(TS_THP_ENABLED, rec->thp_enabled, sizeof rec->thp_enabled);
    else
        snprintf(rec->thp_enabled, sizeof rec->thp_enabled, "unknown (not this machine)");
    return TS_OK;
}

void ts_topology_record_free(struct ts_topology_rec *rec)
{
    if (!rec)
        return;
    free(rec->numa);
    free(rec->distances);
    free(rec->cores);
    free(rec->caches);
    rec->numa = NULL;
    rec->distances = NULL;
    rec->cores = NULL;
    rec->caches = NULL;
    rec->n_numa = rec->n_cores_rec = rec->n_caches = 0;
}

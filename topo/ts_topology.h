/* The machine as hwloc sees it. Core and node numbers always come from here,
 * never from CPU numbers. */
#ifndef TOUCHSTONE_TOPO_TS_TOPOLOGY_H
#define TOUCHSTONE_TOPO_TS_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_record.h"

typedef struct ts_topology ts_topology;

/* Loads the topology of this machine (hwloc, whole system, not restricted to our cpuset).
 * TS_RESOURCE_ERROR when memory runs out, TS_IO_ERROR when hwloc cannot read the machine. */
int ts_topology_create(ts_topology **out, struct ts_error *err);
void ts_topology_destroy(ts_topology *topo);

/* hwloc logical index of the core holding OS CPU cpu; -1 when unknown. */
int ts_topology_core_of_cpu(const ts_topology *topo, int cpu);
/* OS index of the NUMA node holding OS CPU cpu; -1 when unknown. */
int ts_topology_node_of_cpu(const ts_topology *topo, int cpu);

int ts_topology_numa_count(const ts_topology *topo);
/* OS index of the i-th NUMA node in hwloc logical order. */
int ts_topology_numa_os_index(const ts_topology *topo, int logical);

/* Cache line size for padding per-thread slots: hwloc's L1 data cache line, else
 * sysconf(_SC_LEVEL1_DCACHE_LINESIZE), else 128 (safe on every current CPU);
 * source names which. */
size_t ts_topology_cache_line(const ts_topology *topo, const char **source);

/* Fills rec (numa nodes, distances, cores, caches, cache line, hwloc version). The arrays
 * are allocated here and released by ts_topology_record_free. Distances come from hwloc,
 * else libnuma; a distance nobody reports is -1 (a node to itself: 10). Caches of one level
 * and type but different sizes (hybrid CPUs) get one row per size. TS_RESOURCE_ERROR when
 * memory runs out. */
int ts_topology_record(const ts_topology *topo, struct ts_topology_rec *rec, struct ts_error *err);
void ts_topology_record_free(struct ts_topology_rec *rec);

#endif

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

/* This machine's topology, loaded on the first call and kept until the process exits: the
 * binding checks and the run read one discovery (each costs milliseconds, a fair share of a short
 * run). The machine does not change under a process; its allowed set is the process's own. */
int ts_topology_shared(const ts_topology **out, struct ts_error *err);

/* Which machine a topology describes: this one, or another one described by an hwloc XML export
 * (`lstopo FILE.xml` on that node) or by an hwloc synthetic description ("package:2 numa:4
 * core:16 pu:2"). Nothing of such a topology was observed here: no CPU of it can be bound to. */
enum ts_topology_kind { TS_TOPOLOGY_THIS_MACHINE, TS_TOPOLOGY_XML, TS_TOPOLOGY_SYNTHETIC };
struct ts_topology_source {
    enum ts_topology_kind kind;
    const char *text; /* the XML file's path or the synthetic description; NULL for this machine */
};

/* Loads the topology src describes, whole (disallowed PUs included, so a restricted cpuset in an
 * XML export shows against the rest of its node). This machine: as ts_topology_create. A missing
 * or unreadable file fails with its errno text, a file hwloc cannot import or a description it
 * cannot parse with what hwloc says (its errno); all TS_BAD_INPUT, memory TS_RESOURCE_ERROR. */
int ts_topology_load(ts_topology **out, const struct ts_topology_source *src, struct ts_error *err);

/* 1 for this machine's topology, 0 for a described one. */
int ts_topology_is_this_machine(const ts_topology *topo);
/* What the topology describes: "this machine", the XML file's path, or "synthetic: DESC". */
const char *ts_topology_label(const ts_topology *topo);

/* The CPUs and NUMA nodes the topology allows (the job's cpuset: a cgroup, a Slurm allocation,
 * taskset, or what an XML export recorded) against all of them; lists as "0-3,8". */
struct ts_topology_allowed {
    char cpus[1024], all_cpus[1024];
    int n_cpus, n_all_cpus;
    char nodes[256], all_nodes[256];
    int n_nodes, n_all_nodes;
};
void ts_topology_allowed(const ts_topology *topo, struct ts_topology_allowed *out);

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

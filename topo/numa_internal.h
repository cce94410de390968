/* Private to topo/: the NUMA matrix's helpers (ts_numa_matrix.c) that the survey's other engines
 * beside it share (ts_loaded_latency.c, ts_c2c.c): threads bound to one CPU each, buffers bound
 * to a memory node before their first touch, their pages counted after, and the room one
 * measurement may take on a node. One implementation, so every section's placement means what
 * the matrix's does. */
#ifndef TOUCHSTONE_TOPO_NUMA_INTERNAL_H
#define TOUCHSTONE_TOPO_NUMA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "ts_error.h"
#include "ts_numa_matrix.h"
#include "ts_topology.h"

/* The calling thread's binding, kept to give back. */
struct binding {
    hwloc_bitmap_t saved;
};

/* Binds the calling thread to cpu alone (keeping its binding in b); 0, or -1 with errno. */
int ts_numa_bind_thread(const ts_topology *topo, int cpu, struct binding *b);
/* Gives the calling thread back the binding b kept, and frees it. */
void ts_numa_unbind_thread(const ts_topology *topo, struct binding *b);

/* count buffers of bytes each, bound to mem_node before their first touch, with huge or base
 * pages asked for. Each mapping is whole 2 MiB blocks from a 2 MiB boundary, so the audit can
 * tell huge pages from base ones. */
struct node_buffers {
    int count;
    void *ptr[4];
    size_t bytes;  /* used of each */
    size_t mapped; /* of each */
    int huge;
    int advised; /* the kernel took the madvise */
};

/* Maps count (1..4) buffers on mem_node (MPOL_BIND); TS_RESOURCE_ERROR with the node named. */
int ts_numa_buffers_map(struct node_buffers *b, int count, size_t bytes, int mem_node, int huge, struct ts_error *err);
void ts_numa_buffers_free(struct node_buffers *b);
/* Counts where the pages of b are (move_pages) and adds them to p: fraction, misplaced. */
int ts_numa_buffers_audit(const struct node_buffers *b, int mem_node, struct ts_numa_placement *p,
                          struct ts_error *err);

/* n OpenMP threads, thread t bound to cpus[t]. */
struct team {
    const ts_topology *topo;
    const int *cpus;
    int n;
    int failed_cpu; /* first CPU a thread could not bind to, -1 none */
    int failed_errno;
    int size; /* threads the runtime started */
};

/* Inside the team's parallel region (every thread calls it): binds thread t; 0 when bound. */
int ts_numa_team_bind(struct team *tm, struct binding *b);
/* After the region: TS_RESOURCE_ERROR when the runtime started another count of threads or a
 * thread could not bind. */
int ts_numa_team_check(const struct team *tm, struct ts_error *err);

#endif

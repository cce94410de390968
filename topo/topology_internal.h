/* Private to topo/: the hwloc handle behind ts_topology, shared by the files that query it. */
#ifndef TOUCHSTONE_TOPO_TOPOLOGY_INTERNAL_H
#define TOUCHSTONE_TOPO_TOPOLOGY_INTERNAL_H

#include <stddef.h>

#include <hwloc.h>

#include "ts_topology.h"

struct ts_topology {
    hwloc_topology_t hw;
    int this_machine; /* 0: an XML export or a synthetic description; this machine's files say nothing of it */
    char label[256];  /* ts_topology_label */
    char *xml;        /* an XML export's text while hwloc loads it; NULL otherwise */
    size_t xml_len;   /* its length with the terminating NUL, as hwloc counts it */
};

/* Synthetic descriptions touchstone takes: at most TS_SYNTHETIC_MAX_PUS PUs, and at most
 * TS_SYNTHETIC_MAX_WORK of hwloc's work to build them (objects times the siblings each passes
 * on its way down, times the 64-bit words of a CPU set): about 2 s on a 2-core VM. */
#define TS_SYNTHETIC_MAX_PUS 16384
#define TS_SYNTHETIC_MAX_WORK (1ULL << 30)

/* TS_BAD_INPUT, naming the limit, when desc describes more than either bound allows; TS_OK when
 * it does not, or when its form is one hwloc must judge (a count that is not a number). */
int ts_synthetic_bound(const char *desc, struct ts_error *err);

/* The NUMA node a CPU set's first-touched pages land on; NULL when hwloc knows none. */
hwloc_obj_t ts_topology_node_of_cpuset(const ts_topology *topo, hwloc_const_cpuset_t set);

/* Builds a list of ascending numbers with runs compressed ("0-3,8,10-11") in a caller's
 * buffer; when the buffer is too short the list ends in "..." rather than silently losing
 * numbers. Usage: ts_list_init, ts_list_add for each number, ts_list_end. */
struct ts_list {
    char *buf;
    size_t len, used;
    int first, last, open, full;
};
void ts_list_init(struct ts_list *l, char *buf, size_t len);
void ts_list_add(struct ts_list *l, int v);
void ts_list_end(struct ts_list *l);

/* The list of an hwloc bitmap (CPU sets, node sets). */
void ts_bitmap_format(hwloc_const_bitmap_t set, char *buf, size_t len);

#endif

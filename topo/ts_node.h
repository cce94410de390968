/* A node as binding decisions see it: its PUs (hardware threads) in hwloc's logical order, each
 * with the core, package, NUMA node and last-level cache it belongs to, and whether the job may
 * use it. The OpenMP binding model (what OMP_PLACES and OMP_PROC_BIND give) and the binding
 * planner (`touchstone advise`) work on this plain description, so that they run the same on
 * this machine, on an hwloc XML export of another one and on a synthetic topology, and a test
 * can write one by hand. */
#ifndef TOUCHSTONE_TOPO_TS_NODE_H
#define TOUCHSTONE_TOPO_TS_NODE_H

#include "ts_error.h"
#include "ts_topology.h"

struct ts_node_pu {
    int os_index; /* the CPU number the OS and OMP_PLACES use */
    int core;     /* logical indices (0 ..): of the core, */
    int package;  /*   the package (socket), */
    int numa;     /*   the NUMA node holding its memory (-1: none known), */
    int llc;      /*   the last-level cache (-1: none known) */
    int allowed;  /* in the job's cpuset (1), or outside it (0): hwloc's allowed set */
};

struct ts_node {
    int n_pus;
    struct ts_node_pu *pus; /* logical order: the PUs of core 0, then core 1, ... */
    int n_cores, n_packages, n_llc;
    int n_numa;       /* NUMA nodes that hold PUs: the domains threads are placed in */
    int n_numa_all;   /* every NUMA node, memory-only ones too (KNL's MCDRAM, CXL memory) */
    int smt;          /* most PUs per core */
    char source[256]; /* "this machine", "FILE.xml", "synthetic: package:2 ..." */
};

/* The description of topo (allocated here, freed by ts_node_free). TS_RESOURCE_ERROR when
 * memory runs out. */
int ts_node_from_topology(const ts_topology *topo, struct ts_node *node, struct ts_error *err);
void ts_node_free(struct ts_node *node);

#endif

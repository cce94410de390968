/* The loaded-latency curve (Intel MLC's --loaded_latency): a dependent pointer chase on one core
 * of a CPU node while the node's other cores read buffers of their own at a range of rates, from
 * none (the idle point) to all they can draw, everything on one memory node. Each point pairs
 * the chase's latency with the bandwidth the injectors achieved meanwhile (not the rate asked
 * for): how much slower memory gets as others load it, locally and on every remote node. Every
 * buffer is bound to the memory node and its pages counted after (numa_internal.h, as the NUMA
 * matrix does).
 *
 * topo/ may not call kernels/ (layers.txt): the caller hands the chase (kernels/ts_chase.h) and
 * the injector (kernels/ts_inject.h) through plain function pointers. Nothing here prints. */
#ifndef TOUCHSTONE_TOPO_TS_LOADED_LATENCY_H
#define TOUCHSTONE_TOPO_TS_LOADED_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_numa_matrix.h"
#include "ts_topology.h"

#define TS_LOADED_MAX_POINTS 32

/* The kernels timed: chase_line and inject_line are the bytes of one element of each. */
struct ts_loaded_probes {
    size_t chase_line;
    void (*chase_build)(void *buf, size_t n, uint64_t seed);
    size_t (*chase_run)(const void *buf, size_t start, uint64_t steps);
    size_t inject_line;
    /* Reads n_lines lines at buf, burst at a time, delay steps of a delay chain on *spin after
     * each burst; returns what it read folded into one value. */
    uint64_t (*inject)(const void *buf, size_t n_lines, size_t burst, uint64_t delay, uint64_t *spin);
};

struct ts_loaded_options {
    int64_t chase_bytes;      /* the chase's buffer (4 KiB pages, as the matrix's idle latency) */
    int64_t inject_bytes;     /* each injector's own buffer (2 MiB pages asked) */
    int64_t chase_steps;      /* chase steps per repetition */
    int repetitions;          /* chase repetitions at each point, at most (1..64) */
    double seconds_per_point; /* repetitions stop once a point's chase took this long (>= 1 run) */
    size_t burst;             /* lines an injector reads between two delays */
    int n_delays;
    int64_t delays[TS_LOADED_MAX_POINTS]; /* delay chain steps per burst; -1: no injection (idle) */
    uint64_t seed;                        /* of the chase's cycle */
};

struct ts_loaded_point {
    int64_t delay;       /* as asked; -1 the idle point */
    double injected_gbs; /* all injectors together, 1e9 B/s: lines read x line bytes over each one's
                            time from its start to the chase's end; 0 at the idle point */
    double ns_median, ns_best;
    int repetitions; /* chase repetitions run */
};

struct ts_loaded_curve {
    int cpu_node, mem_node; /* OS indices */
    int chaser_cpu;
    int injectors;           /* the node's other cores, one thread each */
    char injector_cpus[256]; /* "1-3,8" */
    int64_t chase_bytes, inject_bytes, steps;
    int n_points;
    struct ts_loaded_point points[TS_LOADED_MAX_POINTS];
    struct ts_numa_placement placement; /* the chase's and the injectors' buffers together */
    char note[256];                     /* "one core on node 0: its idle point alone"; "" */
};

/* Measures the curve of (cpu_node, mem_node): the chase on the node's first allowed core, one
 * injector thread on each of its other cores (ts_numa_node_cpus), a point per delay in order.
 * With one core only delays of -1 are measured (the note says so). The buffers together take at
 * most ts_numa_memory_cap of the memory node: the injectors' shrink first. TS_BAD_INPUT for a
 * described topology or a node without CPUs; TS_RESOURCE_ERROR when memory, mbind, move_pages
 * or binding fail. The calling thread's binding is kept. */
int ts_loaded_latency_measure(const ts_topology *topo, const struct ts_loaded_probes *probes, int cpu_node,
                              int mem_node, const struct ts_loaded_options *opt, struct ts_loaded_curve *out,
                              struct ts_error *err);

#endif

/* Core-to-core latency: one cache line bounced between two threads bound to two CPUs, for every
 * pair of the CPUs this process may use (SMT siblings included: every allowed PU), each pair's
 * one-way latency the median over samples of its round trips over two. Beside it, each CPU's
 * domains as hwloc shows them (core, last-level cache, NUMA node, package), so that a report can
 * draw where siblings, core complexes and sockets begin.
 *
 * topo/ may not call kernels/ (layers.txt): the caller hands the ping-pong (kernels/ts_pingpong.h)
 * through plain function pointers. Nothing here prints. */
#ifndef TOUCHSTONE_TOPO_TS_C2C_H
#define TOUCHSTONE_TOPO_TS_C2C_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_topology.h"

/* The ping-pong on a line of line_bytes (its size and alignment). */
struct ts_c2c_probes {
    size_t line_bytes;
    void (*reset)(void *line);                     /* before either thread starts */
    uint64_t (*ping)(void *line, uint64_t rounds); /* the initiator's round trips */
    uint64_t (*answer)(void *line);                /* the answerer, until stop */
    void (*stop)(void *line);                      /* the initiator, when done */
};

struct ts_c2c_options {
    uint64_t rounds;         /* round trips in a sample, at most */
    double sample_seconds;   /* a sample's target length: fewer rounds when round trips are slow
                                (under emulation), from a timed warm-up batch */
    int samples;             /* per pair, at most */
    double seconds_per_pair; /* a pair's samples stop once they took this long (>= 1 sample) */
    int64_t stride;          /* measure every stride-th pair in order (1 or less: every pair) */
    int pair_a, pair_b;      /* OS CPUs: when they differ, that pair alone (bench/peer_latency.sh) */
};

/* One CPU and its domains: hwloc logical indices (-1 when hwloc shows none), the node's OS index. */
struct ts_c2c_cpu {
    int cpu; /* OS index */
    int core, llc, node, package;
};

struct ts_c2c {
    int n;                   /* allowed PUs, in hwloc's logical order (siblings, then caches, together) */
    struct ts_c2c_cpu *cpus; /* [n] */
    int llc_level;           /* the cache llc names: 3, 2 when no CPU has an L3, 0 when hwloc shows none */
    double *ns;              /* [n * n], row a column b: one-way ns, the same both ways (a round trip is
                                symmetric); NaN on the diagonal and for pairs not measured */
    int64_t pairs, pairs_measured;
};

/* Every allowed PU and its domains, no measurement (ns NULL): for an estimate. TS_RESOURCE_ERROR
 * without memory. */
int ts_c2c_cpus(const ts_topology *topo, struct ts_c2c *out, struct ts_error *err);

/* Measures the pairs (opt->stride) of every allowed PU on this machine with two OpenMP threads,
 * rebound for each pair; the calling thread's binding is kept. TS_BAD_INPUT for a described
 * topology; TS_RESOURCE_ERROR when memory or a binding fails, or the runtime starts other than 2
 * threads. out is freed on error. */
int ts_c2c_measure(const ts_topology *topo, const struct ts_c2c_probes *probes, const struct ts_c2c_options *opt,
                   struct ts_c2c *out, struct ts_error *err);
void ts_c2c_free(struct ts_c2c *c);

#endif

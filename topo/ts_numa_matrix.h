/* The NUMA matrix: for every pair (CPU node c, memory node m), what memory on m costs a thread
 * of c: idle latency by a dependent pointer chase (4 KiB and 2 MiB pages apart), read and triad
 * bandwidth by the threads of c, and latency while the other cores of c stream. Every buffer is
 * bound to m (mbind), first touched, and its pages counted with move_pages before its number
 * counts: a cell whose pages are not all on m carries the fraction that is and a flag, so a
 * report can mark it instead of passing it off as a clean number.
 *
 * topo/ may not call kernels/ (layers.txt): the caller hands the engine the kernels it times
 * (struct ts_numa_probes), kernels/ts_chase.h's chase and the sum and triad steps of the kernel
 * table, through plain function pointers. Nothing here prints. */
#ifndef TOUCHSTONE_TOPO_TS_NUMA_MATRIX_H
#define TOUCHSTONE_TOPO_TS_NUMA_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_topology.h"

/* One bandwidth kernel over elements [begin, end) of its arrays of doubles, on the calling
 * thread: init writes them (their first touch), step is one timed sweep. */
struct ts_numa_stream {
    const char *name;       /* "sum", "triad" */
    int n_arrays;           /* 1 .. 4 (the mixes' 3:1 reads three and writes one) */
    double bytes_per_elem;  /* its byte model, counted per element of one array */
    const char *byte_model; /* in words, stated next to every figure */
    void (*init)(const void *ctx, double *const *arrays, int64_t begin, int64_t end);
    void (*step)(const void *ctx, double *const *arrays, int64_t begin, int64_t end);
    const void *ctx;
    /* NULL, or after the timed sweeps: how many elements of [begin, end) of any array do not
     * hold what the sweeps should have left (STREAM's check); summed by the engine. */
    int64_t (*check)(const void *ctx, double *const *arrays, int64_t begin, int64_t end);
};

/* The kernels the engine times. chase_line is the bytes of one chase element (TS_CHASE_LINE). */
struct ts_numa_probes {
    size_t chase_line;
    void (*chase_build)(void *buf, size_t n, uint64_t seed);
    size_t (*chase_run)(const void *buf, size_t start, uint64_t steps);
    struct ts_numa_stream read;  /* sum */
    struct ts_numa_stream triad; /* a = b + s c */
};

/* Where a buffer's pages were, counted after its first touch (ts_placement_audit). */
struct ts_numa_placement {
    int64_t pages;        /* pages asked about (of page_size) */
    int64_t pages_on_mem; /* on the memory node asked for */
    double fraction;      /* pages_on_mem / pages; NaN when nothing was counted */
    int misplaced;        /* 1 when fraction < 1: the cell's number is not the memory node's */
    int64_t page_size;    /* bytes per counted page: 2 MiB only when every block was huge */
};

/* Idle latency of one buffer: ns per step of the chase, best and median of the repetitions. */
struct ts_numa_latency {
    int measured;                /* 0: not measured (why in note) */
    int64_t bytes;               /* the chase buffer */
    int64_t steps;               /* chase steps per repetition */
    int64_t requested_page_size; /* 4 KiB (MADV_NOHUGEPAGE) or 2 MiB (MADV_HUGEPAGE) */
    int huge_granted;            /* asked 2 MiB: 1 when every block was a huge page, else 0 */
    double ns_best, ns_median;
    struct ts_numa_placement placement;
    char note[256]; /* "2 MiB pages asked, not granted ...", "LLC size unknown ...";
                       "" when nothing to say */
};

/* Bandwidth of one stream kernel by the threads of the CPU node. */
struct ts_numa_bandwidth {
    int measured;
    int64_t bytes_per_array;
    int threads;
    double gbs_best, gbs_median;                  /* 1e9 bytes/s by the byte model */
    int repetitions;                              /* timed sweeps (the warm-up not counted) */
    double seconds_min, seconds_avg, seconds_max; /* of one timed sweep, as STREAM prints them */
    double seconds_touch;                         /* the first touch (init) of the arrays, s */
    int checked;                                  /* 1: the kernel's check ran on every element */
    int64_t check_failures;                       /* elements it found off; 0 when unchecked */
    const char *byte_model;
    struct ts_numa_placement placement;
    char note[256];
};

struct ts_numa_cell {
    int cpu_node, mem_node;                /* OS indices */
    char cpus[256];                        /* the CPUs the measuring threads were bound to, one per core */
    int threads;                           /* how many */
    struct ts_numa_latency latency_base;   /* 4 KiB pages */
    struct ts_numa_latency latency_huge;   /* 2 MiB pages when granted (see huge_granted) */
    struct ts_numa_bandwidth read, triad;  /* sum; a = b + s c */
    struct ts_numa_latency latency_loaded; /* the chase (4 KiB pages) while the other threads of
                                              the cell read their own buffers on mem_node;
                                              not measured with one thread */
    int misplaced;                         /* any of the above misplaced: the cell is marked */
};

/* What to measure; zero fields choose (ts_numa_matrix_measure says how). */
struct ts_numa_options {
    int64_t chase_bytes;  /* 0: 8x the LLC of the CPU node, at least 64 MiB */
    int64_t stream_bytes; /* per array; 0: as chase_bytes */
    int64_t chase_steps;  /* per repetition; 0: as many as the buffer has lines, at least 2^20 */
    int repetitions;      /* 0: 5; the best and the median are kept */
    uint64_t seed;        /* of the chase's cycle */
    int skip_huge, skip_bandwidth, skip_loaded;
};

struct ts_numa_matrix {
    int n_cpu_nodes, n_mem_nodes;
    int *cpu_nodes;            /* OS indices of the nodes with allowed CPUs */
    int *mem_nodes;            /* OS indices of the nodes with memory this process may use */
    struct ts_numa_cell *cell; /* [n_cpu_nodes][n_mem_nodes], row by CPU node */
    int64_t llc_bytes;         /* the largest LLC the sizes came from; 0 when hwloc knows none (the
                                  64 MiB floor then; the latency notes say it may be in cache) */
    int64_t memory_cap;        /* the most one buffer set may take, from free memory and limits */
    char thp_mode[32];         /* /sys/kernel/mm/transparent_hugepage/enabled */
    int misplaced_cells;
};

/* Measures every cell on this machine's topology (TS_BAD_INPUT for a described one: nothing of
 * it can be bound to). Sizes: chase and stream buffers of 8x the LLC of the CPU node (64 MiB
 * when hwloc knows no cache), at least 64 MiB, at most the free memory of the memory node and
 * what the memory limits leave, shared by the buffers one measurement holds at once. The
 * calling thread's binding is restored when done. TS_RESOURCE_ERROR when memory, mbind or
 * move_pages fail; out is then freed. */
int ts_numa_matrix_measure(const ts_topology *topo, const struct ts_numa_probes *probes,
                           const struct ts_numa_options *opt, struct ts_numa_matrix *out, struct ts_error *err);
void ts_numa_matrix_free(struct ts_numa_matrix *m);

/* One idle-latency measurement: a chase over bytes (rounded down to whole lines) on mem_node,
 * run by one thread bound to the first allowed CPU of cpu_node, with huge (1) or base (0)
 * pages; steps and repetitions as in ts_numa_options (0 chooses). For the matrix, and for a
 * buffer of a chosen size (one inside L1 against one past the LLC). */
int ts_numa_latency_measure(const ts_topology *topo, const struct ts_numa_probes *probes, int cpu_node, int mem_node,
                            int64_t bytes, int huge, int64_t steps, int repetitions, uint64_t seed,
                            struct ts_numa_latency *out, struct ts_error *err);

/* Bandwidth of kernel k by n threads bound to cpus[0..n) (one each), its arrays of bytes each
 * (rounded down to whole doubles) bound to mem_node with 2 MiB pages asked, first touched by
 * the threads in the shares they sweep, their pages counted after: the best and median of
 * repetitions timed sweeps (0: 5) after a warm-up, barrier to barrier. For the matrix's cells
 * and the survey's sections (a kernel whose step sweeps its share several times for a buffer
 * that a single sweep would cross too fast to time says so in bytes_per_elem). */
int ts_numa_bandwidth_measure(const ts_topology *topo, const struct ts_numa_stream *k, const int *cpus, int n,
                              int mem_node, int64_t bytes, int repetitions, struct ts_numa_bandwidth *out,
                              struct ts_error *err);

/* What one measurement's buffers may take on mem_node, in bytes: half the node's free memory
 * and of the least room any memory limit leaves (the matrix's own cap). */
int64_t ts_numa_memory_cap(int mem_node);

/* The NUMA nodes (OS indices) with allowed CPUs, and those with memory this process may use,
 * each up to max; returns how many NUMA nodes hwloc knows (at least the most either list can
 * hold, to size them). */
int ts_numa_list_nodes(const ts_topology *topo, int *cpu_nodes, int *n_cpu_nodes, int *mem_nodes, int *n_mem_nodes,
                       int max);

/* The allowed CPUs of NUMA node os_index, the first of each core (every allowed CPU when hwloc
 * knows no cores), up to max; returns how many. */
int ts_numa_node_cpus(const ts_topology *topo, int os_index, int *cpus, int max);

#endif

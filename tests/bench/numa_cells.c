/* The NUMA matrix engine (topo/ts_numa_matrix.h) measured for bench/run.sh, with the kernels
 * the survey hands it (kernels/ts_chase.h, the kernel table's fast sum and triad). Here and not
 * in bench/: it links ts_topo and ts_kernels, which bench/ may not (layers.txt). Built on
 * request (cmake --build BUILD --target bench_numa_cells); no CTest of its own.
 *
 *     bench_numa_cells cells BYTES_PER_ARRAY REPETITIONS
 *         every cell's read (sum) and triad bandwidth, one line each:
 *         cell CPU_NODE MEM_NODE threads T cpus LIST read MEDIAN BEST triad MEDIAN BEST
 *             bytes B placed READ_FRACTION TRIAD_FRACTION
 *     bench_numa_cells latency BYTES STEPS REPETITIONS CPU_NODE MEM_NODE
 *         ts_numa_latency_measure with 4 KiB pages:
 *         latency MEDIAN_NS BEST_NS bytes B steps S placed FRACTION
 *
 * GB/s are 1e9 bytes/s by the kernels' byte models (sum 8 B, triad 24 B per element), the
 * median and the best of REPETITIONS timed sweeps. Exit 2 when the engine fails. */
#include "ts_chase.h"
#include "ts_error.h"
#include "ts_kernel_probe.h"
#include "ts_numa_matrix.h"
#include "ts_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As the survey hands them over (app/survey_matrix.c): kernels/ts_chase.h and the kernel
 * table's fast sum and triad. */
static struct ts_numa_probes probes(void)
{
    static struct ts_kernel_probe sum, triad;
    ts_kernel_probe_setup(&sum, TS_KERNEL_SUM);
    ts_kernel_probe_setup(&triad, TS_KERNEL_TRIAD);
    struct ts_numa_probes p = {
        .chase_line = TS_CHASE_LINE,
        .chase_build = ts_chase_build,
        .chase_run = ts_chase_run,
        .read = { "sum", 1, sum.kernel->bytes_per_unit, sum.kernel->byte_model, ts_kernel_probe_init,
                  ts_kernel_probe_step, &sum, NULL },
        .triad = { "triad", 3, triad.kernel->bytes_per_unit, triad.kernel->byte_model, ts_kernel_probe_init,
                   ts_kernel_probe_step, &triad, NULL },
    };
    return p;
}

static int usage(const char *self)
{
    fprintf(stderr,
            "usage: %s cells BYTES_PER_ARRAY REPETITIONS\n"
            "       %s latency BYTES STEPS REPETITIONS CPU_NODE MEM_NODE\n",
            self, self);
    return 2;
}

static int cells(const ts_topology *topo, const struct ts_numa_probes *p, int64_t bytes, int repetitions,
                 struct ts_error *err)
{
    /* Bandwidth only: the chase the engine always runs is kept small and short. */
    struct ts_numa_options opt = { .chase_bytes = 1 << 20,
                                   .chase_steps = 1 << 16,
                                   .stream_bytes = bytes,
                                   .repetitions = repetitions,
                                   .seed = 1,
                                   .skip_huge = 1,
                                   .skip_loaded = 1 };
    struct ts_numa_matrix m;
    if (ts_numa_matrix_measure(topo, p, &opt, &m, err) != TS_OK)
        return 2;
    for (int i = 0; i < m.n_cpu_nodes * m.n_mem_nodes; i++) {
        const struct ts_numa_cell *c = &m.cell[i];
        printf("cell %d %d threads %d cpus %s read %.4f %.4f triad %.4f %.4f bytes %lld placed %.4f %.4f\n",
               c->cpu_node, c->mem_node, c->threads, c->cpus, c->read.gbs_median, c->read.gbs_best, c->triad.gbs_median,
               c->triad.gbs_best, (long long)c->read.bytes_per_array, c->read.placement.fraction,
               c->triad.placement.fraction);
    }
    ts_numa_matrix_free(&m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(argv[0]);
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    if (ts_topology_create(&topo, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
        return 2;
    }
    struct ts_numa_probes p = probes();
    int status = 0;
    if (strcmp(argv[1], "cells") == 0 && argc == 4) {
        status = cells(topo, &p, strtoll(argv[2], NULL, 10), atoi(argv[3]), &err);
    } else if (strcmp(argv[1], "latency") == 0 && argc == 7) {
        struct ts_numa_latency l;
        if (ts_numa_latency_measure(topo, &p, atoi(argv[5]), atoi(argv[6]), strtoll(argv[2], NULL, 10), 0,
                                    strtoll(argv[3], NULL, 10), atoi(argv[4]), 1, &l, &err)
            != TS_OK) {
            status = 2;
        } else if (!l.measured) {
            snprintf(err.message, sizeof err.message, "latency not measured: %s", l.note);
            status = 2;
        } else {
            printf("latency %.3f %.3f bytes %lld steps %lld placed %.4f\n", l.ns_median, l.ns_best, (long long)l.bytes,
                   (long long)l.steps, l.placement.fraction);
        }
    } else {
        status = usage(argv[0]);
    }
    if (status == 2 && err.message[0])
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
    ts_topology_destroy(topo);
    return status;
}

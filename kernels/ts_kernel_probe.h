/* A 1D kernel of the table (sum, triad) as a bandwidth probe over elements [begin, end) of
 * its arrays, on the calling thread: the shape topo/ts_numa_matrix.h's struct ts_numa_stream
 * takes (init, step, ctx), so that the NUMA matrix times the very kernels run times. One for
 * the survey (app/survey_matrix.c), the engine's tests and the bench program. */
#ifndef TOUCHSTONE_KERNELS_TS_KERNEL_PROBE_H
#define TOUCHSTONE_KERNELS_TS_KERNEL_PROBE_H

#include <stdint.h>

#include "ts_kernel.h"

struct ts_kernel_probe {
    const struct ts_kernel *kernel;
    struct ts_problem problem;
};

/* sum in its fast mode (one deposit per sweep: nothing but the loads is timed), or triad;
 * -1 for another kernel. */
int ts_kernel_probe_setup(struct ts_kernel_probe *p, enum ts_kernel_id id);

/* ctx is a struct ts_kernel_probe. init writes the arrays' elements (their first touch);
 * step is one sweep over them. */
void ts_kernel_probe_init(const void *ctx, double *const *arrays, int64_t begin, int64_t end);
void ts_kernel_probe_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end);

#endif

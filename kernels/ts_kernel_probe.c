#include "ts_kernel_probe.h"

#include <string.h>

#include "ts_xsum.h"

/* The sum of a sweep goes here, so the compiler cannot drop the loads. */
static volatile double probe_sink;

int ts_kernel_probe_setup(struct ts_kernel_probe *p, enum ts_kernel_id id)
{
    memset(p, 0, sizeof *p);
    if (id == TS_KERNEL_SUM)
        p->problem = (struct ts_problem){ .kernel = TS_KERNEL_SUM, .seed = 1, .sum_mode = TS_SUM_FAST };
    else if (id == TS_KERNEL_TRIAD)
        p->problem = (struct ts_problem){ .kernel = TS_KERNEL_TRIAD, .seed = 1, .scalar = 3.0 };
    else
        return -1;
    p->kernel = ts_kernel_get(id);
    return p->kernel ? 0 : -1;
}

void ts_kernel_probe_init(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_kernel_probe *p = ctx;
    p->kernel->init(&p->problem, arrays, (struct ts_range){ .begin = begin, .end = end });
}

void ts_kernel_probe_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_kernel_probe *p = ctx;
    struct ts_xsum partial;
    ts_xsum_init(&partial);
    p->kernel->step(&p->problem, arrays, (struct ts_range){ .begin = begin, .end = end }, 1, &partial);
    if (p->kernel->id == TS_KERNEL_SUM)
        probe_sink = ts_xsum_round(&partial);
}

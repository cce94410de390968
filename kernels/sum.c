/* sum: reduction of one large array of counter-hashed values in [0, 1). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "block_sum.h"
#include "hash.h"
#include "kernels_internal.h"

enum { SUM_STREAM = 0 };

static int sum_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    int rc = ts_plan_1d(pb, "sum", 1, plan, why, why_len);
    if (pb->sum_mode == TS_SUM_FAST)
        snprintf(plan->variant, sizeof plan->variant,
                 "fast: each thread's chunk in %d fixed-order lanes, deposited once (depends on the thread count)",
                 TS_BLOCK_LANES);
    else
        snprintf(plan->variant, sizeof plan->variant,
                 "reproducible: %d-element blocks in %d lanes, each deposited exactly", TS_SUM_BLOCK, TS_BLOCK_LANES);
    return rc;
}

static void sum_init(const struct ts_problem *pb, double *const *arrays, struct ts_range r)
{
    double *restrict x = arrays[0];
    for (int64_t i = r.begin; i < r.end; i++)
        x[i] = ts_hash_unit(pb->seed, SUM_STREAM, (uint64_t)i);
}

static void sum_step(const struct ts_problem *pb, double *const *arrays, struct ts_range r, int64_t step,
                     struct ts_xsum *partial)
{
    (void)step;
    if (pb->sum_mode == TS_SUM_FAST)
        ts_xsum_add(partial, ts_block_sum(arrays[0] + r.begin, r.end - r.begin));
    else
        ts_block_sum_range(arrays[0], r.begin, r.end, partial);
}

static void sum_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps, double result,
                       struct ts_verification *out)
{
    (void)arrays;
    (void)steps;
    struct ts_compensated expected = ts_compensated_hash_sum(pb->seed, SUM_STREAM, 0.0, 0, pb->n);
    /* A fast sum's lanes run through a whole chunk, at most all n elements on one thread. */
    int64_t block = pb->sum_mode == TS_SUM_FAST ? pb->n : TS_SUM_BLOCK;
    ts_verify_sum(out, expected.sum, expected.abs_sum, result, pb->n, block, 0.0, "sum of x[i]");
}

const struct ts_kernel ts_kernel_sum = {
    .id = TS_KERNEL_SUM,
    .name = "sum",
    .unit = "element",
    .bytes_per_unit = 8.0,
    .flops_per_unit = 1.0,
    .byte_model = "8 B/element (one read of x)",
    .result_name = "sum of x",
    .plan = sum_plan,
    .init = sum_init,
    .step = sum_step,
    .result = NULL,
    .verify = sum_verify,
};

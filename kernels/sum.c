/* sum: reduction of one large array of counter-hashed values in [0, 1). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_sum.h"
#include "hash.h"
#include "kernels_internal.h"

enum { SUM_STREAM = 0 };

/* The vector variant the CPU picked (block_sum.h), for the record: the bits never depend on it,
 * the speed does. */
static const char *lanes_variant(int reproducible)
{
    if (!ts_block_sum_wide())
        return reproducible ? "portable vectors, one block at a time (no AVX-512 at run time)"
                            : "portable vectors (no AVX-512 at run time)";
    return reproducible ? "AVX-512, 4 blocks side by side (found at run time)"
                        : "AVX-512, prefetch if a chunk <= 16 MiB (found at run time)";
}

static int sum_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    int rc = ts_plan_1d(pb, "sum", 1, plan, why, why_len);
    if (pb->sum_mode == TS_SUM_FAST)
        snprintf(plan->variant, sizeof plan->variant,
                 "fast: each thread's chunk in %d fixed-order lanes, deposited once (depends on the thread count); %s",
                 TS_BLOCK_LANES, lanes_variant(0));
    else
        snprintf(plan->variant, sizeof plan->variant,
                 "reproducible: %d-element blocks in %d lanes, deposited exactly; %s", TS_SUM_BLOCK, TS_BLOCK_LANES,
                 lanes_variant(1));
    return rc;
}

static void sum_init(const struct ts_problem *pb, double *const *arrays, struct ts_range r)
{
    double *restrict x = arrays[0];
    const uint64_t origin = (uint64_t)pb->part.origin[0]; /* global index of x[0]; 0 for the whole problem */
    for (int64_t i = r.begin; i < r.end; i++)
        x[i] = ts_hash_unit(pb->seed, SUM_STREAM, origin + (uint64_t)i);
}

static void sum_step(const struct ts_problem *pb, double *const *arrays, struct ts_range r, int64_t step,
                     struct ts_xsum *partial)
{
    (void)step;
    /* Blocks count from local index 0. A rank's slice starts on a multiple of the thread
     * partition's granule (ts_decomp_slice), itself a multiple of TS_SUM_BLOCK, so local block
     * boundaries are the global ones and each rank deposits exactly the whole run's blocks. */
    if (pb->sum_mode == TS_SUM_FAST)
        ts_xsum_add(partial, ts_block_sum(arrays[0] + r.begin, r.end - r.begin));
    else
        ts_block_sum_range(arrays[0], r.begin, r.end, partial);
}

static void sum_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps, double result,
                       struct ts_verification *out)
{
    (void)steps;
    const int part = ts_is_part(pb);
    if (part && !pb->part.checks_result) {
        ts_verify_not_judged(out, result);
    } else {
        /* The combined result is the whole problem's, over all ranks. */
        const int64_t n = part ? pb->part.whole[0] : pb->n;
        struct ts_compensated expected = ts_compensated_hash_sum(pb->seed, SUM_STREAM, 0.0, 0, n);
        /* A fast sum's lanes run through a whole chunk, at most all n elements on one thread. */
        int64_t block = pb->sum_mode == TS_SUM_FAST ? n : TS_SUM_BLOCK;
        ts_verify_sum(out, expected.sum, expected.abs_sum, result, n, block, 0.0, "sum of x[i]");
    }
    if (!part)
        return;

    /* A part also answers for its own elements: still the hashed values at their global index. */
    const double *x = arrays[0];
    const int64_t begin = pb->part.own_begin[0], end = pb->part.own_end[0];
    const uint64_t origin = (uint64_t)pb->part.origin[0];
    int64_t failures = 0;
#pragma omp parallel for schedule(static) reduction(+ : failures)
    for (int64_t i = begin; i < end; i++)
        if (x[i] != ts_hash_unit(pb->seed, SUM_STREAM, origin + (uint64_t)i))
            failures++;
    out->checked += end - begin;
    out->failures += failures;
    out->passed = out->passed && failures == 0;
    size_t used = strlen(out->method);
    snprintf(out->method + used, sizeof out->method - used, "; this part's x[i] unchanged");
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

/* Shared by the 1D kernels (sum, triad): plan, independent reference sums, verification. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "block_sum.h"
#include "hash.h"
#include "kernels_internal.h"

static void neumaier_add(long double *sum, long double *comp, long double x)
{
    long double t = *sum + x;
    if (fabsl(*sum) >= fabsl(x))
        *comp += (*sum - t) + x;
    else
        *comp += (x - t) + *sum;
    *sum = t;
}

struct ts_compensated ts_compensated_hash_sum(uint64_t seed, uint64_t stream_a, double scale_b, uint64_t stream_b,
                                              int64_t n)
{
    int max_threads = omp_get_max_threads();
    long double part_sum[max_threads];
    long double part_abs[max_threads];
    int used = 1;

#pragma omp parallel
    {
        int t = omp_get_thread_num();
        int nt = omp_get_num_threads();
        int64_t begin = n * t / nt, end = n * (t + 1) / nt;
        long double sum = 0.0L, comp = 0.0L, abs_sum = 0.0L;
        for (int64_t i = begin; i < end; i++) {
            long double v = ts_hash_unit(seed, stream_a, (uint64_t)i);
            if (scale_b != 0.0)
                v += (long double)scale_b * ts_hash_unit(seed, stream_b, (uint64_t)i);
            neumaier_add(&sum, &comp, v);
            abs_sum += fabsl(v);
        }
        part_sum[t] = sum + comp;
        part_abs[t] = abs_sum;
        if (t == 0)
            used = nt;
    }

    long double sum = 0.0L, comp = 0.0L, abs_sum = 0.0L;
    for (int t = 0; t < used; t++) {
        neumaier_add(&sum, &comp, part_sum[t]);
        abs_sum += part_abs[t];
    }
    return (struct ts_compensated){ sum + comp, abs_sum };
}

void ts_verify_sum(struct ts_verification *out, long double expected, long double abs_sum, double observed, int64_t n,
                   int64_t block, double extra_roundings, const char *what)
{
    /* Block sums are exact up to their fixed-order rounding; their exact accumulation
     * rounds once at the end. The long-double reference is good to ~2^-60 relative. */
    double block_factor = ts_block_sum_error_factor(n < block ? n : block);
    double u = TS_UNIT_ROUNDOFF;
    double tolerance = (double)(((long double)(block_factor + extra_roundings) * u + 0x1.0p-60L) * abs_sum)
                       + u * fabs((double)expected);

    out->expected = (double)expected;
    out->observed = observed;
    out->error = fabs((double)((long double)observed - expected));
    out->tolerance = tolerance;
    out->passed = out->error <= tolerance && isfinite(observed);
    out->checked = 1;
    out->failures = !out->passed;
    snprintf(out->method, sizeof out->method,
             "%s against a long-double compensated sum of the hashed values; tolerance "
             "(%g + %g) u sum|x| + u |sum| for blocks of up to %lld elements summed in fixed order",
             what, block_factor, extra_roundings, (long long)(n < block ? n : block));
}

int ts_plan_1d(const struct ts_problem *pb, const char *name, int n_arrays, struct ts_plan *plan, char *why,
               size_t why_len)
{
    /* A rank's slice may be empty: ts_decomp_slice leaves trailing ranks nothing when there are
     * fewer granules than ranks. */
    if (pb->n < (ts_is_part(pb) ? 0 : 1)) {
        snprintf(why, why_len, "%s needs at least 1 element, got %lld", name, (long long)pb->n);
        return 1;
    }
    if (ts_is_part(pb) && ts_part_check(pb, name, 1, (const int64_t[3]){ pb->n, 1, 1 }, why, why_len))
        return 1;
    *plan = (struct ts_plan){
        .n_arrays = n_arrays,
        .array_elems = pb->n,
        .items = pb->n,
        .elems_per_item = 1,
        .granule_multiple = TS_SUM_BLOCK,
        .units_per_step = pb->n,
    };
    return 0;
}

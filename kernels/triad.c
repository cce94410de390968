/* triad: a = b + scalar * c, STREAM's bandwidth reference. */
#include <math.h>
#include <stdio.h>

#include "block_sum.h"
#include "hash.h"
#include "kernels_internal.h"
#include "stream_store.h"

enum { TRIAD_STREAM_B = 1, TRIAD_STREAM_C = 2 };

static int triad_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    int rc = ts_plan_1d(pb, "triad", 3, plan, why, why_len);
    snprintf(plan->variant, sizeof plan->variant, "%s",
             pb->nontemporal ? "streaming stores of a" : "cached stores of a (write-allocate)");
    return rc;
}

static void triad_init(const struct ts_problem *pb, double *const *arrays, struct ts_range r)
{
    double *restrict a = arrays[0];
    double *restrict b = arrays[1];
    double *restrict c = arrays[2];
    const uint64_t origin = (uint64_t)pb->part.origin[0]; /* global index of element 0; 0 for the whole problem */
    for (int64_t i = r.begin; i < r.end; i++) {
        a[i] = 0.0;
        b[i] = ts_hash_unit(pb->seed, TRIAD_STREAM_B, origin + (uint64_t)i);
        c[i] = ts_hash_unit(pb->seed, TRIAD_STREAM_C, origin + (uint64_t)i);
    }
}

static void triad_step(const struct ts_problem *pb, double *const *arrays, struct ts_range r, int64_t step,
                       struct ts_xsum *partial)
{
    (void)step;
    (void)partial;
    double *restrict a = arrays[0];
    const double *restrict b = arrays[1];
    const double *restrict c = arrays[2];
    const double s = pb->scalar;
    if (!pb->nontemporal) {
        for (int64_t i = r.begin; i < r.end; i++)
            a[i] = b[i] + s * c[i];
        return;
    }
    /* The strip stays in L1; only a is streamed, so it never costs a write-allocate read. */
    _Alignas(64) double strip[TS_STREAM_STRIP];
    for (int64_t i0 = r.begin; i0 < r.end; i0 += TS_STREAM_STRIP) {
        int64_t len = r.end - i0 < TS_STREAM_STRIP ? r.end - i0 : TS_STREAM_STRIP;
        for (int64_t i = 0; i < len; i++)
            strip[i] = b[i0 + i] + s * c[i0 + i];
        ts_stream_store(a + i0, strip, len);
    }
    ts_stream_fence();
}

static void triad_result(const struct ts_problem *pb, double *const *arrays, struct ts_range r, int64_t steps,
                         struct ts_xsum *partial)
{
    (void)pb;
    (void)steps;
    /* Blocks count from local index 0: a rank's slice starts on a block boundary of the global
     * array (ts_decomp_slice with the thread granule), so its blocks are the whole run's. */
    ts_block_sum_range(arrays[0], r.begin, r.end, partial);
}

static void triad_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps, double result,
                         struct ts_verification *out)
{
    const double *a = arrays[0];
    const double *b = arrays[1];
    const double *c = arrays[2];
    const double s = pb->scalar;
    /* a[i] is one multiply and one add of exact inputs: at most 2 roundings of |b| + |s c|. */
    const double rel = 2.0 * TS_UNIT_ROUNDOFF;
    int64_t failures = 0;
    double max_error = 0.0;
    /* A part checks the elements it owns, at their global index; the whole problem all of them. */
    const int part = ts_is_part(pb);
    const int64_t begin = part ? pb->part.own_begin[0] : 0, end = part ? pb->part.own_end[0] : pb->n;
    const uint64_t origin = (uint64_t)pb->part.origin[0];

#pragma omp parallel for schedule(static) reduction(+ : failures) reduction(max : max_error)
    for (int64_t i = begin; i < end; i++) {
        double bi = ts_hash_unit(pb->seed, TRIAD_STREAM_B, origin + (uint64_t)i);
        double ci = ts_hash_unit(pb->seed, TRIAD_STREAM_C, origin + (uint64_t)i);
        double want = steps > 0 ? bi + s * ci : 0.0;
        double err = fabs(a[i] - want);
        if (err > rel * (fabs(bi) + fabs(s * ci)) || b[i] != bi || c[i] != ci)
            failures++;
        if (err > max_error)
            max_error = err;
    }

    if (part && !pb->part.checks_result) {
        ts_verify_not_judged(out, result);
    } else {
        /* The combined result is the whole problem's, over all ranks. */
        const int64_t n = part ? pb->part.whole[0] : pb->n;
        struct ts_compensated expected = steps > 0
                                             ? ts_compensated_hash_sum(pb->seed, TRIAD_STREAM_B, s, TRIAD_STREAM_C, n)
                                             : (struct ts_compensated){ 0.0, 0.0 };
        ts_verify_sum(out, expected.sum, expected.abs_sum, result, n, TS_SUM_BLOCK, 2.0, "sum of a[i]");
    }
    out->checked += end - begin;
    out->failures += failures;
    out->passed = out->passed && failures == 0;
    snprintf(out->method + strlen(out->method), sizeof out->method - strlen(out->method),
             "; every a[i] against b[i] + s*c[i] from the hash (|err| <= 2u(|b|+|s c|), max %.3g), b and c unchanged",
             max_error);
}

const struct ts_kernel ts_kernel_triad = {
    .id = TS_KERNEL_TRIAD,
    .name = "triad",
    .unit = "element",
    .bytes_per_unit = 24.0,
    .flops_per_unit = 2.0,
    .byte_model = "24 B/element (read b and c, write a; write-allocate not counted, as STREAM)",
    .nt_bytes_per_unit = 24.0,
    .nt_byte_model = "24 B/element (read b and c, streaming store of a: no write-allocate)",
    .result_name = "sum of a",
    .plan = triad_plan,
    .init = triad_init,
    .step = triad_step,
    .result = triad_result,
    .verify = triad_verify,
};

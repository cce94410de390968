/* Shared by the kernel implementations; not part of the kernel interface. */
#ifndef TOUCHSTONE_KERNELS_KERNELS_INTERNAL_H
#define TOUCHSTONE_KERNELS_KERNELS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ts_kernel.h"

/* u = 2^-53, the unit roundoff of double. */
#define TS_UNIT_ROUNDOFF 0x1.0p-53

/* A long-double Neumaier sum and the sum of magnitudes (for error bounds). */
struct ts_compensated {
    long double sum;
    long double abs_sum;
};

/* Sum over i < n of hash(stream_a, i) + scale_b * hash(stream_b, i), in long double
 * with compensation, independent of the kernels' own summation. scale_b = 0 skips b. */
struct ts_compensated ts_compensated_hash_sum(uint64_t seed, uint64_t stream_a, double scale_b, uint64_t stream_b,
                                              int64_t n);

/* Fills out for a 1D reduction: observed against expected, with the tolerance of fixed-order
 * block sums of up to `block` elements deposited exactly, plus extra_roundings per element
 * (the rounding of values that are themselves computed) times abs_sum. */
void ts_verify_sum(struct ts_verification *out, long double expected, long double abs_sum, double observed, int64_t n,
                   int64_t block, double extra_roundings, const char *what);

/* The plan of a 1D kernel over n_arrays arrays of pb->n elements, partitioned by element in
 * multiples of TS_SUM_BLOCK (the reproducible block sums). */
int ts_plan_1d(const struct ts_problem *pb, const char *name, int n_arrays, struct ts_plan *plan, char *why,
               size_t why_len);

/* Whether pb is one rank's part of a problem spread over ranks (struct ts_problem_part). */
static inline int ts_is_part(const struct ts_problem *pb)
{
    return pb->part.whole[0] != 0;
}

/* Checks pb->part against the local sizes local[0..axes) of name's arrays (axes 1 for sum and
 * triad, 2 or 3 for the stencils; the other axes are not read): the global sizes hold the local
 * array at its origin, and the owned ranges lie in it. Returns 0, or non-zero with why. */
int ts_part_check(const struct ts_problem *pb, const char *name, int axes, const int64_t local[3], char *why,
                  size_t why_len);

/* Fills out for a part whose verify does not judge the combined result (another part does,
 * checks_result): expected NaN, observed the result, nothing checked or failed yet. */
void ts_verify_not_judged(struct ts_verification *out, double observed);

/* Time steps taken by `iterations` iterations: a stencil iteration is time_block steps. */
static inline int64_t ts_time_steps(const struct ts_problem *pb, int64_t iterations)
{
    return pb->time_block > 1 ? iterations * pb->time_block : iterations;
}

extern const struct ts_kernel ts_kernel_sum;
extern const struct ts_kernel ts_kernel_triad;
extern const struct ts_kernel ts_kernel_stencil2d;
extern const struct ts_kernel ts_kernel_stencil3d;

#endif

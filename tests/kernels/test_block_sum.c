/* The block sums (kernels/block_sum.c) against their definition, written here the plain scalar
 * way (32 strided lanes from +0.0, then the pairwise tree): the same bits from the variant the
 * CPU picks (AVX-512 when it has it) and from the portable one, for every length up to a few
 * blocks, ranges starting anywhere, and values chosen to break a reordering: subnormals, huge
 * and tiny values, cancellation, zeros of both signs, NaN and infinities. The reproducible sums
 * deposit the block sums in runs (ts_xsum_add_array): the accumulator must hold exactly what
 * one ts_xsum_add per block holds. The fast sum's prefetching AVX-512 loop (ts_block_sum) is
 * checked at every length through its loops' turns, at every offset within a cache line and on
 * both sides of the longest chunk it prefetches. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_sum.h"
#include "ts_kernel.h"
#include "ts_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The definition: lane j adds x[j], x[j + 32], ... in order; then lane[j] += lane[j + w]. */
static double reference(const double *x, int64_t len)
{
    double lane[TS_BLOCK_LANES] = { 0 };
    for (int64_t i = 0; i < len; i++)
        lane[i % TS_BLOCK_LANES] += x[i];
    for (int w = TS_BLOCK_LANES / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; j++)
            lane[j] += lane[j + w];
    return lane[0];
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The blocks of [begin, end) deposited one by one with the reference block sums. */
static double reference_range(const double *x, int64_t begin, int64_t end)
{
    struct ts_xsum acc;
    ts_xsum_init(&acc);
    for (int64_t start = begin; start < end;) {
        int64_t stop = (start / TS_SUM_BLOCK + 1) * TS_SUM_BLOCK;
        stop = stop < end ? stop : end;
        ts_xsum_add(&acc, reference(x + start, stop - start));
        start = stop;
    }
    return ts_xsum_round(&acc);
}

static double range_sum(const double *x, int64_t begin, int64_t end, int narrow)
{
    struct ts_xsum acc;
    ts_xsum_init(&acc);
    if (narrow)
        ts_block_sum_range_narrow(x, begin, end, &acc);
    else
        ts_block_sum_range(x, begin, end, &acc);
    return ts_xsum_round(&acc);
}

enum { N = 200 * TS_SUM_BLOCK + 77 };
static _Alignas(64) double x[N];

static void check_one(const char *kind, int64_t at, int64_t len)
{
    double want = reference(x + at, len);
    double wide = ts_block_sum(x + at, len), narrow = ts_block_sum_narrow(x + at, len);
    if (!same_bits(wide, want) && !(isnan(wide) && isnan(want)))
        FAIL("%s: ts_block_sum of %lld values at %lld is %a, the definition %a", kind, (long long)len, (long long)at,
             wide, want);
    if (!same_bits(narrow, want) && !(isnan(narrow) && isnan(want)))
        FAIL("%s: the portable block sum of %lld values at %lld is %a, the definition %a", kind, (long long)len,
             (long long)at, narrow, want);
}

/* The whole-chunk sum (the fast sum) has loops of 2 x TS_BLOCK_LANES elements while its prefetch
 * stays inside the array, then of TS_BLOCK_LANES, then a tail: every length through two turns
 * of each, at every offset within a cache line, and long runs with every remainder of the
 * unrolled loop. */
static void check_whole(const char *kind)
{
    const int64_t turns = 2 * (2 * TS_BLOCK_LANES) + TS_BLOCK_SUM_AHEAD + TS_BLOCK_LANES;
    for (int64_t at = 0; at < 8; at++)
        for (int64_t len = 0; len <= turns; len++)
            check_one(kind, at, len);
    for (int64_t rest = 0; rest < 2 * TS_BLOCK_LANES; rest++)
        check_one(kind, rest % 8, 100 * TS_SUM_BLOCK + rest);
}

/* Chunks on both sides of TS_BLOCK_SUM_PREFETCH_MAX, where the AVX-512 variant stops
 * prefetching: the same definition either way. */
static void check_prefetch_bound(void)
{
    const int64_t max = TS_BLOCK_SUM_PREFETCH_MAX, n = max + 64;
    double *big = malloc((size_t)n * sizeof *big);
    if (!big) {
        FAIL("no memory for %lld doubles", (long long)n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        big[i] = (double)(next() >> 11) * 0x1p-53 - 0.5;
    const int64_t lens[] = { max - 1, max, max + 1, max + 37 };
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        double want = reference(big + 3, lens[k]), got = ts_block_sum(big + 3, lens[k]);
        if (!same_bits(got, want))
            FAIL("ts_block_sum of %lld values (the prefetch bound %lld) is %a, the definition %a", (long long)lens[k],
                 (long long)max, got, want);
    }
    free(big);
}

/* Values of one kind: the sums of every length and range over them. */
static void check_kind(const char *kind)
{
    for (int64_t len = 0; len <= 3 * TS_SUM_BLOCK + 1; len += len < 70 ? 1 : 37)
        check_one(kind, (int64_t)(next() % 1000), len);
    check_whole(kind);
    /* Ranges on and off block boundaries, long enough for several runs of deposits. */
    const int64_t ends[][2] = { { 0, N },
                                { 0, 4 * TS_SUM_BLOCK },
                                { TS_SUM_BLOCK, 9 * TS_SUM_BLOCK + 3 },
                                { 5, N - 5 },
                                { 3 * TS_SUM_BLOCK - 1, 3 * TS_SUM_BLOCK + 1 },
                                { 7, 7 } };
    for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
        double want = reference_range(x, ends[k][0], ends[k][1]);
        for (int narrow = 0; narrow <= 1; narrow++) {
            double got = range_sum(x, ends[k][0], ends[k][1], narrow);
            if (!same_bits(got, want) && !(isnan(got) && isnan(want)))
                FAIL("%s: %s range sum of [%lld, %lld) is %a, block by block %a", kind,
                     narrow ? "the portable" : "the chosen", (long long)ends[k][0], (long long)ends[k][1], got, want);
        }
    }
}

int main(void)
{
    for (int64_t i = 0; i < N; i++)
        x[i] = (double)(next() >> 11) * 0x1p-53;
    check_kind("values in [0, 1)");

    for (int64_t i = 0; i < N; i++) {
        uint64_t r = next();
        double v = ldexp((double)(r >> 11) * 0x1p-53, (int)(r % 600) - 300);
        x[i] = (r >> 10) & 1 ? -v : v;
    }
    check_kind("signs and exponents mixed");

    for (int64_t i = 0; i < N; i++) {
        static const double odd[] = {
            0x1p-1074, -0x1p-1074, 0x1.8p-1022, -0.0, 0.0, 0x1p1000, -0x1p1000, 1.0, 0x1p-60
        };
        x[i] = odd[next() % (sizeof odd / sizeof odd[0])];
    }
    check_kind("subnormals, cancellation, signed zeros");

    for (int64_t i = 0; i < N; i++)
        x[i] = -0.0;
    check_kind("only -0.0");

    for (int64_t i = 0; i < N; i++)
        x[i] = (double)(i % 7);
    x[N / 3] = INFINITY;
    x[N / 2] = NAN;
    check_kind("NaN and infinity");

    check_prefetch_bound();

    printf("block sums: the %s variant and the portable one agree with the definition\n",
           ts_block_sum_wide() ? "AVX-512" : "portable");
    return ts_test_finish();
}

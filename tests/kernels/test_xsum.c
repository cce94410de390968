/* The exact accumulator: exact sums, correct rounding, and results that do not depend on
 * the order of deposits or on how they were split and merged. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ts_test.h"
#include "ts_xsum.h"

static double sum_of(const double *x, int n)
{
    struct ts_xsum acc;
    ts_xsum_init(&acc);
    for (int i = 0; i < n; i++)
        ts_xsum_add(&acc, x[i]);
    return ts_xsum_round(&acc);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static uint64_t rng = 88172645463325252u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    /* Exactness where plain double addition loses everything. */
    double cancel[] = { 1e16, 1.0, -1e16 };
    CHECK(sum_of(cancel, 3) == 1.0, "1e16 + 1 - 1e16 gave %.17g", sum_of(cancel, 3));
    double big_small[] = { 0x1p1000, 0x1p-1000, -0x1p1000 };
    CHECK(sum_of(big_small, 3) == 0x1p-1000, "2^1000 + 2^-1000 - 2^1000 gave %a", sum_of(big_small, 3));
    double zero[] = { 3.5, -1.25, -2.25 };
    CHECK(sum_of(zero, 3) == 0.0, "exact cancellation gave %a", sum_of(zero, 3));
    CHECK(sum_of(zero, 0) == 0.0, "empty sum gave %a", sum_of(zero, 0));

    /* Round to nearest, ties to even, with the sticky bits far below. */
    double tie_even[] = { 1.0, 0x1p-53 };
    CHECK(sum_of(tie_even, 2) == 1.0, "1 + 2^-53 must round to even 1, got %a", sum_of(tie_even, 2));
    double tie_odd[] = { 1.0 + 0x1p-52, 0x1p-53 };
    CHECK(sum_of(tie_odd, 2) == 1.0 + 0x1p-51, "(1+2^-52) + 2^-53 must round to even 1+2^-51, got %a",
          sum_of(tie_odd, 2));
    double above_tie[] = { 1.0, 0x1p-53, 0x1p-300 };
    CHECK(sum_of(above_tie, 3) == 1.0 + 0x1p-52, "1 + 2^-53 + 2^-300 must round up, got %a", sum_of(above_tie, 3));
    double below_tie[] = { 1.0, 0x1p-53, -0x1p-300 };
    CHECK(sum_of(below_tie, 3) == 1.0, "1 + 2^-53 - 2^-300 must round down, got %a", sum_of(below_tie, 3));
    double negative[] = { -1.0, -0x1p-53, -0x1p-300 };
    CHECK(sum_of(negative, 3) == -(1.0 + 0x1p-52), "negative rounding is not symmetric: %a", sum_of(negative, 3));

    /* Extremes: subnormals stay exact, overflow goes to infinity, specials propagate. */
    double subnormal[] = { 0x1p-1074, 0x1p-1074, 0x1p-1070 };
    CHECK(sum_of(subnormal, 3) == 0x1p-1073 + 0x1p-1070, "subnormal sum gave %a", sum_of(subnormal, 3));
    double overflow[] = { 0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023 };
    CHECK(isinf(sum_of(overflow, 2)) && sum_of(overflow, 2) > 0, "DBL_MAX + DBL_MAX gave %a", sum_of(overflow, 2));
    double back_in_range[] = { 0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023 };
    CHECK(sum_of(back_in_range, 3) == 0x1.fffffffffffffp1023, "intermediate overflow must not stick: %a",
          sum_of(back_in_range, 3));
    double with_nan[] = { 1.0, NAN };
    CHECK(isnan(sum_of(with_nan, 2)), "NaN must propagate");
    double with_inf[] = { 1.0, -INFINITY };
    CHECK(isinf(sum_of(with_inf, 2)) && sum_of(with_inf, 2) < 0, "-inf must propagate");

    /* Order and split independence over wildly mixed magnitudes and signs. */
    enum { N = 20000 };
    static double x[N];
    for (int i = 0; i < N; i++) {
        double m = (double)(next() >> 11) * 0x1p-53;
        int e = (int)(next() % 400) - 200;
        x[i] = ldexp(next() & 1 ? m : -m, e);
    }
    double reference = sum_of(x, N);
    for (int trial = 0; trial < 5; trial++) {
        for (int i = N - 1; i > 0; i--) { /* Fisher-Yates shuffle */
            int j = (int)(next() % (uint64_t)(i + 1));
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
        int parts = 1 + trial * 3;
        struct ts_xsum total, part;
        ts_xsum_init(&total);
        for (int p = 0; p < parts; p++) {
            ts_xsum_init(&part);
            for (int i = N * p / parts; i < N * (p + 1) / parts; i++)
                ts_xsum_add(&part, x[i]);
            ts_xsum_merge(&total, &part);
        }
        double got = ts_xsum_round(&total);
        CHECK(same_bits(got, reference), "shuffle %d split in %d parts: %a differs from %a", trial, parts, got,
              reference);
    }

    /* Many deposits of one value: the exact answer is known. */
    struct ts_xsum acc;
    ts_xsum_init(&acc);
    for (int i = 0; i < 3000000; i++)
        ts_xsum_add(&acc, 0.1);
    double got = ts_xsum_round(&acc);
    long double exact = 3000000.0L * 0.1; /* 75 significant bits; long double keeps 64, far below a double ulp */
    CHECK(got == (double)exact, "3e6 x 0.1 gave %.17g, exact %.20Lg", got, exact);
    return ts_test_finish();
}

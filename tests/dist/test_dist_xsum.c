/* The exact sum across ranks without MPI: the merge of exact accumulators gives the same bits
 * (the same normalised accumulator, so the same rounded double) whatever the order and the tree
 * MPI_Allreduce may build, and the operation MPI calls (ts_dist_xsum_merge_op, several
 * accumulators a call) too. Values of every magnitude: cancellation, subnormals, partials past
 * DBL_MAX that cancel back into range; a fixed seed, so every run draws the same values. Also
 * dist/'s small reductions without a launcher: each returns this process's own values. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_dist.h"
#include "ts_dist_xsum.h"
#include "ts_test.h"
#include "ts_xsum.h"

enum { MAX_VALUES = 6000, MAX_PARTS = 40 };

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double from_bits(uint64_t bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A finite double of random sign and mantissa with biased exponent in [lo, hi] (0: subnormal). */
static double draw(unsigned lo, unsigned hi)
{
    uint64_t biased = lo + next() % (hi - lo + 1);
    uint64_t mant = next() & ((UINT64_C(1) << 52) - 1);
    return from_bits((next() & 1) << 63 | biased << 52 | mant);
}

static void shuffle(double *x, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(next() % (uint64_t)(i + 1));
        double t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* The scenarios: which values, and what their exact sum must look like. */
enum scenario { CANCEL, WIDE, OVERFLOW, TINY, N_SCENARIOS };
static const char *const scenario_name[] = { "cancel", "wide", "overflow", "tiny" };

static int values_of(enum scenario s, double *x)
{
    int n = 0;
    switch (s) {
    case CANCEL:
        /* Every magnitude, each with its negation, and values near DBL_MAX with theirs: the parts'
         * partials go far past DBL_MAX and cancel back; what remains is moderate and tiny values,
         * so the rounding reads sticky bits a thousand binades below the result. */
        for (int i = 0; i < 1500; i++) {
            x[n] = draw(0, 2046);
            x[n + 1] = -x[n];
            n += 2;
        }
        for (int i = 0; i < 300; i++) {
            x[n] = draw(2040, 2046);
            x[n + 1] = -x[n];
            n += 2;
        }
        for (int i = 0; i < 600; i++)
            x[n++] = i % 2 ? draw(0, 150) : draw(1023 - 60, 1023 + 60);
        break;
    case WIDE:
        /* Any finite double below 2^1018, and pairs near DBL_MAX (x, -y) a few thousand ulps
         * apart, whose multiples of 2^971 add up in range while partials of one sign go past
         * DBL_MAX. */
        for (int i = 0; i < 3000; i++)
            x[n++] = draw(0, 2040);
        for (int i = 0; i < 400; i++) {
            uint64_t bits;
            x[n] = draw(2046, 2046);
            memcpy(&bits, &x[n], sizeof bits);
            bits = (bits & ~(UINT64_C(1) << 63)) - next() % 4096;
            x[n + 1] = -copysign(from_bits(bits), x[n]);
            n += 2;
        }
        break;
    case OVERFLOW:
        /* Past DBL_MAX for good: +inf, however the partials meet. */
        for (int i = 0; i < 500; i++)
            x[n++] = fabs(draw(2044, 2046));
        for (int i = 0; i < 500; i++)
            x[n++] = draw(0, 2000);
        break;
    case TINY:
        /* Subnormals and the smallest normals: the sum needs more bits than a double holds. */
        for (int i = 0; i < 2000; i++)
            x[n++] = draw(0, 2);
        break;
    default: break;
    }
    shuffle(x, n);
    return n;
}

/* acc += part, part left as it was (ts_xsum_merge normalises its second argument). */
static void merge_copy(struct ts_xsum *acc, const struct ts_xsum *part)
{
    struct ts_xsum other = *part;
    ts_xsum_merge(acc, &other);
}

static struct ts_xsum linear(const struct ts_xsum *parts, const int *order, int p)
{
    struct ts_xsum acc;
    ts_xsum_init(&acc);
    for (int i = 0; i < p; i++)
        merge_copy(&acc, &parts[order[i]]);
    return acc;
}

/* The parts [lo, hi) merged as a tree of the shape asked for: each node's two subtrees merged
 * last, the left one into the right one. */
enum shape { BALANCED, RIGHT_COMB, RANDOM };
static struct ts_xsum tree(const struct ts_xsum *parts, int lo, int hi, enum shape shape)
{
    if (hi - lo == 1)
        return parts[lo];
    int mid = shape == BALANCED     ? lo + (hi - lo) / 2
              : shape == RIGHT_COMB ? lo + 1
                                    : lo + 1 + (int)(next() % (uint64_t)(hi - lo - 1));
    struct ts_xsum left = tree(parts, lo, mid, shape), right = tree(parts, mid, hi, shape);
    ts_xsum_merge(&right, &left);
    return right;
}

/* The reduction as MPI may run it: the operation on vectors (len > 1) halving the count each
 * round, and the in half checked unchanged. */
static struct ts_xsum halving(const struct ts_xsum *parts, int p, const char *what)
{
    static struct ts_xsum buf[MAX_PARTS], before[MAX_PARTS];
    memcpy(buf, parts, (size_t)p * sizeof *buf);
    for (int count = p; count > 1; count = (count + 1) / 2) {
        int len = count / 2, in = (count + 1) / 2;
        memcpy(before, buf + in, (size_t)len * sizeof *buf);
        ts_dist_xsum_merge_op(buf + in, buf, len);
        CHECK(memcmp(before, buf + in, (size_t)len * sizeof *buf) == 0, "%s: the operation changed its in buffer",
              what);
    }
    return buf[0];
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* acc rounded, and normalised by it, against the reference: the same double and the same
 * accumulator, byte for byte. */
static void expect_same(struct ts_xsum acc, const struct ts_xsum *ref, double want, const char *what, const char *how)
{
    double got = ts_xsum_round(&acc);
    CHECK(same_bits(got, want), "%s, %s: %a, one accumulator %a", what, how, got, want);
    CHECK(memcmp(&acc, ref, sizeof acc) == 0, "%s, %s: the normalised accumulator differs from one accumulator's", what,
          how);
}

static void orders_and_trees(enum scenario s, int p)
{
    static double x[MAX_VALUES];
    int n = values_of(s, x);
    char what[64];
    snprintf(what, sizeof what, "%s, %d values in %d parts", scenario_name[s], n, p);

    struct ts_xsum ref;
    ts_xsum_init(&ref);
    for (int i = 0; i < n; i++)
        ts_xsum_add(&ref, x[i]);
    double want = ts_xsum_round(&ref);
    if (s == CANCEL || s == WIDE || s == TINY)
        CHECK(isfinite(want) && want != 0.0, "%s: the sum %a should be finite and non-zero", what, want);
    if (s == OVERFLOW)
        CHECK(want == INFINITY, "%s: the sum %a should overflow to +inf", what, want);
    if (s == TINY)
        CHECK(fabs(want) < 0x1p-1000, "%s: the sum %a should stay tiny", what, want);

    /* The parts: random cuts (empty parts too), half of them filled a value at a time, half by
     * runs as the kernels fill them. */
    int cut[MAX_PARTS + 1];
    cut[0] = 0;
    cut[p] = n;
    for (int k = 1; k < p; k++)
        cut[k] = (int)(next() % (uint64_t)(n + 1));
    for (int k = 1; k < p; k++) /* insertion sort of the inner cuts */
        for (int j = k; j > 1 && cut[j] < cut[j - 1]; j--) {
            int t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    static struct ts_xsum parts[MAX_PARTS];
    for (int k = 0; k < p; k++) {
        ts_xsum_init(&parts[k]);
        if (k % 2)
            ts_xsum_add_array(&parts[k], x + cut[k], cut[k + 1] - cut[k]);
        else
            for (int i = cut[k]; i < cut[k + 1]; i++)
                ts_xsum_add(&parts[k], x[i]);
    }

    int order[MAX_PARTS];
    for (int k = 0; k < p; k++)
        order[k] = k;
    expect_same(linear(parts, order, p), &ref, want, what, "in rank order");
    for (int k = 0; k < p; k++)
        order[k] = p - 1 - k;
    expect_same(linear(parts, order, p), &ref, want, what, "reversed");
    expect_same(tree(parts, 0, p, BALANCED), &ref, want, what, "balanced tree");
    expect_same(tree(parts, 0, p, RIGHT_COMB), &ref, want, what, "unbalanced tree (right comb)");
    for (int t = 0; t < 4; t++)
        expect_same(tree(parts, 0, p, RANDOM), &ref, want, what, "random tree");
    for (int t = 0; t < 6; t++) {
        for (int k = p - 1; k > 0; k--) {
            int j = (int)(next() % (uint64_t)(k + 1)), tmp = order[k];
            order[k] = order[j];
            order[j] = tmp;
        }
        expect_same(linear(parts, order, p), &ref, want, what, "random permutation");
    }
    expect_same(halving(parts, p, what), &ref, want, what, "the operation, halving");
}

/* Non-finite deposits: the class never depends on the order, and the operation makes the bits
 * of a NaN not depend on it either. */
static void specials(void)
{
    struct ts_xsum a, b, ab, ba;
    ts_xsum_init(&a);
    ts_xsum_init(&b);
    ts_xsum_add(&a, 1.0);
    ts_xsum_add(&a, from_bits(UINT64_C(0x7ff8000000000001))); /* two NaNs, other payloads */
    ts_xsum_add(&b, from_bits(UINT64_C(0xfff8000000000abc)));
    ab = b;
    ts_dist_xsum_merge_op(&a, &ab, 1);
    ba = a;
    ts_dist_xsum_merge_op(&b, &ba, 1);
    double x = ts_xsum_round(&ab), y = ts_xsum_round(&ba);
    CHECK(isnan(x) && same_bits(x, y), "NaNs merged both ways: %a and %a, not the same bits", x, y);

    ts_xsum_init(&a);
    ts_xsum_init(&b);
    ts_xsum_add(&a, INFINITY);
    ts_xsum_add(&b, 2.0);
    ts_dist_xsum_merge_op(&a, &b, 1);
    CHECK(ts_xsum_round(&b) == INFINITY, "+inf merged into a finite part: %a", ts_xsum_round(&b));
    ts_xsum_init(&a);
    ts_xsum_add(&a, -INFINITY);
    ts_dist_xsum_merge_op(&a, &b, 1);
    CHECK(isnan(ts_xsum_round(&b)), "+inf and -inf merged: %a, not NaN", ts_xsum_round(&b));
}

/* Without a launcher the reductions are this process's own values, and no MPI is called (MPI
 * is not even initialised: a call would abort the test). */
static void alone(void)
{
    struct ts_dist d;
    struct ts_error err;
    ts_error_clear(&err);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("PMIX_RANK");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    REQUIRE(ts_dist_start(&d, &err) == TS_OK && !d.started, "not launched: %s", err.message);

    struct ts_xsum acc, before;
    ts_xsum_init(&acc);
    for (int i = 0; i < 100; i++)
        ts_xsum_add(&acc, draw(0, 2046));
    before = acc;
    CHECK(ts_dist_xsum_allreduce(&d, &acc, &err) == TS_OK, "allreduce alone: %s", err.message);
    CHECK(memcmp(&acc, &before, sizeof acc) == 0, "allreduce alone changed the accumulator");

    int64_t counts[3] = { 7, -2, INT64_MAX }, sums[3];
    CHECK(ts_dist_sum_i64(&d, counts, sums, 3, &err) == TS_OK && sums[0] == 7 && sums[1] == -2 && sums[2] == INT64_MAX,
          "sum alone: %lld %lld %lld", (long long)sums[0], (long long)sums[1], (long long)sums[2]);
    double worst[2] = { 0.5, INFINITY };
    CHECK(ts_dist_max_double(&d, worst, worst, 2, &err) == TS_OK && worst[0] == 0.5 && worst[1] == INFINITY,
          "max alone: %g %g", worst[0], worst[1]);
    double first = 0.0;
    int from = 9;
    CHECK(ts_dist_first_double(&d, 1, -0.0, &first, &from, &err) == TS_OK && same_bits(first, -0.0) && from == 0,
          "first alone, with a value: %a from %d", first, from);
    CHECK(ts_dist_first_double(&d, 0, NAN, &first, &from, &err) == TS_OK && isnan(first) && from == -1,
          "first alone, without one: %a from %d", first, from);
    CHECK(ts_dist_finish(&d, &err) == TS_OK, "finishing alone: %s", err.message);
}

int main(void)
{
    static const int part_counts[] = { 1, 2, 3, 5, 7, 8, 16, 33 };
    for (int s = 0; s < N_SCENARIOS; s++)
        for (size_t i = 0; i < sizeof part_counts / sizeof part_counts[0]; i++)
            orders_and_trees((enum scenario)s, part_counts[i]);
    specials();
    alone();
    return ts_test_finish();
}

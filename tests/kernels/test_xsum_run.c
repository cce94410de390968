/* Runs deposited at once (ts_xsum_add_array, ts_xsum_add_squares) hold exactly the sum that
 * ts_xsum_add value by value holds: compared digit by digit after normalising, not only rounded,
 * on inputs chosen to break a shortcut: subnormals, huge and tiny values in one run, values at
 * the edges of the fast path, zeros of both signs, long runs of one value, every exponent at
 * once, cancellation, NaN and infinities; and a run split anywhere sums to the same. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ts_test.h"
#include "ts_xsum.h"

static uint64_t rng = 0x2545f4914f6cdd1du;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Both accumulators hold the same number: the same digits once normalised, the same special
 * sum, the same rounding. Normalises both. */
static int same_sum(struct ts_xsum *a, struct ts_xsum *b, double *ra, double *rb)
{
    *ra = ts_xsum_round(a);
    *rb = ts_xsum_round(b);
    int specials = isnan(a->special) ? isnan(b->special) : memcmp(&a->special, &b->special, sizeof a->special) == 0;
    int rounded = isnan(*ra) ? isnan(*rb) : memcmp(ra, rb, sizeof *ra) == 0;
    return specials && rounded && memcmp(a->limb, b->limb, sizeof a->limb) == 0;
}

/* x[0..len) as one run, and split at `cut`, against ts_xsum_add value by value; the same for
 * the squares. */
static void check(const char *what, const double *x, int64_t len)
{
    int64_t cut = len > 0 ? (int64_t)(next() % (uint64_t)len) : 0;
    for (int square = 0; square <= 1; square++) {
        struct ts_xsum each, run, first, second;
        ts_xsum_init(&each);
        ts_xsum_init(&run);
        ts_xsum_init(&first);
        ts_xsum_init(&second);
        for (int64_t i = 0; i < len; i++)
            ts_xsum_add(&each, square ? x[i] * x[i] : x[i]);
        if (square) {
            ts_xsum_add_squares(&run, x, len);
            ts_xsum_add_squares(&first, x, cut);
            ts_xsum_add_squares(&second, x + cut, len - cut);
        } else {
            ts_xsum_add_array(&run, x, len);
            ts_xsum_add_array(&first, x, cut);
            ts_xsum_add_array(&second, x + cut, len - cut);
        }
        ts_xsum_merge(&first, &second);
        struct ts_xsum each_again = each;
        double want, got, want2, split;
        CHECK(same_sum(&each, &run, &want, &got), "%s (%s, %lld values): run %a, one by one %a", what,
              square ? "squares" : "values", (long long)len, got, want);
        CHECK(same_sum(&each_again, &first, &want2, &split), "%s (%s, %lld values cut at %lld): %a, one by one %a",
              what, square ? "squares" : "values", (long long)len, (long long)cut, split, want2);
    }
}

enum { MAX = 1 << 16 };
static double x[MAX];

static void random_values(int64_t len, int emin, int emax, int signs)
{
    for (int64_t i = 0; i < len; i++) {
        uint64_t r = next();
        double m = 1.0 + (double)(r >> 12) * 0x1p-52;
        int e = emin + (int)(r % (uint64_t)(emax - emin + 1));
        x[i] = ldexp(signs && (r >> 7) & 1 ? -m : m, e);
    }
}

int main(void)
{
    check("empty", x, 0);
    x[0] = 3.0;
    check("one value", x, 1);

    /* Every length from 1 to 600 (partial runs, whole runs of 256, runs and a tail), smooth
     * values within a few binades as a field's are. */
    for (int64_t len = 1; len <= 600; len++) {
        random_values(len, -4, 2, len % 2);
        check("a few binades", x, len);
    }

    /* Subnormals: random ones, the smallest, the largest, next to the smallest normal. */
    for (int i = 0; i < 1000; i++)
        x[i] = from_bits(next() >> 12) * (i % 3 == 0 ? -1.0 : 1.0);
    x[10] = 0x1p-1074;
    x[11] = 0x1.ffffffffffffep-1023;
    x[12] = DBL_MIN;
    check("subnormals", x, 1000);
    /* Squares that underflow to subnormals and to zero. */
    random_values(1000, -560, -500, 1);
    check("squares near underflow", x, 1000);

    /* Huge and tiny in one run: 2^1000 + 2^-1000 - 2^1000 and the like. */
    for (int i = 0; i < 700; i++)
        x[i] = i % 3 == 0 ? 0x1p1000 : i % 3 == 1 ? 0x1p-1000 : -0x1p1000;
    check("huge and tiny", x, 700);
    random_values(3000, -1000, 1000, 1);
    check("exponents -1000..1000", x, 3000);
    random_values(3000, -500, 500, 0);
    check("positive, exponents -500..500 (squares over the whole range)", x, 3000);

    /* Every finite bit pattern's exponent at once: the slow path after the last level. */
    for (int i = 0; i < 4096; i++) {
        uint64_t b;
        do
            b = next();
        while (((b >> 52) & 0x7ff) == 0x7ff);
        x[i] = from_bits(b);
    }
    check("random bit patterns", x, 4096);

    /* One value and its remainders a level apart: 1, 2^-45, 2^-90, ... in one run. */
    for (int i = 0; i < 300; i++)
        x[i] = ldexp(1.0 + 0x1p-52 * (double)i, -45 * (i % 24));
    check("one binade every level", x, 300);

    /* Remainders as large as a level leaves them, with bits all the way down: 1.0 sets sigma, and
     * 255 values in [2^-44, 2^-43) leave remainders up to 2^-44 whose exact sum needs all 53 bits
     * of the next level's grid (a next sigma too small by 2^3 would round, though only when the
     * bits it drops are not all zero: 16 draws). */
    for (int draw = 0; draw < 16; draw++) {
        x[0] = 1.0;
        for (int i = 1; i < 256; i++)
            x[i] = ldexp(1.0 + (double)(next() >> 12) * 0x1p-52, -44);
        check("remainders at their bound", x, 256);
    }

    /* A run twice as large as the one before: the previous run's sigma (2^8, for values below 1)
     * is too small for values in [1, 2), whose sum, with one odd multiple of 2^-45, would round.
     * And runs far smaller than the one before. */
    for (int i = 0; i < 256; i++)
        x[i] = 0.5 + (double)(next() >> 12) * 0x1p-53;
    for (int i = 256; i < 511; i++)
        x[i] = 1.0 + (double)(next() >> 12) * 0x1p-52;
    x[511] = -0x1.4p-45;
    for (int i = 512; i < 1024; i++)
        x[i] = ldexp(1.0 + (double)(next() >> 12) * 0x1p-52, -30 - i / 256 * 20);
    check("runs growing, then shrinking", x, 1024);

    /* The edges of the fast path: largest values just below and above its limit, and overflow. */
    for (int e = 1010; e <= 1023; e++) {
        for (int i = 0; i < 256; i++)
            x[i] = ldexp(1.0 + 0x1p-52 * (double)(i * 7), e) * (e % 2 && i % 5 == 0 ? -1.0 : 1.0);
        check("near overflow", x, 256);
    }
    for (int i = 0; i < 300; i++)
        x[i] = DBL_MAX;
    check("DBL_MAX 300 times (overflows)", x, 300);
    for (int i = 0; i < 300; i++)
        x[i] = i % 2 ? DBL_MAX : -DBL_MAX;
    check("DBL_MAX, -DBL_MAX alternating", x, 300);

    /* Zeros of both signs, alone and mixed. */
    for (int i = 0; i < 500; i++)
        x[i] = i % 2 ? -0.0 : 0.0;
    check("zeros", x, 500);
    for (int i = 0; i < 500; i++)
        x[i] = i % 7 == 0 ? 1.5 : i % 2 ? -0.0 : 0.0;
    check("zeros and a value", x, 500);

    /* Many equal values: a run of 256 of the largest mantissa, far more than 2^11 in all (a
     * 64-bit sum of their mantissas would overflow), and cancellation down to nothing. */
    for (int i = 0; i < MAX; i++)
        x[i] = 0x1.fffffffffffffp+3;
    check("65536 equal values", x, MAX);
    for (int i = 0; i < MAX; i++)
        x[i] = 0.1;
    check("65536 x 0.1", x, MAX);
    random_values(MAX / 2, -30, 30, 1);
    for (int i = 0; i < MAX / 2; i++)
        x[MAX / 2 + i] = -x[MAX / 2 - 1 - i];
    check("values and their negatives", x, MAX);

    /* NaN and infinities wherever they sit, with finite values around them. */
    random_values(600, -3, 3, 1);
    x[300] = NAN;
    check("a NaN", x, 600);
    random_values(600, -3, 3, 1);
    x[0] = INFINITY;
    check("+inf", x, 600);
    x[599] = -INFINITY;
    check("+inf and -inf", x, 600);
    random_values(600, -3, 3, 1);
    x[17] = 0x1p600; /* its square overflows */
    check("a square that overflows", x, 600);
    return ts_test_finish();
}

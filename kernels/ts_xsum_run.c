/* Runs of deposits into the exact accumulator, without one ts_xsum_add per value.
 *
 * Error-free extraction (Rump, Ogita and Oishi, "Accurate floating-point summation", SIAM J.
 * Sci. Comput. 31, 2008): with sigma = 2^S and |v| <= 2^(S - RUN_LOG2), q = (sigma + v) - sigma
 * and r = v - q are computed exactly (Fast2Sum, since |v| <= sigma), v = q + r, q is a multiple
 * of 2^(S - 53) and |r| <= 2^(S - 53). A run holds at most 2^RUN_LOG2 values, so every partial
 * sum of its q's is a multiple of 2^(S - 53) of magnitude at most 2^S: representable, so the
 * additions are exact in any order. One level thus turns a run into one exact double (deposited
 * with ts_xsum_add) and remainders 2^(53 - RUN_LOG2) times smaller; levels repeat until every
 * remainder is zero. A smooth field's runs span a few binades and need two levels, done in one
 * pass over the run; what is left after MAX_LEVELS levels, and runs too close to overflow (or
 * holding NaN or infinities), go to ts_xsum_add one value at a time. Exact throughout: the accumulator receives the exact
 * sum of each run, whatever the levels, so the result cannot depend on how values were split
 * into runs, calls, threads or ranks.
 *
 * Cost, squares of a 4096 x 4096 field on one core of the 2-core Ice Lake VM, best of 7, five
 * times: 0.93-1.02 ns a value, against 0.73-0.81 for one rounded sum per row (memory-bound) and
 * 3.5-8 for ts_xsum_add per value. */
#include <string.h>

#include "ts_xsum.h"

#define RUN_LOG2 8
#define RUN (1 << RUN_LOG2)
/* Bits a level takes: remainders are at most 2^(S - 53), so the next sigma is 2^(S - SHRINK). */
#define SHRINK (53 - RUN_LOG2)
#define MAX_LEVELS 4
#define ABS_MASK (~(UINT64_C(1) << 63))
/* sigma = 2^S must be a normal number: S <= 1023 (the largest |value| of a run must lie below
 * 2^(1023 - RUN_LOG2), or the run takes the slow path), and S >= -1022 (smaller values are
 * extracted with S = -1022, whose grid is 2^-1074, every double's: nothing is left over). */
#define S_MAX 1023
#define S_MIN (-1022)

/* Four vectors of four lanes: independent partial sums, so no add waits for the previous one.
 * Written with the compiler's vector types: GCC 12 kept arrays of lanes with a running maximum
 * on the stack (2.5 ns a value instead of 1.6, before the first level found the maximum too). */
typedef double vdouble __attribute__((vector_size(32)));
typedef int64_t vint __attribute__((vector_size(32)));
#define WIDTH 4
#define VECTORS 4
#define STEP (WIDTH * VECTORS)

/* The larger of two vectors of bit patterns, lane by lane. A macro, like every operation on the
 * vectors here: a function taking or returning one would change the ABI between builds with and
 * without AVX (GCC and clang warn, -Wpsabi). */
#define MAXIMUM(a, b) (((a) & ((a) > (b))) | ((b) & ~((a) > (b))))

/* 2^e for a normal exponent e. */
static double power_of_two(int e)
{
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The exponent S of the sigma that takes the first level of values up to `top` (the bits of
 * the largest magnitude): every |value| < 2^(S - RUN_LOG2). */
static int sigma_exponent(uint64_t top)
{
    return (int)(top >> 52) - 1022 + RUN_LOG2;
}

/* The exponent of the next level's sigma. */
static int next_level(int exponent)
{
    return exponent - SHRINK < S_MIN ? S_MIN : exponent - SHRINK;
}

/* One level, or two (when two): splits each value of src (squared first when square) into
 * q + r with sigma = 2^exponent, and r again into q' + r' with the next level's sigma; stores
 * the last remainders in dst and the exact sums of the q's (and of the q''s) in sum. Valid when
 * every |value| < 2^(exponent - RUN_LOG2). *left is zero when every remainder stored is. When
 * top is not NULL, *top is the bits of the largest |value| (which order like the magnitudes,
 * NaN above infinity above every number). The callers pass square, two and top as constants,
 * so each gets a loop of its own; two levels in one pass keep the remainders in registers. */
static inline void extract(const double *src, double *dst, int n, int exponent, int square, int two, double sum[2],
                           int *left, uint64_t *top)
{
    const double s0 = power_of_two(exponent), s1 = power_of_two(next_level(exponent));
    const vdouble sigma = { s0, s0, s0, s0 }, sigma1 = { s1, s1, s1, s1 };
    const vint mask = { ABS_MASK, ABS_MASK, ABS_MASK, ABS_MASK };
    vdouble lane[VECTORS] = { { 0 } }, lane1[VECTORS] = { { 0 } };
    vint high[VECTORS] = { { 0 } };
    vint any = { 0 };
    for (int i = 0; i < n; i += STEP)
        for (int k = 0; k < VECTORS; k++) {
            vdouble x;
            memcpy(&x, src + i + k * WIDTH, sizeof x);
            if (square)
                x = x * x;
            if (top) {
                vint bits;
                memcpy(&bits, &x, sizeof bits);
                bits &= mask;
                high[k] = MAXIMUM(high[k], bits);
            }
            vdouble q = (sigma + x) - sigma;
            vdouble r = x - q;
            lane[k] += q;
            if (two) {
                vdouble q1 = (sigma1 + r) - sigma1;
                r = r - q1;
                lane1[k] += q1;
            }
            memcpy(dst + i + k * WIDTH, &r, sizeof r);
            vint bits;
            memcpy(&bits, &r, sizeof bits);
            any |= bits;
        }
    any &= mask;
    *left = (any[0] | any[1] | any[2] | any[3]) != 0;
    if (top) {
        vint h01 = MAXIMUM(high[0], high[1]), h23 = MAXIMUM(high[2], high[3]);
        vint h = MAXIMUM(h01, h23);
        *top = 0;
        for (int j = 0; j < WIDTH; j++)
            *top = (uint64_t)h[j] > *top ? (uint64_t)h[j] : *top;
    }
    vdouble t = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    sum[0] = (t[0] + t[1]) + (t[2] + t[3]);
    t = (lane1[0] + lane1[1]) + (lane1[2] + lane1[3]);
    sum[1] = (t[0] + t[1]) + (t[2] + t[3]);
}

static void add_each(struct ts_xsum *acc, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] != 0.0) /* true for NaN too */
            ts_xsum_add(acc, v[i]);
}

/* No sigma from a previous run. */
#define NO_GUESS (S_MAX + 1)

/* Deposits x[0..n) (their squares when square) exactly, n a multiple of STEP and at most RUN;
 * v is scratch for n values. The first level uses the sigma of the previous run, *guess, while
 * it finds this run's largest value, and is done again only when that sigma was too small
 * (wrong) or far too large (more levels): a field's neighbouring runs need the same sigma, and
 * x is read from memory once. */
static void add_run(struct ts_xsum *acc, const double *x, int n, int square, double *v, int *guess)
{
    int left, exponent = *guess == NO_GUESS ? S_MAX : *guess;
    uint64_t top;
    double sum[2];
    if (square)
        extract(x, v, n, exponent, 1, 1, sum, &left, &top);
    else
        extract(x, v, n, exponent, 0, 1, sum, &left, &top);
    if (top == 0)
        return;
    int needed = sigma_exponent(top);
    if (needed > S_MAX) { /* near overflow, infinite or NaN */
        for (int i = 0; i < n; i++)
            v[i] = square ? x[i] * x[i] : x[i];
        add_each(acc, v, n);
        *guess = NO_GUESS;
        return;
    }
    *guess = needed;
    if (needed > exponent || needed < exponent - RUN_LOG2) {
        exponent = needed;
        if (square)
            extract(x, v, n, exponent, 1, 1, sum, &left, NULL);
        else
            extract(x, v, n, exponent, 0, 1, sum, &left, NULL);
    }
    ts_xsum_add(acc, sum[0]);
    ts_xsum_add(acc, sum[1]);
    exponent = next_level(exponent);
    for (int level = 2; left; level++) {
        if (level == MAX_LEVELS) {
            add_each(acc, v, n);
            return;
        }
        exponent = next_level(exponent);
        extract(v, v, n, exponent, 0, 0, sum, &left, NULL);
        ts_xsum_add(acc, sum[0]);
    }
}

/* Values read ahead: a run's loads come from memory while the previous runs' levels compute, which
 * the hardware prefetcher alone did not achieve (1.18 ns a value without, 1.0 with 1024 ahead;
 * 0.95-1.05 with 2048, 1.3 with 4096). */
#define AHEAD (4 * RUN)

/* Whole runs straight from x; a last partial run copied and padded with zeros to whole steps. */
static void add_runs(struct ts_xsum *acc, const double *x, int64_t len, int square)
{
    double v[RUN], tail[RUN];
    int guess = NO_GUESS;
    int64_t start = 0;
    for (; start + RUN <= len; start += RUN) {
        for (int64_t p = start + AHEAD; p < start + AHEAD + RUN && p < len; p += 8)
            __builtin_prefetch(x + p);
        add_run(acc, x + start, RUN, square, v, &guess);
    }
    int n = (int)(len - start);
    if (n > 0) {
        int padded = (n + STEP - 1) / STEP * STEP;
        memcpy(tail, x + start, (size_t)n * sizeof *tail);
        memset(tail + n, 0, (size_t)(padded - n) * sizeof *tail);
        add_run(acc, tail, padded, square, v, &guess);
    }
}

void ts_xsum_add_array(struct ts_xsum *acc, const double *x, int64_t len)
{
    add_runs(acc, x, len, 0);
}

void ts_xsum_add_squares(struct ts_xsum *acc, const double *x, int64_t len)
{
    add_runs(acc, x, len, 1);
}

/* Runs of deposits into the exact accumulator, without one ts_xsum_add per value.
 *
 * Error-free extraction (Rump, Ogita and Oishi, "Accurate floating-point summation", SIAM J.
 * Sci. Comput. 31, 2008): with sigma = 2^S and |v| <= 2^(S - RUN_LOG2), q = (sigma + v) - sigma
 * and r = v - q are computed exactly (Fast2Sum, since |v| <= sigma), v = q + r, q is a multiple
 * of 2^(S - 53) and |r| <= 2^(S - 53). A run holds at most 2^RUN_LOG2 values, so every partial
 * sum of its q's is a multiple of 2^(S - 53) of magnitude at most 2^S: representable, so the
 * additions are exact in any order. One level thus turns a run into one exact double (deposited
 * with ts_xsum_add) and remainders 2^(53 - RUN_LOG2) times smaller; levels repeat until every
 * remainder is zero. A smooth field's runs span a few binades and need two levels; what is
 * left after MAX_LEVELS levels, and runs too close to overflow (or holding NaN or infinities),
 * go to ts_xsum_add one value at a time. Exact throughout: the accumulator receives the exact
 * sum of each run, whatever the levels, so the result cannot depend on how values were split
 * into runs, calls, threads or ranks.
 *
 * Cost, squares of a 4096 x 4096 field on one core of the 2-core Ice Lake VM: 1.24 ns a value,
 * against 0.73 for one rounded sum per row (memory-bound) and 3.5-8 for ts_xsum_add per value. */
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

static vdouble load(const double *p)
{
    vdouble v;
    memcpy(&v, p, sizeof v);
    return v;
}

static vint bits_of(vdouble v)
{
    vint b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static vint maximum(vint a, vint b)
{
    vint a_larger = a > b;
    return (a & a_larger) | (b & ~a_larger);
}

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

/* One level: splits each value of src (squared first when square) into q + r, r stored in dst,
 * and returns the exact sum of the q's, valid when every |value| <= 2^(S - RUN_LOG2) for
 * s = 2^S. *left is zero when every r is. When top is not NULL, *top is the bits of the
 * largest |value| (which order like the magnitudes, NaN above infinity above every number).
 * The callers pass square and top as constants, so each gets a loop of its own. */
static inline double extract(const double *src, double *dst, int n, double s, int square, int *left, uint64_t *top)
{
    const vdouble sigma = { s, s, s, s };
    const vint mask = { ABS_MASK, ABS_MASK, ABS_MASK, ABS_MASK };
    vdouble lane[VECTORS] = { { 0 } };
    vint high[VECTORS] = { { 0 } };
    vint any = { 0 };
    for (int i = 0; i < n; i += STEP)
        for (int k = 0; k < VECTORS; k++) {
            vdouble x = load(src + i + k * WIDTH);
            if (square)
                x = x * x;
            if (top)
                high[k] = maximum(high[k], bits_of(x) & mask);
            vdouble q = (sigma + x) - sigma;
            vdouble r = x - q;
            lane[k] += q;
            memcpy(dst + i + k * WIDTH, &r, sizeof r);
            any |= bits_of(r);
        }
    any &= mask;
    *left = (any[0] | any[1] | any[2] | any[3]) != 0;
    if (top) {
        vint h = maximum(maximum(high[0], high[1]), maximum(high[2], high[3]));
        *top = 0;
        for (int j = 0; j < WIDTH; j++)
            *top = (uint64_t)h[j] > *top ? (uint64_t)h[j] : *top;
    }
    vdouble sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
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
    double sum = square ? extract(x, v, n, power_of_two(exponent), 1, &left, &top)
                        : extract(x, v, n, power_of_two(exponent), 0, &left, &top);
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
        sum = square ? extract(x, v, n, power_of_two(exponent), 1, &left, NULL)
                     : extract(x, v, n, power_of_two(exponent), 0, &left, NULL);
    }
    ts_xsum_add(acc, sum);
    for (int level = 1; left; level++) {
        if (level == MAX_LEVELS) {
            add_each(acc, v, n);
            return;
        }
        exponent = exponent - SHRINK < S_MIN ? S_MIN : exponent - SHRINK;
        ts_xsum_add(acc, extract(v, v, n, power_of_two(exponent), 0, &left, NULL));
    }
}

/* Whole runs straight from x; a last partial run copied and padded with zeros to whole steps. */
static void add_runs(struct ts_xsum *acc, const double *x, int64_t len, int square)
{
    double v[RUN], tail[RUN];
    int guess = NO_GUESS;
    int64_t start = 0;
    for (; start + RUN <= len; start += RUN)
        add_run(acc, x + start, RUN, square, v, &guess);
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

/* Exact accumulator for sums of doubles: every deposit is added without
 * rounding into a long fixed-point number, so the final value, rounded once,
 * does not depend on the order of deposits or on how they were split among
 * threads and nodes. This is what makes `sum` bitwise reproducible across
 * thread counts, bindings and init modes. */
#ifndef TOUCHSTONE_KERNELS_TS_XSUM_H
#define TOUCHSTONE_KERNELS_TS_XSUM_H

#include <stdint.h>

/* 32-bit digits spanning every double exponent (2^-1074 .. 2^1024), plus room for carries. */
#define TS_XSUM_LIMBS 72

struct ts_xsum {
    int64_t limb[TS_XSUM_LIMBS]; /* limb k weighs 2^(32k - 1074); digits may exceed 32 bits until normalised */
    int64_t pending;             /* deposits since the last normalisation */
    double special;              /* sum of non-finite deposits (inf, nan), 0 when none */
};

void ts_xsum_init(struct ts_xsum *acc);

/* Adds x exactly. */
void ts_xsum_add(struct ts_xsum *acc, double x);

/* acc += other, exactly. other is normalised in place. */
void ts_xsum_merge(struct ts_xsum *acc, struct ts_xsum *other);

/* Adds x[0..len) exactly: the same sum (the same digits once normalised, the same rounding) as
 * ts_xsum_add for each x[i] in any order, several times faster on long runs (error-free
 * extraction, ts_xsum_run.c). NaN and infinities as ts_xsum_add. */
void ts_xsum_add_array(struct ts_xsum *acc, const double *x, int64_t len);

/* Adds every x[i] * x[i], each rounded to a double as written, exactly: the same sum as
 * ts_xsum_add(acc, x[i] * x[i]) for each i, so sums of squares do not depend on how the
 * values were split into runs. */
void ts_xsum_add_squares(struct ts_xsum *acc, const double *x, int64_t len);

/* The exact sum rounded to nearest (ties to even). Normalises acc. */
double ts_xsum_round(struct ts_xsum *acc);

#endif

#include "block_sum.h"

#include <string.h>

#include "ts_kernel.h"

/* The lanes as vectors of 8 doubles, written with the compiler's vector types: lane j is
 * element j % 8 of vector j / 8, so the vector code adds exactly what the scalar definition
 * (ts_block_sum's comment in block_sum.h) adds, in the same order, and gives the same bits on
 * any ISA. A function never takes or returns one by value (the ABI differs between builds with
 * and without AVX-512: -Wpsabi): they travel by pointer. */
typedef double vec8 __attribute__((vector_size(64)));
#define VEC_LANES 8
#define VECS (TS_BLOCK_LANES / VEC_LANES)
_Static_assert(TS_BLOCK_LANES == 32, "the tree in reduce_lanes is written out for 32 lanes");
/* The helpers below go into each variant whole, compiled for its target: a call, or a loop over
 * the vectors, would put the lanes on the stack. */
#define INLINE static inline __attribute__((always_inline))
/* A pragma's text is not macro-expanded; an operator's string argument is. */
#define PRAGMA(text) _Pragma(#text)
#define UNROLL(times) PRAGMA(GCC unroll times)

/* The pairwise tree over the 32 lanes: lane[j] += lane[j + w] for w = 16, 8, 4, 2, 1, written
 * on the vectors so that it stays in registers (the lanes went through the stack before: a
 * chain of store-to-load forwards per tree level). */
INLINE double reduce_lanes(vec8 v[VECS])
{
    v[0] += v[2]; /* w = 16: lanes 0-7 += 16-23, lanes 8-15 += 24-31 */
    v[1] += v[3];
    v[0] += v[1]; /* w = 8 */
    const vec8 s = v[0];
    double a0 = s[0] + s[4], a1 = s[1] + s[5], a2 = s[2] + s[6], a3 = s[3] + s[7]; /* w = 4 */
    double b0 = a0 + a2, b1 = a1 + a3;                                             /* w = 2 */
    return b0 + b1;                                                                /* w = 1 */
}

/* Adds x[0..VECS * VEC_LANES) to the lanes, lane j taking x[j]. */
INLINE void add_lanes(vec8 v[VECS], const double *x)
{
    UNROLL(4)
    for (int k = 0; k < VECS; k++) {
        vec8 t;
        memcpy(&t, x + k * VEC_LANES, sizeof t);
        v[k] += t;
    }
}

/* Adds x[0..len) one element to one lane, len < TS_BLOCK_LANES, through a copy padded with
 * +0.0, which leaves a lane unchanged: a lane starts at +0.0 and is never -0.0 (in rounding to
 * nearest, x + -x is +0.0), and x + 0.0 = x for every other x, NaN and infinities too. (An
 * element-wise add with a variable index would keep the lanes in memory for the whole sum.) */
INLINE void add_tail(vec8 v[VECS], const double *x, int64_t len)
{
    double padded[TS_BLOCK_LANES] = { 0 };
    memcpy(padded, x, (size_t)len * sizeof *x);
    add_lanes(v, padded);
}

/* ts_block_sum the portable way: arrays of lanes, which the compiler vectorises at the build's
 * width. (The 8-double vectors above, on a target without 512-bit registers, went through the
 * stack at every add: gcc 12 for AVX2 summed 27 GB/s instead of 200 from the L2.) */
INLINE double scalar_block_sum(const double *restrict x, int64_t len)
{
    double lane[TS_BLOCK_LANES] = { 0 };
    int64_t i = 0;
    for (; i + TS_BLOCK_LANES <= len; i += TS_BLOCK_LANES)
        for (int j = 0; j < TS_BLOCK_LANES; j++)
            lane[j] += x[i + j];
    for (int j = 0; i + j < len; j++)
        lane[j] += x[i + j];
    for (int w = TS_BLOCK_LANES / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; j++)
            lane[j] += lane[j + w];
    return lane[0];
}

/* ts_block_sum on the vectors. */
INLINE double block_sum(const double *restrict x, int64_t len)
{
    vec8 v[VECS] = { { 0 } };
    int64_t i = 0;
    for (; i + TS_BLOCK_LANES <= len; i += TS_BLOCK_LANES)
        add_lanes(v, x + i);
    add_tail(v, x + i, len - i);
    return reduce_lanes(v);
}

/* ts_block_sum over a whole chunk, AVX-512: block_sum's lanes, adds and order, so its bits, with
 * two rounds of the lanes per iteration and each line prefetched into the L1
 * TS_BLOCK_SUM_AHEAD elements before its load. In the last-level cache one stream of loads is
 * held back by how few lines the hardware prefetchers keep coming (the sum's four dependency
 * chains keep up from the L2); the prefetches keep more in flight. Into the L1 (t0): to the L2
 * only (t1) it ran slower than none. The prefetching loop stops where its prefetch would pass
 * the end, so no pointer leaves the array. Only for chunks that may sit in a cache
 * (TS_BLOCK_SUM_PREFETCH_MAX): from memory it gained nothing and may have cost a little, so
 * longer chunks keep block_sum's plain loop. Measurements: docs/performance.md. */
INLINE double run_sum(const double *restrict x, int64_t len)
{
    vec8 v[VECS] = { { 0 } };
    int64_t i = 0;
    for (; i + 2 * TS_BLOCK_LANES + TS_BLOCK_SUM_AHEAD <= len; i += 2 * TS_BLOCK_LANES) {
        UNROLL(8)
        for (int k = 0; k < 2 * TS_BLOCK_LANES; k += VEC_LANES)
            __builtin_prefetch(x + i + TS_BLOCK_SUM_AHEAD + k, 0, 3);
        add_lanes(v, x + i);
        add_lanes(v, x + i + TS_BLOCK_LANES);
    }
    for (; i + TS_BLOCK_LANES <= len; i += TS_BLOCK_LANES)
        add_lanes(v, x + i);
    add_tail(v, x + i, len - i);
    return reduce_lanes(v);
}

/* `blocks` (at most 4) whole blocks, each in its own lanes and in exactly ts_block_sum's order: one block's
 * lanes are each a chain of TS_SUM_BLOCK / TS_BLOCK_LANES dependent adds, and several blocks
 * side by side keep the adders and the loads busy while one chain waits, as long as their
 * lanes stay in registers (4 blocks fill 16 of AVX-512's 32; with AVX2's 16 one block fills
 * them all, and spilled lanes make every add wait for a store). Measurements: bench/README.md,
 * "Notes behind the code". */
INLINE void block_sums(const double *restrict x, int blocks, double *sums)
{
    vec8 v[4][VECS] = { { { 0 } } };
    for (int64_t i = 0; i < TS_SUM_BLOCK; i += TS_BLOCK_LANES)
        UNROLL(4)
    for (int b = 0; b < blocks; b++)
        add_lanes(v[b], x + b * TS_SUM_BLOCK + i);
    for (int b = 0; b < blocks; b++)
        sums[b] = reduce_lanes(v[b]);
}

/* Block sums wait here and go to the accumulator together: ts_xsum_add_array deposits a run
 * of them for a fraction of what ts_xsum_add costs each (a chain of read-modify-writes of the
 * same limbs, one block after the other), and holds exactly the same sum. */
#define BATCH 64

/* ts_block_sum_range; wide (a constant in each caller): 4 whole blocks at a time on the
 * vectors, else one block at a time the portable way. */
INLINE void block_sum_range(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc, int wide)
{
    const int blocks = wide ? 4 : 1;
    double sums[BATCH];
    int filled = 0;
    int64_t start = begin;
    if (start % TS_SUM_BLOCK == 0)
        for (; start + blocks * TS_SUM_BLOCK <= end; start += blocks * TS_SUM_BLOCK) {
            if (wide)
                block_sums(x + start, blocks, sums + filled);
            else
                sums[filled] = scalar_block_sum(x + start, TS_SUM_BLOCK);
            filled += blocks;
            if (filled + blocks > BATCH) {
                ts_xsum_add_array(acc, sums, filled);
                filled = 0;
            }
        }
    while (start < end) {
        int64_t block_end = (start / TS_SUM_BLOCK + 1) * TS_SUM_BLOCK;
        if (block_end > end)
            block_end = end;
        sums[filled++] =
            wide ? block_sum(x + start, block_end - start) : scalar_block_sum(x + start, block_end - start);
        if (filled == BATCH) {
            ts_xsum_add_array(acc, sums, filled);
            filled = 0;
        }
        start = block_end;
    }
    ts_xsum_add_array(acc, sums, filled);
}

/* The AVX-512 variants, compiled for it whatever the build's flags and chosen at run time by
 * the CPU (ts_block_sum_wide): one build serves both kinds of machine, and gcc's tuning for
 * Zen (which prefers 256-bit vectors in its own loops) does not decide the width. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_WIDE 1
#define WIDE __attribute__((target("avx512f")))
WIDE static double block_sum_wide(const double *restrict x, int64_t len)
{
    return len <= TS_BLOCK_SUM_PREFETCH_MAX ? run_sum(x, len) : block_sum(x, len);
}
WIDE static void block_sum_range_wide(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc)
{
    block_sum_range(x, begin, end, acc, 1);
}
#else
#define HAVE_WIDE 0
#endif

int ts_block_sum_wide(void)
{
#if HAVE_WIDE
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return 0;
#endif
}

double ts_block_sum(const double *restrict x, int64_t len)
{
#if HAVE_WIDE
    if (ts_block_sum_wide())
        return block_sum_wide(x, len);
#endif
    return scalar_block_sum(x, len);
}

void ts_block_sum_range(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc)
{
#if HAVE_WIDE
    if (ts_block_sum_wide()) {
        block_sum_range_wide(x, begin, end, acc);
        return;
    }
#endif
    block_sum_range(x, begin, end, acc, 0);
}

void ts_block_sum_range_narrow(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc)
{
    block_sum_range(x, begin, end, acc, 0);
}

double ts_block_sum_narrow(const double *restrict x, int64_t len)
{
    return scalar_block_sum(x, len);
}

double ts_block_sum_error_factor(int64_t len)
{
    /* Each lane adds ceil(len / lanes) terms in sequence, then log2(lanes) tree levels
     * (Higham's bound for recursive summation, first order). */
    int levels = 0;
    for (int w = TS_BLOCK_LANES; w > 1; w /= 2)
        levels++;
    return (double)((len + TS_BLOCK_LANES - 1) / TS_BLOCK_LANES + levels);
}

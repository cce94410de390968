#include "block_sum.h"

#include "ts_kernel.h"

static double reduce_lanes(double lane[TS_BLOCK_LANES])
{
    for (int width = TS_BLOCK_LANES / 2; width >= 1; width /= 2)
        for (int j = 0; j < width; j++)
            lane[j] += lane[j + width];
    return lane[0];
}

double ts_block_sum(const double *restrict x, int64_t len)
{
    double lane[TS_BLOCK_LANES] = { 0 };
    int64_t i = 0;
    for (; i + TS_BLOCK_LANES <= len; i += TS_BLOCK_LANES)
        for (int j = 0; j < TS_BLOCK_LANES; j++)
            lane[j] += x[i + j];
    for (int j = 0; i + j < len; j++)
        lane[j] += x[i + j];
    return reduce_lanes(lane);
}

/* BLOCKS_AT_ONCE whole blocks, each in its own lanes and in exactly ts_block_sum's order: one
 * block's lanes are each a chain of TS_SUM_BLOCK / TS_BLOCK_LANES dependent adds, and several
 * blocks side by side keep the adders and the loads busy while one chain waits, as long as
 * their lanes stay in registers (4 blocks fill 16 of AVX-512's 32; with AVX2's 16 one block
 * fills them all, and spilled lanes make every add wait for a store). Measurements:
 * bench/README.md, "Notes behind the code". */
#ifdef __AVX512F__
#define BLOCKS_AT_ONCE 4
#else
#define BLOCKS_AT_ONCE 1
#endif
/* A pragma's text is not macro-expanded; an operator's string argument is. */
#define PRAGMA(text) _Pragma(#text)
#define UNROLL(times) PRAGMA(GCC unroll times)

static void block_sums(const double *restrict x, double sums[BLOCKS_AT_ONCE])
{
    double lane[BLOCKS_AT_ONCE][TS_BLOCK_LANES] = { { 0 } };
    for (int64_t i = 0; i < TS_SUM_BLOCK; i += TS_BLOCK_LANES)
        UNROLL(BLOCKS_AT_ONCE)
    for (int b = 0; b < BLOCKS_AT_ONCE; b++)
        for (int j = 0; j < TS_BLOCK_LANES; j++)
            lane[b][j] += x[b * TS_SUM_BLOCK + i + j];
    for (int b = 0; b < BLOCKS_AT_ONCE; b++)
        sums[b] = reduce_lanes(lane[b]);
}

void ts_block_sum_range(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc)
{
    int64_t start = begin;
    if (start % TS_SUM_BLOCK == 0)
        for (; start + BLOCKS_AT_ONCE * TS_SUM_BLOCK <= end; start += BLOCKS_AT_ONCE * TS_SUM_BLOCK) {
            double sums[BLOCKS_AT_ONCE];
            block_sums(x + start, sums);
            for (int b = 0; b < BLOCKS_AT_ONCE; b++)
                ts_xsum_add(acc, sums[b]);
        }
    while (start < end) {
        int64_t block_end = (start / TS_SUM_BLOCK + 1) * TS_SUM_BLOCK;
        if (block_end > end)
            block_end = end;
        ts_xsum_add(acc, ts_block_sum(x + start, block_end - start));
        start = block_end;
    }
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

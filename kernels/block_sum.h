/* Fixed-order block sums deposited exactly: the reduction of the 1D kernels. Internal to
 * kernels/. */
#ifndef TOUCHSTONE_KERNELS_BLOCK_SUM_H
#define TOUCHSTONE_KERNELS_BLOCK_SUM_H

#include <stdint.h>

#include "ts_xsum.h"

/* Independent partial sums per block: enough to keep several vector adders busy. */
#define TS_BLOCK_LANES 32

/* How far ahead of its loads the AVX-512 variant of ts_block_sum prefetches, in elements (1 KiB,
 * 16 cache lines; 2 and 4 KiB ran slower in the last-level cache). */
#define TS_BLOCK_SUM_AHEAD 128
/* The longest run it prefetches, in elements (16 MiB, half a Zen CCD's L3): a thread's chunk
 * beyond that comes from memory, where the prefetches gained nothing over the hardware's. */
#define TS_BLOCK_SUM_PREFETCH_MAX ((int64_t)1 << 21)

/* Sums x[0..len) in one fixed order (TS_BLOCK_LANES strided lanes, then a pairwise tree). */
double ts_block_sum(const double *restrict x, int64_t len);

/* Deposits the block sums of x[begin..end) into acc; blocks are the TS_SUM_BLOCK-element
 * blocks counted from index 0, so a range that starts on a block boundary contributes
 * the same block values whichever thread sums it. */
void ts_block_sum_range(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc);

/* 1 when the CPU runs AVX-512 (checked at run time, whatever the build's flags): the sums then
 * take the AVX-512 variant, 4 blocks side by side in ts_block_sum_range and a prefetching loop
 * in ts_block_sum (up to TS_BLOCK_SUM_PREFETCH_MAX); 0 for the portable one, one block at a
 * time, no prefetch. The bits are the same either way; the run records which ran. */
int ts_block_sum_wide(void);

/* The portable variants, whatever the CPU: for the tests that compare the two. */
double ts_block_sum_narrow(const double *restrict x, int64_t len);
void ts_block_sum_range_narrow(const double *restrict x, int64_t begin, int64_t end, struct ts_xsum *acc);

/* Error bound, in units of roundoff times sum |x|, of one fixed-order block sum. */
double ts_block_sum_error_factor(int64_t len);

#endif

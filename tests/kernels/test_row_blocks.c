/* stencil3d's blocks of rows (y-blocks and wavefront tiles, kernels/stencil_common.c): the
 * fewest blocks of at most the given height cover the rows once, in order, with heights that
 * differ by one row at most, so that no block is a sliver of rows left over; the height the plan
 * records is the tallest block's. */
#include <stdint.h>

#include "stencil_common.h"
#include "ts_test.h"

static void check_blocks(int64_t lo, int64_t rows, int64_t fit)
{
    const int64_t height = ts_stencil_even_rows(rows, fit);
    const struct ts_stencil_blocks b = ts_stencil_blocks_of(lo, lo + rows, height);
    const int64_t fewest = (rows + fit - 1) / fit;
    CHECK(height <= fit, "rows %lld at most %lld: height %lld", (long long)rows, (long long)fit, (long long)height);
    CHECK(b.n == fewest, "rows %lld at most %lld: %lld blocks, expected %lld", (long long)rows, (long long)fit,
          (long long)b.n, (long long)fewest);
    CHECK(ts_stencil_block_edge(b, 0) == lo && ts_stencil_block_edge(b, b.n) == lo + rows,
          "rows %lld at most %lld: the blocks span [%lld, %lld), not [%lld, %lld)", (long long)rows, (long long)fit,
          (long long)ts_stencil_block_edge(b, 0), (long long)ts_stencil_block_edge(b, b.n), (long long)lo,
          (long long)(lo + rows));
    int64_t shortest = rows, tallest = 0;
    for (int64_t i = 0; i < b.n; i++) {
        const int64_t h = ts_stencil_block_edge(b, i + 1) - ts_stencil_block_edge(b, i);
        shortest = h < shortest ? h : shortest;
        tallest = h > tallest ? h : tallest;
    }
    CHECK(shortest >= 1 && tallest - shortest <= 1, "rows %lld at most %lld: blocks of %lld to %lld rows",
          (long long)rows, (long long)fit, (long long)shortest, (long long)tallest);
    CHECK(tallest == height, "rows %lld at most %lld: the tallest block has %lld rows, the plan records %lld",
          (long long)rows, (long long)fit, (long long)tallest, (long long)height);
}

int main(void)
{
    for (int64_t rows = 1; rows <= 300; rows++)
        for (int64_t fit = 1; fit <= rows + 2; fit++)
            check_blocks(rows % 3, rows, fit);
    /* The sizes that showed the sliver: 126 rows in blocks of 62 (62, 62 and 2), 398 in 39. */
    check_blocks(1, 126, 62);
    check_blocks(1, 398, 39);
    check_blocks(1, 3985, 16);
    CHECK(ts_stencil_even_rows(126, 62) == 42, "126 rows at most 62: %lld", (long long)ts_stencil_even_rows(126, 62));
    CHECK(ts_stencil_even_rows(3985, 16) == 16, "3985 rows at most 16: %lld",
          (long long)ts_stencil_even_rows(3985, 16));
    return ts_test_finish();
}

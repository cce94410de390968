/* Where stencil3d's wavefront keeps a block's levels (kernels/stencil_wave_levels.c): a part
 * long enough gets a ring of plane strips, its pages mapped twice so that the slot after the
 * last is the first again, and keeps the planes near its sides in the grids; short parts and
 * stencil2d keep every level in the grids. The bits are tests/kernels/test_kernels.c's
 * (the wavefront against the plain kernel, ring and all). */
#include <stdint.h>

#include "stencil_common.h"
#include "ts_test.h"

static struct ts_stencil_sweep sweep_of(int64_t nx, int64_t ny, int64_t nz, int dims)
{
    const struct ts_problem pb = { .kernel = dims == 3 ? TS_KERNEL_STENCIL3D : TS_KERNEL_STENCIL2D,
                                   .nx = nx,
                                   .ny = ny,
                                   .nz = dims == 3 ? nz : 1,
                                   .alpha = 0.1 };
    return ts_stencil_sweep_of(&pb, dims);
}

static void check_ring(int part, int64_t k, int64_t lo, int64_t hi, int64_t tile_rows)
{
    static double grid[2][1];
    double *arrays[2] = { grid[0], grid[1] };
    const struct ts_stencil_sweep s = sweep_of(37, 30, 200, 3);
    const struct ts_wave_levels w = ts_wave_levels_of(&s, arrays, part, 5, k, lo, hi, tile_rows);
    CHECK(w.ring && w.edges, "k %lld, items [%lld, %lld): no ring or edge store", (long long)k, (long long)lo,
          (long long)hi);
    if (!w.ring)
        return;
    CHECK(w.d0 == lo + k && w.d1 == hi - k, "k %lld, items [%lld, %lld): ring planes [%lld, %lld)", (long long)k,
          (long long)lo, (long long)hi, (long long)w.d0, (long long)w.d1);
    CHECK(w.slots >= k + 1, "k %lld: %lld slots, a level would be overwritten before its last read", (long long)k,
          (long long)w.slots);
    CHECK(w.slot_rows >= tile_rows + k + 2, "k %lld, tiles of %lld rows: slots of %lld rows", (long long)k,
          (long long)tile_rows, (long long)w.slot_rows);
    const int64_t size = w.slots * w.slot_elems;
    CHECK(w.ring[0] == 0.0 && w.ring[size - 1] == 0.0, "a new ring starts as zeros");
    w.ring[1] = 1.5;
    w.ring[size + 2] = -2.5;
    CHECK(w.ring[size + 1] == 1.5 && w.ring[2] == -2.5, "k %lld: the ring's second mapping is not its first again",
          (long long)k);
    w.ring[1] = w.ring[2] = 0.0;
}

int main(void)
{
    /* Two parts, run after run with other depths and tiles: each ring made anew at its size. */
    for (int part = 0; part < 2; part++) {
        check_ring(part, 4, 1, 100, 15);
        check_ring(part, 8, 1, 100, 16);
        check_ring(part, 3, 100, 199, 7);
        check_ring(part, 2, 1, 12, 1);
    }

    static double grid[2][1];
    double *arrays[2] = { grid[0], grid[1] };
    const struct ts_stencil_sweep s3 = sweep_of(37, 30, 200, 3), s2 = sweep_of(37, 30, 1, 2);
    /* Fewer than five planes between the sides' k: the grids only. */
    CHECK(!ts_wave_levels_of(&s3, arrays, 0, 0, 4, 1, 13, 15).ring, "a part of 12 planes at k = 4 got a ring");
    CHECK(ts_wave_levels_of(&s3, arrays, 0, 0, 4, 1, 14, 15).ring, "a part of 13 planes at k = 4 got no ring");
    CHECK(!ts_wave_levels_of(&s2, arrays, 0, 0, 4, 1, 29, 1).ring, "stencil2d got a ring");
    CHECK(!ts_wave_levels_of(&s3, arrays, 0, 0, 1, 1, 199, 15).ring, "time_block 1 got a ring");
    return ts_test_finish();
}

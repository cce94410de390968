/* Temporal blocking: k Jacobi steps in one sweep over a thread's own items (rows in 2D,
 * planes in 3D), so each item comes from memory once per k steps instead of once per step.
 *
 * Level s of the sweep is time step t0 + s, in grid (t0 + s) % 2; two grids suffice because
 * an item's level s overwrites its level s - 2, which only its neighbours' level s - 1 read.
 *
 * Phase A, alone: the trapezoid. Level s covers the thread's items minus s at each side that
 * borders another thread, so it never reads a neighbour's item. A wavefront walks it: at
 * front p, level 1 of item p, level 2 of item p - 1, ..., level k of item p - k + 1; about
 * 2(k + 2) items of the two grids are live at once, which is what must fit in cache.
 * Phase B, in step with the neighbours: level by level, the items the trapezoid left at each
 * side. Level s there needs the neighbour's edge item at level s - 1, and overwrites level
 * s - 2, which the neighbour needed for its own level s - 1: one wait covers both.
 *
 * A 3D plane is too large for that: 2(k + 2) planes of 400 x 400 are 15 MB, past any L2. So
 * phase A walks the planes once per tile of rows (y), and the tiles are skewed: level s of
 * the tile of rows [y0, y1) covers rows [y0 - s + 1, y1 - s + 1) (clipped to the updated rows;
 * the first tile starts at the first row, the last ends at the last). Level s at row j reads
 * level s - 1 at rows j - 1 .. j + 1, which this tile or an earlier one wrote; it overwrites
 * level s - 2 at row j, which only level s - 1 at rows j - 1 .. j + 1 read, and those lie in
 * this tile or an earlier one too. Each tile's wavefront then keeps 2(k + 2) strips of
 * y1 - y0 + k + 1 rows live (ts_stencil_wave_rows sizes them), and its rows come from memory
 * once per k steps, with k + 1 rows of overlap with the next tile.
 *
 * Where each level is kept is stencil_wave_levels.c's: in the grids, or, for the middle planes
 * of longer 3D parts, the levels of the other parity than the last in a ring that stays in the
 * L2, so that the second grid's lines never come from memory.
 *
 * Every update is the same function of the same inputs as in a plain step, so the results
 * are bitwise those of time_block = 1, for any thread count and tile. */
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <unistd.h>

#include "stencil_common.h"

/* A part's slot is its own cache line, since the neighbours spin on it. */
static struct {
    alignas(64) _Atomic int64_t done; /* the last time step this part's items all reached */
} progress[TS_WAVE_MAX_PARTS];

void ts_stencil_wavefront_reset(int part)
{
    if (part >= 0 && part < TS_WAVE_MAX_PARTS)
        atomic_store_explicit(&progress[part].done, 0, memory_order_relaxed);
}

static void wait_for(int part, int64_t step)
{
    /* Spins, as OpenMP barriers do; yields when threads outnumber the CPUs and the neighbour
     * may be waiting for this one's CPU. */
    for (unsigned spins = 0; atomic_load_explicit(&progress[part].done, memory_order_acquire) < step; spins++)
        if (spins > 1000)
            sched_yield();
}

/* The cache a tile's wavefront may fill: 3/4 of the L2's first MiB, the rest for the hardware's
 * own use and other data, and half of any L2 beyond it. Measured (docs/performance.md): on 1 MiB
 * L2s the 3/4; on an Intel Xeon VM's 2 MiB, tiles within the 1.25 MiB this gives ran 1.05-1.13x
 * the 1 MiB plan's, while whole 128 x 128 planes at k = 4, 1.5 MiB of strips, ran 0.90x. The L2
 * size is the C library's (cpuid, sound on VMs: bench/README.md, "Notes behind the code");
 * where it says nothing, 1 MiB. */
static int64_t wave_cache_bytes(void)
{
    const int64_t mib = (int64_t)1 << 20;
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return 3 * mib / 4 + (l2 > mib ? (l2 - mib) / 2 : 0);
}

/* Fewer rows per tile re-read too many (k + 1 of every tile's rows come twice). */
#define MIN_WAVE_ROWS 8

int64_t ts_stencil_wave_rows(const struct ts_problem *pb, int dims)
{
    const int64_t rows = dims == 3 ? pb->ny - 2 : 1;
    if (dims != 3 || pb->time_block < 2)
        return rows;
    if (pb->block_y > 0)
        return ts_stencil_even_rows(rows, pb->block_y);
    /* Whole planes when 2(k + 2) of them fit; else 2(k + 2) strips of tile + k + 1 rows (the
     * skew), nx doubles each. */
    const int64_t k = pb->time_block, strip_rows = wave_cache_bytes() / (2 * (k + 2) * 8 * pb->nx);
    if (strip_rows >= pb->ny)
        return rows;
    int64_t fit = strip_rows - (k + 1);
    if (fit < MIN_WAVE_ROWS)
        fit = MIN_WAVE_ROWS;
    return ts_stencil_even_rows(rows, fit);
}

/* Level step of items [q0, q1), every updated row, as a plain step sweeps them: phase B's items
 * are whole planes, beyond the L2, and a plane at a time each of them would come from memory
 * once for each of the three planes that read it; in the plain step's y-blocks, once. */
static void level(const struct ts_stencil_sweep *s, double *const *arrays, int64_t step, int64_t q0, int64_t q1,
                  int64_t block_rows)
{
    ts_stencil_sweep_items(s, arrays[(step - 1) % 2], arrays[step % 2], q0, q1, block_rows);
}

/* Phase A for the tile of rows [y0, y1): level lev covers the items [lo + lev open_lo,
 * hi - lev open_hi) and the tile's rows shifted by lev - 1 (see the opening comment). */
static void trapezoid_tile(const struct ts_stencil_sweep *s, struct ts_wave_levels *w, int64_t lo, int64_t hi,
                           int64_t open_lo, int64_t open_hi, int64_t y0, int64_t y1)
{
    const int64_t k = w->k, first = y0 == s->row_lo, last = y1 == s->row_hi;
    ts_wave_levels_tile(w, y0, (int)last);
    for (int64_t p = lo + open_lo; p < hi - open_hi + k - 1; p++)
        for (int64_t lev = 1; lev <= k; lev++) {
            const int64_t q = p - (lev - 1);
            if (q < lo + lev * open_lo || q >= hi - lev * open_hi)
                continue;
            int64_t j0 = first ? y0 : y0 - (lev - 1), j1 = last ? y1 : y1 - (lev - 1);
            j0 = j0 > s->row_lo ? j0 : s->row_lo;
            j1 = j1 > s->row_lo ? j1 : s->row_lo;
            if (j0 < j1)
                ts_wave_level_rows(w, lev, q, j0, j1);
        }
}

void ts_stencil_wavefront(const struct ts_stencil_sweep *s, double *const *arrays, struct ts_range r, int64_t t0,
                          int64_t k, int64_t tile_rows, int64_t block_rows)
{
    const int64_t lo = r.begin > 1 ? r.begin : 1;
    const int64_t hi = r.end < s->items - 1 ? r.end : s->items - 1;
    if (lo >= hi)
        return;
    /* A side borders another thread when its next item is not the fixed boundary. */
    const int64_t open_lo = lo > 1, open_hi = hi < s->items - 1;

    /* Phase A, tile by tile of rows. */
    const struct ts_stencil_blocks tiles = ts_stencil_blocks_of(s->row_lo, s->row_hi, tile_rows);
    struct ts_wave_levels w = ts_wave_levels_of(s, arrays, r.part, t0, k, lo, hi, ts_stencil_block_tallest(tiles));
    for (int64_t i = 0; i < tiles.n; i++)
        trapezoid_tile(s, &w, lo, hi, open_lo, open_hi, ts_stencil_block_edge(tiles, i),
                       ts_stencil_block_edge(tiles, i + 1));

    /* Phase B: what phase A left, level by level, after the neighbours' previous level. */
    for (int64_t lev = 1; lev <= k; lev++) {
        if (lev > 1 && open_lo)
            wait_for(r.part - 1, t0 + lev - 1);
        if (lev > 1 && open_hi)
            wait_for(r.part + 1, t0 + lev - 1);
        int64_t a = lo + lev * open_lo, b = hi - lev * open_hi;
        if (a < b) {
            level(s, arrays, t0 + lev, lo, a, block_rows);
            level(s, arrays, t0 + lev, b, hi, block_rows);
        } else {
            level(s, arrays, t0 + lev, lo, hi, block_rows);
        }
        atomic_store_explicit(&progress[r.part].done, t0 + lev, memory_order_release);
    }
}

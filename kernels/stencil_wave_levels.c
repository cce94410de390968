/* Where stencil3d's wavefront keeps a block's levels (stencil_wavefront.c walks them).
 *
 * With two grids alone, level s goes to grid (t0 + s) % 2. Grid t0 % 2 holds the input, which
 * the first level reads into the cache anyway; the other grid's lines held a step long dead,
 * and writing level 1 over them first reads them from memory (a write-allocate), then writes
 * them back. So the levels of the parity other than the block's last go to a small ring of
 * plane strips per thread instead, which stays in the L2: only the grid of the last level is
 * read and written, once per block (1.18x at k = 4, 400^3, on an Intel Xeon VM; performance.md).
 *
 * Three things still need a ring level in a grid, and get it there:
 * - Phase B and the neighbouring threads read the planes near the part's sides from the
 *   grids, so the planes outside [d0 + 2, d1 - 2) write their ring levels to the grid too,
 *   and only the planes inside [d0 + 1, d1 - 1), whose neighbours are all in the ring, read
 *   from it.
 * - The next y-tile reads the two top rows of each of this tile's ring levels. Those rows go to
 *   an edge store, plane after plane in the order the next tile reads them back (a stream the
 *   hardware prefetches; two rows of each plane in the grid, a plane's size apart, each arrive
 *   a memory latency late: the ring ran 0.97x the grids' speed with them there, 1.06-1.10x with
 *   the store), and each tile copies the two rows below its own from there into its ring (the
 *   boundary row from the grid for the first tile; the last tile also copies the top boundary
 *   row).
 * - A ring wraps, and a level reads three consecutive planes at one stride: the ring's pages are
 *   mapped twice, back to back, so the slots after the last are the first ones again (a copy of
 *   the wrapping slots instead ran 0.92x as fast). Where that mapping fails, every level
 *   stays in the grids.
 * Every value is still computed once, by the same expression from the same inputs: copies
 * move bits, so the results stay those of time_block = 1. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stencil_common.h"

#define PAGE_DOUBLES 512

/* bytes (whole pages) mapped twice, back to back; NULL when the system refuses. */
static double *ring_map(size_t bytes)
{
    const int fd = memfd_create("touchstone-wavefront", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    char *at = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        at = mmap(0, 2 * bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at != MAP_FAILED
        && (mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED
            || mmap(at + bytes, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)) {
        munmap(at, 2 * bytes);
        at = MAP_FAILED;
    }
    close(fd);
    return at == MAP_FAILED ? 0 : (double *)(void *)at;
}

/* Each part's ring and edge store, made and first touched by the thread that runs the part,
 * made anew when a run needs another size, and kept for the process's life (reachable, so no leak
 * checker counts them). */
static struct {
    double *ring, *edges;
    int64_t ring_elems, edge_elems;
    int64_t nx, slot_elems; /* the layout the ring's zeros are for */
} stores[TS_WAVE_MAX_PARTS];

/* The ring starts as zeros for its layout: the x-boundary points of a slot's rows (every nx
 * from each slot's start) are read by the stencil and never written but with a zero, so a ring
 * that served rows of another length or slots of another size is zeroed again. */
static int store_of(int part, int64_t ring_elems, int64_t nx, int64_t slot_elems, int64_t edge_elems)
{
    if (part < 0 || part >= TS_WAVE_MAX_PARTS)
        return 1;
    /* The ring's size is where its second mapping begins: exactly what this run's slots fill. */
    if (stores[part].ring_elems != ring_elems) {
        if (stores[part].ring)
            munmap(stores[part].ring, 2 * (size_t)stores[part].ring_elems * sizeof(double));
        stores[part].ring_elems = 0;
        stores[part].nx = 0;
        stores[part].ring = ring_map((size_t)ring_elems * sizeof(double));
        if (!stores[part].ring)
            return 1;
        stores[part].ring_elems = ring_elems;
    }
    if (stores[part].nx != nx || stores[part].slot_elems != slot_elems) {
        memset(stores[part].ring, 0, (size_t)ring_elems * sizeof(double));
        stores[part].nx = nx;
        stores[part].slot_elems = slot_elems;
    }
    if (edge_elems > 0 && stores[part].edge_elems < edge_elems) {
        free(stores[part].edges);
        stores[part].edge_elems = 0;
        stores[part].edges = malloc((size_t)edge_elems * sizeof(double));
        if (!stores[part].edges)
            return 1;
        stores[part].edge_elems = edge_elems;
    }
    return 0;
}

/* A level needs its slot from its first front to the last level's read of it, k + 1 fronts
 * later: one more slot than that, so no plane's slot is reused while a level may read it. */
static int64_t slots_of(int64_t k)
{
    return k + 2;
}

int ts_wave_rings_fit(int64_t planes, int64_t k)
{
    return k >= 2 && planes - 2 * k >= 5;
}

struct ts_wave_levels ts_wave_levels_of(const struct ts_stencil_sweep *s, double *const *arrays, int part, int64_t t0,
                                        int64_t k, int64_t lo, int64_t hi, int64_t tile_rows)
{
    struct ts_wave_levels w = {
        .s = s,
        .grids = { arrays[0], arrays[1] },
        .t0 = t0,
        .k = k,
        .slots = slots_of(k),
    };
    /* Phase B reads the trapezoid's planes up to k from each side, from the grids. */
    const int64_t d0 = lo + k, d1 = hi - k;
    if (s->item_elems == s->nx || !ts_wave_rings_fit(hi - lo, k))
        return w;
    /* Rows from k + 1 below a tile's first (its last level's skew and the two rows below) to one
     * above its last (the top boundary row). */
    w.slot_rows = tile_rows + k + 2;
    /* Whole pages: the slots must fill the ring's pages for its second mapping to continue it. */
    w.slot_elems = (w.slot_rows * s->nx + PAGE_DOUBLES - 1) / PAGE_DOUBLES * PAGE_DOUBLES;
    /* The edge store only where there are tiles to pass edges on. */
    const int64_t edge_elems = tile_rows < s->row_hi - s->row_lo ? k / 2 * (d1 - d0) * 2 * s->nx : 0;
    if (!store_of(part, w.slots * w.slot_elems, s->nx, w.slot_elems, edge_elems)) {
        w.ring = stores[part].ring;
        w.edges = stores[part].edges;
        w.d0 = d0;
        w.d1 = d1;
    }
    return w;
}

void ts_wave_levels_tile(struct ts_wave_levels *w, int64_t y0, int last)
{
    w->y0 = y0;
    w->last = last;
}

static int ring_level(const struct ts_wave_levels *w, int64_t lev)
{
    return lev > 0 && lev < w->k && (w->k - lev) % 2 == 1;
}

/* Slot 0 as the slots + 1st, in the second mapping: a plane's neighbours, at the index on
 * either side, are then always in the ring's two mappings. */
static int64_t slot_index(const struct ts_wave_levels *w, int64_t q)
{
    return q % w->slots ? q % w->slots : w->slots;
}

/* Row j of level lev in slot index. Each level's rows start at the slot's first row, two below
 * its first row in the tile (y0 - lev + 1, the skew): a slot holds one level at a time, so a
 * tile touches tile + 3 rows of it, not the tile + k + 2 the levels span together (the last
 * tile, whose levels all end at the top boundary, up to tile + lev + 2). */
static double *slot_row(const struct ts_wave_levels *w, int64_t index, int64_t lev, int64_t j)
{
    return w->ring + index * w->slot_elems + (j - (w->y0 - lev - 1)) * w->s->nx;
}

static double *grid_row(const struct ts_wave_levels *w, int64_t lev, int64_t q, int64_t j)
{
    return w->grids[(w->t0 + lev) % 2] + q * w->s->item_elems + j * w->s->nx;
}

/* The two top rows of ring level lev of plane q, as the last tile left them. */
static double *edge_rows(const struct ts_wave_levels *w, int64_t lev, int64_t q)
{
    return w->edges + ((w->k - 1 - lev) / 2 * (w->d1 - w->d0) + (q - w->d0)) * 2 * w->s->nx;
}

static void copy_rows(double *to, const double *from, int64_t nx, int64_t rows)
{
    if (rows > 0)
        memcpy(to, from, (size_t)(rows * nx) * sizeof(double));
}

void ts_wave_level_rows(const struct ts_wave_levels *w, int64_t lev, int64_t q, int64_t j0, int64_t j1)
{
    const struct ts_stencil_sweep *s = w->s;
    const int64_t nx = s->nx, index = slot_index(w, q);
    const int reads_ring = ring_level(w, lev - 1) && q > w->d0 && q < w->d1 - 1;
    const double *in = reads_ring ? slot_row(w, index, lev - 1, j0) : grid_row(w, lev - 1, q, j0);
    const int64_t in_plane = reads_ring ? w->slot_elems : s->plane;
    if (!ring_level(w, lev) || q < w->d0 || q >= w->d1) {
        ts_stencil_rows_at(s, in + 1, in_plane, grid_row(w, lev, q, j0) + 1, j1 - j0);
        return;
    }
    /* Below the tile's rows: the previous tile's top two, or, where they would reach row 0 (the
     * first tile's rows, which start at row 1, and rows the skew cut at row 1), the boundary. */
    const int64_t below = j0 - 2 > 0 ? j0 - 2 : 0, above = w->last ? 1 : 0;
    if (j0 >= 2)
        copy_rows(slot_row(w, index, lev, below), edge_rows(w, lev, q), nx, 2);
    else
        copy_rows(slot_row(w, index, lev, below), grid_row(w, lev, q, below), nx, j0 - below);
    copy_rows(slot_row(w, index, lev, j1), grid_row(w, lev, q, j1), nx, above);
    ts_stencil_rows_at(s, in + 1, in_plane, slot_row(w, index, lev, j0) + 1, j1 - j0);
    if (!w->last)
        copy_rows(edge_rows(w, lev, q), slot_row(w, index, lev, j1 - 2), nx, 2);
    if (q < w->d0 + 2 || q >= w->d1 - 2)
        copy_rows(grid_row(w, lev, q, j0), slot_row(w, index, lev, j0), nx, j1 - j0);
}

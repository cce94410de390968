/* Pieces shared by the 2D and 3D Jacobi kernels. Internal to kernels/. */
#ifndef TOUCHSTONE_KERNELS_STENCIL_COMMON_H
#define TOUCHSTONE_KERNELS_STENCIL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "ts_kernel.h"

/* Weights of the Jacobi step u' = center * u + neighbour * (sum of the 2d neighbours),
 * i.e. u' = u + alpha * (discrete Laplacian), for d = 2 or 3 dimensions. */
struct ts_stencil_weights {
    double center;
    double neighbour;
};

struct ts_stencil_weights ts_stencil_weights(const struct ts_problem *pb, int dims);

/* The discrete eigenmode the grid starts from is a product of one factor per axis,
 * sin(pi i/(n-1)) for interior points and exactly 0 on the boundary. */
double ts_stencil_mode_factor(int64_t index, int64_t points);

/* The factors of count points of one axis from global index origin on, computed once per call
 * instead of once per grid point (sin is expensive): table[i] is the factor of origin + i.
 * Returns a malloc'd table, or NULL when memory is short: callers then use
 * ts_stencil_mode_factor directly and get the same values. */
double *ts_stencil_axis_table(int64_t origin, int64_t count, int64_t points);

/* Where a problem's grid lies in the global one, per axis x, y, z: the global index of its
 * point 0, the global sizes, and the points it answers for, [own_begin, own_end). The whole
 * problem is its own global grid (origin 0, every point its own); a rank's part
 * (struct ts_problem_part) is its block with one layer per side. z is [0, 1) in 2D. */
struct ts_stencil_frame {
    int64_t origin[3];
    int64_t whole[3];
    int64_t own_begin[3];
    int64_t own_end[3];
};

struct ts_stencil_frame ts_stencil_frame_of(const struct ts_problem *pb, int dims);

/* Writes the initial values of rows [first_row, end_row) of both grids; row r is grid row
 * r % ny of plane r / ny (nz = 1 in 2D). A part's points get the global grid's values. */
void ts_stencil_init_rows(const struct ts_problem *pb, int dims, double *u0, double *u1, int64_t first_row,
                          int64_t end_row);

/* Deposits the square of every point of rows [first_row, end_row) exactly (ts_xsum_add_squares). */
void ts_stencil_norm_rows(const double *grid, int64_t nx, int64_t first_row, int64_t end_row, struct ts_xsum *partial);

/* The stencils' result over rows [first_row, end_row): ts_stencil_norm_rows for the whole
 * problem; for a part, the squares of the points it owns only, each deposited exactly, so the
 * parts' merged sums equal the whole grid's bitwise. */
void ts_stencil_result_rows(const struct ts_problem *pb, int dims, const double *grid, int64_t first_row,
                            int64_t end_row, struct ts_xsum *partial);

/* One output row segment of a Jacobi step: o[i] for i < len from the input at c[i] and its
 * neighbours c[i +- 1], c[i +- nx] and, in 3D, c[i +- plane]. One function per stencil shape,
 * so the hot loop has no branches. */
typedef void ts_stencil_row_fn(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                               struct ts_stencil_weights w, int64_t len);

/* The 3D row function every 3D variant's bits are defined by (stencil_sweep.c), portable: the
 * compiler vectorises it at the build's width. stencil_wide.c's row is the same, faster, on
 * some CPUs (ts_stencil_row3d_for_cpu). */
ts_stencil_row_fn ts_stencil_row3d;

/* A run of rows with streaming stores (stencil_stream.c): o[0..len), x-boundary points stored
 * as +0.0; x0 is the x of o[0]. */
typedef void ts_stencil_stream_fn(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                                  struct ts_stencil_weights w, int64_t len, int64_t x0);

/* How a step walks the grid. Items are the partition's: rows in 2D, planes in 3D. */
struct ts_stencil_sweep {
    ts_stencil_row_fn *row;
    ts_stencil_row_fn *planes;          /* 3D: rows of TS_STENCIL_PLANES planes at once, or NULL */
    ts_stencil_stream_fn *run_streamed; /* NULL in builds without vector streaming stores */
    struct ts_stencil_weights w;
    int64_t nx, plane;      /* neighbour distances along y and z */
    int64_t item_elems;     /* doubles per item: nx (2D) or nx*ny (3D) */
    int64_t items;          /* ny (2D) or nz (3D); the first and last are boundary */
    int64_t row_lo, row_hi; /* the rows of an item a step updates: [0, 1) in 2D, [1, ny-1) in 3D */
    int nontemporal;
};

struct ts_stencil_sweep ts_stencil_sweep_of(const struct ts_problem *pb, int dims);

/* Every updated row of items [q0, q1) of one step, from grid in to grid out, as a plain step
 * sweeps them: in 3D by y-blocks of at most `block` rows (ts_stencil_block_rows), each over the
 * items, three planes a pass where the sweep has them. */
void ts_stencil_sweep_items(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q0, int64_t q1,
                            int64_t block);

/* Blocks of rows (stencil3d's y-blocks and wavefront tiles) cut rows [lo, hi) into n blocks of
 * heights that differ by one row at most: never a last block of the few rows left over, which
 * costs a sweep over every plane for a sliver of rows, short runs against the memory's latency.
 * Block i is rows [edge(i), edge(i + 1)). */
struct ts_stencil_blocks {
    int64_t lo, rows, n;
};

/* The fewest blocks of at most height rows each. */
struct ts_stencil_blocks ts_stencil_blocks_of(int64_t lo, int64_t hi, int64_t height);
int64_t ts_stencil_block_edge(struct ts_stencil_blocks b, int64_t i);
/* The tallest of the blocks. */
int64_t ts_stencil_block_tallest(struct ts_stencil_blocks b);

/* The tallest block when rows are cut into blocks of at most fit rows: what the plan records. */
int64_t ts_stencil_even_rows(int64_t rows, int64_t fit);

/* Rows of stencil3d's tallest spatial block: at most pb->block_y, or, when 0, the most rows whose
 * strips of the three input planes stay in cache (the layer condition), cut evenly
 * (ts_stencil_even_rows); all rows when they fit unblocked. */
int64_t ts_stencil_block_rows(const struct ts_problem *pb, int dims);

/* One iteration over the items in r: time_block steps, starting at time step t0. */
void ts_stencil_step(const struct ts_problem *pb, int dims, double *const *arrays, struct ts_range r, int64_t t0);

/* The kernels' step_split (ts_kernel.h): step t0 over the items of r, rim = 0 the points that
 * read no halo layer (ts_stencil_step's sweep cut to them), rim = 1 the others. */
void ts_stencil_step_split(const struct ts_problem *pb, int dims, double *const *arrays, struct ts_range r, int64_t t0,
                           int rim);

/* Temporal blocking: k steps of items r in one sweep (stencil_wavefront.c), in skewed tiles of at
 * most tile_rows rows of each item, cut evenly (0: all of them); the few items each level leaves
 * to be done in step with the neighbours are swept as a plain step, in y-blocks of block_rows. */
void ts_stencil_wavefront(const struct ts_stencil_sweep *s, double *const *arrays, struct ts_range r, int64_t t0,
                          int64_t k, int64_t tile_rows, int64_t block_rows);

/* The wavefront's parts per process: one more than openmp.threads allows. Each has its progress
 * flag (stencil_wavefront.c) and its ring and edge store (stencil_wave_levels.c). */
#define TS_WAVE_MAX_PARTS 4097

/* Where the wavefront keeps a block's levels (stencil_wave_levels.c): the grids, and for the
 * planes [d0, d1) of stencil3d's longer parts a ring of `slots` plane strips (its pages mapped
 * twice, back to back) of slot_rows rows, for the levels of the parity other than the last's;
 * y0 is the first row of the tile begun last. */
struct ts_wave_levels {
    const struct ts_stencil_sweep *s; /* the step's rows, strides and grid geometry */
    double *grids[2];
    double *ring;  /* NULL: every level in the grids */
    double *edges; /* the two top rows of each ring level of each plane of [d0, d1) */
    int64_t t0, k;
    int64_t slots, slot_rows, slot_elems, y0;
    int64_t d0, d1;
    int last; /* the tile begun last ends at the top boundary */
};

/* The levels of part's block of k steps from t0 over its items [lo, hi), in tiles of at most
 * tile_rows rows. */
struct ts_wave_levels ts_wave_levels_of(const struct ts_stencil_sweep *s, double *const *arrays, int part, int64_t t0,
                                        int64_t k, int64_t lo, int64_t hi, int64_t tile_rows);

/* Whether a part of `planes` planes keeps its inner levels in a ring at time_block k: more than
 * the k planes at each side that phase B reads from the grids, by five. */
int ts_wave_rings_fit(int64_t planes, int64_t k);

/* Starts the tile whose first row is y0; last: it ends at the top boundary. */
void ts_wave_levels_tile(struct ts_wave_levels *w, int64_t y0, int last);

/* Level lev of rows [j0, j1) of item q, in the tile begun last. */
void ts_wave_level_rows(const struct ts_wave_levels *w, int64_t lev, int64_t q, int64_t j0, int64_t j1);

/* n rows of one step as one run (as a plain step sweeps an item's rows), from the input's first
 * interior point at in, its items in_plane doubles apart, to the output's at out. */
void ts_stencil_rows_at(const struct ts_stencil_sweep *s, const double *in, int64_t in_plane, double *out, int64_t n);

/* Rows of stencil3d's tallest wavefront tile: at most pb->block_y, or, when 0, the most rows whose
 * 2(k + 2) strips of the two grids stay in cache, cut evenly; all rows in 2D, without temporal
 * blocking, or when they fit. */
int64_t ts_stencil_wave_rows(const struct ts_problem *pb, int dims);

/* Forgets part's wavefront progress; every part's init calls it before the first step. */
void ts_stencil_wavefront_reset(int part);

/* The plan shared by both stencils, and the variant it selects in words; 0 or non-zero with why. */
int ts_stencil_plan(const struct ts_problem *pb, int dims, struct ts_plan *plan, char *why, size_t why_len);

/* Checks the grid after `steps` Jacobi steps against lambda^steps times the eigenmode; a part
 * checks its own points against the global grid's answer (ts_stencil_frame_of). */
void ts_stencil_verify(const struct ts_problem *pb, int dims, const double *grid, int64_t steps,
                       struct ts_verification *out);

#endif

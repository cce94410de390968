/* The decomposition of a run over ranks as plain arithmetic: how many ranks along each axis of
 * a stencil grid, which interior points each rank owns, who its neighbours are, where its faces
 * and halos lie in its local array, and which slice of a 1D array each rank owns. No MPI here:
 * the MPI layer builds its Cartesian communicator, datatypes and messages from these numbers,
 * and a test can check every one of them in one process.
 *
 * Axes are numbered as the grids are stored: x = 0 (fastest, rows of nx), y = 1, z = 2
 * (nz = 1 in 2D). Every per-axis array below is in that order, as are dims written "2x1x3"
 * (2 ranks along x, 1 along y, 3 along z), like the grid "17x9x31" (nx x ny x nz). */
#ifndef TOUCHSTONE_KERNELS_TS_DECOMP_H
#define TOUCHSTONE_KERNELS_TS_DECOMP_H

#include <stddef.h>
#include <stdint.h>

#include "ts_partition.h"
#include "ts_xsum.h"

enum ts_decomp_status {
    TS_DECOMP_OK = 0,
    TS_DECOMP_BAD_ARGUMENT, /* not 2 or 3 dims, fewer than 1 rank, a grid below 3 points per axis, depth < 1 */
    TS_DECOMP_BAD_DIMS,     /* explicit dims that are not positive, or whose product is not the rank count */
    TS_DECOMP_TOO_SMALL     /* some rank would own no interior point, or fewer than depth along an axis it shares */
};

/* The rank grid of a stencil run. */
struct ts_decomp {
    int ndims;         /* 2 or 3 */
    int ranks;         /* dims[0] * dims[1] * dims[2] */
    int dims[3];       /* ranks along x, y, z; dims[2] = 1 in 2D */
    int64_t points[3]; /* global grid points along x, y, z, boundary included; points[2] = 1 in 2D */
    int automatic;     /* the dims were chosen by ts_decomp_best_dims */
    int depth;         /* halo layers on each side with a neighbour: the steps between two exchanges */
};

/* The faces of a block, in the order of the axes, low side first. In 2D only the first four. */
enum ts_decomp_dir { TS_DIR_X_LO, TS_DIR_X_HI, TS_DIR_Y_LO, TS_DIR_Y_HI, TS_DIR_Z_LO, TS_DIR_Z_HI, TS_DIR_COUNT };

/* What one rank owns and holds. Its local array is the global grid's points
 * [origin, origin + local) on every axis, stored like the global grid (x fastest): the owned
 * block plus, on each side, `depth` layers of halo where a neighbour is and the one layer of
 * physical boundary (fixed points, never updated) where none is (2D: nothing along z). With
 * depth 1 the local array is a grid of its own whose interior is exactly the owned block: a
 * stencil step over it, with the local sizes as nx, ny, nz, updates the owned points. With
 * depth k, k steps over the whole local interior after one exchange leave the owned points
 * right: step s reads, s layers from a halo side, what step s - 1 computed from the halo
 * alone, and the points nearer the side than s hold values no owned point reads before the
 * next exchange. (ts_stencil_step also stores +0.0 in the x layers of the rows it updates,
 * its fixed boundary: harmless for the same reason.) */
struct ts_decomp_block {
    int rank;
    int coords[3];     /* position in the rank grid along x, y, z */
    int64_t begin[3];  /* owned interior points, global indices, half-open [begin, end) per axis */
    int64_t end[3];    /*   (z in 2D: [0, 1)) */
    int64_t origin[3]; /* global index of the local array's first point: begin - depth or - 1 (z in 2D: 0) */
    int64_t local[3];  /* points of the local array per axis: the owned ones and the layers of both sides */
    int neighbour[6];  /* rank across each face (enum ts_decomp_dir), -1 at the physical boundary */
    int depth;         /* the decomposition's: halo layers on each side with a neighbour */
};

/* A layer of a local array: the points start + (i, j, k) for i < count[0], j < count[1],
 * k < count[2], i.e. the elements offset + i * stride[0] + j * stride[1] + k * stride[2]. */
struct ts_decomp_face {
    int64_t start[3];  /* local coordinates of its first point, x, y, z */
    int64_t count[3];  /* points along x, y, z */
    int64_t stride[3]; /* elements between neighbouring points along x, y, z: 1, local x, local x * y */
    int64_t offset;    /* element index of its first point in the local array */
    int64_t elems;     /* count[0] * count[1] * count[2] */
};

/* The rank grid MPI_Dims_create(ranks, ndims, dims) gives with every dims[i] = 0 on entry:
 * factors as close to each other as possible, in non-increasing order, found the way Open MPI
 * finds them (prime factors, largest first, each multiplied into the smallest entry so far,
 * then sorted). MPI order: dims[0] is the slowest axis (z in 3D, y in 2D). It knows nothing of
 * the grid: ts_decomp_best_dims, which does, uses it to order its ties
 * (tests/kernels/test_decomp.c holds the values for 1 to 64 ranks). Returns 0, or EINVAL when
 * ranks < 1 or ndims is not 1, 2 or 3. */
int ts_decomp_auto_dims(int ranks, int ndims, int dims[]);

/* The halo surface of the grid points[0..ndims) (x, y, z; boundary included) split as dims
 * (x, y, z): the points sent one way across every internal cut, summed over the cuts, i.e.
 * sum over the axes a of (dims[a] - 1) x the interior points of the other axes (a cut across x
 * is ny - 2 rows of (nz - 2) planes). Each point goes both ways: twice this many points travel
 * each step, whatever the rank numbering. Halos k deep send about k times as many once every k
 * steps (and the edges and corners the faces carry along), so the grid with the fewest points
 * per layer is the one with the fewest per exchange at any depth. INT64_MAX when it does not
 * fit in an int64_t. */
int64_t ts_decomp_halo_surface(int ndims, const int64_t points[3], const int dims[3]);

/* The rank grid `mpi.dims = auto` takes for halos `depth` deep: of every way to write ranks as
 * dims[0] x dims[1] (x dims[2] in 3D; dims x, y, z, dims[2] = 1 in 2D) that fits, the one with
 * the smallest ts_decomp_halo_surface. A grid fits when every rank has at least one interior
 * point along every axis and at least depth along every axis split among ranks (its halo there
 * is its neighbour's owned points): dims[a] = 1 or dims[a] x depth <= points[a] - 2. Ties go,
 * in this order, to:
 *  1. the counts MPI_Dims_create gives (ts_decomp_auto_dims), in any order over the axes;
 *  2. the more even counts: sorted largest first and compared entry by entry, the smaller
 *     (MPI_Dims_create's own aim, "as close to each other as possible");
 *  3. of the orders of the same counts, the most ranks along z, then along y (the slowest
 *     axes: their faces are contiguous, and z in 3D, y in 2D, is the axis the threads split).
 * So when MPI_Dims_create's grid, placed as before (its largest count along the slowest axis),
 * has the smallest surface, it is the one taken. A square or cubic grid gets it for every rank
 * count whose MPI_Dims_create counts have the smallest sum: all up to 64; the first that do not
 * are 72 ranks in 2D (8x9 taken, MPI_Dims_create's counts 12 and 6) and 432 in 3D (6x8x9,
 * against 12, 6 and 6). Returns 1 with dims filled, or 0 (dims all 0) when no rank grid fits or
 * the arguments are not a grid of ndims axes. */
int ts_decomp_best_dims(int ndims, const int64_t points[3], int ranks, int depth, int dims[3]);

/* The most ranks, at most `ranks`, that some rank grid fits on the grid points[0..ndims) with
 * halos depth deep (at least 1 for a grid of at least 3 points per axis; 0 for bad arguments),
 * with dims set to ts_decomp_best_dims's grid for that many. */
int ts_decomp_most_ranks(int ndims, const int64_t points[3], int ranks, int depth, int dims[3]);

/* Fills d for a grid of points[0..ndims) (x, y, z; boundary included) over `ranks` ranks with
 * halos depth deep (1: one exchange per step; k: per k steps, stencil.time_block), the dims
 * given in x, y, z order (dims[2] 0 or 1 in 2D) or, when dims is NULL or all zero, chosen by
 * ts_decomp_best_dims. Every split that fits (ts_decomp_best_dims says when) is accepted.
 * Returns TS_DECOMP_OK, or another status with the reason and the numbers in why (when
 * why_len > 0). A refusal ends with what works: a `mpi.dims` for the run's ranks (auto's grid)
 * when one fits, and otherwise the most ranks some rank grid fits (ts_decomp_most_ranks) with
 * that grid, e.g. "5 ranks as 1x1x5 leave 0 interior planes to rank 3 (z coordinate 3): the
 * grid 5x5x5 has 3 interior planes in z; use at most 3 ranks along z or nz >= 7; no rank grid
 * of 5 ranks fits the grid 5x5x5: at most 4 ranks fit, as mpi.dims = 1x2x2". */
enum ts_decomp_status ts_decomp_create(struct ts_decomp *d, int ndims, const int64_t points[3], int ranks,
                                       const int dims[3], int depth, char *why, size_t why_len);

/* The rank at coords (x, y, z), numbered as MPI_Cart_create numbers them without reordering
 * over the dims ts_decomp_cart_dims gives: x fastest, (cz * dims_y + cy) * dims_x + cx.
 * Returns -1 when coords lie outside the rank grid. */
int ts_decomp_rank(const struct ts_decomp *d, const int coords[3]);

/* The coordinates (x, y, z) of rank (0 <= rank < d->ranks); all -1 for another rank. */
void ts_decomp_coords(const struct ts_decomp *d, int rank, int coords[3]);

/* The dims in MPI order, slowest axis first ({dz, dy, dx} in 3D, {dy, dx} in 2D): what
 * MPI_Cart_create takes so that its rank numbering and MPI_Cart_coords agree with ts_decomp_rank
 * and ts_decomp_coords read backwards. Returns d->ndims, the entries filled. */
int ts_decomp_cart_dims(const struct ts_decomp *d, int cart[3]);

/* The block of rank: its owned points, local array and neighbours. Interior points are spread
 * as evenly as possible along each axis: sizes differ by at most one point, the first ranks
 * along an axis taking the extra ones (ts_partition's rule with a granule of one point: each
 * rank's local array is its own allocation, so no page is shared between ranks whatever the
 * split). Returns 0, or EINVAL when rank is not one of d's. */
int ts_decomp_block(const struct ts_decomp *d, int rank, struct ts_decomp_block *b);

/* The owned layers b sends across face dir: its depth layers next to that face (one at a
 * physical boundary), over the owned range of the other axes, except, with halos deeper than
 * one, of the axes before dir's (x before y before z), whose whole local range it spans: their
 * halos, received in an earlier round (ts_decomp_rounds), carry the edges and corners that k
 * steps read. The neighbour receives it into its halo of the opposite face (dir ^ 1), which has
 * the same counts. Valid for every face, a physical boundary included. */
struct ts_decomp_face ts_decomp_send_face(const struct ts_decomp_block *b, enum ts_decomp_dir dir);

/* The halo layers b receives across face dir, over the same range of the other axes as the
 * face it sends there (at the physical boundary: the fixed boundary points there). */
struct ts_decomp_face ts_decomp_recv_face(const struct ts_decomp_block *b, enum ts_decomp_dir dir);

/* The rounds of one exchange, each finished (received and unpacked) before the next is packed:
 * with halos one layer deep, one round of every face (the 5-point and 7-point stencils read no
 * diagonal neighbour within one step); deeper, one round per axis split among ranks, x first,
 * so that the faces of later axes carry the halos of earlier ones and a corner arrives in two
 * or three hops, with no message to a diagonal neighbour. Every rank of d has the same rounds.
 * ts_decomp_round_dirs gives round r's faces, the dirs [*first, *end). */
int ts_decomp_rounds(const struct ts_decomp *d);
void ts_decomp_round_dirs(const struct ts_decomp *d, int round, int *first, int *end);

/* Copies the points of face f of the local array into buf, x fastest; returns f->elems. */
int64_t ts_decomp_pack(const double *local, const struct ts_decomp_face *f, double *buf);

/* Copies buf (x fastest, as ts_decomp_pack writes it) into face f of the local array; returns
 * f->elems. */
int64_t ts_decomp_unpack(double *local, const struct ts_decomp_face *f, const double *buf);

/* The same for the rows [first, end) of the face alone (a row: its count[0] points along x;
 * rows y fastest, then z), in their places of buf: threads that share a face's rows call it
 * each for its own. ts_decomp_pack and ts_decomp_unpack are the whole range. */
void ts_decomp_pack_rows(const double *local, const struct ts_decomp_face *f, double *buf, int64_t first, int64_t end);
void ts_decomp_unpack_rows(double *local, const struct ts_decomp_face *f, const double *buf, int64_t first,
                           int64_t end);

/* The slice [begin, end) of n elements rank owns of `ranks` (sum, triad): contiguous, in rank
 * order, boundaries on multiples of granule elements spread as evenly as possible
 * (ts_partition's rule, so trailing ranks own nothing when there are fewer granules than
 * ranks). Pass the granule of the thread partition (a multiple of TS_SUM_BLOCK, rounded up to
 * whole pages): every block of the reproducible sum is then summed whole by one rank, so the
 * result does not depend on the rank count, and a rank's slice is whole pages of the global
 * array, as a thread's chunk is. Returns 0, EINVAL for bad arguments, or ENOMEM. */
int ts_decomp_slice(int64_t n, int ranks, int rank, int64_t granule, struct ts_range *out);

/* Deposits into acc, exactly, the square of every point b owns in rows [first_row, end_row) of
 * its local array (row r lies at y = r % local y, z = r / local y, as the stencils number rows;
 * halo and boundary points are skipped): the stencils' result, sum of u^2, over a rank's block or
 * a thread's share of it. Each square is deposited on its own (ts_xsum_add_squares), so the
 * merged sums of all ranks and threads equal the whole grid's bitwise, whatever the split. */
void ts_decomp_sum_squares(const double *local, const struct ts_decomp_block *b, int64_t first_row, int64_t end_row,
                           struct ts_xsum *acc);

/* Writes d's dims as "2x1x3" (x first; "2x2" in 2D) into buf; returns what snprintf returns. */
int ts_decomp_dims_text(const struct ts_decomp *d, char *buf, size_t len);

#endif

/* The decomposition over ranks, in one process: ts_decomp_auto_dims is MPI_Dims_create; the
 * automatic rank grid is, of those that fit the grid, the one that cuts the fewest halo points
 * (checked against every rank grid by brute force), ties in MPI_Dims_create's order; the blocks of all ranks tile the interior exactly once with sizes differing by at most one;
 * grids too small for the ranks are refused with the numbers; the 1D slices tile [0, n); and
 * R simulated ranks that exchange halos by pack/unpack and step their local arrays produce,
 * bit for bit, the field one array gives, iteration after iteration, also with halos k deep
 * exchanged in rounds once per k steps of the wavefront (stencil.time_block = k). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_common.h"
#include "ts_decomp.h"
#include "ts_kernel.h"
#include "ts_partition.h"
#include "ts_test.h"

/* MPI_Dims_create(R, ndims, dims) with dims all 0, for R = 1..64, as Open MPI 4.1.4 returns
 * them (printed by a 10-line program on this machine, 2026-12-03). Up to 16 every MPI gives
 * these: they are the only factorizations that are as close as possible and non-increasing. */
static const int dims2[64][2] = {
    /*  1 */ { 1, 1 },  { 2, 1 },  { 3, 1 },  { 2, 2 },  { 5, 1 },  { 3, 2 },  { 7, 1 },  { 4, 2 },
    /*  9 */ { 3, 3 },  { 5, 2 },  { 11, 1 }, { 4, 3 },  { 13, 1 }, { 7, 2 },  { 5, 3 },  { 4, 4 },
    /* 17 */ { 17, 1 }, { 6, 3 },  { 19, 1 }, { 5, 4 },  { 7, 3 },  { 11, 2 }, { 23, 1 }, { 6, 4 },
    /* 25 */ { 5, 5 },  { 13, 2 }, { 9, 3 },  { 7, 4 },  { 29, 1 }, { 6, 5 },  { 31, 1 }, { 8, 4 },
    /* 33 */ { 11, 3 }, { 17, 2 }, { 7, 5 },  { 6, 6 },  { 37, 1 }, { 19, 2 }, { 13, 3 }, { 8, 5 },
    /* 41 */ { 41, 1 }, { 7, 6 },  { 43, 1 }, { 11, 4 }, { 9, 5 },  { 23, 2 }, { 47, 1 }, { 8, 6 },
    /* 49 */ { 7, 7 },  { 10, 5 }, { 17, 3 }, { 13, 4 }, { 53, 1 }, { 9, 6 },  { 11, 5 }, { 8, 7 },
    /* 57 */ { 19, 3 }, { 29, 2 }, { 59, 1 }, { 10, 6 }, { 61, 1 }, { 31, 2 }, { 9, 7 },  { 8, 8 },
};
static const int dims3[64][3] = {
    /*  1 */ { 1, 1, 1 },  { 2, 1, 1 },  { 3, 1, 1 },  { 2, 2, 1 },  { 5, 1, 1 },  { 3, 2, 1 },  { 7, 1, 1 },
    /*  8 */ { 2, 2, 2 },  { 3, 3, 1 },  { 5, 2, 1 },  { 11, 1, 1 }, { 3, 2, 2 },  { 13, 1, 1 }, { 7, 2, 1 },
    /* 15 */ { 5, 3, 1 },  { 4, 2, 2 },  { 17, 1, 1 }, { 3, 3, 2 },  { 19, 1, 1 }, { 5, 2, 2 },  { 7, 3, 1 },
    /* 22 */ { 11, 2, 1 }, { 23, 1, 1 }, { 4, 3, 2 },  { 5, 5, 1 },  { 13, 2, 1 }, { 3, 3, 3 },  { 7, 2, 2 },
    /* 29 */ { 29, 1, 1 }, { 5, 3, 2 },  { 31, 1, 1 }, { 4, 4, 2 },  { 11, 3, 1 }, { 17, 2, 1 }, { 7, 5, 1 },
    /* 36 */ { 4, 3, 3 },  { 37, 1, 1 }, { 19, 2, 1 }, { 13, 3, 1 }, { 5, 4, 2 },  { 41, 1, 1 }, { 7, 3, 2 },
    /* 43 */ { 43, 1, 1 }, { 11, 2, 2 }, { 5, 3, 3 },  { 23, 2, 1 }, { 47, 1, 1 }, { 4, 4, 3 },  { 7, 7, 1 },
    /* 50 */ { 5, 5, 2 },  { 17, 3, 1 }, { 13, 2, 2 }, { 53, 1, 1 }, { 6, 3, 3 },  { 11, 5, 1 }, { 7, 4, 2 },
    /* 57 */ { 19, 3, 1 }, { 29, 2, 1 }, { 59, 1, 1 }, { 5, 4, 3 },  { 61, 1, 1 }, { 31, 2, 1 }, { 7, 3, 3 },
    /* 64 */ { 4, 4, 4 },
};

static void auto_dims(void)
{
    for (int r = 1; r <= 64; r++) {
        int d[3] = { 0, 0, 0 };
        CHECK(ts_decomp_auto_dims(r, 2, d) == 0, "auto dims of %d ranks in 2D refused", r);
        CHECK(d[0] == dims2[r - 1][0] && d[1] == dims2[r - 1][1], "%d ranks in 2D: %dx%d, MPI_Dims_create gives %dx%d",
              r, d[0], d[1], dims2[r - 1][0], dims2[r - 1][1]);
        CHECK(ts_decomp_auto_dims(r, 3, d) == 0, "auto dims of %d ranks in 3D refused", r);
        CHECK(d[0] == dims3[r - 1][0] && d[1] == dims3[r - 1][1] && d[2] == dims3[r - 1][2],
              "%d ranks in 3D: %dx%dx%d, MPI_Dims_create gives %dx%dx%d", r, d[0], d[1], d[2], dims3[r - 1][0],
              dims3[r - 1][1], dims3[r - 1][2]);
    }
    int d[3];
    CHECK(ts_decomp_auto_dims(0, 2, d) == EINVAL, "0 ranks must be refused");
    CHECK(ts_decomp_auto_dims(4, 4, d) == EINVAL, "4 dimensions must be refused");
    CHECK(ts_decomp_auto_dims(2147483647, 3, d) == 0 && d[0] == 2147483647 && d[1] == 1 && d[2] == 1,
          "the largest int (a prime) as ranks: %dx%dx%d", d[0], d[1], d[2]);

    /* The largest count goes to the slowest axis: z in 3D, y in 2D. */
    struct ts_decomp dc;
    const int64_t grid[3] = { 100, 100, 100 };
    REQUIRE(ts_decomp_create(&dc, 3, grid, 12, NULL, 1, NULL, 0) == TS_DECOMP_OK, "12 ranks on 100^3 refused");
    CHECK(dc.dims[0] == 2 && dc.dims[1] == 2 && dc.dims[2] == 3 && dc.automatic,
          "12 ranks in 3D: %dx%dx%d (x, y, z), expected 2x2x3", dc.dims[0], dc.dims[1], dc.dims[2]);
    int cart[3];
    CHECK(ts_decomp_cart_dims(&dc, cart) == 3 && cart[0] == 3 && cart[1] == 2 && cart[2] == 2,
          "MPI order of 2x2x3 is %d,%d,%d, expected 3,2,2", cart[0], cart[1], cart[2]);
    REQUIRE(ts_decomp_create(&dc, 2, grid, 6, (const int[3]){ 0, 0, 0 }, 1, NULL, 0) == TS_DECOMP_OK,
            "6 ranks on 100^2 refused");
    CHECK(dc.dims[0] == 2 && dc.dims[1] == 3 && dc.dims[2] == 1 && dc.automatic,
          "6 ranks in 2D: %dx%dx%d, expected 2x3(x1)", dc.dims[0], dc.dims[1], dc.dims[2]);
    CHECK(ts_decomp_cart_dims(&dc, cart) == 2 && cart[0] == 3 && cart[1] == 2, "MPI order of 2x3 is %d,%d", cart[0],
          cart[1]);
}

/* The points sent one way across every internal cut, counted face by face from the blocks
 * (ts_decomp_send_face of every rank towards every neighbour: each cut twice, once per side). */
static int64_t faces_sent(int ndims, const int64_t points[3], int ranks, const int dims[3])
{
    struct ts_decomp d;
    if (ts_decomp_create(&d, ndims, points, ranks, dims, 1, NULL, 0) != TS_DECOMP_OK)
        return -1;
    int64_t sent = 0;
    for (int r = 0; r < ranks; r++) {
        struct ts_decomp_block b;
        ts_decomp_block(&d, r, &b);
        for (int dir = 0; dir < 2 * ndims; dir++)
            if (b.neighbour[dir] >= 0)
                sent += ts_decomp_send_face(&b, (enum ts_decomp_dir)dir).elems;
    }
    return sent / 2;
}

/* The tie order of ts_decomp.h written as one key, compared from its first entry on: the
 * surface, 0 for MPI_Dims_create's counts, the counts sorted largest first, then the counts
 * negated from z to x (more ranks along z, then y, first). */
static void tie_key(int ndims, const int64_t points[3], int ranks, const int dims[3], int64_t key[8])
{
    int mpi[3], sorted[3] = { dims[0], dims[1], ndims == 3 ? dims[2] : 1 };
    ts_decomp_auto_dims(ranks, ndims, mpi);
    for (int i = 0; i < ndims; i++) /* a few entries: a bubble sort, largest first */
        for (int j = 0; j + 1 < ndims; j++)
            if (sorted[j] < sorted[j + 1]) {
                int t = sorted[j];
                sorted[j] = sorted[j + 1];
                sorted[j + 1] = t;
            }
    int same = 1;
    for (int i = 0; i < ndims; i++)
        same = same && sorted[i] == mpi[i];
    memset(key, 0, 8 * sizeof key[0]);
    key[0] = ts_decomp_halo_surface(ndims, points, dims);
    key[1] = !same;
    for (int i = 0; i < ndims; i++) {
        key[2 + i] = sorted[i];
        key[5 + i] = -dims[ndims - 1 - i];
    }
}

static int key_before(const int64_t a[8], const int64_t b[8])
{
    for (int i = 0; i < 8; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Against every way to write ranks over the axes, by brute force: the surface is the faces the
 * blocks exchange; auto takes a grid that fits exactly when one exists, and the first of them
 * in the tie order; ts_decomp_most_ranks is the largest count up to ranks that some grid fits. */
static void check_best(int ndims, const int64_t points[3], int ranks)
{
    int best[3] = { 0, 0, 0 }, fits = 0, most = 1;
    int64_t best_key[8] = { 0 };
    for (int dx = 1; dx <= ranks; dx++)
        for (int dy = 1; dx * dy <= ranks; dy++)
            for (int dz = 1; dx * dy * dz <= ranks && (ndims == 3 || dz == 1); dz++) {
                const int dims[3] = { dx, dy, dz };
                const int product = dx * dy * dz;
                const int ok = dx <= points[0] - 2 && dy <= points[1] - 2 && (ndims == 2 || dz <= points[2] - 2);
                if (ok && product > most)
                    most = product;
                if (!ok || product != ranks)
                    continue;
                CHECK(faces_sent(ndims, points, ranks, dims) == ts_decomp_halo_surface(ndims, points, dims),
                      "%dx%dx%d: the blocks send %lld points a way, the surface is %lld", dx, dy, dz,
                      (long long)faces_sent(ndims, points, ranks, dims),
                      (long long)ts_decomp_halo_surface(ndims, points, dims));
                int64_t key[8];
                tie_key(ndims, points, ranks, dims, key);
                if (!fits || key_before(key, best_key)) {
                    memcpy(best_key, key, sizeof key);
                    memcpy(best, dims, sizeof best);
                }
                fits = 1;
            }
    int got[3];
    const int found = ts_decomp_best_dims(ndims, points, ranks, 1, got);
    const long long nz = ndims == 3 ? (long long)points[2] : 1;
    CHECK(found == fits, "%lldx%lldx%lld on %d ranks: best_dims says %d, brute force %d", (long long)points[0],
          (long long)points[1], nz, ranks, found, fits);
    if (found && fits)
        CHECK(got[0] == best[0] && got[1] == best[1] && got[2] == best[2],
              "%lldx%lldx%lld on %d ranks: auto takes %dx%dx%d, the brute force %dx%dx%d", (long long)points[0],
              (long long)points[1], nz, ranks, got[0], got[1], got[2], best[0], best[1], best[2]);
    int md[3];
    CHECK(ts_decomp_most_ranks(ndims, points, ranks, 1, md) == most && md[0] * md[1] * md[2] == most,
          "%lldx%lldx%lld: the most ranks up to %d that fit is %d, most_ranks says %d as %dx%dx%d",
          (long long)points[0], (long long)points[1], nz, ranks, most,
          ts_decomp_most_ranks(ndims, points, ranks, 1, md), md[0], md[1], md[2]);
}

/* mpi.dims = auto looks at the grid's shape (issue 24): the fewest halo points among the rank
 * grids that fit, ties in MPI_Dims_create's order (ts_decomp.h). */
static void shape_aware(void)
{
    struct ts_decomp d;
    char why[512];
    /* The case: 1009 x 5 has 3 interior rows, so MPI_Dims_create's 1 x 5 leaves ranks
     * without one; 5 x 1 fits, its 4 cuts 3 points each. */
    const int64_t thin[3] = { 1009, 5, 1 };
    REQUIRE(ts_decomp_create(&d, 2, thin, 5, NULL, 1, why, sizeof why) == TS_DECOMP_OK, "1009x5 on 5 ranks: %s", why);
    CHECK(d.dims[0] == 5 && d.dims[1] == 1 && d.dims[2] == 1 && d.automatic, "1009x5 on 5 ranks: %dx%d, expected 5x1",
          d.dims[0], d.dims[1]);
    CHECK(ts_decomp_halo_surface(2, thin, d.dims) == 12, "5x1 on 1009x5: surface %lld, expected 4 cuts of 3",
          (long long)ts_decomp_halo_surface(2, thin, d.dims));
    REQUIRE(ts_decomp_create(&d, 2, (const int64_t[3]){ 5, 1009, 1 }, 5, NULL, 1, why, sizeof why) == TS_DECOMP_OK,
            "5x1009 on 5 ranks: %s", why);
    CHECK(d.dims[0] == 1 && d.dims[1] == 5, "5x1009 on 5 ranks: %dx%d, expected 1x5", d.dims[0], d.dims[1]);

    /* Square and cubic grids: MPI_Dims_create's counts for 1 to 64 ranks, the largest along the
     * slowest axis, as before. Beyond, a more even grid can cut fewer points: 72 ranks on a
     * square cut 7 + 8 lines as 8 x 9, 11 + 5 as MPI_Dims_create's 12 x 6. */
    int got[3];
    for (int r = 1; r <= 64; r++) {
        CHECK(ts_decomp_best_dims(2, (const int64_t[3]){ 1000, 1000, 1 }, r, 1, got) && got[0] == dims2[r - 1][1]
                  && got[1] == dims2[r - 1][0] && got[2] == 1,
              "%d ranks on a square: %dx%d, MPI_Dims_create's %dx%d with the larger along y", r, got[0], got[1],
              dims2[r - 1][1], dims2[r - 1][0]);
        CHECK(ts_decomp_best_dims(3, (const int64_t[3]){ 100, 100, 100 }, r, 1, got) && got[0] == dims3[r - 1][2]
                  && got[1] == dims3[r - 1][1] && got[2] == dims3[r - 1][0],
              "%d ranks on a cube: %dx%dx%d, MPI_Dims_create's %dx%dx%d with the largest along z", r, got[0], got[1],
              got[2], dims3[r - 1][2], dims3[r - 1][1], dims3[r - 1][0]);
    }
    CHECK(ts_decomp_best_dims(2, (const int64_t[3]){ 1000, 1000, 1 }, 72, 1, got) && got[0] == 8 && got[1] == 9,
          "72 ranks on a square: %dx%d, expected 8x9", got[0], got[1]);
    CHECK(ts_decomp_best_dims(3, (const int64_t[3]){ 100, 100, 100 }, 432, 1, got) && got[0] == 6 && got[1] == 8
              && got[2] == 9,
          "432 ranks on a cube: %dx%dx%d, expected 6x8x9", got[0], got[1], got[2]);

    /* 3-D: 64 x 64 x 4 has 2 interior planes: not 1x1x8, and not 2x2x2, whose z cut alone is
     * 62 x 62 points; 2x4x1 and 4x2x1 cut 496 each, and the tie goes to more ranks along y. */
    const int64_t flat[3] = { 64, 64, 4 };
    REQUIRE(ts_decomp_create(&d, 3, flat, 8, NULL, 1, why, sizeof why) == TS_DECOMP_OK, "64x64x4 on 8 ranks: %s", why);
    CHECK(d.dims[0] == 2 && d.dims[1] == 4 && d.dims[2] == 1, "64x64x4 on 8 ranks: %dx%dx%d, expected 2x4x1", d.dims[0],
          d.dims[1], d.dims[2]);
    CHECK(ts_decomp_halo_surface(3, flat, (const int[3]){ 2, 4, 1 }) == 496
              && ts_decomp_halo_surface(3, flat, (const int[3]){ 4, 2, 1 }) == 496
              && ts_decomp_halo_surface(3, flat, (const int[3]){ 2, 2, 2 }) == 4092,
          "64x64x4: surfaces %lld, %lld, %lld", (long long)ts_decomp_halo_surface(3, flat, (const int[3]){ 2, 4, 1 }),
          (long long)ts_decomp_halo_surface(3, flat, (const int[3]){ 4, 2, 1 }),
          (long long)ts_decomp_halo_surface(3, flat, (const int[3]){ 2, 2, 2 }));

    /* Ties. MPI_Dims_create's counts first: on 302 x 202, 12x6 and 9x8 both cut 3700 points, and
     * 72 ranks are 12 x 6 to MPI_Dims_create. Then the more even counts: on 4 x 14, 1x12 and
     * 2x6 cut 12 each and MPI_Dims_create's 4 and 3 do not fit. */
    CHECK(ts_decomp_best_dims(2, (const int64_t[3]){ 302, 202, 1 }, 72, 1, got) && got[0] == 12 && got[1] == 6,
          "72 ranks on 302x202: %dx%d, expected MPI_Dims_create's 12x6", got[0], got[1]);
    CHECK(ts_decomp_halo_surface(2, (const int64_t[3]){ 302, 202, 1 }, (const int[3]){ 9, 8, 1 }) == 3700
              && ts_decomp_halo_surface(2, (const int64_t[3]){ 302, 202, 1 }, (const int[3]){ 12, 6, 1 }) == 3700,
          "302x202: 9x8 and 12x6 no longer tie");
    CHECK(ts_decomp_best_dims(2, (const int64_t[3]){ 4, 14, 1 }, 12, 1, got) && got[0] == 2 && got[1] == 6,
          "12 ranks on 4x14: %dx%d, expected 2x6", got[0], got[1]);

    /* Bad arguments: nothing fits. */
    CHECK(!ts_decomp_best_dims(4, flat, 8, 1, got) && !ts_decomp_best_dims(3, flat, 0, 1, got)
              && !ts_decomp_best_dims(3, (const int64_t[3]){ 9, 2, 9 }, 1, 1, got) && got[0] == 0,
          "bad arguments gave a rank grid");
    CHECK(ts_decomp_most_ranks(3, flat, 0, 1, got) == 0 && ts_decomp_most_ranks(1, flat, 4, 1, got) == 0,
          "bad arguments gave a rank count");

    /* The most ranks that fit, at sizes no brute force reaches: 999,999,999 ranks on 1000^3
     * interior points fit only as 999 x 1000 x 1000; the largest int, a prime, on 100000^3 as
     * 2,147,483,646 ranks. Both in milliseconds. */
    CHECK(ts_decomp_most_ranks(3, (const int64_t[3]){ 1002, 1002, 1002 }, 999999999, 1, got) == 999000000
              && got[0] == 999 && got[1] == 1000 && got[2] == 1000,
          "999999999 ranks on 1002^3: most %dx%dx%d", got[0], got[1], got[2]);
    CHECK(ts_decomp_most_ranks(3, (const int64_t[3]){ 100002, 100002, 100002 }, 2147483647, 1, got) == 2147483646,
          "the largest int as ranks on 100002^3: most %dx%dx%d", got[0], got[1], got[2]);

    /* Everything, by brute force, on odd shapes. */
    const int64_t grids2[][3] = { { 9, 9, 1 }, { 40, 37, 1 }, { 1009, 5, 1 }, { 5, 23, 1 }, { 4, 14, 1 }, { 3, 3, 1 } };
    const int64_t grids3[][3] = {
        { 15, 14, 16 }, { 64, 64, 4 }, { 17, 9, 31 }, { 5, 4, 6 }, { 3, 3, 40 }, { 12, 30, 7 }
    };
    for (int ranks = 1; ranks <= 36; ranks++) {
        for (size_t g = 0; g < sizeof grids2 / sizeof grids2[0]; g++)
            check_best(2, grids2[g], ranks);
        for (size_t g = 0; g < sizeof grids3 / sizeof grids3[0]; g++)
            check_best(3, grids3[g], ranks);
    }
    check_best(2, (const int64_t[3]){ 302, 202, 1 }, 72);
    check_best(3, (const int64_t[3]){ 40, 40, 40 }, 360);
}

/* Every interior point owned by exactly one rank, no boundary point by any; even sizes per
 * axis (ts_partition's split with granule 1); ranks and coordinates in MPI_Cart_create's
 * order; neighbours mutual, and each face sent matching the halo received, point for point. */
static void check_tiling(int ndims, const int64_t points[3], int ranks, const int *dims)
{
    struct ts_decomp d;
    char why[256];
    enum ts_decomp_status st = ts_decomp_create(&d, ndims, points, ranks, dims, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_OK, "%lldx%lldx%lld on %d ranks refused: %s", (long long)points[0], (long long)points[1],
          (long long)(ndims == 3 ? points[2] : 1), ranks, why);
    if (st != TS_DECOMP_OK)
        return;
    const int64_t nx = d.points[0], ny = d.points[1], nz = d.points[2];
    unsigned char *owners = calloc((size_t)(nx * ny * nz), 1);
    struct ts_decomp_block *blocks = malloc((size_t)ranks * sizeof *blocks);
    REQUIRE(owners && blocks, "out of memory");
    for (int r = 0; r < ranks; r++) {
        struct ts_decomp_block *b = &blocks[r];
        REQUIRE(ts_decomp_block(&d, r, b) == 0, "block of rank %d refused", r);
        int back[3];
        ts_decomp_coords(&d, r, back);
        CHECK(ts_decomp_rank(&d, b->coords) == r && b->rank == r && back[0] == b->coords[0] && back[1] == b->coords[1]
                  && back[2] == b->coords[2],
              "rank %d and its coordinates do not map back", r);
        CHECK(r == (b->coords[2] * d.dims[1] + b->coords[1]) * d.dims[0] + b->coords[0],
              "rank %d is not MPI_Cart_create's number of (%d,%d,%d)", r, b->coords[0], b->coords[1], b->coords[2]);
        for (int a = 0; a < ndims; a++) {
            ts_partition *p;
            REQUIRE(ts_partition_create(&p, d.points[a] - 2, d.dims[a], 1) == 0, "partition refused");
            struct ts_range want = ts_partition_range(p, b->coords[a]);
            ts_partition_destroy(p);
            CHECK(b->begin[a] == 1 + want.begin && b->end[a] == 1 + want.end,
                  "rank %d axis %d owns [%lld, %lld), ts_partition's split gives [%lld, %lld)", r, a,
                  (long long)b->begin[a], (long long)b->end[a], (long long)(1 + want.begin), (long long)(1 + want.end));
            CHECK(b->end[a] > b->begin[a], "rank %d owns nothing along axis %d", r, a);
            CHECK(b->origin[a] == b->begin[a] - 1 && b->local[a] == b->end[a] - b->begin[a] + 2,
                  "rank %d: local array along axis %d is not the block plus one layer each side", r, a);
        }
        if (ndims == 2)
            CHECK(b->begin[2] == 0 && b->end[2] == 1 && b->local[2] == 1 && b->neighbour[4] == -1
                      && b->neighbour[5] == -1,
                  "rank %d of a 2D grid has a z extent or z neighbours", r);
        for (int64_t z = b->begin[2]; z < b->end[2]; z++)
            for (int64_t y = b->begin[1]; y < b->end[1]; y++)
                for (int64_t x = b->begin[0]; x < b->end[0]; x++)
                    owners[(z * ny + y) * nx + x]++;
    }
    int64_t twice = 0, never = 0, boundary = 0;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                int inside = x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && (ndims == 2 || (z > 0 && z < nz - 1));
                unsigned char n = owners[(z * ny + y) * nx + x];
                twice += inside && n > 1;
                never += inside && n == 0;
                boundary += !inside && n > 0;
            }
    CHECK(twice == 0 && never == 0 && boundary == 0,
          "%lldx%lldx%lld as %dx%dx%d: %lld interior points owned twice, %lld never, %lld boundary points owned",
          (long long)nx, (long long)ny, (long long)nz, d.dims[0], d.dims[1], d.dims[2], (long long)twice,
          (long long)never, (long long)boundary);

    for (int r = 0; r < ranks; r++)
        for (int dir = 0; dir < 2 * ndims; dir++) {
            const struct ts_decomp_block *b = &blocks[r];
            const int n = b->neighbour[dir], axis = dir / 2, hi = dir & 1;
            const int at_edge = hi ? b->coords[axis] == d.dims[axis] - 1 : b->coords[axis] == 0;
            CHECK((n < 0) == at_edge, "rank %d: neighbour %d across face %d, at the edge: %d", r, n, dir, at_edge);
            if (n < 0)
                continue;
            const struct ts_decomp_block *o = &blocks[n];
            CHECK(o->neighbour[dir ^ 1] == r, "rank %d's neighbour %d across face %d does not see it back", r, n, dir);
            struct ts_decomp_face send = ts_decomp_send_face(o, (enum ts_decomp_dir)(dir ^ 1));
            struct ts_decomp_face recv = ts_decomp_recv_face(b, (enum ts_decomp_dir)dir);
            int same = send.elems == recv.elems && send.elems > 0;
            for (int a = 0; a < 3; a++) /* the same global points */
                same = same && send.count[a] == recv.count[a]
                       && o->origin[a] + send.start[a] == b->origin[a] + recv.start[a];
            CHECK(same, "rank %d's halo across face %d is not the face rank %d sends", r, dir, n);
            CHECK(recv.offset == recv.start[0] + b->local[0] * (recv.start[1] + b->local[1] * recv.start[2]),
                  "rank %d face %d: offset disagrees with start", r, dir);
        }
    free(owners);
    free(blocks);
}

static void tiling(void)
{
    /* The odd ones, primes, one rank, one interior point per rank. */
    check_tiling(2, (const int64_t[3]){ 129, 65, 1 }, 3, NULL);
    check_tiling(2, (const int64_t[3]){ 129, 65, 1 }, 3, (const int[3]){ 3, 1, 1 });
    check_tiling(3, (const int64_t[3]){ 17, 9, 31 }, 5, NULL);
    check_tiling(3, (const int64_t[3]){ 17, 9, 31 }, 5, (const int[3]){ 5, 1, 1 });
    check_tiling(3, (const int64_t[3]){ 17, 9, 31 }, 6, (const int[3]){ 3, 2, 1 });
    check_tiling(2, (const int64_t[3]){ 3, 3, 1 }, 1, NULL);
    check_tiling(3, (const int64_t[3]){ 3, 3, 3 }, 1, NULL);
    check_tiling(2, (const int64_t[3]){ 7, 5, 1 }, 15, (const int[3]){ 5, 3, 1 });
    check_tiling(3, (const int64_t[3]){ 5, 4, 6 }, 24, (const int[3]){ 3, 2, 4 });
    const int primes[] = { 2, 3, 5, 7, 11, 13, 17, 31 };
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++) {
        check_tiling(2, (const int64_t[3]){ 40, 37, 1 }, primes[i], NULL);
        check_tiling(3, (const int64_t[3]){ 11, 13, 37 }, primes[i], NULL);
    }
    /* Every explicit rank grid of up to 12 ranks on small odd grids. */
    for (int ranks = 1; ranks <= 12; ranks++)
        for (int dx = 1; dx <= ranks; dx++)
            for (int dy = 1; dy <= ranks / dx; dy++) {
                if (ranks % (dx * dy) != 0)
                    continue;
                int dz = ranks / (dx * dy);
                if (dz == 1)
                    check_tiling(2, (const int64_t[3]){ 15, 14, 1 }, ranks, (const int[3]){ dx, dy, 1 });
                check_tiling(3, (const int64_t[3]){ 15, 14, 16 }, ranks, (const int[3]){ dx, dy, dz });
            }
}

/* Refused exactly when an axis has fewer interior points than ranks, with the numbers and what
 * works instead: auto's rank grid for the run's ranks, or the most ranks some grid fits. */
static void refusals(void)
{
    struct ts_decomp d;
    char why[512];
    enum ts_decomp_status st =
        ts_decomp_create(&d, 3, (const int64_t[3]){ 5, 5, 5 }, 5, (const int[3]){ 1, 1, 5 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL, "5 ranks along 3 interior planes: status %d", (int)st);
    CHECK(strcmp(why, "5 ranks as 1x1x5 leave 0 interior planes to rank 3 (z coordinate 3): the grid 5x5x5 has 3 "
                      "interior planes in z; use at most 3 ranks along z or nz >= 7; no rank grid of 5 ranks fits "
                      "the grid 5x5x5: at most 4 ranks fit, as mpi.dims = 1x2x2")
              == 0,
          "message: %s", why);

    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 3, 9, 0 }, 2, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_OK, "2 ranks on 3x9 (auto: 1x2, 7 interior rows) refused: %s", why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 3, 0 }, 2, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_OK && d.dims[0] == 2 && d.dims[1] == 1,
          "2 ranks on 9x3 (auto: 2x1, one interior row): status %d, %dx%d, %s", (int)st, d.dims[0], d.dims[1], why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 3, 0 }, 2, (const int[3]){ 1, 2, 0 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL
              && strcmp(why, "2 ranks as 1x2 leave 0 interior rows to rank 1 (y coordinate 1): the grid 9x3 has 1 "
                             "interior row in y; use at most 1 rank along y or ny >= 4; mpi.dims = 2x1 fits (auto's "
                             "choice)")
                     == 0,
          "2 ranks as 1x2 on 9x3: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 1009, 5, 0 }, 5, (const int[3]){ 1, 5, 0 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL && strstr(why, "use at most 3 ranks along y or ny >= 7; mpi.dims = 5x1 fits"),
          "1009x5 as 1x5: status %d, %s", (int)st, why);

    /* auto with no rank grid that fits: the most ranks that some grid fits, and that grid. */
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 5, 4, 0 }, 5, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL
              && strcmp(why, "no rank grid of 5 ranks fits the grid 5x4, which has 3 interior columns in x and 2 "
                             "interior rows in y, and every rank needs at least one along each axis: at most 4 "
                             "ranks fit, as mpi.dims = 2x2")
                     == 0,
          "5 ranks on 5x4: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 3, 3, 0 }, 2, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL && strstr(why, "the grid 3x3, which has 1 interior column in x and 1 interior row")
              && strstr(why, ": at most 1 rank fits, as mpi.dims = 1x1"),
          "2 ranks on 3x3: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 1009, 5, 0 }, 1009, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL && strstr(why, ": at most 1008 ranks fit, as mpi.dims = 504x2"),
          "1009 ranks on 1009x5: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 17, 9, 31 }, 1009, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL
              && strstr(why, "which has 15 interior columns in x, 7 interior rows in y and 29 interior planes in z")
              && strstr(why, ": at most 1008 ranks fit, as mpi.dims = "),
          "1009 ranks on 17x9x31: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 5, 4, 6 }, 25, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL && strstr(why, ": at most 24 ranks fit, as mpi.dims = 3x2x4"),
          "25 ranks on 5x4x6 (3x2x4 interior points): status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 4, 40, 40 }, 12, (const int[3]){ 3, 2, 2 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL && strstr(why, "leave 0 interior columns to rank 2 (x coordinate 2)")
              && strstr(why, "has 2 interior columns in x; use at most 2 ranks along x or nx >= 5"),
          "3 ranks along 2 interior columns: status %d, %s", (int)st, why);

    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 9, 9, 9 }, 4, (const int[3]){ 2, 1, 3 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_DIMS
              && strcmp(why, "dims 2x1x3 make 6 ranks, but the run has 4; mpi.dims = 1x2x2 fits (auto's choice)") == 0,
          "dims of 6 ranks for 4: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 9, 9, 9 }, 4, (const int[3]){ 4, 0, 1 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_DIMS
              && strcmp(why, "dims 4x0x1: every count must be at least 1; mpi.dims = 1x2x2 fits "
                             "(auto's choice)")
                     == 0,
          "a zero count: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 9, 9 }, 4, (const int[3]){ 2, 1, 2 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_DIMS && strstr(why, "dims 2x1x2 split z, which the 2D grid 9x9 does not have"),
          "z ranks in 2D: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 9, 9, 9 }, 4, (const int[3]){ 2147483647, 2147483647, 2 }, 1, why,
                          sizeof why);
    CHECK(st == TS_DECOMP_BAD_DIMS
              && strstr(why, "dims 2147483647x2147483647x2 make more than 2147483647 ranks, but the run has 4; "),
          "dims beyond an int: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 9, 9 }, 4, (const int[3]){ 0, 0, 4 }, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_DIMS, "2D dims with only z given: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 4, (const int64_t[3]){ 9, 9, 9 }, 4, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_ARGUMENT && strcmp(why, "a stencil grid has 2 or 3 dimensions, not 4") == 0,
          "4 dimensions: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 9, 1 }, 0, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_ARGUMENT && strcmp(why, "a run has at least 1 rank, not 0") == 0,
          "0 ranks: status %d, %s", (int)st, why);
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 9, 2, 9 }, 1, NULL, 1, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_ARGUMENT
              && strcmp(why, "the grid 9x2x9 has no interior point along y: ny must be at least 3") == 0,
          "a grid without interior: status %d, %s", (int)st, why);
    CHECK(ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 9, 1 }, 0, NULL, 1, NULL, 0) == TS_DECOMP_BAD_ARGUMENT,
          "no message buffer: still refused");

    /* The rule, exhaustively on small grids: accepted if and only if every rank owns a point. */
    for (int64_t nx = 3; nx <= 7; nx++)
        for (int64_t nz = 3; nz <= 6; nz++)
            for (int ranks = 1; ranks <= 8; ranks++)
                for (int dx = 1; dx <= ranks; dx++) {
                    if (ranks % dx)
                        continue;
                    for (int dy = 1; dy <= ranks / dx; dy++) {
                        if ((ranks / dx) % dy)
                            continue;
                        int dz = ranks / dx / dy;
                        const int64_t grid[3] = { nx, 4, nz };
                        int fits = dx <= nx - 2 && dy <= 2 && dz <= nz - 2;
                        st = ts_decomp_create(&d, 3, grid, ranks, (const int[3]){ dx, dy, dz }, 1, why, sizeof why);
                        CHECK((st == TS_DECOMP_OK) == fits, "%lldx4x%lld as %dx%dx%d: status %d, expected %s",
                              (long long)nx, (long long)nz, dx, dy, dz, (int)st, fits ? "accepted" : "refused");
                    }
                }
    CHECK(ts_decomp_block(&d, -1, &(struct ts_decomp_block){ 0 }) == EINVAL, "block of rank -1 must be refused");
}

static void slices(void)
{
    const int64_t sizes[] = { 0, 1, 511, 512, 513, 4096, 1000003, (int64_t)1 << 33 };
    const int64_t granules[] = { 1, 512, 262144 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t g = 0; g < sizeof granules / sizeof granules[0]; g++)
            for (int ranks = 1; ranks <= 17; ranks++) {
                int64_t next = 0, smallest = INT64_MAX, largest = 0;
                for (int r = 0; r < ranks; r++) {
                    struct ts_range sl;
                    REQUIRE(ts_decomp_slice(sizes[s], ranks, r, granules[g], &sl) == 0, "slice refused");
                    CHECK(sl.begin == next && sl.end >= sl.begin && sl.part == r,
                          "n=%lld R=%d: slice %d is [%lld, %lld), the previous ended at %lld", (long long)sizes[s],
                          ranks, r, (long long)sl.begin, (long long)sl.end, (long long)next);
                    CHECK(sl.begin % granules[g] == 0 || sl.begin == sizes[s],
                          "slice %d starts at %lld, not on a granule of %lld", r, (long long)sl.begin,
                          (long long)granules[g]);
                    int64_t gr = (sl.end - sl.begin + granules[g] - 1) / granules[g];
                    smallest = gr < smallest ? gr : smallest;
                    largest = gr > largest ? gr : largest;
                    next = sl.end;
                }
                CHECK(next == sizes[s], "n=%lld R=%d: slices end at %lld", (long long)sizes[s], ranks, (long long)next);
                CHECK(largest - smallest <= 1, "n=%lld R=%d: slices range %lld..%lld granules", (long long)sizes[s],
                      ranks, (long long)smallest, (long long)largest);
            }
    struct ts_range sl;
    CHECK(ts_decomp_slice(10, 2, 2, 1, &sl) == EINVAL, "rank 2 of 2 must be refused");
    CHECK(ts_decomp_slice(10, 2, 0, 0, &sl) == EINVAL, "granule 0 must be refused");
}

/* One Jacobi step of every interior point of a grid of n[0] x n[1] x n[2] points (n[2] = 1
 * in 2D), in the arithmetic order of row2d and row3d in kernels/stencil_sweep.c, copied: the
 * MPI run steps each rank's local array with those kernels and must equal the 1-rank run
 * bitwise, which a different order here would neither show nor check. The local arrays go
 * through this very function, like the global one: only the data a point reads differs. */
static void jacobi(const double *c, double *o, const int64_t n[3], int ndims, struct ts_stencil_weights w)
{
    const int64_t nx = n[0], plane = n[0] * n[1];
    const int64_t z0 = ndims == 3 ? 1 : 0, z1 = ndims == 3 ? n[2] - 1 : 1;
    for (int64_t z = z0; z < z1; z++)
        for (int64_t y = 1; y < n[1] - 1; y++)
            for (int64_t x = 1; x < nx - 1; x++) {
                int64_t i = z * plane + y * nx + x;
                if (ndims == 2)
                    o[i] = w.center * c[i] + w.neighbour * ((c[i - nx] + c[i + nx]) + (c[i - 1] + c[i + 1]));
                else
                    o[i] = w.center * c[i]
                           + w.neighbour
                                 * (((c[i - 1] + c[i + 1]) + (c[i - nx] + c[i + nx])) + (c[i - plane] + c[i + plane]));
            }
}

/* A deterministic value in [0.25, 1.25) for point i: splitmix64 of the index. */
static double value_at(uint64_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 0.25 + (double)(z >> 11) * 0x1.0p-53;
}

/* Copies face f of rank b's local array from (to_global = 0) or into (1) the global grid. */
static void copy_face(double *local, const struct ts_decomp_block *b, const struct ts_decomp_face *f, double *global,
                      const int64_t n[3], int to_global)
{
    for (int64_t k = 0; k < f->count[2]; k++)
        for (int64_t j = 0; j < f->count[1]; j++)
            for (int64_t i = 0; i < f->count[0]; i++) {
                int64_t l = f->offset + i * f->stride[0] + j * f->stride[1] + k * f->stride[2];
                int64_t x = b->origin[0] + f->start[0] + i, y = b->origin[1] + f->start[1] + j;
                int64_t z = b->origin[2] + f->start[2] + k;
                double *g = &global[(z * n[1] + y) * n[0] + x];
                if (to_global)
                    *g = local[l];
                else
                    local[l] = *g;
            }
}

/* The owned block of b as a face-shaped region, for copying in and out. */
static struct ts_decomp_face owned(const struct ts_decomp_block *b)
{
    struct ts_decomp_face f = { .stride = { 1, b->local[0], b->local[0] * b->local[1] } };
    f.elems = 1;
    for (int a = 0; a < 3; a++) {
        f.start[a] = b->begin[a] - b->origin[a];
        f.count[a] = b->end[a] - b->begin[a];
        f.offset += f.start[a] * f.stride[a];
        f.elems *= f.count[a];
    }
    return f;
}

/* Face f across dir widened to the whole local range of the other axes: init writes the
 * physical boundary of both grids there, halo rows and columns included, and deep halos read it
 * from the grid no exchange fills. */
static struct ts_decomp_face whole_layer(const struct ts_decomp_block *b, struct ts_decomp_face f, int dir)
{
    f.offset = 0;
    f.elems = 1;
    for (int a = 0; a < 3; a++) {
        if (a != dir / 2) {
            f.start[a] = 0;
            f.count[a] = b->local[a];
        }
        f.offset += f.start[a] * f.stride[a];
        f.elems *= f.count[a];
    }
    return f;
}

/* The stencils' result, sum of u^2, summed by ranks over their owned points of local arrays
 * (ts_decomp_sum_squares: every square deposited exactly) and merged, against the same over the
 * whole grid (ts_stencil_norm_rows): bitwise equal for every split, rows split along x
 * included. */
static void check_norm(const struct ts_decomp *d, const struct ts_decomp_block *blocks, double *(*local)[2],
                       const double *global, int now)
{
    const int64_t *n = d->points;
    struct ts_xsum whole, ranks;
    ts_xsum_init(&whole);
    ts_xsum_init(&ranks);
    ts_stencil_norm_rows(global, n[0], 0, n[1] * n[2], &whole);
    for (int r = 0; r < d->ranks; r++) {
        const struct ts_decomp_block *b = &blocks[r];
        struct ts_xsum part;
        ts_xsum_init(&part);
        ts_decomp_sum_squares(local[r][now], b, 0, b->local[1] * b->local[2], &part);
        ts_xsum_merge(&ranks, &part);
    }
    double want = ts_xsum_round(&whole), got = ts_xsum_round(&ranks);
    char text[48];
    ts_decomp_dims_text(d, text, sizeof text);
    CHECK(memcmp(&want, &got, sizeof want) == 0, "sum of u^2 over %d ranks as %s: %.17g, one array: %.17g", d->ranks,
          text, got, want);
}

/* The key property: R ranks in one process. A global field (boundary values included) is split
 * into local arrays whose halos start as NaN; each iteration every rank packs its faces, the
 * neighbours unpack them into their halos, and every local array takes one step; the owned
 * blocks put back together equal, bitwise, the same steps on the global array. With
 * real_kernel, the local arrays are stepped by ts_stencil_step itself, given the local sizes
 * as its grid (the fixed boundary is then zero, as the stencils' is: the kernel stores +0.0 at
 * x = 0 and x = nx - 1). */
static void simulate_deep(int ndims, const int64_t points[3], int ranks, const int *dims, int steps, int real_kernel,
                          int nontemporal, int depth)
{
    struct ts_decomp d;
    char why[512];
    enum ts_decomp_status st = ts_decomp_create(&d, ndims, points, ranks, dims, depth, why, sizeof why);
    CHECK(st == TS_DECOMP_OK, "simulation refused: %s", why);
    if (st != TS_DECOMP_OK)
        return;
    const int64_t *n = d.points, total = n[0] * n[1] * n[2];
    struct ts_problem pb = { .kernel = ndims == 3 ? TS_KERNEL_STENCIL3D : TS_KERNEL_STENCIL2D,
                             .alpha = ndims == 3 ? 0.15 : 0.2,
                             .nontemporal = nontemporal };
    const struct ts_stencil_weights w = ts_stencil_weights(&pb, ndims);

    double *global[2] = { malloc((size_t)total * sizeof(double)), malloc((size_t)total * sizeof(double)) };
    double *assembled = malloc((size_t)total * sizeof(double));
    struct ts_decomp_block *blocks = calloc((size_t)ranks, sizeof *blocks);
    double *(*local)[2] = calloc((size_t)ranks, sizeof *local);
    double *(*buf)[TS_DIR_COUNT] = calloc((size_t)ranks, sizeof *buf);
    REQUIRE(global[0] && global[1] && assembled && blocks && local && buf, "out of memory");
    for (int64_t z = 0; z < n[2]; z++)
        for (int64_t y = 0; y < n[1]; y++)
            for (int64_t x = 0; x < n[0]; x++) {
                int64_t i = (z * n[1] + y) * n[0] + x;
                int edge =
                    x == 0 || x == n[0] - 1 || y == 0 || y == n[1] - 1 || (ndims == 3 && (z == 0 || z == n[2] - 1));
                global[0][i] = global[1][i] = edge && real_kernel ? 0.0 : value_at((uint64_t)i);
            }

    for (int r = 0; r < ranks; r++) {
        struct ts_decomp_block *b = &blocks[r];
        REQUIRE(ts_decomp_block(&d, r, b) == 0, "block of rank %d refused", r);
        const int64_t elems = b->local[0] * b->local[1] * b->local[2];
        for (int t = 0; t < 2; t++) {
            local[r][t] = malloc((size_t)elems * sizeof(double));
            REQUIRE(local[r][t], "out of memory");
            for (int64_t i = 0; i < elems; i++)
                local[r][t][i] = NAN; /* read before an exchange writes it: the comparison fails */
            struct ts_decomp_face own = owned(b);
            copy_face(local[r][t], b, &own, global[0], n, 0);
            for (int dir = 0; dir < 2 * ndims; dir++)
                if (b->neighbour[dir] < 0) { /* the physical boundary, as init writes it */
                    struct ts_decomp_face f = whole_layer(b, ts_decomp_recv_face(b, (enum ts_decomp_dir)dir), dir);
                    copy_face(local[r][t], b, &f, global[0], n, 0);
                }
        }
        for (int dir = 0; dir < 2 * ndims; dir++) {
            struct ts_decomp_face f = ts_decomp_send_face(b, (enum ts_decomp_dir)dir);
            buf[r][dir] = malloc((size_t)(f.elems > 0 ? f.elems : 1) * sizeof(double));
            REQUIRE(buf[r][dir], "out of memory");
        }
    }

    /* An iteration is depth steps after one exchange (stencil.time_block = depth). */
    for (int t = 0; t < steps; t++) {
        const int in = (t * depth) % 2, out = ((t + 1) * depth) % 2;
        /* Round by round, every rank packs the round's faces, then every rank unpacks them: the
         * order of non-blocking sends and receives that complete before the next round. */
        for (int round = 0; round < ts_decomp_rounds(&d); round++) {
            int d0, d1;
            ts_decomp_round_dirs(&d, round, &d0, &d1);
            for (int r = 0; r < ranks; r++)
                for (int dir = d0; dir < d1; dir++)
                    if (blocks[r].neighbour[dir] >= 0) {
                        struct ts_decomp_face f = ts_decomp_send_face(&blocks[r], (enum ts_decomp_dir)dir);
                        CHECK(ts_decomp_pack(local[r][in], &f, buf[r][dir]) == f.elems, "pack count");
                    }
            for (int r = 0; r < ranks; r++)
                for (int dir = d0; dir < d1; dir++) {
                    const int from = blocks[r].neighbour[dir];
                    if (from < 0)
                        continue;
                    struct ts_decomp_face f = ts_decomp_recv_face(&blocks[r], (enum ts_decomp_dir)dir);
                    CHECK(ts_decomp_unpack(local[r][in], &f, buf[from][dir ^ 1]) == f.elems, "unpack count");
                }
        }
        for (int r = 0; r < ranks; r++) {
            const struct ts_decomp_block *b = &blocks[r];
            if (real_kernel) {
                struct ts_problem lp = pb;
                lp.nx = b->local[0];
                lp.ny = b->local[1];
                lp.nz = b->local[2];
                lp.time_block = depth;
                const int64_t items = ndims == 3 ? lp.nz : lp.ny;
                ts_stencil_wavefront_reset(0);
                ts_stencil_step(&lp, ndims, local[r], (struct ts_range){ 0, items, 0 }, (int64_t)t * depth);
            } else {
                for (int s = 0; s < depth; s++)
                    jacobi(local[r][(t * depth + s) % 2], local[r][(t * depth + s + 1) % 2], b->local, ndims, w);
            }
        }
        for (int s = 0; s < depth; s++)
            jacobi(global[(t * depth + s) % 2], global[(t * depth + s + 1) % 2], n, ndims, w);

        memcpy(assembled, global[0], (size_t)total * sizeof(double)); /* the boundary: never written */
        for (int r = 0; r < ranks; r++) {
            struct ts_decomp_face own = owned(&blocks[r]);
            copy_face(local[r][out], &blocks[r], &own, assembled, n, 1);
        }
        int64_t differ = 0, first = -1;
        for (int64_t i = 0; i < total; i++)
            if (memcmp(&assembled[i], &global[out][i], sizeof(double)) != 0) {
                differ++;
                first = first < 0 ? i : first;
            }
        char text[48];
        ts_decomp_dims_text(&d, text, sizeof text);
        CHECK(differ == 0,
              "%lldx%lldx%lld on %d ranks as %s (%s%s, halos %d deep): iteration %d: %lld points differ from one "
              "array, the first at %lld (%.17g, expected %.17g)",
              (long long)n[0], (long long)n[1], (long long)n[2], ranks, text,
              real_kernel ? "ts_stencil_step" : "copied formula", nontemporal ? ", streaming stores" : "", depth, t + 1,
              (long long)differ, (long long)first, first >= 0 ? assembled[first] : 0.0,
              first >= 0 ? global[out][first] : 0.0);
        if (differ)
            break;
    }

    if (real_kernel)
        check_norm(&d, blocks, local, global[(steps * depth) % 2], (steps * depth) % 2);

    for (int r = 0; r < ranks; r++) {
        free(local[r][0]);
        free(local[r][1]);
        for (int dir = 0; dir < 2 * ndims; dir++)
            free(buf[r][dir]);
    }
    free(local);
    free(buf);
    free(blocks);
    free(assembled);
    free(global[0]);
    free(global[1]);
}

static void simulate(int ndims, const int64_t points[3], int ranks, const int *dims, int steps, int real_kernel,
                     int nontemporal)
{
    simulate_deep(ndims, points, ranks, dims, steps, real_kernel, nontemporal, 1);
}

static void halo_exchange(void)
{
    for (int real = 0; real <= 1; real++) {
        simulate(2, (const int64_t[3]){ 129, 65, 1 }, 3, NULL, 6, real, 0);
        simulate(2, (const int64_t[3]){ 129, 65, 1 }, 6, (const int[3]){ 3, 2, 1 }, 6, real, 0);
        simulate(2, (const int64_t[3]){ 17, 13, 1 }, 4, (const int[3]){ 2, 2, 1 }, 6, real, 0);
        simulate(2, (const int64_t[3]){ 17, 13, 1 }, 5, (const int[3]){ 5, 1, 1 }, 6, real, 0);
        simulate(2, (const int64_t[3]){ 7, 5, 1 }, 15, (const int[3]){ 5, 3, 1 }, 6, real, 0);
        simulate(2, (const int64_t[3]){ 40, 37, 1 }, 7, NULL, 6, real, 0);
        simulate(2, (const int64_t[3]){ 9, 9, 1 }, 1, NULL, 6, real, 0);
        simulate(3, (const int64_t[3]){ 17, 9, 31 }, 5, NULL, 6, real, 0);
        simulate(3, (const int64_t[3]){ 17, 9, 31 }, 8, (const int[3]){ 2, 2, 2 }, 6, real, 0);
        simulate(3, (const int64_t[3]){ 17, 9, 31 }, 6, (const int[3]){ 3, 1, 2 }, 6, real, 0);
        simulate(3, (const int64_t[3]){ 17, 9, 31 }, 3, (const int[3]){ 1, 3, 1 }, 6, real, 0);
        simulate(3, (const int64_t[3]){ 5, 4, 6 }, 24, (const int[3]){ 3, 2, 4 }, 6, real, 0);
        simulate(3, (const int64_t[3]){ 7, 7, 7 }, 1, NULL, 6, real, 0);
    }
    /* Streaming stores store the x-boundary points of a run from vector registers: the halo
     * columns of a split along x must still come out right. */
    simulate(2, (const int64_t[3]){ 129, 65, 1 }, 6, (const int[3]){ 3, 2, 1 }, 4, 1, 1);
    simulate(3, (const int64_t[3]){ 67, 23, 7 }, 4, (const int[3]){ 2, 2, 1 }, 4, 1, 1);
}

/* Halos k deep, one exchange per k steps (stencil.time_block = k with ranks): the rounds, axis
 * by axis, bring the edges and corners k steps read (the halos start as NaN, so a missing corner
 * spreads into the owned points), and k steps of the wavefront over each local array equal k
 * steps of one array, bitwise. Odd sizes, blocks exactly k thick, splits along every axis. */
static void deep_halos(void)
{
    for (int real = 0; real <= 1; real++)
        for (int k = 2; k <= 4; k++) {
            simulate_deep(2, (const int64_t[3]){ 31, 23, 1 }, 4, (const int[3]){ 2, 2, 1 }, 3, real, 0, k);
            simulate_deep(2, (const int64_t[3]){ 29, 17, 1 }, 6, (const int[3]){ 3, 2, 1 }, 3, real, 0, k);
            simulate_deep(3, (const int64_t[3]){ 15, 13, 11 }, 8, (const int[3]){ 2, 2, 2 }, 2, real, 0, k);
            simulate_deep(3, (const int64_t[3]){ 13, 11, 17 }, 3, (const int[3]){ 1, 1, 3 }, 3, real, 0, k);
        }
    /* Blocks exactly as thick as the halos: 3 ranks of 3 columns, 2 of 4 rows, halos 3 and 4. */
    simulate_deep(2, (const int64_t[3]){ 11, 10, 1 }, 6, (const int[3]){ 3, 2, 1 }, 3, 1, 0, 3);
    simulate_deep(3, (const int64_t[3]){ 10, 6, 10 }, 4, (const int[3]){ 2, 1, 2 }, 3, 1, 0, 4);
}

/* A block thinner than its halos along an axis it shares is refused with what works; auto
 * takes a grid whose blocks are thick enough; the most ranks count with the depth. */
static void deep_refusals(void)
{
    struct ts_decomp d;
    char why[768];
    enum ts_decomp_status st =
        ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 40, 1 }, 3, (const int[3]){ 3, 1, 0 }, 3, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL, "3 ranks of 2 or 3 columns with halos 3 deep accepted");
    CHECK(strstr(why, "3 ranks as 3x1 leave rank 1 (x coordinate 1) 2 interior columns in x, fewer than its halo's "
                      "3 layers")
              && strstr(why, "use at most 2 ranks along x or nx >= 11, or stencil.time_block <= 2")
              && strstr(why, "mpi.dims = 1x3 fits (auto's choice)"),
          "thin blocks: %s", why);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 40, 1 }, 3, NULL, 3, why, sizeof why);
    CHECK(st == TS_DECOMP_OK && d.dims[0] == 1 && d.dims[1] == 3, "auto with halos 3 deep: %s, %dx%d", why, d.dims[0],
          d.dims[1]);
    /* 20 x 6 x 6 on 4 ranks: 4x1x1 is the fewest points per layer; halos 5 deep leave it 4
     * columns each, so auto takes 2x2x1... which leaves 2 rows each: 2x1x2 neither; 1x2x2 neither. */
    st = ts_decomp_create(&d, 3, (const int64_t[3]){ 20, 6, 6 }, 4, NULL, 5, why, sizeof why);
    CHECK(st == TS_DECOMP_TOO_SMALL && strstr(why, "at most 3 ranks fit, as mpi.dims = 3x1x1"),
          "20x6x6 on 4 ranks, halos 5 deep: %s", why);
    int got[3];
    CHECK(ts_decomp_best_dims(3, (const int64_t[3]){ 20, 6, 6 }, 4, 4, got) && got[0] == 4 && got[1] == 1,
          "20x6x6 on 4 ranks, halos 4 deep: %dx%dx%d", got[0], got[1], got[2]);
    CHECK(ts_decomp_most_ranks(2, (const int64_t[3]){ 14, 14, 1 }, 100, 4, got) == 9 && got[0] == 3 && got[1] == 3,
          "14x14 with halos 4 deep: at most 3x3, got %dx%d", got[0], got[1]);
    st = ts_decomp_create(&d, 2, (const int64_t[3]){ 9, 9, 1 }, 2, NULL, 0, why, sizeof why);
    CHECK(st == TS_DECOMP_BAD_ARGUMENT, "halos 0 deep accepted");
    /* Faces: a y face of halos 2 deep spans the x halos too (corners), the x face the owned rows. */
    REQUIRE(ts_decomp_create(&d, 2, (const int64_t[3]){ 12, 12, 1 }, 4, (const int[3]){ 2, 2, 0 }, 2, why, sizeof why)
                == TS_DECOMP_OK,
            "2x2 on 12x12, halos 2 deep: %s", why);
    struct ts_decomp_block b;
    ts_decomp_block(&d, 0, &b);
    struct ts_decomp_face x = ts_decomp_send_face(&b, TS_DIR_X_HI), y = ts_decomp_recv_face(&b, TS_DIR_Y_HI);
    CHECK(b.origin[0] == 0 && b.local[0] == 8 && x.count[0] == 2 && x.count[1] == 5 && x.start[0] == 4
              && y.count[0] == 8 && y.count[1] == 2 && y.start[1] == 6,
          "rank 0 of 2x2 on 12x12, halos 2 deep: local %lld, x face %lldx%lld at %lld, y halo %lldx%lld at %lld",
          (long long)b.local[0], (long long)x.count[0], (long long)x.count[1], (long long)x.start[0],
          (long long)y.count[0], (long long)y.count[1], (long long)y.start[1]);
    CHECK(ts_decomp_rounds(&d) == 2, "2x2, halos 2 deep: %d rounds", ts_decomp_rounds(&d));
}

int main(void)
{
    auto_dims();
    shape_aware();
    tiling();
    refusals();
    slices();
    halo_exchange();
    deep_halos();
    deep_refusals();
    return ts_test_finish();
}

/* The stencils' result, sum of u^2, does not depend on how the grid is split: a field summed
 * whole (ts_stencil_norm_rows, as one thread of a single-node run does) equals, bit for bit, the
 * same field cut into the blocks of every rank grid of 1 to 8 ranks (splits along x, y and z,
 * x splitting rows), each block summed by 1 to 4 OpenMP threads over its rows
 * (ts_decomp_sum_squares) and the partial sums merged in rank order and in reverse. Fields: the
 * stencils' eigenmode after some Jacobi steps, and values of wildly mixed magnitude (squares
 * from subnormal to 2^900, zeros) where rounding per row or per block would show. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_common.h"
#include "ts_decomp.h"
#include "ts_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random signs and mantissas, exponents from -560 to 450: squares span 2^-1120 (underflowing
 * to subnormals or zero) to 2^900; about one value in eight is zero. */
static void fill_mixed(double *u, int64_t total)
{
    for (int64_t i = 0; i < total; i++) {
        uint64_t r = next();
        double m = 1.0 + (double)(r >> 12) * 0x1p-52;
        int e = (int)(r % 1011) - 560;
        u[i] = (r >> 8) % 8 == 0 ? 0.0 : ((r >> 9) & 1 ? -1.0 : 1.0) * ldexp(m, e);
    }
}

/* The eigenmode the stencils start from, after `steps` real Jacobi steps. */
static void fill_mode(double *u, const struct ts_problem *pb, int ndims, int steps)
{
    const int64_t total = pb->nx * pb->ny * pb->nz;
    double *arrays[2] = { u, malloc((size_t)total * sizeof(double)) };
    REQUIRE(arrays[1], "out of memory");
    ts_stencil_init_rows(pb, ndims, arrays[0], arrays[1], 0, pb->ny * pb->nz);
    const int64_t items = ndims == 3 ? pb->nz : pb->ny;
    for (int t = 0; t < steps; t++)
        ts_stencil_step(pb, ndims, arrays, (struct ts_range){ 0, items, 0 }, t);
    if (steps % 2)
        memcpy(u, arrays[1], (size_t)total * sizeof(double));
    free(arrays[1]);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Rank b's sum over its local array, its rows split among `threads` OpenMP threads the way the
 * kernels split them (rows in 2D, planes in 3D), the threads' partials merged in thread order. */
static void rank_sum(const double *local, const struct ts_decomp_block *b, int ndims, int threads, struct ts_xsum *acc)
{
    const int64_t items = ndims == 3 ? b->local[2] : b->local[1];
    const int64_t rows_per_item = ndims == 3 ? b->local[1] : 1;
    struct ts_xsum slot[4];
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        ts_xsum_init(&slot[t]);
        int64_t first = items * t / n, end = items * (t + 1) / n;
        ts_decomp_sum_squares(local, b, first * rows_per_item, end * rows_per_item, &slot[t]);
#pragma omp barrier
#pragma omp single
        for (int k = 0; k < n; k++)
            ts_xsum_merge(acc, &slot[k]);
    }
}

/* Every rank grid of `ranks` ranks (every dx x dy x dz with that product) the grid allows. */
static int check_splits(const double *u, const int64_t n[3], int ndims, const char *what, double whole)
{
    int grids = 0;
    for (int ranks = 1; ranks <= 8; ranks++)
        for (int dx = 1; dx <= ranks; dx++)
            for (int dy = 1; dy <= ranks / dx; dy++) {
                if (ranks % (dx * dy) != 0 || (ndims == 2 && dx * dy != ranks))
                    continue;
                const int dims[3] = { dx, dy, ranks / (dx * dy) };
                struct ts_decomp d;
                if (ts_decomp_create(&d, ndims, n, ranks, dims, 1, NULL, 0) != TS_DECOMP_OK)
                    continue;
                grids++;
                char text[48];
                ts_decomp_dims_text(&d, text, sizeof text);
                struct ts_xsum part[8];
                for (int threads = 1; threads <= 4; threads++) {
                    for (int r = 0; r < ranks; r++) {
                        struct ts_decomp_block b;
                        ts_decomp_block(&d, r, &b);
                        const int64_t elems = b.local[0] * b.local[1] * b.local[2];
                        double *local = malloc((size_t)elems * sizeof(double));
                        REQUIRE(local, "out of memory");
                        for (int64_t k = 0; k < b.local[2]; k++)
                            for (int64_t j = 0; j < b.local[1]; j++)
                                memcpy(local + (k * b.local[1] + j) * b.local[0],
                                       u + ((b.origin[2] + k) * n[1] + b.origin[1] + j) * n[0] + b.origin[0],
                                       (size_t)b.local[0] * sizeof(double));
                        ts_xsum_init(&part[r]);
                        rank_sum(local, &b, ndims, threads, &part[r]);
                        free(local);
                    }
                    struct ts_xsum forward, backward;
                    ts_xsum_init(&forward);
                    ts_xsum_init(&backward);
                    for (int r = 0; r < ranks; r++) {
                        struct ts_xsum copy = part[ranks - 1 - r];
                        ts_xsum_merge(&forward, &part[r]);
                        ts_xsum_merge(&backward, &copy);
                    }
                    double f = ts_xsum_round(&forward), bw = ts_xsum_round(&backward);
                    CHECK(same_bits(f, whole), "%s: %d ranks as %s, %d threads: %a, the whole grid %a", what, ranks,
                          text, threads, f, whole);
                    CHECK(same_bits(bw, whole), "%s: %d ranks as %s, %d threads, merged in reverse: %a, the whole %a",
                          what, ranks, text, threads, bw, whole);
                }
            }
    return grids;
}

static void check_field(int ndims, int64_t nx, int64_t ny, int64_t nz, int mixed)
{
    const int64_t n[3] = { nx, ny, ndims == 3 ? nz : 1 }, total = n[0] * n[1] * n[2];
    struct ts_problem pb = { .kernel = ndims == 3 ? TS_KERNEL_STENCIL3D : TS_KERNEL_STENCIL2D,
                             .nx = n[0],
                             .ny = n[1],
                             .nz = n[2],
                             .alpha = ndims == 3 ? 0.15 : 0.2 };
    double *u = malloc((size_t)total * sizeof(double));
    REQUIRE(u, "out of memory");
    if (mixed)
        fill_mixed(u, total);
    else
        fill_mode(u, &pb, ndims, 3);
    /* The boundary is fixed at zero in a stencil grid; ranks never sum it. */
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++)
                if (i == 0 || i == n[0] - 1 || j == 0 || j == n[1] - 1 || (ndims == 3 && (k == 0 || k == n[2] - 1)))
                    u[(k * n[1] + j) * n[0] + i] = 0.0;

    struct ts_xsum acc;
    ts_xsum_init(&acc);
    ts_stencil_norm_rows(u, n[0], 0, n[1] * n[2], &acc);
    const double whole = ts_xsum_round(&acc);

    char what[96];
    snprintf(what, sizeof what, "%s %lldx%lldx%lld", mixed ? "mixed magnitudes" : "eigenmode after 3 steps",
             (long long)n[0], (long long)n[1], (long long)n[2]);
    int grids = check_splits(u, n, ndims, what, whole);
    CHECK(grids >= (ndims == 3 ? 30 : 15), "%s: only %d rank grids tried", what, grids);
    free(u);
}

int main(void)
{
    check_field(2, 37, 29, 1, 0);
    check_field(2, 37, 29, 1, 1);
    check_field(2, 130, 11, 1, 1); /* long rows cut into runs of 256 and partial runs */
    check_field(3, 17, 9, 31, 0);
    check_field(3, 13, 11, 7, 1);
    return ts_test_finish();
}

/* How many ranks along each axis: MPI_Dims_create's shape-blind answer, and the one that
 * `mpi.dims = auto` takes, which looks at the grid: the fewest halo points among the rank grids
 * that fit it (ts_decomp.h says the rule and its tie order). */
#include "ts_decomp.h"

#include <errno.h>
#include <limits.h>

/* The counts of dims sorted largest first, into sorted[0..ndims) (dims itself may be sorted). */
static void sorted_counts(const int dims[3], int ndims, int sorted[3])
{
    for (int i = 0; i < ndims; i++)
        sorted[i] = dims[i];
    for (int i = 0; i < ndims; i++)
        for (int j = i + 1; j < ndims; j++)
            if (sorted[j] > sorted[i]) {
                int t = sorted[i];
                sorted[i] = sorted[j];
                sorted[j] = t;
            }
}

int ts_decomp_auto_dims(int ranks, int ndims, int dims[])
{
    if (ranks < 1 || ndims < 1 || ndims > 3)
        return EINVAL;
    int factors[32], n_factors = 0; /* a prime factor is at least 2: at most 31 of an int */
    int rest = ranks;
    for (int p = 2; (int64_t)p * p <= rest; p += p == 2 ? 1 : 2)
        while (rest % p == 0) {
            factors[n_factors++] = p;
            rest /= p;
        }
    if (rest > 1)
        factors[n_factors++] = rest;
    for (int i = 0; i < ndims; i++)
        dims[i] = 1;
    /* Open MPI's greedy choice, so that both give the same rank grid: the largest factor first,
     * each into the smallest entry (the first of equal ones). */
    for (int f = n_factors - 1; f >= 0; f--) {
        int smallest = 0;
        for (int i = 1; i < ndims; i++)
            if (dims[i] < dims[smallest])
                smallest = i;
        dims[smallest] *= factors[f];
    }
    sorted_counts(dims, ndims, dims);
    return 0;
}

/* a * b, or INT64_MAX when that does not fit (both non-negative). */
static int64_t mul_sat(int64_t a, int64_t b)
{
    return a != 0 && b > INT64_MAX / a ? INT64_MAX : a * b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    return b > INT64_MAX - a ? INT64_MAX : a + b;
}

int64_t ts_decomp_halo_surface(int ndims, const int64_t points[3], const int dims[3])
{
    int64_t total = 0;
    for (int a = 0; a < ndims; a++) {
        int64_t face = 1; /* a cut across axis a spans the interior of the other axes */
        for (int b = 0; b < ndims; b++)
            if (b != a)
                face = mul_sat(face, points[b] - 2);
        total = add_sat(total, mul_sat(dims[a] - 1, face));
    }
    return total;
}

/* Whether count ranks along an axis of `interior` points fit halos depth deep: unsplit, or each
 * rank at least depth points (its neighbours' halos). Monotone: fewer ranks fit too. */
static int fits(int64_t count, int64_t interior, int depth)
{
    return count == 1 || (count <= interior && count * depth <= interior);
}

/* What one candidate rank grid is judged by, in the order it is judged. */
struct candidate {
    int dims[3];     /* x, y, z */
    int64_t surface; /* ts_decomp_halo_surface */
    int mpi_counts;  /* its counts are MPI_Dims_create's, in some order */
    int sorted[3];   /* its counts, largest first */
};

/* Whether a goes before b: the smaller surface; then MPI_Dims_create's counts; then the more
 * even counts (the smaller largest count, then the smaller next one); then, among orders of the
 * same counts, the more ranks on the slowest axis (z, then y). */
static int before(const struct candidate *a, const struct candidate *b, int ndims)
{
    if (a->surface != b->surface)
        return a->surface < b->surface;
    if (a->mpi_counts != b->mpi_counts)
        return a->mpi_counts;
    for (int i = 0; i < ndims; i++)
        if (a->sorted[i] != b->sorted[i])
            return a->sorted[i] < b->sorted[i];
    for (int i = ndims - 1; i >= 0; i--)
        if (a->dims[i] != b->dims[i])
            return a->dims[i] > b->dims[i];
    return 0;
}

/* The divisors of n, ascending, into div (room for 2048: no int has more than 1600). */
static int divisors(int n, int div[2048])
{
    int low = 0, high = 0, upper[1024];
    for (int d = 1; (int64_t)d * d <= n; d++)
        if (n % d == 0) {
            div[low++] = d;
            if (d != n / d)
                upper[high++] = n / d;
        }
    for (int i = high - 1; i >= 0; i--)
        div[low++] = upper[i];
    return low;
}

/* Judges the rank grid dims (x, y, z) and keeps it in *best when it goes before what is there. */
static void consider(const int dims[3], int ndims, const int64_t points[3], const int mpi[3], struct candidate *best,
                     int *found)
{
    struct candidate c = { .dims = { dims[0], dims[1], ndims == 3 ? dims[2] : 1 } };
    c.surface = ts_decomp_halo_surface(ndims, points, c.dims);
    sorted_counts(c.dims, ndims, c.sorted);
    c.mpi_counts = 1;
    for (int i = 0; i < ndims; i++)
        c.mpi_counts = c.mpi_counts && c.sorted[i] == mpi[i];
    if (!*found || before(&c, best, ndims))
        *best = c;
    *found = 1;
}

int ts_decomp_best_dims(int ndims, const int64_t points[3], int ranks, int depth, int dims[3])
{
    dims[0] = dims[1] = dims[2] = 0;
    if ((ndims != 2 && ndims != 3) || ranks < 1 || depth < 1)
        return 0;
    int64_t interior[3] = { 1, 1, 1 };
    for (int a = 0; a < ndims; a++) {
        if (points[a] < 3)
            return 0;
        interior[a] = points[a] - 2;
    }
    int mpi[3]; /* largest first */
    ts_decomp_auto_dims(ranks, ndims, mpi);

    int div[2048];
    const int n = divisors(ranks, div);
    struct candidate best = { { 0, 0, 0 }, 0, 0, { 0, 0, 0 } };
    int found = 0;
    for (int i = 0; i < n && fits(div[i], interior[0], depth); i++) {
        const int dx = div[i], rest = ranks / dx;
        if (ndims == 2) {
            if (fits(rest, interior[1], depth))
                consider((const int[3]){ dx, rest, 1 }, ndims, points, mpi, &best, &found);
            continue;
        }
        for (int j = 0; j < n && fits(div[j], interior[1], depth) && div[j] <= rest; j++)
            if (rest % div[j] == 0 && fits(rest / div[j], interior[2], depth))
                consider((const int[3]){ dx, div[j], rest / div[j] }, ndims, points, mpi, &best, &found);
    }
    if (!found)
        return 0;
    for (int a = 0; a < 3; a++)
        dims[a] = best.dims[a];
    return 1;
}

int ts_decomp_most_ranks(int ndims, const int64_t points[3], int ranks, int depth, int dims[3])
{
    dims[0] = dims[1] = dims[2] = 0;
    if ((ndims != 2 && ndims != 3) || ranks < 1 || depth < 1)
        return 0;
    int64_t cap[3] = { 1, 1, 1 }; /* ranks along an axis: at most one per depth interior points, or 1 */
    for (int a = 0; a < ndims; a++) {
        if (points[a] < 3)
            return 0;
        const int64_t most = (points[a] - 2) / depth > 1 ? (points[a] - 2) / depth : 1;
        cap[a] = most < ranks ? most : ranks;
    }
    /* The largest product of counts within the caps that is at most ranks, searched from the
     * largest dx down, skipping what cannot beat the best so far: a dx whose bound,
     * dx x min(ranks / dx, cap y x cap z), does not, and for a dx the dy below the first whose
     * dx x dy x cap z does not. Milliseconds even for 2^31 - 1 ranks (kernels.decomp). */
    int64_t most = 1;
    for (int64_t dx = cap[0]; dx >= 1 && most < ranks; dx--) {
        const int64_t rest = ranks / dx, plane = cap[1] * cap[2]; /* each cap <= ranks: no overflow */
        if (dx * (rest < plane ? rest : plane) <= most)
            continue;
        for (int64_t dy = rest < cap[1] ? rest : cap[1]; dy >= 1; dy--) {
            const int64_t dz = rest / dy < cap[2] ? rest / dy : cap[2];
            if (dx * dy * dz > most)
                most = dx * dy * dz;
            if (dy * dz == rest || dx * dy * cap[2] <= most)
                break;
        }
    }
    ts_decomp_best_dims(ndims, points, (int)most, depth, dims);
    return (int)most;
}

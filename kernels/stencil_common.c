#include "stencil_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels_internal.h"

struct ts_stencil_weights ts_stencil_weights(const struct ts_problem *pb, int dims)
{
    return (struct ts_stencil_weights){
        .center = 1.0 - 2.0 * dims * pb->alpha,
        .neighbour = pb->alpha,
    };
}

double ts_stencil_mode_factor(int64_t index, int64_t points)
{
    if (index <= 0 || index >= points - 1)
        return 0.0;
    return sin(M_PI * (double)index / (double)(points - 1));
}

double *ts_stencil_axis_table(int64_t points)
{
    double *table = malloc((size_t)points * sizeof *table);
    if (table)
        for (int64_t i = 0; i < points; i++)
            table[i] = ts_stencil_mode_factor(i, points);
    return table;
}

void ts_stencil_init_rows(const struct ts_problem *pb, int dims, double *u0, double *u1, int64_t first_row,
                          int64_t end_row)
{
    const int64_t nx = pb->nx, ny = pb->ny;
    double *fx = ts_stencil_axis_table(nx);
    for (int64_t row = first_row; row < end_row; row++) {
        int64_t j = row % ny, k = row / ny;
        double fy = ts_stencil_mode_factor(j, ny);
        double fz = dims == 3 ? ts_stencil_mode_factor(k, pb->nz) : 1.0;
        for (int64_t i = 0; i < nx; i++) {
            /* Same product order as the verification's long-double reference. */
            double v = (fx ? fx[i] : ts_stencil_mode_factor(i, nx)) * fy;
            if (dims == 3)
                v *= fz;
            u0[row * nx + i] = v;
            u1[row * nx + i] = v;
        }
    }
    free(fx);
}

void ts_stencil_norm_rows(const double *grid, int64_t nx, int64_t first_row, int64_t end_row, struct ts_xsum *partial)
{
    /* Every square deposited exactly, not a rounded sum per row: the result then does not
     * depend on how rows or planes are split among threads, or rows among ranks. */
    ts_xsum_add_squares(partial, grid + first_row * nx, (end_row - first_row) * nx);
}

static long double mode_factor_exact(int64_t index, int64_t points)
{
    if (index <= 0 || index >= points - 1)
        return 0.0L;
    const long double pi = 3.141592653589793238462643383279502884L;
    return sinl(pi * (long double)index / (long double)(points - 1));
}

static long double *exact_axis_table(int64_t points)
{
    long double *table = malloc((size_t)points * sizeof *table);
    if (table)
        for (int64_t i = 0; i < points; i++)
            table[i] = mode_factor_exact(i, points);
    return table;
}

/* 2 cos(pi/(n-1)) - 2: the eigenvalue of the 1D second difference for the mode. */
static long double second_difference_eigenvalue(int64_t points)
{
    const long double pi = 3.141592653589793238462643383279502884L;
    long double s = sinl(pi / (2.0L * (long double)(points - 1)));
    return -4.0L * s * s;
}

void ts_stencil_verify(const struct ts_problem *pb, int dims, const double *grid, int64_t steps,
                       struct ts_verification *out)
{
    const int64_t nx = pb->nx, ny = pb->ny, nz = dims == 3 ? pb->nz : 1;
    struct ts_stencil_weights w = ts_stencil_weights(pb, dims);
    /* The factor of the operator actually applied, with the double weights. */
    long double laplacian = second_difference_eigenvalue(nx) + second_difference_eigenvalue(ny);
    if (dims == 3)
        laplacian += second_difference_eigenvalue(nz);
    long double lambda = (long double)w.center + (long double)w.neighbour * (laplacian + 2.0L * dims);
    long double amplitude = powl(lambda, (long double)steps);

    /* With alpha <= 1/(2 dims) the step is a convex combination, so rounding errors never grow:
     * each step adds at most ~(dims + 4) roundings of max|u| <= 1; the double initial field is
     * within 4 roundings of the exact mode. */
    const double per_step = 2.0 * dims + 4.0;
    const double u = TS_UNIT_ROUNDOFF;
    double tolerance = (per_step * (double)steps + 4.0) * u;

    double max_error = 0.0;
    int64_t failures = 0;
    long double *fx = exact_axis_table(nx);
#pragma omp parallel for schedule(static) collapse(2) reduction(max : max_error) reduction(+ : failures)
    for (int64_t k = 0; k < nz; k++) {
        for (int64_t j = 0; j < ny; j++) {
            long double fz = dims == 3 ? mode_factor_exact(k, nz) : 1.0L;
            long double fyz = fz * mode_factor_exact(j, ny) * amplitude;
            const double *row = grid + (k * ny + j) * nx;
            for (int64_t i = 0; i < nx; i++) {
                long double want = fyz * (fx ? fx[i] : mode_factor_exact(i, nx));
                double err = (double)fabsl((long double)row[i] - want);
                if (!(err <= tolerance))
                    failures++;
                if (err > max_error || isnan(err))
                    max_error = isnan(err) ? INFINITY : err;
            }
        }
    }

    free(fx);

    int64_t ci = (nx - 1) / 2, cj = (ny - 1) / 2, ck = (nz - 1) / 2;
    long double peak = amplitude * mode_factor_exact(ci, nx) * mode_factor_exact(cj, ny)
                       * (dims == 3 ? mode_factor_exact(ck, nz) : 1.0L);
    out->expected = (double)peak;
    out->observed = grid[(ck * ny + cj) * nx + ci];
    out->error = max_error;
    out->tolerance = tolerance;
    out->checked = nx * ny * nz;
    out->failures = failures;
    out->passed = failures == 0;
    snprintf(out->method, sizeof out->method,
             "every grid point against lambda^%lld * u0 (discrete eigenmode, lambda = %.17Lg); "
             "expected/observed at the centre point, error = max |u - lambda^k u0|; "
             "tolerance (%g k + 4) u",
             (long long)steps, lambda, per_step);
}

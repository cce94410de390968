#include "stencil_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels_internal.h"

int64_t ts_stencil_even_rows(int64_t rows, int64_t fit)
{
    return ts_stencil_block_tallest(ts_stencil_blocks_of(0, rows, fit));
}

struct ts_stencil_blocks ts_stencil_blocks_of(int64_t lo, int64_t hi, int64_t height)
{
    const int64_t rows = hi - lo;
    return (struct ts_stencil_blocks){ .lo = lo, .rows = rows, .n = height > 0 ? (rows + height - 1) / height : 1 };
}

int64_t ts_stencil_block_edge(struct ts_stencil_blocks b, int64_t i)
{
    return b.lo + b.rows * i / b.n;
}

int64_t ts_stencil_block_tallest(struct ts_stencil_blocks b)
{
    return b.n > 0 ? (b.rows + b.n - 1) / b.n : b.rows; /* no rows: no blocks */
}

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

double *ts_stencil_axis_table(int64_t origin, int64_t count, int64_t points)
{
    double *table = malloc((size_t)count * sizeof *table);
    if (table)
        for (int64_t i = 0; i < count; i++)
            table[i] = ts_stencil_mode_factor(origin + i, points);
    return table;
}

struct ts_stencil_frame ts_stencil_frame_of(const struct ts_problem *pb, int dims)
{
    const int64_t local[3] = { pb->nx, pb->ny, dims == 3 ? pb->nz : 1 };
    struct ts_stencil_frame f;
    for (int a = 0; a < 3; a++) {
        const int used = a < dims && ts_is_part(pb);
        f.origin[a] = used ? pb->part.origin[a] : 0;
        f.whole[a] = used ? pb->part.whole[a] : local[a];
        f.own_begin[a] = used ? pb->part.own_begin[a] : 0;
        f.own_end[a] = used ? pb->part.own_end[a] : local[a];
    }
    return f;
}

void ts_stencil_init_rows(const struct ts_problem *pb, int dims, double *u0, double *u1, int64_t first_row,
                          int64_t end_row)
{
    const int64_t nx = pb->nx, ny = pb->ny;
    /* Global indices and sizes: a part's points get bitwise the global grid's values. */
    const struct ts_stencil_frame f = ts_stencil_frame_of(pb, dims);
    double *fx = ts_stencil_axis_table(f.origin[0], nx, f.whole[0]);
    for (int64_t row = first_row; row < end_row; row++) {
        int64_t j = row % ny, k = row / ny;
        double fy = ts_stencil_mode_factor(f.origin[1] + j, f.whole[1]);
        double fz = dims == 3 ? ts_stencil_mode_factor(f.origin[2] + k, f.whole[2]) : 1.0;
        for (int64_t i = 0; i < nx; i++) {
            /* Same product order as the verification's long-double reference. */
            double v = (fx ? fx[i] : ts_stencil_mode_factor(f.origin[0] + i, f.whole[0])) * fy;
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

void ts_stencil_result_rows(const struct ts_problem *pb, int dims, const double *grid, int64_t first_row,
                            int64_t end_row, struct ts_xsum *partial)
{
    if (!ts_is_part(pb)) {
        ts_stencil_norm_rows(grid, pb->nx, first_row, end_row, partial);
        return;
    }
    const int64_t nx = pb->nx, ny = pb->ny;
    const struct ts_stencil_frame f = ts_stencil_frame_of(pb, dims);
    const int64_t x0 = f.own_begin[0], owned_x = f.own_end[0] - f.own_begin[0];
    for (int64_t row = first_row; row < end_row; row++) {
        int64_t j = row % ny, k = row / ny;
        if (j >= f.own_begin[1] && j < f.own_end[1] && k >= f.own_begin[2] && k < f.own_end[2])
            ts_xsum_add_squares(partial, grid + row * nx + x0, owned_x);
    }
}

static long double mode_factor_exact(int64_t index, int64_t points)
{
    if (index <= 0 || index >= points - 1)
        return 0.0L;
    const long double pi = 3.141592653589793238462643383279502884L;
    return sinl(pi * (long double)index / (long double)(points - 1));
}

static long double *exact_axis_table(int64_t origin, int64_t count, int64_t points)
{
    long double *table = malloc((size_t)count * sizeof *table);
    if (table)
        for (int64_t i = 0; i < count; i++)
            table[i] = mode_factor_exact(origin + i, points);
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
    const int64_t nx = pb->nx, ny = pb->ny;
    /* The answer is the global grid's: eigenvalue and mode from the whole sizes, the points
     * checked those this problem answers for (all of the whole problem's). */
    const struct ts_stencil_frame f = ts_stencil_frame_of(pb, dims);
    const int64_t *org = f.origin, *whole = f.whole, *lo = f.own_begin, *hi = f.own_end;
    struct ts_stencil_weights w = ts_stencil_weights(pb, dims);
    /* The factor of the operator actually applied, with the double weights. */
    long double laplacian = second_difference_eigenvalue(whole[0]) + second_difference_eigenvalue(whole[1]);
    if (dims == 3)
        laplacian += second_difference_eigenvalue(whole[2]);
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
    long double *fx = exact_axis_table(org[0], nx, whole[0]);
#pragma omp parallel for schedule(static) collapse(2) reduction(max : max_error) reduction(+ : failures)
    for (int64_t k = lo[2]; k < hi[2]; k++) {
        for (int64_t j = lo[1]; j < hi[1]; j++) {
            long double fz = dims == 3 ? mode_factor_exact(org[2] + k, whole[2]) : 1.0L;
            long double fyz = fz * mode_factor_exact(org[1] + j, whole[1]) * amplitude;
            const double *row = grid + (k * ny + j) * nx;
            for (int64_t i = lo[0]; i < hi[0]; i++) {
                long double want = fyz * (fx ? fx[i] : mode_factor_exact(org[0] + i, whole[0]));
                double err = (double)fabsl((long double)row[i] - want);
                if (!(err <= tolerance))
                    failures++;
                if (err > max_error || isnan(err))
                    max_error = isnan(err) ? INFINITY : err;
            }
        }
    }

    free(fx);

    /* The global centre point; its value is observed by the one part that owns it. */
    int64_t c[3], owns_centre = 1;
    for (int a = 0; a < 3; a++) {
        c[a] = (whole[a] - 1) / 2 - org[a];
        owns_centre = owns_centre && c[a] >= lo[a] && c[a] < hi[a];
    }
    long double peak = amplitude * mode_factor_exact(c[0] + org[0], whole[0])
                       * mode_factor_exact(c[1] + org[1], whole[1])
                       * (dims == 3 ? mode_factor_exact(c[2] + org[2], whole[2]) : 1.0L);
    out->expected = (double)peak;
    out->observed = owns_centre ? grid[(c[2] * ny + c[1]) * nx + c[0]] : NAN;
    out->error = max_error;
    out->tolerance = tolerance;
    out->checked = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    out->failures = failures;
    out->passed = failures == 0;
    snprintf(out->method, sizeof out->method,
             "every grid point against lambda^%lld * u0 (discrete eigenmode, lambda = %.17Lg); "
             "expected/observed at the centre point, error = max |u - lambda^k u0|; "
             "tolerance (%g k + 4) u%s",
             (long long)steps, lambda, per_step,
             !ts_is_part(pb) ? ""
             : owns_centre   ? "; this part's points"
                             : "; this part's points (not the centre)");
}

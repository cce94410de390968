/* Pieces shared by the 2D and 3D Jacobi kernels. Internal to kernels/. */
#ifndef TS_STENCIL_COMMON_H
#define TS_STENCIL_COMMON_H

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

/* The factors of one axis, computed once per call instead of once per grid point (sin is
 * expensive). Returns a malloc'd table, or NULL when memory is short: callers then use
 * ts_stencil_mode_factor directly and get the same values. */
double *ts_stencil_axis_table(int64_t points);

/* Writes the initial values of rows [first_row, end_row) of both grids; row r is grid row
 * r % ny of plane r / ny (nz = 1 in 2D). */
void ts_stencil_init_rows(const struct ts_problem *pb, int dims, double *u0, double *u1, int64_t first_row,
                          int64_t end_row);

/* Sum of squares of the rows of planes/rows in r, each row summed in fixed order. */
void ts_stencil_norm_rows(const double *grid, int64_t nx, int64_t first_row, int64_t end_row,
                          struct ts_xsum *partial);

/* Checks the grid after `steps` Jacobi steps against lambda^steps times the eigenmode. */
void ts_stencil_verify(const struct ts_problem *pb, int dims, const double *grid, int64_t steps,
                       struct ts_verification *out);

#endif

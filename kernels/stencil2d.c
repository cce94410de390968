/* stencil2d: one Jacobi step of the 2D heat equation, 5-point stencil, fixed zero boundary.
 * Partition items are grid rows; step k reads grid k % 2 and writes grid (k + 1) % 2. */
#include <stdio.h>

#include "kernels_internal.h"
#include "stencil_common.h"

static int stencil2d_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    if (pb->nx < 3 || pb->ny < 3) {
        snprintf(why, why_len, "stencil2d needs at least 3x3 points (one interior point), got %lldx%lld",
                 (long long)pb->nx, (long long)pb->ny);
        return 1;
    }
    if (pb->nx > INT64_MAX / pb->ny) {
        snprintf(why, why_len, "stencil2d grid %lldx%lld overflows a 64-bit index",
                 (long long)pb->nx, (long long)pb->ny);
        return 1;
    }
    *plan = (struct ts_plan){
        .n_arrays = 2,
        .array_elems = pb->nx * pb->ny,
        .items = pb->ny,
        .elems_per_item = pb->nx,
        .granule_multiple = 1,
        .units_per_step = (pb->nx - 2) * (pb->ny - 2),
    };
    return 0;
}

static void stencil2d_init(const struct ts_problem *pb, double *const *arrays, struct ts_range rows)
{
    ts_stencil_init_rows(pb, 2, arrays[0], arrays[1], rows.begin, rows.end);
}

static void stencil2d_step(const struct ts_problem *pb, double *const *arrays, struct ts_range rows,
                           int64_t step, struct ts_xsum *partial)
{
    (void)partial;
    const int64_t nx = pb->nx;
    const double *restrict in = arrays[step % 2];
    double *restrict out = arrays[(step + 1) % 2];
    const struct ts_stencil_weights w = ts_stencil_weights(pb, 2);
    int64_t first = rows.begin > 1 ? rows.begin : 1;
    int64_t last = rows.end < pb->ny - 1 ? rows.end : pb->ny - 1;
    for (int64_t j = first; j < last; j++) {
        const double *restrict c = in + j * nx;
        const double *restrict n = c - nx;
        const double *restrict s = c + nx;
        double *restrict o = out + j * nx;
        for (int64_t i = 1; i < nx - 1; i++)
            o[i] = w.center * c[i] + w.neighbour * ((n[i] + s[i]) + (c[i - 1] + c[i + 1]));
    }
}

static void stencil2d_result(const struct ts_problem *pb, double *const *arrays, struct ts_range rows,
                             int64_t steps, struct ts_xsum *partial)
{
    ts_stencil_norm_rows(arrays[steps % 2], pb->nx, rows.begin, rows.end, partial);
}

static void stencil2d_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps,
                             double result, struct ts_verification *out)
{
    (void)result;
    ts_stencil_verify(pb, 2, arrays[steps % 2], steps, out);
}

const struct ts_kernel ts_kernel_stencil2d = {
    .id = TS_KERNEL_STENCIL2D,
    .name = "stencil2d",
    .unit = "lattice update",
    .bytes_per_unit = 24.0,
    .flops_per_unit = 6.0,
    .byte_model = "24 B/update (read u, write u', write-allocate of u'; neighbours from cache)",
    .result_name = "sum of u^2",
    .plan = stencil2d_plan,
    .init = stencil2d_init,
    .step = stencil2d_step,
    .result = stencil2d_result,
    .verify = stencil2d_verify,
};

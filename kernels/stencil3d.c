/* stencil3d: one Jacobi step of the 3D heat equation, 7-point stencil, fixed zero boundary.
 * Partition items are grid planes (z); step k reads grid k % 2 and writes grid (k + 1) % 2. */
#include <stdio.h>

#include "kernels_internal.h"
#include "stencil_common.h"

static int stencil3d_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    if (pb->nx < 3 || pb->ny < 3 || pb->nz < 3) {
        snprintf(why, why_len, "stencil3d needs at least 3x3x3 points (one interior point), got %lldx%lldx%lld",
                 (long long)pb->nx, (long long)pb->ny, (long long)pb->nz);
        return 1;
    }
    if (pb->nx > INT64_MAX / pb->ny || pb->nx * pb->ny > INT64_MAX / pb->nz) {
        snprintf(why, why_len, "stencil3d grid %lldx%lldx%lld overflows a 64-bit index",
                 (long long)pb->nx, (long long)pb->ny, (long long)pb->nz);
        return 1;
    }
    *plan = (struct ts_plan){
        .n_arrays = 2,
        .array_elems = pb->nx * pb->ny * pb->nz,
        .items = pb->nz,
        .elems_per_item = pb->nx * pb->ny,
        .granule_multiple = 1,
        .units_per_step = (pb->nx - 2) * (pb->ny - 2) * (pb->nz - 2),
    };
    return 0;
}

static void stencil3d_init(const struct ts_problem *pb, double *const *arrays, struct ts_range planes)
{
    ts_stencil_init_rows(pb, 3, arrays[0], arrays[1], planes.begin * pb->ny, planes.end * pb->ny);
}

static void stencil3d_step(const struct ts_problem *pb, double *const *arrays, struct ts_range planes,
                           int64_t step, struct ts_xsum *partial)
{
    (void)partial;
    const int64_t nx = pb->nx, ny = pb->ny, plane = nx * ny;
    const double *restrict in = arrays[step % 2];
    double *restrict out = arrays[(step + 1) % 2];
    const struct ts_stencil_weights w = ts_stencil_weights(pb, 3);
    int64_t first = planes.begin > 1 ? planes.begin : 1;
    int64_t last = planes.end < pb->nz - 1 ? planes.end : pb->nz - 1;
    for (int64_t k = first; k < last; k++)
        for (int64_t j = 1; j < ny - 1; j++) {
            const double *restrict c = in + (k * ny + j) * nx;
            const double *restrict n = c - nx;
            const double *restrict s = c + nx;
            const double *restrict d = c - plane;
            const double *restrict t = c + plane;
            double *restrict o = out + (k * ny + j) * nx;
            for (int64_t i = 1; i < nx - 1; i++)
                o[i] = w.center * c[i]
                     + w.neighbour * (((c[i - 1] + c[i + 1]) + (n[i] + s[i])) + (d[i] + t[i]));
        }
}

static void stencil3d_result(const struct ts_problem *pb, double *const *arrays, struct ts_range planes,
                             int64_t steps, struct ts_xsum *partial)
{
    ts_stencil_norm_rows(arrays[steps % 2], pb->nx, planes.begin * pb->ny, planes.end * pb->ny, partial);
}

static void stencil3d_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps,
                             double result, struct ts_verification *out)
{
    (void)result;
    ts_stencil_verify(pb, 3, arrays[steps % 2], steps, out);
}

const struct ts_kernel ts_kernel_stencil3d = {
    .id = TS_KERNEL_STENCIL3D,
    .name = "stencil3d",
    .unit = "lattice update",
    .bytes_per_unit = 24.0,
    .flops_per_unit = 8.0,
    .byte_model = "24 B/update (read u, write u', write-allocate of u'; neighbours from cache)",
    .result_name = "sum of u^2",
    .plan = stencil3d_plan,
    .init = stencil3d_init,
    .step = stencil3d_step,
    .result = stencil3d_result,
    .verify = stencil3d_verify,
};

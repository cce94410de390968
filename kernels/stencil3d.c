/* stencil3d: Jacobi steps of the 3D heat equation, 7-point stencil, fixed zero boundary.
 * Partition items are grid planes (z); step k reads grid k % 2 and writes grid (k + 1) % 2
 * (an iteration is time_block steps). The sweep itself is stencil_sweep.c's. */
#include "kernels_internal.h"
#include "stencil_common.h"

static int stencil3d_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    return ts_stencil_plan(pb, 3, plan, why, why_len);
}

static void stencil3d_init(const struct ts_problem *pb, double *const *arrays, struct ts_range planes)
{
    ts_stencil_init_rows(pb, 3, arrays[0], arrays[1], planes.begin * pb->ny, planes.end * pb->ny);
    ts_stencil_wavefront_reset(planes.part);
}

static void stencil3d_step(const struct ts_problem *pb, double *const *arrays, struct ts_range planes, int64_t step,
                           struct ts_xsum *partial)
{
    (void)partial;
    ts_stencil_step(pb, 3, arrays, planes, ts_time_steps(pb, step));
}

static void stencil3d_step_split(const struct ts_problem *pb, double *const *arrays, struct ts_range planes,
                                 int64_t step, int rim)
{
    ts_stencil_step_split(pb, 3, arrays, planes, ts_time_steps(pb, step), rim);
}

static void stencil3d_result(const struct ts_problem *pb, double *const *arrays, struct ts_range planes, int64_t steps,
                             struct ts_xsum *partial)
{
    ts_stencil_result_rows(pb, 3, arrays[ts_time_steps(pb, steps) % 2], planes.begin * pb->ny, planes.end * pb->ny,
                           partial);
}

static void stencil3d_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps, double result,
                             struct ts_verification *out)
{
    (void)result;
    int64_t time = ts_time_steps(pb, steps);
    ts_stencil_verify(pb, 3, arrays[time % 2], time, out);
}

const struct ts_kernel ts_kernel_stencil3d = {
    .id = TS_KERNEL_STENCIL3D,
    .name = "stencil3d",
    .unit = "lattice update",
    .bytes_per_unit = 24.0,
    .flops_per_unit = 8.0,
    .byte_model = "24 B/update (read u, write u', write-allocate of u'; neighbours from cache)",
    .nt_bytes_per_unit = 16.0,
    .nt_byte_model = "16 B/update (read u, streaming store of u': no write-allocate; neighbours from cache)",
    .result_name = "sum of u^2",
    .plan = stencil3d_plan,
    .init = stencil3d_init,
    .step = stencil3d_step,
    .step_split = stencil3d_step_split,
    .result = stencil3d_result,
    .verify = stencil3d_verify,
};

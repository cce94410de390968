/* stencil2d: Jacobi steps of the 2D heat equation, 5-point stencil, fixed zero boundary.
 * Partition items are grid rows; step k reads grid k % 2 and writes grid (k + 1) % 2
 * (an iteration is time_block steps). The sweep itself is stencil_sweep.c's. */
#include "kernels_internal.h"
#include "stencil_common.h"

static int stencil2d_plan(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len)
{
    return ts_stencil_plan(pb, 2, plan, why, why_len);
}

static void stencil2d_init(const struct ts_problem *pb, double *const *arrays, struct ts_range rows)
{
    ts_stencil_init_rows(pb, 2, arrays[0], arrays[1], rows.begin, rows.end);
    ts_stencil_wavefront_reset(rows.part);
}

static void stencil2d_step(const struct ts_problem *pb, double *const *arrays, struct ts_range rows, int64_t step,
                           struct ts_xsum *partial)
{
    (void)partial;
    ts_stencil_step(pb, 2, arrays, rows, ts_time_steps(pb, step));
}

static void stencil2d_step_split(const struct ts_problem *pb, double *const *arrays, struct ts_range rows, int64_t step,
                                 int rim)
{
    ts_stencil_step_split(pb, 2, arrays, rows, ts_time_steps(pb, step), rim);
}

static void stencil2d_result(const struct ts_problem *pb, double *const *arrays, struct ts_range rows, int64_t steps,
                             struct ts_xsum *partial)
{
    ts_stencil_result_rows(pb, 2, arrays[ts_time_steps(pb, steps) % 2], rows.begin, rows.end, partial);
}

static void stencil2d_verify(const struct ts_problem *pb, double *const *arrays, int64_t steps, double result,
                             struct ts_verification *out)
{
    (void)result;
    int64_t time = ts_time_steps(pb, steps);
    ts_stencil_verify(pb, 2, arrays[time % 2], time, out);
}

const struct ts_kernel ts_kernel_stencil2d = {
    .id = TS_KERNEL_STENCIL2D,
    .name = "stencil2d",
    .unit = "lattice update",
    .bytes_per_unit = 24.0,
    .flops_per_unit = 6.0,
    .byte_model = "24 B/update (read u, write u', write-allocate of u'; neighbours from cache)",
    .nt_bytes_per_unit = 16.0,
    .nt_byte_model = "16 B/update (read u, streaming store of u': no write-allocate; neighbours from cache)",
    .result_name = "sum of u^2",
    .plan = stencil2d_plan,
    .init = stencil2d_init,
    .step = stencil2d_step,
    .step_split = stencil2d_step_split,
    .result = stencil2d_result,
    .verify = stencil2d_verify,
};

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels_internal.h"

static const struct ts_kernel *const table[TS_KERNEL_COUNT] = {
    [TS_KERNEL_SUM] = &ts_kernel_sum,
    [TS_KERNEL_TRIAD] = &ts_kernel_triad,
    [TS_KERNEL_STENCIL2D] = &ts_kernel_stencil2d,
    [TS_KERNEL_STENCIL3D] = &ts_kernel_stencil3d,
};

const struct ts_kernel *ts_kernel_get(enum ts_kernel_id id)
{
    return (unsigned)id < TS_KERNEL_COUNT ? table[id] : NULL;
}

const struct ts_kernel *ts_kernel_find(const char *name)
{
    for (int k = 0; k < TS_KERNEL_COUNT; k++)
        if (strcmp(table[k]->name, name) == 0)
            return table[k];
    return NULL;
}

const double *ts_kernel_field(const struct ts_problem *pb, double *const *arrays, int64_t steps, int64_t dims[3])
{
    if (pb->kernel != TS_KERNEL_STENCIL2D && pb->kernel != TS_KERNEL_STENCIL3D)
        return NULL;
    dims[0] = pb->kernel == TS_KERNEL_STENCIL3D ? pb->nz : 1;
    dims[1] = pb->ny;
    dims[2] = pb->nx;
    return arrays[ts_time_steps(pb, steps) % 2];
}

double ts_kernel_bytes_per_unit(const struct ts_kernel *k, const struct ts_problem *pb, const char **model)
{
    int nt = pb->nontemporal && k->nt_bytes_per_unit > 0;
    *model = nt ? k->nt_byte_model : k->byte_model;
    return nt ? k->nt_bytes_per_unit : k->bytes_per_unit;
}

int ts_part_check(const struct ts_problem *pb, const char *name, int axes, const int64_t local[3], char *why,
                  size_t why_len)
{
    const struct ts_problem_part *p = &pb->part;
    static const char *const axis_name[3] = { "x", "y", "z" };
    for (int a = 0; a < axes; a++) {
        const char *ax = axes == 1 ? "elements" : axis_name[a];
        if (p->whole[a] < local[a] || p->origin[a] < 0 || p->origin[a] > p->whole[a] - local[a]) {
            snprintf(why, why_len, "%s: a part of %lld points at %lld does not lie in the global %lld (%s)", name,
                     (long long)local[a], (long long)p->origin[a], (long long)p->whole[a], ax);
            return 1;
        }
        if (p->own_begin[a] < 0 || p->own_begin[a] > p->own_end[a] || p->own_end[a] > local[a]) {
            snprintf(why, why_len, "%s: owned points [%lld, %lld) do not lie in the part's %lld (%s)", name,
                     (long long)p->own_begin[a], (long long)p->own_end[a], (long long)local[a], ax);
            return 1;
        }
    }
    return 0;
}

void ts_verify_not_judged(struct ts_verification *out, double observed)
{
    *out = (struct ts_verification){ .expected = NAN, .observed = observed, .passed = 1 };
    snprintf(out->method, sizeof out->method,
             "combined result not judged by this part (the part with checks_result does)");
}

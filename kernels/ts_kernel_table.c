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

/* stencil3d's row on CPUs with AVX-512, chosen at run time: the third non-portable piece of
 * the kernels, next to stream_store.c and stencil_stream.c. Internal to kernels/. */
#ifndef TOUCHSTONE_KERNELS_STENCIL_WIDE_H
#define TOUCHSTONE_KERNELS_STENCIL_WIDE_H

#include "stencil_common.h"

/* The 3D row function for this CPU: ts_stencil_row3d_wide when the CPU has AVX-512
 * (found at run time), else ts_stencil_row3d. Both give the same bits. */
ts_stencil_row_fn *ts_stencil_row3d_for_cpu(void);

/* How many planes ts_stencil_planes3d_wide updates at once. */
#define TS_STENCIL_PLANES 3

/* The rows of TS_STENCIL_PLANES consecutive planes at once for this CPU: ts_stencil_planes3d_wide
 * where ts_stencil_row3d_for_cpu picks the wide row, else NULL (the sweep then takes the planes
 * one at a time). */
ts_stencil_row_fn *ts_stencil_planes3d_for_cpu(void);

/* The pick of ts_stencil_row3d_for_cpu in words, for the run's variant. */
const char *ts_stencil_row3d_variant(void);

/* ts_stencil_row3d in 512-bit vectors, operation for operation, with its x-neighbours shifted
 * out of the registers and software prefetch of the plane above and of the output. Callable
 * only where the CPU has AVX-512 (ts_stencil_row3d_wide_available, which is also where
 * ts_stencil_row3d_for_cpu picks it); NULL in builds for other architectures. The tests compare
 * it with ts_stencil_row3d bit for bit. */
extern ts_stencil_row_fn *const ts_stencil_row3d_wide;
int ts_stencil_row3d_wide_available(void);

/* ts_stencil_row3d_wide over TS_STENCIL_PLANES planes at once: o[k * plane + i] for k < 3 and
 * i < len, each the bits ts_stencil_row3d gives it, from c[-plane .. len + 3 * plane) as three
 * calls of ts_stencil_row3d would read it (len < plane: the planes' outputs must not overlap).
 * Loads 5 planes' lines per 3 vectors of updates where the row loads 3 per 1; same availability. */
extern ts_stencil_row_fn *const ts_stencil_planes3d_wide;

#endif

/* Stencil rows with streaming stores: the second non-portable piece of the kernels, next to
 * stream_store.c. Internal to kernels/. */
#ifndef TOUCHSTONE_KERNELS_STENCIL_STREAM_H
#define TOUCHSTONE_KERNELS_STENCIL_STREAM_H

#include "stencil_common.h"

/* The dims-D ts_stencil_stream_fn: o[0..len) of a run of rows as stencil_sweep.c's row2d/row3d
 * compute them, operation for operation (bitwise the same values), each vector of results
 * streamed straight from its register, the x-boundary points (x = 0 and x = nx - 1) stored as
 * +0.0. o must sit on a cache line and len be a multiple of 8 (whole lines). NULL when the
 * build has no vector streaming stores (callers then compute into a strip and
 * ts_stream_store it). */
ts_stencil_stream_fn *ts_stream_run(int dims);

#endif

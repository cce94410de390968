/* Stencil rows with streaming stores: the second non-portable piece of the kernels, next to
 * stream_store.c. Internal to kernels/. */
#ifndef TS_STENCIL_STREAM_H
#define TS_STENCIL_STREAM_H

#include "stencil_common.h"

/* The row function of a dims-D stencil that computes what stencil_sweep.c's row2d/row3d do,
 * operation for operation (bitwise the same values), and streams each vector of results
 * straight from its register: no L1 strip to copy from. Its o must sit on a cache line and
 * its len be a multiple of 8 (whole lines). NULL when the build has no vector streaming
 * stores (callers then compute into a strip and ts_stream_store it). */
ts_stencil_row_fn *ts_stream_row(int dims);

#endif

/* Streaming (non-temporal) stores: the one non-portable piece of the kernels. Internal. */
#ifndef TOUCHSTONE_KERNELS_STREAM_STORE_H
#define TOUCHSTONE_KERNELS_STREAM_STORE_H

#include <stdint.h>

/* Elements a kernel computes into an L1-resident buffer before streaming it out: 4 KiB. */
#define TS_STREAM_STRIP 512

/* dst[0..n) = src[0..n), bypassing the caches for the 64-byte-aligned middle of dst (the
 * widest vector stores the build has; plain stores where it has none). The stores are weakly
 * ordered: call ts_stream_fence before other threads may read dst. */
void ts_stream_store(double *restrict dst, const double *restrict src, int64_t n);

void ts_stream_fence(void);

#endif

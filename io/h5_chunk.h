/* How a field (a grid of doubles) is chunked in HDF5: one rule for the writers of run files and
 * checkpoints and for the checkpoint reader, which refuses a field chunked any other way. */
#ifndef TOUCHSTONE_IO_H5_CHUNK_H
#define TOUCHSTONE_IO_H5_CHUNK_H

#include <hdf5.h>

/* HDF5 keeps a chunk whole in its cache, so ~1 MiB chunks stay within the default 1 MiB
 * chunk cache while being large enough for deflate to work well. */
#define TS_H5_FIELD_CHUNK_ELEMENTS ((hsize_t)(1u << 20) / sizeof(double))

/* Whole rows first, then whole planes, as far as the chunk budget allows: readers take rows
 * and planes, and a chunk never splits one unless it alone exceeds the budget. */
static inline void ts_h5_field_chunk(int rank, const hsize_t *dims, hsize_t *chunk)
{
    hsize_t budget = TS_H5_FIELD_CHUNK_ELEMENTS;
    for (int i = rank - 1; i >= 0; i--) {
        chunk[i] = dims[i] < budget ? dims[i] : budget;
        budget = budget / chunk[i] > 0 ? budget / chunk[i] : 1;
    }
}

#endif

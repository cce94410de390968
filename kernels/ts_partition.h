/* One partition, used twice: the first-touch init loop and every compute loop
 * ask the same object for a thread's range, so the thread that computes on a
 * page is the thread that touched it first. */
#ifndef TOUCHSTONE_KERNELS_TS_PARTITION_H
#define TOUCHSTONE_KERNELS_TS_PARTITION_H

#include <stdint.h>

/* Half-open range of items [begin, end); items are elements, grid rows or grid planes. */
struct ts_range {
    int64_t begin;
    int64_t end;
    int part; /* the part it is the range of (the stencils' wavefront finds its neighbours by it) */
};

typedef struct ts_partition ts_partition;

/* Splits n_items into n_parts contiguous chunks in part order. Every chunk
 * boundary is a multiple of granule items (chosen by the caller so that chunks
 * start on page boundaries); granules are spread as evenly as possible, so
 * chunk sizes differ by at most one granule and trailing parts may be empty
 * when there are fewer granules than parts.
 * Returns 0, EINVAL for bad arguments or ENOMEM. */
int ts_partition_create(ts_partition **out, int64_t n_items, int n_parts, int64_t granule);
void ts_partition_destroy(ts_partition *part);

/* The range of part `part` (0 <= part < n_parts); empty ranges have begin == end. */
struct ts_range ts_partition_range(const ts_partition *part, int index);

int ts_partition_parts(const ts_partition *part);
int64_t ts_partition_items(const ts_partition *part);
int64_t ts_partition_granule(const ts_partition *part);

/* The part that owns item `item` (0 <= item < n_items). */
int ts_partition_owner(const ts_partition *part, int64_t item);

#endif

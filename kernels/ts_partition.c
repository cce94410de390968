#include "ts_partition.h"

#include <errno.h>
#include <stdlib.h>

struct ts_partition {
    int64_t n_items;
    int64_t granule;
    int n_parts;
    int64_t bounds[]; /* n_parts + 1 boundaries, bounds[0] = 0, bounds[n_parts] = n_items */
};

int ts_partition_create(ts_partition **out, int64_t n_items, int n_parts, int64_t granule)
{
    *out = NULL;
    if (n_items < 0 || n_parts < 1 || granule < 1)
        return EINVAL;
    ts_partition *part = malloc(sizeof *part + (size_t)(n_parts + 1) * sizeof part->bounds[0]);
    if (!part)
        return ENOMEM;
    part->n_items = n_items;
    part->granule = granule;
    part->n_parts = n_parts;

    /* Whole granules are dealt out as evenly as possible; only the last granule may be short. */
    int64_t n_granules = n_items / granule + (n_items % granule != 0);
    int64_t base = n_granules / n_parts;
    int64_t extra = n_granules % n_parts;
    int64_t start = 0;
    for (int p = 0; p < n_parts; p++) {
        part->bounds[p] = start * granule < n_items ? start * granule : n_items;
        start += base + (p < extra);
    }
    part->bounds[n_parts] = n_items;
    *out = part;
    return 0;
}

void ts_partition_destroy(ts_partition *part)
{
    free(part);
}

struct ts_range ts_partition_range(const ts_partition *part, int index)
{
    struct ts_range r = { 0, 0, index };
    if (index >= 0 && index < part->n_parts) {
        r.begin = part->bounds[index];
        r.end = part->bounds[index + 1];
    }
    return r;
}

int ts_partition_parts(const ts_partition *part)
{
    return part->n_parts;
}

int64_t ts_partition_items(const ts_partition *part)
{
    return part->n_items;
}

int64_t ts_partition_granule(const ts_partition *part)
{
    return part->granule;
}

int ts_partition_owner(const ts_partition *part, int64_t item)
{
    int lo = 0, hi = part->n_parts - 1;
    while (lo < hi) { /* first part whose end is beyond item */
        int mid = lo + (hi - lo) / 2;
        if (part->bounds[mid + 1] <= item)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

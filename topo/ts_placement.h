/* The page-placement audit: where the kernel says every (sampled) page of every array is,
 * compared with the node of the thread whose chunk holds it. */
#ifndef TOUCHSTONE_TOPO_TS_PLACEMENT_H
#define TOUCHSTONE_TOPO_TS_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_record.h"

struct ts_placement_input {
    int n_arrays;
    void *const *arrays; /* each array_bytes long, page aligned */
    size_t array_bytes;
    void *const *mappings;      /* the mapping holding each array; the array starts less than a
                                       huge page into it */
    const size_t *mapped_bytes; /* their lengths */
    const char *smaps;          /* where to learn which pages are huge (TS_THP_SMAPS); NULL when
                                       transparent huge pages are off: base pages, no need to look */
    int n_threads;
    const int64_t *chunk_begin; /* n_threads: byte offset of each thread's chunk in every array */
    const int64_t *chunk_end;
    const int32_t *thread_node; /* OS index of the node each thread ran on */
    int64_t sample_stride;      /* pages of the audited size; 0 chooses one (at most
                                       TS_PLACEMENT_MAX_SAMPLES per array) */
};

#define TS_PLACEMENT_MAX_SAMPLES ((int64_t)1 << 18)

/* Storage behind a ts_placement_rec. */
struct ts_placement {
    struct ts_placement_rec rec;
    int32_t *node_ids;
    int64_t *thread_pages, *thread_local_pages, *thread_node_pages;
    double *thread_local_fraction;
    int64_t *array_node_pages, *array_absent_pages, *array_error_pages;
};

/* Asks the kernel (move_pages without moving anything) and fills out; rec's policy,
 * measured_after and the facts of the mapping (granule, pages asked for) are left to the
 * caller. When every whole 2 MiB block of every array is a huge page (smaps), it asks about
 * one address per huge page and rec.page_size is 2 MiB; otherwise about every base page.
 * TS_RESOURCE_ERROR when its tables cannot be allocated or move_pages fails. */
int ts_placement_audit(const struct ts_placement_input *in, struct ts_placement *out, struct ts_error *err);
void ts_placement_free(struct ts_placement *p);

/* Pages an earlier audit of the same arrays found on another node than a later one did, at
 * least: for each thread's chunk and node, what the later audit counts there beyond the
 * earlier count (moves that cancel within one chunk are not seen). NUMA balancing moves pages
 * this way. -1 when the audits counted in different pages (page size, stride, shape). */
int64_t ts_placement_moved(const struct ts_placement_rec *before, const struct ts_placement_rec *after);

#endif

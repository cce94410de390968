/* The page-placement audit: where the kernel says every (sampled) page of every array is,
 * compared with the node of the thread whose chunk holds it. */
#ifndef TS_PLACEMENT_H
#define TS_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_record.h"

struct ts_placement_input {
    int n_arrays;
    void *const *arrays;            /* each array_bytes long, page aligned */
    size_t array_bytes;
    int n_threads;
    const int64_t *chunk_begin;     /* n_threads: byte offset of each thread's chunk in every array */
    const int64_t *chunk_end;
    const int32_t *thread_node;     /* OS index of the node each thread ran on */
    int64_t sample_stride;          /* pages; 0 chooses one (at most TS_PLACEMENT_MAX_SAMPLES per array) */
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

/* Asks the kernel (move_pages without moving anything) and fills out; rec's policy and
 * measured_after are left to the caller. */
int ts_placement_audit(const struct ts_placement_input *in, struct ts_placement *out, struct ts_error *err);
void ts_placement_free(struct ts_placement *p);

#endif

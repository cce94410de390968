#include "ts_placement.h"

#include <errno.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ts_memory.h"
#include "ts_thp.h"
#include "ts_stats.h"

/* Pages asked about per move_pages call: bounded arrays, and each call stays short. */
#define BATCH 4096

/* Every node of the machine, in OS numbering: the columns of the audit. */
static int machine_nodes(int32_t **ids)
{
    int max = numa_available() >= 0 ? numa_max_node() : 0;
    *ids = calloc((size_t)max + 1, sizeof **ids);
    if (!*ids)
        return -1;
    int n = 0;
    for (int node = 0; node <= max; node++)
        if (max == 0 || numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)node))
            (*ids)[n++] = node;
    return n;
}

void ts_placement_free(struct ts_placement *p)
{
    free(p->node_ids);
    free(p->thread_pages);
    free(p->thread_local_pages);
    free(p->thread_node_pages);
    free(p->thread_local_fraction);
    free(p->array_node_pages);
    free(p->array_absent_pages);
    free(p->array_error_pages);
    memset(p, 0, sizeof *p);
}

struct tally {
    const struct ts_placement_input *in;
    struct ts_placement *out;
    int *column_of_node; /* OS node -> column, -1 for none */
    int max_node;
    int owner; /* thread whose chunk holds the current page */
};

static void count_page(struct tally *t, int array, int64_t offset, int status)
{
    const struct ts_placement_input *in = t->in;
    struct ts_placement *out = t->out;
    int n_nodes = out->rec.n_nodes;
    while (t->owner < in->n_threads - 1 && offset >= in->chunk_end[t->owner])
        t->owner++;
    if (status < 0) {
        if (status == -ENOENT)
            out->array_absent_pages[array]++;
        else
            out->array_error_pages[array]++;
        return;
    }
    int column = status <= t->max_node ? t->column_of_node[status] : -1;
    if (column < 0) {
        out->array_error_pages[array]++;
        return;
    }
    out->array_node_pages[(size_t)array * (size_t)n_nodes + (size_t)column]++;
    int th = t->owner;
    if (offset < in->chunk_begin[th] || offset >= in->chunk_end[th])
        return; /* past the last chunk: the page rounding at an array's end */
    out->thread_pages[th]++;
    out->thread_node_pages[(size_t)th * (size_t)n_nodes + (size_t)column]++;
    if (status == in->thread_node[th])
        out->thread_local_pages[th]++;
}

/* The pages to count in: 2 MiB when the kernel backs every whole block of every array with
 * a huge page, since one address then says where all 2 MiB are; else the base page. One
 * claimed huge page that is really 512 base pages would hide interleaved or misplaced ones,
 * so anything short of all huge (a huge allocation that fell back, a mapping not a whole
 * number of huge pages) is audited page by page. */
static int64_t audit_page_size(const struct ts_placement_input *in)
{
    const int64_t base = (int64_t)ts_memory_page_size();
    if (!in->smaps)
        return base;
    struct ts_thp_range *ranges = calloc((size_t)in->n_arrays, sizeof *ranges);
    int aligned = ranges != NULL;
    /* Each mapping whole huge pages, each array inside its mapping's first one: then the
     * address of array offset p * 2 MiB lies in the mapping's huge page p. */
    for (int a = 0; aligned && a < in->n_arrays; a++) {
        ranges[a].begin = (uintptr_t)in->mappings[a];
        ranges[a].end = ranges[a].begin + in->mapped_bytes[a];
        uintptr_t start = (uintptr_t)in->arrays[a];
        aligned = ranges[a].begin % TS_THP_HUGE_PAGE == 0 && in->mapped_bytes[a] % TS_THP_HUGE_PAGE == 0
                  && start >= ranges[a].begin && start - ranges[a].begin < TS_THP_HUGE_PAGE
                  && start + in->array_bytes <= ranges[a].end;
    }
    int huge = aligned && ts_thp_all_huge(in->smaps, ranges, in->n_arrays);
    free(ranges);
    return huge ? (int64_t)TS_THP_HUGE_PAGE : base;
}

static int audit_array(struct tally *t, int array, int64_t page, int64_t stride, struct ts_error *err)
{
    const int64_t n_pages = ((int64_t)t->in->array_bytes + page - 1) / page;
    char *base = t->in->arrays[array];
    void *pages[BATCH];
    int status[BATCH];
    int64_t offsets[BATCH];
    t->owner = 0;
    for (int64_t p = 0; p < n_pages;) {
        int count = 0;
        for (; count < BATCH && p < n_pages; p += stride, count++) {
            offsets[count] = p * page;
            pages[count] = base + offsets[count];
        }
        /* Without target nodes move_pages moves nothing: it only reports each page's node. */
        if (numa_move_pages(0, (unsigned long)count, pages, NULL, status, 0) != 0)
            return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "placement audit: move_pages on array %d", array);
        for (int i = 0; i < count; i++)
            count_page(t, array, offsets[i], status[i]);
    }
    return TS_OK;
}

int ts_placement_audit(const struct ts_placement_input *in, struct ts_placement *out, struct ts_error *err)
{
    double started = ts_seconds_now();
    memset(out, 0, sizeof *out);
    const size_t threads = (size_t)in->n_threads, arrays = (size_t)in->n_arrays;
    int n_nodes = machine_nodes(&out->node_ids);
    int max_node = n_nodes > 0 ? out->node_ids[n_nodes - 1] : 0;
    int *column_of_node = calloc((size_t)max_node + 1, sizeof *column_of_node);
    out->thread_pages = calloc(threads, sizeof *out->thread_pages);
    out->thread_local_pages = calloc(threads, sizeof *out->thread_local_pages);
    out->thread_local_fraction = calloc(threads, sizeof *out->thread_local_fraction);
    out->thread_node_pages = calloc(threads * (size_t)(n_nodes > 0 ? n_nodes : 1), sizeof *out->thread_node_pages);
    out->array_node_pages = calloc(arrays * (size_t)(n_nodes > 0 ? n_nodes : 1), sizeof *out->array_node_pages);
    out->array_absent_pages = calloc(arrays, sizeof *out->array_absent_pages);
    out->array_error_pages = calloc(arrays, sizeof *out->array_error_pages);
    if (n_nodes <= 0 || !column_of_node || !out->thread_pages || !out->thread_local_pages || !out->thread_local_fraction
        || !out->thread_node_pages || !out->array_node_pages || !out->array_absent_pages || !out->array_error_pages) {
        free(column_of_node);
        ts_placement_free(out);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "placement audit: cannot allocate its tables");
    }
    out->rec.n_nodes = n_nodes; /* count_page indexes the [thread][node] tables with it */
    for (int i = 0; i <= max_node; i++)
        column_of_node[i] = -1;
    for (int c = 0; c < n_nodes; c++)
        column_of_node[out->node_ids[c]] = c;

    const int64_t page = audit_page_size(in);
    const int64_t n_pages = ((int64_t)in->array_bytes + page - 1) / page;
    int64_t stride = in->sample_stride;
    if (stride <= 0)
        stride = (n_pages + TS_PLACEMENT_MAX_SAMPLES - 1) / TS_PLACEMENT_MAX_SAMPLES;
    if (stride < 1)
        stride = 1;

    struct tally t = { .in = in, .out = out, .column_of_node = column_of_node, .max_node = max_node };
    int status = TS_OK;
    for (int a = 0; a < in->n_arrays && status == TS_OK; a++)
        status = audit_array(&t, a, page, stride, err);
    free(column_of_node);
    if (status != TS_OK) {
        ts_placement_free(out);
        return status;
    }

    int64_t local = 0, owned = 0;
    for (size_t th = 0; th < threads; th++) {
        local += out->thread_local_pages[th];
        owned += out->thread_pages[th];
        out->thread_local_fraction[th] =
            out->thread_pages[th] ? (double)out->thread_local_pages[th] / (double)out->thread_pages[th] : NAN;
    }
    struct ts_placement_rec *r = &out->rec;
    r->sample_stride = stride;
    r->page_size = page;
    r->node_ids = out->node_ids;
    r->n_threads = in->n_threads;
    r->thread_node = in->thread_node;
    r->thread_pages = out->thread_pages;
    r->thread_local_pages = out->thread_local_pages;
    r->thread_local_fraction = out->thread_local_fraction;
    r->thread_node_pages = out->thread_node_pages;
    r->n_arrays = in->n_arrays;
    r->array_node_pages = out->array_node_pages;
    r->array_absent_pages = out->array_absent_pages;
    r->array_error_pages = out->array_error_pages;
    r->local_fraction = owned ? (double)local / (double)owned : NAN;
    r->pages_moved = -1;
    r->time = ts_seconds_now() - started;
    return TS_OK;
}

int64_t ts_placement_moved(const struct ts_placement_rec *before, const struct ts_placement_rec *after)
{
    if (before->page_size != after->page_size || before->sample_stride != after->sample_stride
        || before->n_threads != after->n_threads || before->n_nodes != after->n_nodes)
        return -1;
    for (int32_t c = 0; c < before->n_nodes; c++)
        if (before->node_ids[c] != after->node_ids[c])
            return -1;
    int64_t moved = 0;
    const size_t cells = (size_t)before->n_threads * (size_t)before->n_nodes;
    for (size_t i = 0; i < cells; i++)
        if (after->thread_node_pages[i] > before->thread_node_pages[i])
            moved += after->thread_node_pages[i] - before->thread_node_pages[i];
    return moved;
}

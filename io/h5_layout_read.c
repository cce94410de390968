/* The machine (/topology), each thread's CPU, core and node (/threads/table) and each thread's
 * pages by node (/placement): counts first, each bounded before anything is allocated, then the
 * rows against the counts and the node numbers against the machine's. */
#include "h5_layout_read.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Bounds far above any machine hwloc describes today, so that a file cannot make the reader
 * allocate what it does not store. */
#define MAX_NODES 4096
#define MAX_OS_NODE (1 << 16)
#define MAX_CORES (1 << 20)
#define MAX_CPU (1 << 22)
#define MAX_CACHE_KINDS 64
#define MAX_PAGES ((int64_t)1 << 50)

/* clang-format off */
#define COL_I32(s, f, lo, hi) { #f, offsetof(s, f), H5T_NATIVE_INT32, 0, (lo), (hi), 0 }
#define COL_I64(s, f, lo, hi) { #f, offsetof(s, f), H5T_NATIVE_INT64, 0, (lo), (hi), 0 }
#define COL_STR(s, f) { #f, offsetof(s, f), 0, sizeof(((s *)0)->f), 0, 0, 0 }
/* clang-format on */

/* An integer dataset of rank 1 or 2 with exactly dims, every value in [min, max], into out. */
static int read_ints(struct h5r *r, const char *path, int rank, const hsize_t *dims, const char *why, int64_t min,
                     int64_t max, int64_t *out)
{
    char expected[160];
    if (rank == 1)
        snprintf(expected, sizeof expected, "1-D integer of %llu values (%s)", (unsigned long long)dims[0], why);
    else
        snprintf(expected, sizeof expected, "2-D integer of %llu x %llu values (%s)", (unsigned long long)dims[0],
                 (unsigned long long)dims[1], why);
    int has = h5r_has(r, path, H5I_DATASET);
    if (has <= 0)
        return has == 0 ? h5r_fail(r, path, "missing (expected %s)", expected) : r->err->status;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT);
    hid_t type = set < 0 ? -1 : H5Dget_type(set), space = set < 0 ? -1 : H5Dget_space(set);
    hsize_t found[2] = { 0, 0 }, count = rank == 1 ? dims[0] : dims[0] * dims[1];
    int st = TS_OK;
    if (set < 0 || type < 0 || space < 0)
        st = h5r_fail_hdf5(r, path, "cannot open");
    else if (H5Tget_class(type) != H5T_INTEGER || H5Tget_size(type) > 8
             || H5Sget_simple_extent_type(space) != H5S_SIMPLE || H5Sget_simple_extent_ndims(space) != rank
             || H5Sget_simple_extent_dims(space, found, NULL) != rank || found[0] != dims[0]
             || (rank == 2 && found[1] != dims[1]))
        st = h5r_mismatch(r, path, expected, type, space);
    else
        st = h5r_storage_ok(r, path, set, type, count);
    if (st == TS_OK && count > 0 && H5Dread(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, h5r_xfer(), out) < 0)
        st = h5r_fail_hdf5(r, path, "cannot read");
    for (hsize_t i = 0; st == TS_OK && i < count; i++)
        if (out[i] < min || out[i] > max)
            st = h5r_fail(r, path, "value [%llu] = %lld is out of range, expected %lld..%lld", (unsigned long long)i,
                          (long long)out[i], (long long)min, (long long)max);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    return st;
}

/* The rows of a compound table whose length the file gives, at most max: *n and *rows
 * (calloc'd, NULL when there are none). */
static int read_rows(struct h5r *r, const char *path, hsize_t max, size_t row_size, const struct h5r_col *cols,
                     size_t n_cols, int32_t *n, void **rows)
{
    hsize_t len = 0;
    *rows = NULL;
    *n = 0;
    if (h5r_length(r, path, H5T_COMPOUND, "1-D compound dataset", &len))
        return r->err->status;
    if (len > max)
        return h5r_fail(r, path, "%llu rows, more than the %llu touchstone reads", (unsigned long long)len,
                        (unsigned long long)max);
    if (len == 0)
        return TS_OK;
    if (!(*rows = calloc((size_t)len, row_size)))
        return h5r_out_of_memory(r, path, "out of memory for %llu rows", (unsigned long long)len);
    *n = (int32_t)len;
    return h5r_read_table(r, path, len, "its length", row_size, cols, n_cols, 0, *rows);
}

static int has_node(const struct ts_topology_rec *t, int64_t node)
{
    for (int32_t i = 0; i < t->n_numa; i++)
        if (t->numa[i].os_index == node)
            return 1;
    return 0;
}

static int read_topology(struct h5r *r, struct ts_topology_rec *t)
{
    static const char *const counts[] = { "n_packages", "n_cores", "n_pus", "n_numa" };
    int32_t *fields[] = { &t->n_packages, &t->n_cores, &t->n_pus, &t->n_numa };
    const int64_t max[] = { MAX_NODES, MAX_CORES, MAX_CPU, MAX_NODES };
    for (size_t i = 0; i < 4; i++) {
        int64_t v = 0;
        if (h5r_int_attr(r, "/topology", counts[i], 0, max[i], &v))
            return r->err->status;
        *fields[i] = (int32_t)v;
    }
    const int32_t n_numa = t->n_numa;
    const struct h5r_col numa[] = {
        COL_I32(struct ts_numa_rec, os_index, 0, MAX_OS_NODE),
        COL_I64(struct ts_numa_rec, memory_bytes, 0, (double)((int64_t)1 << 62)),
        COL_STR(struct ts_numa_rec, cpus),
    };
    int32_t rows = 0;
    if (read_rows(r, "/topology/numa_nodes", MAX_NODES, sizeof(struct ts_numa_rec), numa, 3, &rows, (void **)&t->numa))
        return r->err->status;
    if (rows != n_numa)
        return h5r_fail(r, "/topology/numa_nodes", "%d rows, but /topology@n_numa is %d", (int)rows, (int)n_numa);
    for (int32_t i = 0; i < n_numa; i++)
        for (int32_t j = 0; j < i; j++)
            if (t->numa[i].os_index == t->numa[j].os_index)
                return h5r_fail(r, "/topology/numa_nodes:os_index", "node %d appears twice (rows %d and %d)",
                                (int)t->numa[i].os_index, (int)j, (int)i);
    if (n_numa > 0) {
        const hsize_t dims[2] = { (hsize_t)n_numa, (hsize_t)n_numa };
        int64_t *d = malloc((size_t)n_numa * (size_t)n_numa * sizeof *d);
        t->distances = malloc((size_t)n_numa * (size_t)n_numa * sizeof *t->distances);
        int st = !d || !t->distances ? h5r_out_of_memory(r, "/topology/distances", "out of memory")
                                     : read_ints(r, "/topology/distances", 2, dims, "n_numa x n_numa", 0, 1000, d);
        for (size_t i = 0; st == TS_OK && i < (size_t)n_numa * (size_t)n_numa; i++)
            t->distances[i] = (int32_t)d[i];
        free(d);
        if (st != TS_OK)
            return st;
    }
    const struct h5r_col cores[] = {
        COL_I32(struct ts_core_rec, index, 0, MAX_CORES),
        COL_I32(struct ts_core_rec, os_index, 0, MAX_CPU),
        COL_I32(struct ts_core_rec, package, 0, MAX_NODES),
        COL_I32(struct ts_core_rec, numa, -1, MAX_OS_NODE),
        COL_STR(struct ts_core_rec, cpus),
    };
    if (read_rows(r, "/topology/cores", MAX_CORES, sizeof(struct ts_core_rec), cores, 5, &t->n_cores_rec,
                  (void **)&t->cores))
        return r->err->status;
    for (int32_t i = 0; i < t->n_cores_rec; i++)
        if (t->cores[i].numa >= 0 && !has_node(t, t->cores[i].numa))
            return h5r_fail(r, "/topology/cores:numa", "row %d: node %d, which /topology/numa_nodes does not list",
                            (int)i, (int)t->cores[i].numa);
    const struct h5r_col caches[] = {
        COL_I32(struct ts_cache_rec, level, 1, 16),
        COL_STR(struct ts_cache_rec, type),
        COL_I64(struct ts_cache_rec, size_bytes, 0, (double)((int64_t)1 << 50)),
        COL_I32(struct ts_cache_rec, line_bytes, 0, 1 << 20),
        COL_I32(struct ts_cache_rec, count, 0, MAX_CPU),
    };
    if (read_rows(r, "/topology/caches", MAX_CACHE_KINDS, sizeof(struct ts_cache_rec), caches, 5, &t->n_caches,
                  (void **)&t->caches))
        return r->err->status;
    static const char *const types[] = TS_CACHE_TYPES;
    for (int32_t i = 0; i < t->n_caches; i++) {
        char where[64];
        snprintf(where, sizeof where, "/topology/caches:type row %d", (int)i);
        if (h5r_known(r, where, t->caches[i].type, types, "a cache type"))
            return r->err->status;
    }
    return TS_OK;
}

/* Every row of /threads/table: where each thread was bound and where it ran. */
static int read_threads(struct h5r *r, struct ts_run_summary *s)
{
    typedef struct ts_thread_rec T;
    const double n = s->n_threads;
    const struct h5r_col cols[] = {
        COL_I32(T, thread, 0, n - 1),
        COL_I32(T, place, -1, MAX_CPU),
        COL_STR(T, place_cpus),
        COL_STR(T, affinity),
        COL_I32(T, cpu_start, -1, MAX_CPU),
        COL_I32(T, cpu_end, -1, MAX_CPU),
        COL_I32(T, core, -1, MAX_CORES),
        COL_I32(T, node, -1, MAX_OS_NODE),
        COL_STR(T, host), /* schema 3 only: left out below for older files */
    };
    if (!(s->threads = calloc((size_t)s->n_threads, sizeof *s->threads)))
        return h5r_out_of_memory(r, "/threads/table", "out of memory for %d rows", (int)s->n_threads);
    const size_t n_cols = sizeof cols / sizeof cols[0] - (s->schema_version >= 3 ? 0 : 1);
    if (h5r_read_table(r, "/threads/table", (hsize_t)s->n_threads, "/results@n_threads", sizeof(T), cols, n_cols, 0,
                       s->threads))
        return r->err->status;
    /* The ranks were checked against /mpi/ranks already (h5_mpi_read.c): each row's rank. */
    for (int32_t rank = 0, t = 0; t < s->n_threads; t++) {
        while (s->n_ranks > 0 && t >= s->ranks[rank].first_thread + s->ranks[rank].n_threads)
            rank++;
        s->threads[t].rank = rank;
        s->threads[t].local_rank = s->n_ranks > 0 ? s->ranks[rank].local_rank : 0;
        if (s->topology.n_numa > 0 && s->threads[t].node >= 0 && !has_node(&s->topology, s->threads[t].node))
            return h5r_fail(r, "/threads/table:node", "row %d: node %d, which /topology/numa_nodes does not list",
                            (int)t, (int)s->threads[t].node);
    }
    return TS_OK;
}

/* /placement/node_ids and thread_node_pages: every thread's sampled pages by node. */
static int read_pages(struct h5r *r, struct ts_run_summary *s)
{
    hsize_t n_nodes = 0;
    if (h5r_length(r, "/placement/node_ids", H5T_INTEGER, "1-D integer dataset", &n_nodes))
        return r->err->status;
    if (n_nodes == 0 || n_nodes > MAX_NODES)
        return h5r_fail(r, "/placement/node_ids", "%llu nodes, expected 1 to %d", (unsigned long long)n_nodes,
                        MAX_NODES);
    if ((int64_t)n_nodes * s->n_threads > TS_READ_MAX_VALUES)
        return h5r_fail(r, "/placement/thread_node_pages", "%d threads x %llu nodes is more than touchstone reads",
                        (int)s->n_threads, (unsigned long long)n_nodes);
    const size_t cells = (size_t)n_nodes * (size_t)s->n_threads;
    int64_t *ids = malloc((size_t)n_nodes * sizeof *ids);
    s->place_node_ids = malloc((size_t)n_nodes * sizeof *s->place_node_ids);
    s->thread_node_pages = malloc(cells * sizeof *s->thread_node_pages);
    const hsize_t one[1] = { n_nodes }, two[2] = { (hsize_t)s->n_threads, n_nodes };
    int st = !ids || !s->place_node_ids || !s->thread_node_pages
                 ? h5r_out_of_memory(r, "/placement/thread_node_pages", "out of memory for %zu values", cells)
                 : read_ints(r, "/placement/node_ids", 1, one, "its length", 0, MAX_OS_NODE, ids);
    for (hsize_t i = 0; st == TS_OK && i < n_nodes; i++) {
        s->place_node_ids[i] = (int32_t)ids[i];
        if (i > 0 && ids[i] <= ids[i - 1])
            st = h5r_fail(r, "/placement/node_ids", "%lld after %lld: the nodes are distinct and ascending",
                          (long long)ids[i], (long long)ids[i - 1]);
    }
    free(ids);
    if (st == TS_OK)
        st = read_ints(r, "/placement/thread_node_pages", 2, two, "n_threads x node_ids", 0, MAX_PAGES,
                       s->thread_node_pages);
    if (st == TS_OK)
        s->n_place_nodes = (int32_t)n_nodes;
    return st;
}

int h5r_read_layout(struct h5r *r, struct ts_run_summary *s)
{
    int has = h5r_has(r, "/topology", H5I_GROUP);
    if (has < 0 || (has > 0 && read_topology(r, &s->topology)))
        return r->err->status;
    has = h5r_has(r, "/threads/table", H5I_DATASET);
    if (has < 0 || (has > 0 && read_threads(r, s)))
        return r->err->status;
    has = s->has_placement ? h5r_has(r, "/placement/thread_node_pages", H5I_DATASET) : 0;
    if (has < 0 || (has > 0 && read_pages(r, s)))
        return r->err->status;
    return TS_OK;
}

/* The placement audit's counting, on any machine: the audit compares each page's node with the
 * node of the thread whose chunk holds it, and that node is an input. Claiming a thread ran on
 * a node its pages are not on makes every one of its pages remote, even on one NUMA node. */
#include "topo_test.h"
#include "ts_memory.h"
#include "ts_placement.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>

enum { PAGES = 64 };

static void *array;
static size_t bytes;
static int pages_node; /* where the kernel put the pages (asked independently of the audit) */

/* A page-aligned array of PAGES base pages, every page written, and the node they are on. */
static void make_array(void)
{
    struct ts_error err = { 0 };
    bytes = PAGES * ts_memory_page_size();
    REQUIRE(ts_memory_map(&array, bytes, ts_memory_page_size(), &err) == TS_OK, "cannot map: %s", err.message);
    /* Base pages: one node answer per 4 KiB, whatever the THP mode. */
    int applied = 0;
    REQUIRE(ts_memory_advise_pages(array, bytes, TS_PAGES_BASE, &applied, &err) == TS_OK, "madvise: %s", err.message);
    memset(array, 1, bytes);
    void *first = array;
    int status = -1;
    REQUIRE(numa_move_pages(0, 1, &first, NULL, &status, 0) == 0 && status >= 0,
            "move_pages cannot say where the test's own page is (status %d, %s)", status, strerror(errno));
    pages_node = status;
    for (size_t p = 1; p < PAGES; p++) {
        void *page = (char *)array + p * ts_memory_page_size();
        REQUIRE(numa_move_pages(0, 1, &page, NULL, &status, 0) == 0 && status == pages_node,
                "page %zu is on node %d, page 0 on node %d: the test needs them on one node", p, status, pages_node);
    }
}

/* The column of node in the audit's per-node tables, or -1. */
static int column(const struct ts_placement *pl, int node)
{
    for (int c = 0; c < pl->rec.n_nodes; c++)
        if (pl->node_ids[c] == node)
            return c;
    return -1;
}

/* Two threads, half the array each; thread_node says where each one "ran". */
static void audit(const int32_t thread_node[2], struct ts_placement *out)
{
    const int64_t half = (int64_t)bytes / 2;
    const int64_t begin[2] = { 0, half }, end[2] = { half, (int64_t)bytes };
    void *const arrays[1] = { array };
    const size_t mapped[1] = { bytes };
    struct ts_placement_input in = {
        .n_arrays = 1,
        .arrays = arrays,
        .array_bytes = bytes,
        .mappings = arrays,
        .mapped_bytes = mapped,
        .smaps = NULL,
        .n_threads = 2,
        .chunk_begin = begin,
        .chunk_end = end,
        .thread_node = thread_node,
        .sample_stride = 1,
    };
    struct ts_error err = { 0 };
    REQUIRE(ts_placement_audit(&in, out, &err) == TS_OK, "the audit failed: %s", err.message);
    REQUIRE(out->rec.page_size == (int64_t)ts_memory_page_size() && out->rec.sample_stride == 1,
            "audited %lld-byte pages every %lld, want every base page", (long long)out->rec.page_size,
            (long long)out->rec.sample_stride);
}

/* Thread 0 claims a node its pages are not on: none of its pages is local, and the per-node
 * columns still put them where they are. Thread 1's node is the pages' node: all local. */
static void remote_thread(void)
{
    make_array();
    const int remote = pages_node + 1; /* a node the pages are not on (need not exist) */
    const int32_t thread_node[2] = { remote, pages_node };
    struct ts_placement pl;
    audit(thread_node, &pl);
    const int n = pl.rec.n_nodes, col = column(&pl, pages_node);
    const int64_t each = PAGES / 2;
    printf("pages on node %d; thread 0 (node %d): %lld pages, %lld local; thread 1 (node %d): %lld pages, %lld local\n",
           pages_node, remote, (long long)pl.thread_pages[0], (long long)pl.thread_local_pages[0], pages_node,
           (long long)pl.thread_pages[1], (long long)pl.thread_local_pages[1]);
    REQUIRE(col >= 0, "node %d, where the pages are, has no column among the audit's %d nodes", pages_node, n);
    REQUIRE(pl.thread_pages[0] == each && pl.thread_pages[1] == each, "threads own %lld and %lld pages, want %lld each",
            (long long)pl.thread_pages[0], (long long)pl.thread_pages[1], (long long)each);
    REQUIRE(pl.thread_local_pages[0] == 0,
            "thread 0 ran on node %d but %lld of its pages on node %d were counted local", remote,
            (long long)pl.thread_local_pages[0], pages_node);
    REQUIRE(pl.thread_local_fraction[0] == 0.0, "thread 0's local fraction is %g, want 0", pl.thread_local_fraction[0]);
    REQUIRE(pl.thread_local_pages[1] == each,
            "thread 1 ran on node %d, where its %lld pages are, but %lld counted local", pages_node, (long long)each,
            (long long)pl.thread_local_pages[1]);
    for (int c = 0; c < n; c++) {
        int64_t want = c == col ? each : 0;
        REQUIRE(pl.thread_node_pages[0 * n + c] == want && pl.thread_node_pages[1 * n + c] == want,
                "node %d's column holds %lld and %lld pages of threads 0 and 1, want %lld each", pl.node_ids[c],
                (long long)pl.thread_node_pages[0 * n + c], (long long)pl.thread_node_pages[1 * n + c],
                (long long)want);
        REQUIRE(pl.array_node_pages[c] == 2 * want, "node %d's column holds %lld pages of the array, want %lld",
                pl.node_ids[c], (long long)pl.array_node_pages[c], (long long)(2 * want));
    }
    REQUIRE(pl.rec.local_fraction == 0.5, "overall local fraction %g, want 0.5 (one thread local, one remote)",
            pl.rec.local_fraction);
    ts_placement_free(&pl);
    ts_memory_unmap(array, bytes);
}

/* Both threads on the pages' node: everything local. */
static void local_threads(void)
{
    make_array();
    const int32_t thread_node[2] = { pages_node, pages_node };
    struct ts_placement pl;
    audit(thread_node, &pl);
    REQUIRE(pl.thread_local_pages[0] == PAGES / 2 && pl.thread_local_pages[1] == PAGES / 2,
            "threads on the pages' node %d: %lld and %lld local pages, want %d each", pages_node,
            (long long)pl.thread_local_pages[0], (long long)pl.thread_local_pages[1], PAGES / 2);
    REQUIRE(pl.rec.local_fraction == 1.0, "local fraction %g, want 1", pl.rec.local_fraction);
    ts_placement_free(&pl);
    ts_memory_unmap(array, bytes);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "remote_thread", remote_thread },
        { "local_threads", local_threads },
    };
    return TS_RUN_CASES(cases);
}

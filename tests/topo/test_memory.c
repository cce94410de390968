#include "topo_test.h"
#include "ts_memory.h"
#include "ts_topology.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t resident_pages(void *p, size_t bytes)
{
    size_t page = ts_memory_page_size(), n = bytes / page, resident = 0;
    unsigned char *vec = malloc(n);
    REQUIRE(vec && mincore(p, bytes, vec) == 0, "mincore failed: %s", strerror(errno));
    for (size_t i = 0; i < n; i++)
        resident += vec[i] & 1;
    free(vec);
    return resident;
}

static void map_is_aligned_and_untouched(void)
{
    size_t bytes = 64u << 20, align = 2u << 20;
    void *p;
    struct ts_error err = { 0 };
    REQUIRE(ts_memory_map(&p, bytes, align, &err) == TS_OK, "mapping 64 MiB failed: %s", err.message);
    REQUIRE((uintptr_t)p % align == 0, "%p is not aligned to 2 MiB", p);
    size_t before = resident_pages(p, bytes);
    REQUIRE(before == 0, "%zu pages resident before anything wrote them: first touch is lost", before);
    memset(p, 1, bytes);
    size_t after = resident_pages(p, bytes);
    REQUIRE(after == bytes / ts_memory_page_size(), "only %zu pages resident after writing all", after);
    ts_memory_unmap(p, bytes);
    unsigned char v;
    REQUIRE(mincore(p, ts_memory_page_size(), &v) != 0 && errno == ENOMEM,
            "the range is still mapped after ts_memory_unmap");
}

static void map_absurd_size_fails(void)
{
    void *p = (void *)1;
    struct ts_error err = { 0 };
    int rc = ts_memory_map(&p, (size_t)1 << 62, 2u << 20, &err);
    printf("error: %s\n", err.message);
    REQUIRE(rc == TS_RESOURCE_ERROR && err.status == TS_RESOURCE_ERROR, "mapping 4 EiB returned %d", rc);
    REQUIRE(p == NULL, "a failed map left a pointer behind");
    /* The kernel says ENOMEM; valgrind's mmap says EINVAL. */
    REQUIRE(strstr(err.message, "cannot map 4 EiB: ")
                && (strstr(err.message, strerror(ENOMEM)) || strstr(err.message, strerror(EINVAL))),
            "message \"%s\" lacks the size or the errno text", err.message);
}

static void map_bad_alignment_fails(void)
{
    void *p;
    struct ts_error err = { 0 };
    REQUIRE(ts_memory_map(&p, 4096, 3 * ts_memory_page_size(), &err) == TS_INTERNAL_ERROR,
            "an alignment of 3 pages was accepted");
    REQUIRE(strstr(err.message, "power of two"), "message \"%s\" does not say why", err.message);
}

static void alloc_on_node_of_cpu0(void)
{
    ts_topology *topo;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    int node = ts_topology_node_of_cpu(topo, 0);
    char *p = ts_memory_alloc_on_node(4096, node);
    REQUIRE(p, "4096 bytes on node %d failed", node);
    p[0] = 1;
    if (numa_available() >= 0) {
        int where = -1;
        REQUIRE(get_mempolicy(&where, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR) == 0, "get_mempolicy: %s",
                strerror(errno));
        REQUIRE(where == node, "page asked on node %d landed on node %d", node, where);
    }
    ts_memory_free_on_node(p, 4096);
    ts_topology_destroy(topo);
}

/* A wrong node must give NULL, and quietly: libnuma would print and place the page anywhere. */
static void alloc_on_bad_node_fails_quietly(void)
{
    fflush(stderr);
    FILE *captured = tmpfile();
    int saved = dup(2);
    REQUIRE(captured && saved >= 0 && dup2(fileno(captured), 2) == 2, "cannot capture stderr");
    void *p = ts_memory_alloc_on_node(4096, 1 << 20);
    int e = errno;
    fflush(stderr);
    dup2(saved, 2);
    fseek(captured, 0, SEEK_END);
    long printed = ftell(captured);
    fclose(captured);
    close(saved);
    REQUIRE(p == NULL, "node 1048576 does not exist but the allocation succeeded");
    REQUIRE(e == EINVAL, "errno %d (%s), want EINVAL", e, strerror(e));
    REQUIRE(printed == 0, "the failed allocation printed %ld bytes to stderr", printed);
}

/* The advice reaches the kernel: applied where THP is built in, nothing asked by default. */
static void advise_pages(void)
{
    size_t bytes = 8u << 20;
    void *p;
    struct ts_error err = { 0 };
    REQUIRE(ts_memory_map(&p, bytes, 2u << 20, &err) == TS_OK, "mapping 8 MiB failed: %s", err.message);
    int thp_built_in = access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0;
    static const enum ts_mem_pages kinds[] = { TS_PAGES_HUGE, TS_PAGES_BASE, TS_PAGES_KERNEL_DEFAULT };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        int applied = -1;
        REQUIRE(ts_memory_advise_pages(p, bytes, kinds[i], &applied, &err) == TS_OK, "advice %zu failed: %s", i,
                err.message);
        int want = kinds[i] != TS_PAGES_KERNEL_DEFAULT && thp_built_in;
        REQUIRE(applied == want, "advice %zu: applied = %d, want %d (THP %s)", i, applied, want,
                thp_built_in ? "built in" : "absent");
    }
    REQUIRE(resident_pages(p, bytes) == 0, "advice touched pages: first touch is lost");
    ts_memory_unmap(p, bytes);
}

/* Any failure but a kernel without THP is an error with its context. */
static void advise_unmapped_fails(void)
{
    size_t bytes = 2u << 20;
    void *p;
    struct ts_error err = { 0 };
    REQUIRE(ts_memory_map(&p, bytes, 2u << 20, &err) == TS_OK, "mapping 2 MiB failed: %s", err.message);
    ts_memory_unmap(p, bytes);
    int applied = -1;
    int rc = ts_memory_advise_pages(p, bytes, TS_PAGES_HUGE, &applied, &err);
    printf("error: %s\n", err.message);
    REQUIRE(rc == TS_RESOURCE_ERROR && applied == 0, "madvise of an unmapped range returned %d, applied %d", rc,
            applied);
    REQUIRE(strstr(err.message, "init.huge_pages: madvise(MADV_HUGEPAGE) of 2 MiB")
                && strstr(err.message, strerror(ENOMEM)),
            "message \"%s\" lacks the call, the size or the errno text", err.message);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "map_untouched", map_is_aligned_and_untouched },     { "map_absurd", map_absurd_size_fails },
        { "map_bad_alignment", map_bad_alignment_fails },      { "alloc_on_node", alloc_on_node_of_cpu0 },
        { "alloc_bad_node", alloc_on_bad_node_fails_quietly }, { "advise_pages", advise_pages },
        { "advise_unmapped", advise_unmapped_fails },
    };
    return TS_RUN_CASES(cases);
}

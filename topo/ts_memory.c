#include "ts_memory.h"
#include "ts_units.h"

#include <errno.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

size_t ts_memory_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

static size_t round_up(size_t bytes, size_t unit)
{
    return (bytes + unit - 1) / unit * unit;
}

/* Mapping bytes + alignment and trimming both ends gives alignment without touching a page;
 * posix_memalign would do the same but may hand out heap memory that was touched already.
 * The length is rounded up to whole pages, and ts_memory_unmap rounds the same way. */
int ts_memory_map(void **out, size_t bytes, size_t alignment, struct ts_error *err)
{
    *out = NULL;
    size_t page = ts_memory_page_size();
    char size[32];
    ts_bytes_text(bytes, size, sizeof size);
    if (alignment < page)
        alignment = page;
    if (bytes == 0 || (alignment & (alignment - 1)) != 0)
        return ts_fail(err, TS_INTERNAL_ERROR,
                       "cannot map %s aligned to %zu bytes: the size must be "
                       "positive and the alignment a power of two",
                       size, alignment);
    if (alignment > SIZE_MAX / 4 || bytes > SIZE_MAX / 2 - alignment)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot map %s", size);
    size_t length = round_up(bytes, page);
    size_t span = length + alignment - page;
    char *base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "cannot map %s", size);
    char *aligned = (char *)round_up((uintptr_t)base, alignment);
    size_t head = (size_t)(aligned - base);
    size_t tail = span - head - length;
    if (head)
        munmap(base, head);
    if (tail)
        munmap(aligned + length, tail);
    *out = aligned;
    return TS_OK;
}

void ts_memory_unmap(void *ptr, size_t bytes)
{
    if (ptr && bytes)
        munmap(ptr, round_up(bytes, ts_memory_page_size()));
}

/* mbind's node masks: the kernel reads maxnode - 1 bits, so one bit is kept spare. */
struct node_mask {
    unsigned long bits[64];
};
#define NODE_MASK_BITS (sizeof(((struct node_mask *)0)->bits) * CHAR_BIT)
#define NODE_WORD_BITS (sizeof(unsigned long) * CHAR_BIT)

static int node_mask_add(struct node_mask *m, int node)
{
    if (node < 0 || (size_t)node >= NODE_MASK_BITS - 1)
        return -1;
    m->bits[(size_t)node / NODE_WORD_BITS] |= 1UL << ((size_t)node % NODE_WORD_BITS);
    return 0;
}

/* Not numa_alloc_onnode: it prints "mbind: Invalid argument" and still returns memory
 * placed anywhere when the node is wrong. MPOL_PREFERRED rather than libnuma's MPOL_BIND:
 * these are small per-node areas, and a full node should spill over, not kill the run. */
void *ts_memory_alloc_on_node(size_t bytes, int node_os_index)
{
    int numa = numa_available() >= 0;
    if (bytes == 0 || (numa && (node_os_index < 0 || node_os_index > numa_max_node()))) {
        errno = EINVAL;
        return NULL;
    }
    size_t length = round_up(bytes, ts_memory_page_size());
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (!numa)
        return p;
    struct node_mask mask = { { 0 } };
    if (node_mask_add(&mask, node_os_index) != 0
        || mbind(p, length, MPOL_PREFERRED, mask.bits, NODE_MASK_BITS, 0) != 0) {
        int e = errno ? errno : EINVAL;
        munmap(p, length);
        errno = e;
        return NULL;
    }
    return p;
}

/* Nodes whose memory this process may use, as a list for messages ("0-1"). */
static void allowed_nodes(struct bitmask *nodes, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < nodes->size && used < len; i++)
        if (numa_bitmask_isbitset(nodes, i))
            used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? "," : "", i);
}

int ts_memory_set_policy(void *ptr, size_t bytes, enum ts_mem_policy policy, int node, struct ts_error *err)
{
    if (policy == TS_POLICY_FIRSTTOUCH)
        return TS_OK;
    if (numa_available() < 0)
        return ts_fail(err, TS_BAD_INPUT,
                       "init.policy: this kernel has no NUMA support (libnuma: numa_available() < 0)");
    struct bitmask *nodes = numa_get_mems_allowed();
    struct node_mask mask = { { 0 } };
    int mode = policy == TS_POLICY_INTERLEAVE ? MPOL_INTERLEAVE : policy == TS_POLICY_BIND ? MPOL_BIND : MPOL_PREFERRED;
    int status = TS_OK;
    if (policy == TS_POLICY_INTERLEAVE) {
        for (unsigned i = 0; i < nodes->size; i++)
            if (numa_bitmask_isbitset(nodes, i))
                node_mask_add(&mask, (int)i);
    } else if (node < 0 || (unsigned)node >= nodes->size || !numa_bitmask_isbitset(nodes, (unsigned)node)
               || node_mask_add(&mask, node) != 0) {
        char list[256];
        allowed_nodes(nodes, list, sizeof list);
        status = ts_fail(err, TS_BAD_INPUT,
                         "init.policy: NUMA node %d does not exist or is not allowed "
                         "(this process may use nodes %s)",
                         node, list);
    }
    numa_bitmask_free(nodes);
    if (status != TS_OK)
        return status;
    /* A fresh mapping has no pages yet: the policy decides where each one lands at first touch. */
    if (mbind(ptr, round_up(bytes, ts_memory_page_size()), mode, mask.bits, NODE_MASK_BITS, 0) != 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "init.policy: mbind of %zu bytes", bytes);
    return TS_OK;
}

int ts_memory_advise_pages(void *ptr, size_t bytes, enum ts_mem_pages pages, int *applied, struct ts_error *err)
{
    *applied = 0;
    if (pages == TS_PAGES_KERNEL_DEFAULT)
        return TS_OK;
    int advice = pages == TS_PAGES_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
    if (madvise(ptr, round_up(bytes, ts_memory_page_size()), advice) == 0) {
        *applied = 1;
        return TS_OK;
    }
    int e = errno;
    /* The mapping is page aligned: EINVAL can only mean CONFIG_TRANSPARENT_HUGEPAGE off, a kernel
     * with nothing but base pages, which the record states. */
    if (e == EINVAL)
        return TS_OK;
    char size[32];
    ts_bytes_text(bytes, size, sizeof size);
    return ts_fail_errno(err, TS_RESOURCE_ERROR, e, "init.huge_pages: madvise(%s) of %s",
                         pages == TS_PAGES_HUGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", size);
}

void ts_memory_free_on_node(void *ptr, size_t bytes)
{
    ts_memory_unmap(ptr, bytes);
}

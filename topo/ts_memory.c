#include "ts_memory.h"

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

/* "19.07 GiB": the number a user compares with what the machine has. */
static void human_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.2f %s", v, units[u]);
}

/* Mapping bytes + alignment and trimming both ends gives alignment without touching a page;
 * posix_memalign would do the same but may hand out heap memory that was touched already.
 * The length is rounded up to whole pages, and ts_memory_unmap rounds the same way. */
int ts_memory_map(void **out, size_t bytes, size_t alignment, struct ts_error *err)
{
    *out = NULL;
    size_t page = ts_memory_page_size();
    char size[32];
    human_bytes(bytes, size, sizeof size);
    if (alignment < page)
        alignment = page;
    if (bytes == 0 || (alignment & (alignment - 1)) != 0)
        return ts_fail(err, TS_BAD_INPUT, "cannot map %s aligned to %zu bytes: the size must be "
                       "positive and the alignment a power of two", size, alignment);
    if (alignment > SIZE_MAX / 4 || bytes > SIZE_MAX / 2 - alignment)
        return ts_fail_errno(err, TS_BAD_INPUT, ENOMEM, "cannot map %s", size);
    size_t length = round_up(bytes, page);
    size_t span = length + alignment - page;
    char *base = mmap(NULL, span, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return ts_fail_errno(err, TS_BAD_INPUT, errno, "cannot map %s", size);
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
    unsigned long mask[64] = {0};
    size_t bits = sizeof mask * CHAR_BIT, word_bits = sizeof mask[0] * CHAR_BIT;
    /* The kernel reads maxnode - 1 bits of the mask. */
    if ((size_t)node_os_index >= bits - 1) {
        munmap(p, length);
        errno = EINVAL;
        return NULL;
    }
    mask[(size_t)node_os_index / word_bits] |= 1UL << ((size_t)node_os_index % word_bits);
    if (mbind(p, length, MPOL_PREFERRED, mask, bits, 0) != 0) {
        int e = errno;
        munmap(p, length);
        errno = e;
        return NULL;
    }
    return p;
}

void ts_memory_free_on_node(void *ptr, size_t bytes)
{
    ts_memory_unmap(ptr, bytes);
}

/* Memory for the arrays and the per-node partials, and the limits a run must fit in. */
#ifndef TOUCHSTONE_TOPO_TS_MEMORY_H
#define TOUCHSTONE_TOPO_TS_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"

/* A fresh anonymous mapping of bytes aligned to alignment (a power of two, at least the page
 * size), not touched: no page exists until a thread writes it (first touch).
 * TS_RESOURCE_ERROR when the address space refuses it (mmap's errno text), TS_INTERNAL_ERROR
 * for a size of 0 or an alignment that is no power of two. */
int ts_memory_map(void **out, size_t bytes, size_t alignment, struct ts_error *err);
void ts_memory_unmap(void *ptr, size_t bytes);

/* Memory on NUMA node node_os_index (libnuma); falls back to ordinary memory when libnuma
 * reports NUMA unavailable. NULL on failure. */
void *ts_memory_alloc_on_node(size_t bytes, int node_os_index);
void ts_memory_free_on_node(void *ptr, size_t bytes);

size_t ts_memory_page_size(void);

/* Where the pages of an array may go (init.policy). */
enum ts_mem_policy {
    TS_POLICY_FIRSTTOUCH, /* the kernel's default: the node of the first thread to touch a page */
    TS_POLICY_INTERLEAVE, /* round-robin over every node this process may use */
    TS_POLICY_BIND,       /* only node N */
    TS_POLICY_PREFERRED   /* node N while it has room */
};

/* Sets policy (mbind) on a fresh, untouched mapping, before the first touch decides anything.
 * node is an OS node index, used by BIND and PREFERRED. TS_BAD_INPUT, naming the nodes this
 * process may use, for a node that does not exist (or a machine without NUMA support);
 * TS_RESOURCE_ERROR when mbind fails. */
int ts_memory_set_policy(void *ptr, size_t bytes, enum ts_mem_policy policy, int node, struct ts_error *err);

/* What a fresh mapping asks of transparent huge pages, set before its first touch. */
enum ts_mem_pages {
    TS_PAGES_KERNEL_DEFAULT, /* no advice: whatever the THP mode gives */
    TS_PAGES_HUGE,           /* MADV_HUGEPAGE: first touch faults in 2 MiB at a time */
    TS_PAGES_BASE            /* MADV_NOHUGEPAGE: base pages even under THP "always" */
};

/* madvise for pages (nothing for TS_PAGES_KERNEL_DEFAULT). *applied is 1 when the kernel took
 * the advice, 0 when it refused it with EINVAL, as a kernel without transparent huge pages
 * does: the mapping then keeps its base pages and the run goes on. Any other failure is
 * TS_RESOURCE_ERROR with the errno text. */
int ts_memory_advise_pages(void *ptr, size_t bytes, enum ts_mem_pages pages, int *applied, struct ts_error *err);

/* What a limit counts: memory used, or the address space a process maps (libraries and thread
 * stacks included, touched or not). */
enum ts_limit_counts {
    TS_LIMIT_COUNTS_MEMORY,        /* pages in use: free memory, cgroup, the Slurm allocation */
    TS_LIMIT_COUNTS_ADDRESS_SPACE, /* every mapping: RLIMIT_AS */
    TS_LIMIT_COUNTS_DATA           /* private writable mappings (heap, stacks of threads): RLIMIT_DATA */
};

/* One limit a run's memory must fit in. */
struct ts_memory_limit {
    uint64_t bytes;
    char source[160]; /* "MemAvailable in /proc/meminfo", "cgroup memory.max (/sys/fs/...)",
                         "RLIMIT_AS", "SLURM_MEM_PER_NODE", ... */
    int per_process;  /* 1: this process's own (an rlimit); 0: shared by every process of the
                         machine or job on it (free memory, cgroup, the Slurm allocation) */
    enum ts_limit_counts counts;
};

/* Collects every limit that applies to this process (up to max); returns how many. A limit
 * from the environment that is not a number is left out: ts_memory_limits_check refuses it. */
int ts_memory_limits(struct ts_memory_limit *out, int max);

/* The limits read from the environment (SLURM_MEM_PER_NODE, SLURM_MEM_PER_CPU and the
 * SLURM_CPUS_ON_NODE it is multiplied by) are whole numbers, as Slurm writes them: TS_OK, or
 * TS_BAD_INPUT naming the variable and its value (a limit that cannot be read cannot be kept). */
int ts_memory_limits_check(struct ts_error *err);

/* This process's mappings now (/proc/self/status): VmSize, every mapping, and VmData, the
 * private writable ones, in bytes. Returns 0, or -1 when they cannot be read (both 0). */
int ts_memory_process_now(uint64_t *address_space, uint64_t *data);

#endif

/* Transparent huge pages: whether the kernel may back our 2 MiB-aligned arrays with huge
 * pages changes TLB misses and first-touch granularity, so reports state the mode, and the
 * placement audit asks the kernel which pages really are huge before it counts them. */
#ifndef TOUCHSTONE_TOPO_TS_THP_H
#define TOUCHSTONE_TOPO_TS_THP_H

#include <stddef.h>
#include <stdint.h>

#define TS_THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define TS_THP_SMAPS "/proc/self/smaps"

/* The size of a transparent huge page (a PMD) on x86-64, and what the arrays align to. */
#define TS_THP_HUGE_PAGE ((size_t)2 << 20)

/* The selected mode in a file like TS_THP_ENABLED ("always [madvise] never" -> "madvise"),
 * copied to buf; "unknown" when the file cannot be read or selects nothing. Returns buf. */
const char *ts_thp_mode(const char *path, char *buf, size_t len);

/* An address range [begin, end) of this process's memory. */
struct ts_thp_range {
    uintptr_t begin, end;
};

/* 1 when every whole, 2 MiB-aligned 2 MiB block of every range is backed by a huge page,
 * judged from a file like TS_THP_SMAPS: every mapping (VMA) that intersects a range must
 * hold AnonHugePages of exactly 2 MiB times the whole aligned blocks inside that VMA (so
 * VMAs the kernel merged across adjacent ranges are judged as one), and every whole
 * aligned block of a range must lie inside one VMA (a huge page never straddles two). A
 * range with no whole aligned block has no huge page. 0 otherwise, and also when the file
 * cannot be read or a VMA has no AnonHugePages line: then 4 KiB pages is the claim that
 * cannot be wrong. */
int ts_thp_all_huge(const char *smaps_path, const struct ts_thp_range *ranges, int n_ranges);

#endif

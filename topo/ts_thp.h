/* Transparent huge pages: whether the kernel may back our 2 MiB-aligned arrays with huge
 * pages changes TLB misses and first-touch granularity, so reports state the mode. */
#ifndef TS_THP_H
#define TS_THP_H

#include <stddef.h>

#define TS_THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

/* The selected mode in a file like TS_THP_ENABLED ("always [madvise] never" -> "madvise"),
 * copied to buf; "unknown" when the file cannot be read or selects nothing. Returns buf. */
const char *ts_thp_mode(const char *path, char *buf, size_t len);

#endif

/* Private to topo/ and its tests: the cgroup part of ts_memory_limits with its files moved,
 * so tests can feed it a fake /proc/self/cgroup and a fake cgroup tree. */
#ifndef TOUCHSTONE_TOPO_MEMORY_INTERNAL_H
#define TOUCHSTONE_TOPO_MEMORY_INTERNAL_H

#include "ts_memory.h"

/* Reads proc_self_cgroup (lines "id:controllers:path") and, under cgroup_root (normally
 * /sys/fs/cgroup), the v2 memory.max and the v1 memory/.../memory.limit_in_bytes of our
 * cgroup and its ancestors. Appends at most one limit per version: the least room left
 * (limit minus usage where the usage is readable) found on the way up. Returns how many. */
int ts_memory_cgroup_limits(const char *proc_self_cgroup, const char *cgroup_root, struct ts_memory_limit *out,
                            int max);

#endif

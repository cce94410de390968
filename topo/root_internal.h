/* Private to topo/: the machine's /proc and /sys files read under a root, "/" or a fake tree
 * (TOUCHSTONE_CONDITIONS_ROOT, tests only). */
#ifndef TOUCHSTONE_TOPO_ROOT_INTERNAL_H
#define TOUCHSTONE_TOPO_ROOT_INTERNAL_H

#include <stddef.h>

/* root + rel into buf ("" when too long to be a real path: opens nothing); root NULL or "" is "/". */
void ts_path_under(char *buf, size_t size, const char *root, const char *rel);

#endif

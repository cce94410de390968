/* Counting distinct names among the ranks' (hosts, kernels) by sorting, so that a job of
 * thousands of ranks is not compared pair by pair on rank 0. */
#ifndef TOUCHSTONE_COMMON_TS_DISTINCT_H
#define TOUCHSTONE_COMMON_TS_DISTINCT_H

#include <stddef.h>

/* How many distinct texts the n pointers name (NULL counts as ""). Sorts the pointers in place;
 * the texts are not touched. O(n log n). */
size_t ts_count_distinct(const char **texts, size_t n);

/* A name and the key it stands for: a host and its kernel's boot id. */
struct ts_named_key {
    const char *key;
    const char *name;
};

/* Whether one non-empty key comes with two different names (two host names on one kernel: an
 * emulated cluster). Sorts the pairs in place. O(n log n). */
int ts_key_has_two_names(struct ts_named_key *pairs, size_t n);

#endif

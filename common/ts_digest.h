/* A fast 64-bit digest of a block of memory, to tell whether stored data is what was written
 * (checkpoints keep one per dataset). It catches damage, swapped or stale blocks and rewritten
 * values; it is no defence against someone who recomputes it (not cryptographic). */
#ifndef TOUCHSTONE_COMMON_TS_DIGEST_H
#define TOUCHSTONE_COMMON_TS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* The digest of n bytes at data, read as little-endian 64-bit words in order (so the digest of an
 * array of doubles is that of the IEEE little-endian bytes HDF5 stores) and the tail bytes. The
 * same bytes always give the same value; n = 0 gives a fixed value. Never fails. */
uint64_t ts_digest64(const void *data, size_t n);

/* The digest of n doubles at v standing at positions first, first + 1, ... of an array: the
 * sum, modulo 2^64, of a mix of each position with the value's bits. Parts of an array digested
 * apart, each with the position of its first value, add up (in any order) to the digest of the
 * whole array, so ranks that each hold a block of a field digest it without gathering it. A
 * value moved to another position, changed or swapped with another changes it. */
uint64_t ts_digest_points(const double *v, size_t n, uint64_t first);

#endif

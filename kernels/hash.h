/* Counter-based values: element i of stream s is a pure function of (seed, s, i),
 * so init can run in any order on any thread and verification can recompute
 * any element without reading the array. */
#ifndef TOUCHSTONE_KERNELS_HASH_H
#define TOUCHSTONE_KERNELS_HASH_H

#include <stdint.h>

/* SplitMix64's finaliser: a bijection on 64-bit words with good avalanche. */
static inline uint64_t ts_hash_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A double in [0, 1) with 53 random bits, for element `index` of stream `stream`. */
static inline double ts_hash_unit(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t key = ts_hash_mix(seed ^ ts_hash_mix(stream + UINT64_C(0x9e3779b97f4a7c15)));
    return (double)(ts_hash_mix(key + index * UINT64_C(0x9e3779b97f4a7c15)) >> 11) * 0x1.0p-53;
}

#endif

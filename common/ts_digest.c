/* xxHash64's construction (Yann Collet, BSD-2): four independent multiply-rotate lanes, so the
 * digest runs at memory speed rather than at one multiply latency per word, then a merge and a
 * final avalanche. Written out here, as only the library, not its header, is installed on the
 * machines this builds on; the values are not meant to equal xxHash64's. */
#include "ts_digest.h"

#include <string.h>

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t word(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

static inline uint64_t lane(uint64_t acc, uint64_t w)
{
    return rotl(acc + w * P2, 31) * P1;
}

static inline uint64_t merge(uint64_t h, uint64_t acc)
{
    return (h ^ lane(0, acc)) * P1 + P4;
}

uint64_t ts_digest64(const void *data, size_t n)
{
    const unsigned char *p = data, *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t a = P1 + P2, b = P2, c = 0, d = 0 - P1;
        for (; end - p >= 32; p += 32) {
            a = lane(a, word(p));
            b = lane(b, word(p + 8));
            c = lane(c, word(p + 16));
            d = lane(d, word(p + 24));
        }
        h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
        h = merge(merge(merge(merge(h, a), b), c), d);
    } else {
        h = P5;
    }
    h += (uint64_t)n;
    for (; end - p >= 8; p += 8)
        h = rotl(h ^ lane(0, word(p)), 27) * P1 + P4;
    for (; p < end; p++)
        h = rotl(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

/* One position and one value's bits, avalanched (xxHash64's final mix) so that the sum over
 * positions cannot cancel a change the way a plain sum of the values would. */
static inline uint64_t point(uint64_t position, uint64_t bits)
{
    uint64_t h = lane(position * P5 + P3, bits);
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

uint64_t ts_digest_points(const double *v, size_t n, uint64_t first)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        sum += point(first + i, bits);
    }
    return sum;
}

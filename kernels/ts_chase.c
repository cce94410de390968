#include "ts_chase.h"

/* One line: its first word names the next line. While the cycle is built it holds an index,
 * once built an address. */
struct chase_line {
    _Alignas(TS_CHASE_LINE) union {
        const struct chase_line *next;
        size_t index;
    } to;
};

_Static_assert(sizeof(struct chase_line) == TS_CHASE_LINE, "a chase element is one cache line");

/* splitmix64: a seeded, portable generator; the cycle must be the same on every machine. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound > 0: rejects the draws that would favour small values. */
static uint64_t below(uint64_t *state, uint64_t bound)
{
    const uint64_t threshold = (0 - bound) % bound;
    uint64_t r;
    do
        r = next_random(state);
    while (r < threshold);
    return r % bound;
}

void ts_chase_build(void *buf, size_t n, uint64_t seed)
{
    struct chase_line *lines = buf;
    for (size_t i = 0; i < n; i++)
        lines[i].to.index = i;
    /* Sattolo: swapping each position only with an earlier one makes the permutation a single
     * n-cycle (not any permutation, as Fisher-Yates would). Line i then links to line to[i]. */
    uint64_t state = seed;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)below(&state, (uint64_t)(i - 1));
        size_t t = lines[i - 1].to.index;
        lines[i - 1].to.index = lines[j].to.index;
        lines[j].to.index = t;
    }
    for (size_t i = 0; i < n; i++)
        lines[i].to.next = &lines[lines[i].to.index];
}

size_t ts_chase_run(const void *buf, size_t start, uint64_t steps)
{
    const struct chase_line *lines = buf;
    const struct chase_line *p = &lines[start];
    uint64_t k = 0;
    for (; k + 8 <= steps; k += 8) {
        p = p->to.next;
        p = p->to.next;
        p = p->to.next;
        p = p->to.next;
        p = p->to.next;
        p = p->to.next;
        p = p->to.next;
        p = p->to.next;
    }
    for (; k < steps; k++)
        p = p->to.next;
    return (size_t)(p - lines);
}

int ts_chase_check(const void *buf, size_t n)
{
    const struct chase_line *lines = buf;
    if (n == 0)
        return 1;
    /* A walk from line 0 that stays inside the buffer and first returns to line 0 at step n has
     * seen n distinct lines: a repeat before that would trap it in a loop without line 0. */
    const uintptr_t base = (uintptr_t)lines;
    const struct chase_line *p = &lines[0];
    for (size_t step = 1; step <= n; step++) {
        /* Compared as numbers: a wild link is no pointer into the buffer to compare with. */
        const uintptr_t q = (uintptr_t)p->to.next;
        if (q < base || (q - base) % TS_CHASE_LINE != 0 || (q - base) / TS_CHASE_LINE >= n)
            return 0;
        if (q == base)
            return step == n;
        p = &lines[(q - base) / TS_CHASE_LINE];
    }
    return 0;
}

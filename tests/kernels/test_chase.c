/* The pointer chase's cycle: one cycle through every line for any size and seed, the same
 * cycle for the same seed, and a check that refuses what is not one cycle. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ts_chase.h"
#include "ts_test.h"

/* The line the link of line i names, as an index (the test reads the layout independently). */
static size_t link_of(const unsigned char *buf, size_t i)
{
    const void *next;
    memcpy(&next, buf + i * TS_CHASE_LINE, sizeof next);
    return (size_t)(((uintptr_t)next - (uintptr_t)buf) / TS_CHASE_LINE);
}

static void set_link(unsigned char *buf, size_t i, size_t to)
{
    const void *next = buf + to * TS_CHASE_LINE;
    memcpy(buf + i * TS_CHASE_LINE, &next, sizeof next);
}

static unsigned char *lines(size_t n)
{
    unsigned char *buf = aligned_alloc(TS_CHASE_LINE, (n ? n : 1) * TS_CHASE_LINE);
    REQUIRE(buf != NULL, "cannot allocate %zu lines", n);
    return buf;
}

/* Walks the cycle with a table of marks of its own: every line once, back to the start. */
static void visits_every_line_once(void)
{
    static const size_t sizes[] = { 1, 2, 3, 7, 64, 1000, 4096, 100003 };
    static const uint64_t seeds[] = { 0, 1, 42, 0xdeadbeefcafef00du };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s];
        unsigned char *buf = lines(n);
        unsigned char *seen = calloc(n, 1);
        REQUIRE(seen != NULL, "cannot allocate the marks");
        for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
            ts_chase_build(buf, n, seeds[k]);
            memset(seen, 0, n);
            size_t at = 0, visited = 0;
            for (size_t step = 0; step < n; step++) {
                size_t next = link_of(buf, at);
                if (next >= n) {
                    FAIL("n=%zu seed=%llu: line %zu links outside the buffer (%zu)", n, (unsigned long long)seeds[k],
                         at, next);
                    break;
                }
                if (seen[next]) {
                    FAIL("n=%zu seed=%llu: line %zu visited twice after %zu steps", n, (unsigned long long)seeds[k],
                         next, step + 1);
                    break;
                }
                seen[next] = 1;
                visited++;
                at = next;
            }
            CHECK(visited == n && at == 0, "n=%zu seed=%llu: %zu lines visited, walk ended at %zu", n,
                  (unsigned long long)seeds[k], visited, at);
            CHECK(ts_chase_check(buf, n) == 1, "n=%zu seed=%llu: the check refuses a good cycle", n,
                  (unsigned long long)seeds[k]);
            /* n steps from any line come back to it: the run follows the same links. */
            CHECK(ts_chase_run(buf, n / 2, n) == n / 2, "n=%zu: a whole lap does not come back", n);
            CHECK(ts_chase_run(buf, 0, 1) == link_of(buf, 0), "n=%zu: one step is not the first link", n);
            if (n > 1)
                CHECK(ts_chase_run(buf, 0, 2 * n + 1) == link_of(buf, 0), "n=%zu: 2n+1 steps land elsewhere", n);
        }
        free(seen);
        free(buf);
    }
}

static void deterministic_for_a_seed(void)
{
    const size_t n = 5000;
    unsigned char *a = lines(n), *b = lines(n);
    ts_chase_build(a, n, 7);
    ts_chase_build(b, n, 7);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++)
        differ += link_of(a, i) != link_of(b, i);
    CHECK(differ == 0, "the same seed gave %zu different links", differ);
    ts_chase_build(b, n, 8);
    differ = 0;
    for (size_t i = 0; i < n; i++)
        differ += link_of(a, i) != link_of(b, i);
    CHECK(differ > n / 2, "seeds 7 and 8 gave cycles differing in %zu links of %zu", differ, n);
    /* Not the identity shift either: a random cycle is not a stride a prefetcher can follow. */
    size_t sequential = 0;
    for (size_t i = 0; i < n; i++)
        sequential += link_of(a, i) == (i + 1) % n;
    CHECK(sequential < n / 100, "%zu of %zu links go to the next line", sequential, n);
    free(a);
    free(b);
}

static void check_refuses_broken_cycles(void)
{
    const size_t n = 100;
    unsigned char *buf = lines(n);
    /* Two cycles: 0 -> 1 -> ... -> 49 -> 0 and 50 -> ... -> 99 -> 50. */
    for (size_t i = 0; i < n; i++)
        set_link(buf, i, i < 50 ? (i + 1) % 50 : 50 + (i - 50 + 1) % 50);
    CHECK(ts_chase_check(buf, n) == 0, "two cycles of 50 passed as one of 100");
    /* A tail into a loop without line 0. */
    for (size_t i = 0; i < n; i++)
        set_link(buf, i, i + 1 < n ? i + 1 : 10);
    CHECK(ts_chase_check(buf, n) == 0, "a walk trapped in a loop passed");
    /* A link outside the buffer. */
    ts_chase_build(buf, n, 3);
    set_link(buf, 17, n + 5);
    CHECK(ts_chase_check(buf, n) == 0, "a link outside the buffer passed");
    ts_chase_build(buf, n, 3);
    CHECK(ts_chase_check(buf, n) == 1, "the rebuilt cycle is refused");
    free(buf);
}

int main(void)
{
    visits_every_line_once();
    deterministic_for_a_seed();
    check_refuses_broken_cycles();
    return ts_test_finish();
}

/* The read injector of the loaded-latency curve (kernels/ts_inject.h): it reads the first word
 * of every line once (the sum of what it read is that of the words, computed here apart), and
 * runs its delay chain exactly once per burst, the last short burst too (the chain's value is
 * that of as many steps taken here one by one). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ts_inject.h"
#include "ts_test.h"

static uint64_t chain(uint64_t x, uint64_t steps)
{
    for (uint64_t i = 0; i < steps; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

static void reads_every_line_and_delays_per_burst(void)
{
    static const size_t sizes[] = { 0, 1, 5, 16, 17, 1000 };
    static const size_t bursts[] = { 0, 1, 4, 16, 2000 };
    static const uint64_t delays[] = { 0, 1, 37 };
    const size_t most = 1000;
    unsigned char *buf = aligned_alloc(TS_INJECT_LINE, most * TS_INJECT_LINE);
    REQUIRE(buf != NULL, "cannot allocate %zu lines", most);
    /* Words of every line, read or not: only the first of each may count. */
    for (size_t i = 0; i < most * TS_INJECT_LINE / 8; i++) {
        uint64_t w = (uint64_t)i * 0x9e3779b97f4a7c15u + 11;
        memcpy(buf + i * 8, &w, 8);
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t b = 0; b < sizeof bursts / sizeof bursts[0]; b++)
            for (size_t d = 0; d < sizeof delays / sizeof delays[0]; d++) {
                const size_t n = sizes[s], burst = bursts[b] ? bursts[b] : 1;
                uint64_t want = 0;
                for (size_t i = 0; i < n; i++) {
                    uint64_t w;
                    memcpy(&w, buf + i * TS_INJECT_LINE, 8);
                    want += w;
                }
                const uint64_t n_bursts = (n + burst - 1) / burst;
                uint64_t spin = 5;
                uint64_t got = ts_inject_pass(buf, n, bursts[b], delays[d], &spin);
                CHECK(got == want, "%zu lines in bursts of %zu: sum %llu, not %llu", n, bursts[b],
                      (unsigned long long)got, (unsigned long long)want);
                CHECK(spin == chain(5, n_bursts * delays[d]),
                      "%zu lines in bursts of %zu, delay %llu: the chain did not run %llu steps", n, bursts[b],
                      (unsigned long long)delays[d], (unsigned long long)(n_bursts * delays[d]));
            }
    free(buf);
}

int main(void)
{
    reads_every_line_and_delays_per_burst();
    return ts_test_finish();
}

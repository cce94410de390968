#include "ts_inject.h"

#include <string.h>

uint64_t ts_inject_pass(const void *buf, size_t n_lines, size_t burst, uint64_t delay, uint64_t *spin)
{
    const unsigned char *p = buf;
    if (burst == 0)
        burst = 1;
    uint64_t sum = 0, x = *spin;
    for (size_t at = 0; at < n_lines; at += burst) {
        const size_t end = n_lines - at < burst ? n_lines : at + burst;
        /* The addresses depend on nothing loaded: the core keeps as many reads in flight as it
         * can, which is what drawing bandwidth takes. */
        for (size_t i = at; i < end; i++) {
            uint64_t w;
            memcpy(&w, p + i * TS_INJECT_LINE, sizeof w);
            sum += w;
        }
        for (uint64_t d = 0; d < delay; d++)
            x = ts_inject_delay_step(x);
    }
    *spin = x;
    return sum;
}

#include "ts_units.h"

#include <stdio.h>

void ts_bytes_text(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    int u = 0;
    while (u < 6 && bytes >> (10 * (u + 1)) > 0)
        u++;
    uint64_t scale = (uint64_t)1 << (10 * u);
    if (bytes % scale == 0)
        snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / scale), units[u]);
    else
        snprintf(buf, len, "%.2f %s", (double)bytes / (double)scale, units[u]);
}

/* Sizes as people read them, shared by every layer that prints one. */
#ifndef TOUCHSTONE_COMMON_TS_UNITS_H
#define TOUCHSTONE_COMMON_TS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Binary units: "512 B", "48 KiB", "1.25 MiB", "7.76 GiB"; whole numbers without decimals,
 * because cache sizes usually are. */
void ts_bytes_text(uint64_t bytes, char *buf, size_t len);

#endif

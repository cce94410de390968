/* Reading a whole file the user named, once and never blocking without a bound: the config
 * (config/) and an hwloc XML topology (topo/) alike. A regular file is read to its end; a pipe,
 * FIFO, terminal or character device must reach its end within TOUCHSTONE_CONFIG_TIMEOUT
 * seconds (default 10, 0..86400), and a FIFO with no writer never blocks. */
#ifndef TOUCHSTONE_COMMON_TS_READ_H
#define TOUCHSTONE_COMMON_TS_READ_H

#include <stddef.h>

#include "ts_error.h"

struct ts_read_limits {
    const char *what; /* what the file is, for the messages: "config", "topology" */
    size_t max_bytes; /* larger is refused: "not a config file (larger than 1048576 bytes)" */
};

/* Reads path whole into *text (malloc'd, NUL-terminated; *len bytes). Fails with the path and
 * what happened: cannot open or read (errno text; the status of the errno, ts_file_status), a
 * directory or socket, larger than limits->max_bytes, the time limit passed (TS_BAD_INPUT,
 * naming TOUCHSTONE_CONFIG_TIMEOUT), a bad TOUCHSTONE_CONFIG_TIMEOUT (TS_BAD_INPUT), memory
 * (TS_RESOURCE_ERROR). */
int ts_read_file(const char *path, const struct ts_read_limits *limits, char **text, size_t *len, struct ts_error *err);

#endif

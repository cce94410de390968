/* Each thread's own counters from the kernel: page faults show who first-touched what on any
 * machine, involuntary switches and migrations show stacked or unbound threads. */
#ifndef TOUCHSTONE_TOPO_TS_COUNTERS_H
#define TOUCHSTONE_TOPO_TS_COUNTERS_H

#include <stddef.h>

#include "ts_record.h"

/* Per-thread state; open, read and close from the thread being measured. */
struct ts_counters {
    int migrations_fd; /* perf software event, -1 when not available */
    int open_errno;    /* why it is not */
};

void ts_counters_open(struct ts_counters *c);
/* The thread's totals so far (getrusage(RUSAGE_THREAD) and the perf event; -1 migrations
 * when unavailable). */
void ts_counters_read(const struct ts_counters *c, struct ts_counter_row *out);
void ts_counters_close(struct ts_counters *c);

/* after - before, field by field (migrations stay -1 when unknown). */
void ts_counters_delta(const struct ts_counter_row *before, const struct ts_counter_row *after,
                       struct ts_counter_row *delta);

/* "perf_event_open (software event)" or "unavailable: <strerror>". */
void ts_counters_source(const struct ts_counters *c, char *buf, size_t len);

#endif

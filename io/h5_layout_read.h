/* Reading where a run ran (docs/hdf5-schema.md: /topology, /threads/table, /placement's pages
 * per thread and node), internal to ts_io: the part of the schema walk (ts_run_read.c) the HTML
 * report needs to draw the machine and the threads on it. */
#ifndef TOUCHSTONE_IO_H5_LAYOUT_READ_H
#define TOUCHSTONE_IO_H5_LAYOUT_READ_H

#include "h5_reader.h"
#include "ts_run_read.h"

/* s->topology, s->threads, s->place_node_ids and s->thread_node_pages, each checked against
 * what s holds already (n_threads, has_placement, schema_version, the ranks) and against each
 * other: bounded counts, distinct node numbers, cores and threads on nodes the machine has.
 * An item the file lacks stays empty (0 and NULL). TS_BAD_INPUT with the path in r. */
int h5r_read_layout(struct h5r *r, struct ts_run_summary *s);

#endif

/* The writers of the schema's parts (docs/hdf5-schema.md), one per group, internal to ts_io.
 * Each gets the already created group (or the file, for root-level parts) and returns
 * nonzero after filling w->err. */
#ifndef TOUCHSTONE_IO_H5_PARTS_H
#define TOUCHSTONE_IO_H5_PARTS_H

#include "h5_util.h"

typedef int h5w_part_fn(struct h5w *w, hid_t loc, const struct ts_record *rec);

h5w_part_fn h5w_write_root, h5w_write_config, h5w_write_environment, h5w_write_topology, h5w_write_threads,
    h5w_write_timings, h5w_write_results, h5w_write_verification, h5w_write_field, h5w_write_warnings,
    h5w_write_placement, h5w_write_counters, h5w_write_job, h5w_write_summary, h5w_write_mpi;

/* Last, once every other part is in the in-memory file: /timings/write set to the time since
 * rec->timings->write_from (nothing when it is 0), the most of the writing a file can hold. */
int h5w_write_timings_write(struct h5w *w, hid_t file, const struct ts_record *rec);

/* Counts and their arrays agree, required parts are there: checked before any file exists. */
int h5w_check_record(const struct ts_record *rec, const char *final_path, struct ts_error *err);

#endif

/* Writing a run's HDF5 file. */
#ifndef TOUCHSTONE_IO_TS_H5_WRITE_H
#define TOUCHSTONE_IO_TS_H5_WRITE_H

#include "ts_error.h"
#include "ts_file_place.h"
#include "ts_record.h"

/* Before a run starts: checks that final_path names nothing or a regular file (not a device,
 * FIFO, directory, socket or symbolic link) and that a file can be created next to it (the
 * directory exists and is writable) by creating and removing a probe file. TS_BAD_INPUT with
 * the path and what it is, or the status of the errno (ts_file_status) with its text,
 * otherwise. */
int ts_output_check(const char *final_path, struct ts_error *err);

/* Writes rec atomically: everything goes to a temporary file next to place->path, which is
 * flushed, synced and then given its name as place says (ts_file_place: without replacing
 * another file unless allowed). On any failure the temporary file is removed, the final name
 * is untouched, and err says what failed: TS_IO_ERROR (or the status ts_file_status gives its
 * errno) for the file system, TS_RESOURCE_ERROR for memory, TS_INTERNAL_ERROR for a record
 * that does not add up. */
int ts_record_write_placed(const struct ts_record *rec, struct ts_place *place, struct ts_error *err);

/* The same, renamed over whatever regular file is at final_path (tests, tools). */
int ts_record_write(const struct ts_record *rec, const char *final_path, struct ts_error *err);

#endif

/* Writing a run's HDF5 file. */
#ifndef TS_H5_WRITE_H
#define TS_H5_WRITE_H

#include "ts_error.h"
#include "ts_record.h"

/* Before a run starts: checks that a file can be created next to final_path (the directory
 * exists and is writable) by creating and removing a probe file. TS_BAD_INPUT with the path
 * and the errno text otherwise. */
int ts_output_check(const char *final_path, struct ts_error *err);

/* Writes rec to final_path atomically: everything goes to a temporary file in the same
 * directory, which is flushed, synced and renamed over final_path at the end. On any failure
 * the temporary file is removed, final_path is untouched, and err says what failed
 * (TS_BAD_INPUT). */
int ts_record_write(const struct ts_record *rec, const char *final_path, struct ts_error *err);

#endif

/* Writing a run's HDF5 file. */
#ifndef TOUCHSTONE_IO_TS_H5_WRITE_H
#define TOUCHSTONE_IO_TS_H5_WRITE_H

#include <stdint.h>

#include "ts_error.h"
#include "ts_file_place.h"
#include "ts_record.h"

/* Memory HDF5 needs to start a file (its metadata cache, the first increment), with room: the
 * writer makes sure it is there before it starts, so a run counts it in its plan. */
#define TS_H5_WORKING_MEMORY ((size_t)16 << 20)

/* The HDF5 library touchstone writes with, "1.10.8 (parallel)": from its headers, which are the
 * library's own when it is linked statically (cmake/Hdf5.cmake), so that `touchstone --version`
 * starts nothing of HDF5 to say it. */
const char *ts_h5_library_version(void);

/* Before a run starts: checks that final_path names nothing or a regular file (not a device,
 * FIFO, directory, socket or symbolic link) and that a file can be created next to it (the
 * directory exists and is writable) by creating and removing a probe file. TS_BAD_INPUT with
 * the path and what it is, or the status of the errno (ts_file_status) with its text,
 * otherwise. */
int ts_output_check(const char *final_path, struct ts_error *err);

/* A file that several ranks write together (parallel HDF5): rank 0 writes everything but the
 * large datasets' values to the temporary file, then fill runs on rank 0 with that file's name
 * and must return only when every rank has written its block into it (ts_h5_write_blocks, which
 * the other ranks call meanwhile). Only then is the file synced and renamed: a final name never
 * holds a file whose blocks are not all there. */
struct ts_h5_fill {
    int (*fill)(const char *tmp, void *ctx, struct ts_error *err);
    void *ctx;
};

/* What a block's points are, in memory: doubles (the default), integers, or the rows of the
 * per-thread tables (struct ts_thread_rec of /threads/table, struct ts_counter_row of
 * /counters/init and kernel), written as the file's types for them. */
enum ts_h5_item { TS_H5_DOUBLE, TS_H5_INT32, TS_H5_INT64, TS_H5_THREAD_ROW, TS_H5_COUNTER_ROW };

/* One rank's block of a dataset: the dataset's points start .. start + count (z, y, x; a
 * dataset of fewer axes uses the last ones: a 2-D dataset y and x, start[0] = 0 and count[0] =
 * 1, a 1-D one x), taken from this rank's array of local_dims points (z, y, x) at local_start.
 * A rank that holds none of it has a zero count. A rank's rows of a table are the block at row
 * start[1] of count[1] rows (a 2-D dataset [rows][columns]), or at start[2] of count[2] (1-D). */
struct ts_h5_block {
    const char *dataset; /* its path in the file, "/field/u" */
    int rank;            /* of the dataset: 1, 2 or 3 */
    enum ts_h5_item item;
    int64_t start[3], count[3];
    const void *local;
    int64_t local_dims[3], local_start[3];
};

/* Collective over every rank of MPI_COMM_WORLD, MPI started, every rank with the same n and
 * the same datasets in the same order: opens path (the temporary file a ts_h5_fill was given)
 * with MPI-IO, writes each rank's block of each dataset with collective I/O (chunked and
 * filtered datasets need it), flushes (MPI_File_sync) and closes it. TS_IO_ERROR with HDF5's
 * reason on failure; every rank must then learn the others' status before the file is renamed
 * or removed. */
int ts_h5_write_blocks(const char *path, const struct ts_h5_block *blocks, int n, struct ts_error *err);

/* Writes rec atomically: everything goes to a temporary file next to place->path, which is
 * flushed, synced and then given its name as place says (ts_file_place: without replacing
 * another file unless allowed). On any failure the temporary file is removed, the final name
 * is untouched, and err says what failed: TS_IO_ERROR (or the status ts_file_status gives its
 * errno) for the file system, TS_RESOURCE_ERROR for memory, TS_INTERNAL_ERROR for a record
 * that does not add up. With rec->field_later the field's dataset is created empty and fill
 * (not NULL then) has the ranks write it. */
int ts_record_write_placed(const struct ts_record *rec, struct ts_place *place, const struct ts_h5_fill *fill,
                           struct ts_error *err);

/* The same, renamed over whatever regular file is at final_path (tests, tools). */
int ts_record_write(const struct ts_record *rec, const char *final_path, struct ts_error *err);

#endif

/* Reading the ranks of a run back (docs/hdf5-schema.md, "/mpi"), internal to ts_io: the part of
 * the schema walk (ts_run_read.c) that schema 3 added. */
#ifndef TOUCHSTONE_IO_H5_MPI_READ_H
#define TOUCHSTONE_IO_H5_MPI_READ_H

#include "h5_reader.h"
#include "ts_run_read.h"

/* /mpi into s (n_ranks 0 without it) and the rank columns of /threads/table (schema 3 on),
 * checked against each other and against what s holds already (n_threads, n_iterations,
 * schema_version): ranks in order, tiling the thread rows, hosts counted right, per-rank times
 * of every timed iteration that agree with their statistics; each rank's own run-level times
 * from schema 4 on, NaN before. TS_BAD_INPUT with the path in r. */
int h5r_read_mpi(struct h5r *r, struct ts_run_summary *s);

#endif

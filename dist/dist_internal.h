/* What the files of dist/ share and nothing else sees. */
#ifndef TOUCHSTONE_DIST_DIST_INTERNAL_H
#define TOUCHSTONE_DIST_DIST_INTERNAL_H

#include "ts_error.h"

/* Records an MPI failure: what was attempted, with MPI_Error_string of code. */
int ts_dist_mpi_failed(struct ts_error *err, int code, const char *what);

#endif

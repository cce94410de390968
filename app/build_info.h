/* The facts of this build a support desk asks first, printed by `touchstone --version` and
 * recorded in every run file (root attributes build_*, docs/hdf5-schema.md) from this one
 * place: the version, the commit, the compiler, OpenMP, and the MPI and HDF5 libraries. Each
 * comes from where the rest of touchstone takes it: the version from TS_VERSION (a run file's
 * program_version), the MPI library from the call whose line a run under ranks records
 * (ts_dist_library_version), HDF5 from io/ (ts_h5_library_version). */
#ifndef TOUCHSTONE_APP_BUILD_INFO_H
#define TOUCHSTONE_APP_BUILD_INFO_H

#include <stdio.h>

#include "ts_record.h"

/* The facts, as the record's borrowed strings (rec) and the storage of those not constant. */
struct ts_build_info {
    struct ts_build_rec rec;
    char openmp[48];
    char mpi[256];
};

/* The commit the build was configured from (TOUCHSTONE_COMMIT, else git at configure time,
 * docs/building.md), "unknown" for a source tree without git. */
const char *ts_build_commit(void);

/* The compiler that built touchstone, from its own macros: "GCC 12.2.0". */
const char *ts_build_compiler(void);

/* Fills b; its rec points into b, so b must not move while rec is used. Starts nothing (no MPI,
 * no HDF5, no OpenMP threads): MPI_Get_library_version may be called before MPI_Init. */
void ts_build_info_get(struct ts_build_info *b);

/* The --version text: "touchstone VERSION" on the first line, then one "name  value" line per
 * fact of ts_build_info_get. Returns 0, or EOF when a write to out failed (errno says why). */
int ts_build_info_print(FILE *out);

#endif

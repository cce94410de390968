#include "build_info.h"

#include "ts_dist.h"
#include "ts_h5_write.h"

/* Given by app/CMakeLists.txt to this file alone, so that a new commit recompiles one file. */
#ifndef TS_COMMIT
#define TS_COMMIT "unknown"
#endif

const char *ts_build_commit(void)
{
    return TS_COMMIT;
}

const char *ts_build_compiler(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#else
    return "unknown";
#endif
}

/* _OPENMP is the date of the specification the compiler implements; the version is its name. */
static const char *openmp_version(void)
{
#if _OPENMP >= 202011
    return "5.1 or later";
#elif _OPENMP >= 201811
    return "5.0";
#elif _OPENMP >= 201511
    return "4.5";
#elif _OPENMP >= 201307
    return "4.0";
#else
    return "3.1 or earlier";
#endif
}

void ts_build_info_get(struct ts_build_info *b)
{
    snprintf(b->openmp, sizeof b->openmp, "%s (_OPENMP %d)", openmp_version(), (int)_OPENMP);
    ts_dist_library_version(b->mpi, sizeof b->mpi);
    b->rec = (struct ts_build_rec){ .commit = ts_build_commit(),
                                    .compiler = ts_build_compiler(),
                                    .openmp = b->openmp,
                                    .mpi = b->mpi,
                                    .hdf5 = ts_h5_library_version() };
}

int ts_build_info_print(FILE *out)
{
    struct ts_build_info b;
    ts_build_info_get(&b);
    /* One fprintf: one place where a failed write is seen. */
    int n = fprintf(out,
                    "touchstone %s\n"
                    "commit    %s\n"
                    "compiler  %s\n"
                    "OpenMP    %s\n"
                    "MPI       %s\n"
                    "HDF5      %s\n",
                    TS_VERSION, b.rec.commit, b.rec.compiler, b.rec.openmp, b.rec.mpi, b.rec.hdf5);
    return n < 0 ? EOF : 0;
}

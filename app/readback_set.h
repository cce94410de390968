/* The run files a compare, report or plot command works on, read and validated. */
#ifndef TOUCHSTONE_APP_READBACK_SET_H
#define TOUCHSTONE_APP_READBACK_SET_H

#include <stddef.h>

#include "readback_stats.h"
#include "ts_error.h"
#include "ts_run_read.h"

struct ts_run_set {
    struct ts_run_summary *runs;
    struct ts_run_stats *stats; /* one per run */
    size_t n, cap;
};

/* Reads every argument in order. With allow_dirs, an argument that is a directory stands for
 * its *.h5 files (not recursive, dot files left out as the shell's glob does), in name order;
 * there, checkpoints and other programs' HDF5 files are skipped with a note on stderr, but a
 * damaged run file stops everything: a scaling table must not lose a run silently. A file
 * named on the command line is never skipped. cmd prefixes messages about the arguments. */
int ts_run_set_load(struct ts_run_set *set, char *const *args, int n_args, int allow_dirs, const char *cmd,
                    struct ts_error *err);

/* How many files ts_run_set_load would read for one argument, without reading any: 1 for a
 * file, the *.h5 names of a directory (a bound on its run files: checkpoints are skipped later). */
size_t ts_run_set_candidates(const char *arg);

void ts_run_set_free(struct ts_run_set *set);

#endif

/* The ranks of a run file read back (the /mpi part of struct ts_run_summary) as `touchstone
 * show` prints them: an aligned text section and a JSON object. Renderers only. */
#ifndef TOUCHSTONE_IO_TS_RUN_RANKS_H
#define TOUCHSTONE_IO_TS_RUN_RANKS_H

#include <stdio.h>

#include <jansson.h>

#include "ts_run_read.h"

/* "[0, 334)" for a 1-D kernel, "x [1, 3) y [1, 5)" (and z for stencil3d) for a grid: what rank k
 * owns of the problem. */
void ts_rank_owns_text(const struct ts_run_summary *s, int32_t k, char *buf, size_t size);

/* A blank line, then the ranks: the world (size, hosts, decomposition, MPI library, launcher) and
 * one row per rank (rank, host, local rank, threads, what it owns, its partial, its time per
 * iteration min/median/max, its halo seconds). Prints nothing for a run without /mpi. */
void ts_ranks_print(const struct ts_run_summary *s, FILE *out);

/* The same as one JSON object (a new reference), JSON null without /mpi; NULL when memory ran
 * out. Times in seconds, keys ending in _s; NaN (not measured) as null. */
json_t *ts_ranks_json(const struct ts_run_summary *s);

#endif

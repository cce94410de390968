/* Under a launcher, before anything is allocated: every rank must run the same job. A wrapper
 * that gives one rank another config key, another binary or another restart file would
 * otherwise hang the job in a collective, fail in the halo exchange or write a file of mixed
 * runs. The whole job refuses instead, naming what differs. */
#ifndef TOUCHSTONE_APP_SAME_JOB_H
#define TOUCHSTONE_APP_SAME_JOB_H

#include <stddef.h>

#include "launch.h"
#include "ts_cli.h"
#include "ts_config.h"
#include "ts_error.h"

/* What makes this rank's job: one "name\tvalue\n" line per fact (the binary's version and
 * build id, the command, every config key's resolved value, the restart file's identity),
 * malloc'd. NULL when memory runs out. */
char *ts_same_job_text(const struct ts_config *cfg, const struct ts_cli *cli);

/* The facts that differ between two such texts, as "name: A on rank 0, B on rank R" lines
 * joined by "; " in out (truncated to len, "..." at the end when some did not fit); returns
 * how many differ. */
int ts_same_job_differences(const char *rank0, const char *other, int other_rank, char *out, size_t len);

/* Collective: rank 0's job text to every rank, each compares its own; when a rank differs, the
 * first of them broadcasts its text and every rank fails alike (TS_BAD_INPUT, launch->agreed: rank
 * 0 prints the message once). One rank, or not launched: TS_OK without an MPI call. */
int ts_same_job_check(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_launch *launch,
                      struct ts_error *err);

#endif

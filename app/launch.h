/* The ranks around a command, for main: MPI started once the process is bound (after the
 * binding re-execution, which must happen before MPI_Init), and the end of main under a
 * launcher: which rank prints an error, MPI finalised, or the job aborted when one rank failed
 * alone. */
#ifndef TOUCHSTONE_APP_LAUNCH_H
#define TOUCHSTONE_APP_LAUNCH_H

#include "ts_dist.h"
#include "ts_error.h"

struct ts_launch {
    struct ts_dist dist;
    int agreed; /* the error is the same on every rank, reached together: rank 0 prints it, all finalise */
};

/* ts_dist_start: MPI when a launcher started this process, nothing otherwise. Call after
 * ts_binding_apply. Its errors are this rank's own. */
int ts_launch_start(struct ts_launch *l, struct ts_error *err);

/* At the end of main, before the error is printed: MPI_Finalize on every normal path and on
 * agreed errors. An error of this rank alone in a world of several keeps MPI up for
 * ts_launch_abort. Returns status, or TS_INTERNAL_ERROR when MPI_Finalize fails after a success. */
int ts_launch_finish(struct ts_launch *l, int status, struct ts_error *err);

/* What an error message of this rank starts with: "" when not launched, on one rank or for an
 * agreed error on rank 0; "rank R of N (host): " for an error of this rank alone; NULL when
 * another rank prints it (an agreed error, rank > 0). */
const char *ts_launch_who(const struct ts_launch *l, char *buf, size_t len);

/* The process's exit status for status: ts_exit_status, but 0 on the ranks other than 0 for an
 * agreed error. Rank 0 carries the job's status and its message: a rank that exits non-zero
 * first makes mpirun end the others, and could end rank 0 before its message is out. */
int ts_launch_exit_status(const struct ts_launch *l, int status);

/* After the message: when ts_launch_finish kept MPI up (this rank failed alone), MPI_Abort
 * with the exit status, so that the other ranks do not wait for this one forever; returns
 * at once otherwise. */
void ts_launch_abort(struct ts_launch *l, int exit_status);

#endif

#include "launch.h"

#include <stdio.h>

#include "slurm_step.h"

int ts_launch_start(struct ts_launch *l, struct ts_error *err)
{
    l->agreed = 0;
    int status = ts_dist_start(&l->dist, err);
    char why[700]; /* a step of tasks that MPI did not join: each would run alone, say so once */
    if (status == TS_OK && ts_slurm_step_unjoined(&l->dist, why, sizeof why))
        fprintf(stderr, "touchstone: warning: %s\n", why);
    return status;
}

/* This rank failed and the others may not know: they could wait for it in a collective. */
static int failed_alone(const struct ts_launch *l, int status)
{
    return l->dist.started && l->dist.size > 1 && ts_status_is_error(status) && !l->agreed;
}

int ts_launch_finish(struct ts_launch *l, int status, struct ts_error *err)
{
    if (!l->dist.started || failed_alone(l, status))
        return status;
    struct ts_error fin;
    ts_error_clear(&fin);
    if (ts_dist_finish(&l->dist, &fin) == TS_OK || ts_status_is_error(status))
        return status;
    *err = fin;
    return fin.status;
}

const char *ts_launch_who(const struct ts_launch *l, char *buf, size_t len)
{
    if (l->dist.size <= 1)
        return "";
    if (l->agreed)
        return l->dist.rank == 0 ? "" : NULL;
    snprintf(buf, len, "rank %d of %d (%s): ", l->dist.rank, l->dist.size, l->dist.host);
    return buf;
}

int ts_launch_exit_status(const struct ts_launch *l, int status)
{
    if (l->agreed && l->dist.size > 1 && l->dist.rank != 0)
        return 0;
    return ts_exit_status(status);
}

void ts_launch_abort(struct ts_launch *l, int exit_status)
{
    ts_dist_abort(&l->dist, exit_status);
}

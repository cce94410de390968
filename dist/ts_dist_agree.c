#include "ts_dist_agree.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

int ts_dist_first_flagged(const struct ts_dist *d, int flag, int *first, int *count, struct ts_error *err)
{
    *first = flag ? d->rank : -1;
    *count = flag != 0;
    if (!d->started)
        return TS_OK;
    /* The lowest flagged rank as the largest of size - rank: one reduction serves both. */
    int mine[2] = { flag ? d->size - d->rank : 0, flag != 0 }, largest[2], total[2];
    int code = MPI_Allreduce(mine, largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (code == MPI_SUCCESS && largest[0] > 0)
        code = MPI_Allreduce(mine + 1, total + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "agreeing across ranks (MPI_Allreduce)");
    *first = largest[0] > 0 ? d->size - largest[0] : -1;
    *count = largest[0] > 0 ? total[1] : 0;
    return TS_OK;
}

int ts_dist_bcast_text(const struct ts_dist *d, int root, const char *mine, char **text, struct ts_error *err)
{
    *text = NULL;
    if (!d->started) {
        *text = strdup(mine);
        return *text ? TS_OK : ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot copy a text");
    }
    /* The length first: every rank allocates, and all learn whether one could not. */
    long long len = d->rank == root ? (long long)strlen(mine) : 0;
    int code = MPI_Bcast(&len, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "broadcasting a text's length (MPI_Bcast)");
    if (len >= INT_MAX)
        return ts_fail(err, TS_INTERNAL_ERROR, "rank %d's text of %lld bytes is more than MPI_Bcast takes", root, len);
    char *buf = malloc((size_t)len + 1);
    int short_of_memory = buf == NULL, anyone_short = 0;
    code = MPI_Allreduce(&short_of_memory, &anyone_short, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (code == MPI_SUCCESS && !anyone_short) {
        if (d->rank == root)
            memcpy(buf, mine, (size_t)len);
        code = MPI_Bcast(buf, (int)len, MPI_CHAR, root, MPI_COMM_WORLD);
    }
    if (code != MPI_SUCCESS || anyone_short) {
        free(buf);
        return code != MPI_SUCCESS ? ts_dist_mpi_failed(err, code, "broadcasting a text (MPI_Bcast)")
                                   : ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM,
                                                   "a rank cannot hold rank %d's text of %lld bytes", root, len);
    }
    buf[len] = '\0';
    *text = buf;
    return TS_OK;
}

struct ts_dist_vote {
    MPI_Request request;
    int mine, largest;
};

int ts_dist_vote_post(const struct ts_dist *d, int value, struct ts_dist_vote **v, struct ts_error *err)
{
    *v = NULL;
    if (!d->started)
        return TS_OK;
    struct ts_dist_vote *vote = malloc(sizeof *vote);
    if (!vote)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot post a vote across ranks");
    vote->mine = value;
    int code = MPI_Iallreduce(&vote->mine, &vote->largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &vote->request);
    if (code != MPI_SUCCESS) {
        free(vote);
        return ts_dist_mpi_failed(err, code, "posting a vote across ranks (MPI_Iallreduce)");
    }
    *v = vote;
    return TS_OK;
}

int ts_dist_vote_read(const struct ts_dist *d, struct ts_dist_vote **v, int *largest, struct ts_error *err)
{
    (void)d;
    *largest = 0;
    if (!*v)
        return TS_OK;
    int code = MPI_Wait(&(*v)->request, MPI_STATUS_IGNORE);
    *largest = (*v)->largest;
    free(*v);
    *v = NULL;
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "reading a vote across ranks (MPI_Wait)");
}

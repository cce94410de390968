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
    /* The lowest flagged rank as the largest of size - rank; the count only when one is. */
    int lowest = 0;
    int status = ts_dist_max(d, flag ? d->size - d->rank : 0, &lowest, err);
    int64_t flagged = flag != 0;
    if (status == TS_OK && lowest > 0)
        status = ts_dist_sum_i64(d, &flagged, &flagged, 1, err);
    *first = status == TS_OK && lowest > 0 ? d->size - lowest : -1;
    *count = *first >= 0 ? (int)flagged : 0;
    return status;
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
    int status = ts_dist_bcast_from(d, root, &len, sizeof len, err);
    if (status != TS_OK)
        return status;
    if (len >= INT_MAX)
        return ts_fail(err, TS_INTERNAL_ERROR, "rank %d's text of %lld bytes is more than MPI_Bcast takes", root, len);
    char *buf = malloc((size_t)len + 1);
    int anyone_short = 0;
    status = ts_dist_max(d, buf == NULL, &anyone_short, err);
    if (status == TS_OK && anyone_short)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "a rank cannot hold rank %d's text of %lld bytes", root,
                               len);
    if (status == TS_OK && d->rank == root)
        memcpy(buf, mine, (size_t)len);
    if (status == TS_OK)
        status = ts_dist_bcast_from(d, root, buf, (size_t)len, err);
    if (status != TS_OK) {
        free(buf);
        return status;
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

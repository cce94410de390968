#include "ts_dist_merge.h"

#include "dist_internal.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* The tag of the tree's messages: no other point-to-point message on MPI_COMM_WORLD uses it. */
enum { MERGE_TAG = 2424 };

/* One message: '0' and the block's text, or '1' alone when a rank of the block failed. */
static int send_up(int parent, const char *acc, int failed)
{
    size_t n = failed || !acc ? 0 : strlen(acc);
    if (n >= INT_MAX)
        failed = 1, n = 0;
    char *msg = malloc(n + 1);
    if (!msg) {
        char one = '1';
        return MPI_Send(&one, 1, MPI_CHAR, parent, MERGE_TAG, MPI_COMM_WORLD);
    }
    msg[0] = failed ? '1' : '0';
    memcpy(msg + 1, acc, n);
    int code = MPI_Send(msg, (int)n + 1, MPI_CHAR, parent, MERGE_TAG, MPI_COMM_WORLD);
    free(msg);
    return code;
}

/* The block of child, joined after acc's. A message with no room for it is still received
 * (truncated to nothing) so that the child does not wait; then *failed. */
static int take_in(int child, char **acc, int *failed, ts_dist_text_join join, void *ctx)
{
    MPI_Message handle;
    MPI_Status status;
    int code = MPI_Mprobe(child, MERGE_TAG, MPI_COMM_WORLD, &handle, &status);
    int n = 0;
    if (code == MPI_SUCCESS)
        code = MPI_Get_count(&status, MPI_CHAR, &n);
    if (code != MPI_SUCCESS)
        return code;
    char *in = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (!in) {
        char none;
        *failed = 1;
        MPI_Mrecv(&none, 0, MPI_CHAR, &handle, MPI_STATUS_IGNORE); /* truncated: its error is expected */
        return MPI_SUCCESS;
    }
    code = MPI_Mrecv(in, n, MPI_CHAR, &handle, MPI_STATUS_IGNORE);
    in[n] = '\0';
    if (code == MPI_SUCCESS && (in[0] != '0' || *failed)) {
        *failed = 1;
    } else if (code == MPI_SUCCESS) {
        char *joined = join(ctx, *acc, in + 1);
        free(*acc);
        *acc = joined;
        *failed = !joined;
    }
    free(in);
    return code;
}

int ts_dist_merge_text(const struct ts_dist *d, const char *text, ts_dist_text_join join, void *ctx, char **all,
                       struct ts_error *err)
{
    *all = NULL;
    char *acc = text ? strdup(text) : NULL;
    if (!d->started) {
        *all = acc;
        return acc ? TS_OK : ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "no text to merge");
    }
    int failed = !acc, code = MPI_SUCCESS;
    /* At step s, the ranks with bit s set send their block (ranks r .. r + s - 1) to r - s. */
    for (int step = 1; step < d->size && code == MPI_SUCCESS; step <<= 1) {
        if (d->rank & step) {
            code = send_up(d->rank - step, acc, failed);
            break;
        }
        if (d->rank + step < d->size)
            code = take_in(d->rank + step, &acc, &failed, join, ctx);
    }
    if (code != MPI_SUCCESS) {
        free(acc);
        return ts_dist_mpi_failed(err, code, "merging the ranks' text (MPI_Send/MPI_Mrecv)");
    }
    if (d->rank != 0) {
        free(acc);
        return TS_OK;
    }
    if (failed) {
        free(acc);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot merge the text of %d ranks", d->size);
    }
    *all = acc;
    return TS_OK;
}

/* Small reductions every rank takes part in and every rank gets the answer of (ts_dist.h):
 * what a rank 0 gathering one row per rank and looping over them would compute, in
 * O(log ranks) and without rank 0 holding anything per rank. */
#include "ts_dist.h"

#include "dist_internal.h"
#include "ts_dist_agree.h"

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>

/* out[i] = op over every rank's values[i], i < n, of item bytes each (values and out may be
 * the same array). Not started: the values. MPI counts are int: a longer array (a step time
 * per iteration of a long run) goes in pieces of at most INT_MAX items, every rank cutting
 * alike. */
static int allreduce(const struct ts_dist *d, const void *values, void *out, size_t n, size_t item,
                     MPI_Datatype type, MPI_Op op, const char *what, struct ts_error *err)
{
    if (!d->started) {
        memmove(out, values, n * item);
        return TS_OK;
    }
    for (size_t done = 0; done < n;) {
        const size_t piece = n - done < (size_t)INT_MAX ? n - done : (size_t)INT_MAX;
        char *to = (char *)out + done * item;
        const void *send = values == out ? MPI_IN_PLACE : (const char *)values + done * item;
        int code = MPI_Allreduce(send, to, (int)piece, type, op, MPI_COMM_WORLD);
        if (code != MPI_SUCCESS)
            return ts_dist_mpi_failed(err, code, what);
        done += piece;
    }
    return TS_OK;
}

int ts_dist_sum_i64(const struct ts_dist *d, const int64_t *values, int64_t *sums, int n, struct ts_error *err)
{
    return allreduce(d, values, sums, (size_t)n, sizeof *sums, MPI_INT64_T, MPI_SUM, "summing across ranks (MPI_Allreduce)",
                     err);
}

int ts_dist_sum_u64(const struct ts_dist *d, const uint64_t *values, uint64_t *sums, int n, struct ts_error *err)
{
    return allreduce(d, values, sums, (size_t)n, sizeof *sums, MPI_UINT64_T, MPI_SUM,
                     "summing across ranks (MPI_Allreduce)", err);
}

int ts_dist_max_double(const struct ts_dist *d, const double *values, double *largest, size_t n,
                       struct ts_error *err)
{
    return allreduce(d, values, largest, n, sizeof *largest, MPI_DOUBLE, MPI_MAX,
                     "the largest across ranks (MPI_Allreduce)", err);
}

int ts_dist_sum_double(const struct ts_dist *d, const double *values, double *sums, int n, struct ts_error *err)
{
    return allreduce(d, values, sums, (size_t)n, sizeof *sums, MPI_DOUBLE, MPI_SUM, "summing across ranks (MPI_Allreduce)",
                     err);
}

int ts_dist_rows_before(const struct ts_dist *d, int64_t rows, int64_t *first, int64_t *total, struct ts_error *err)
{
    *first = 0;
    *total = rows;
    if (!d->started)
        return TS_OK;
    /* MPI_Exscan leaves rank 0's result undefined: it keeps its 0. */
    int64_t before = 0;
    int code = MPI_Exscan(&rows, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "the rows of the ranks before this one (MPI_Exscan)");
    if (d->rank > 0)
        *first = before;
    return allreduce(d, &rows, total, 1, sizeof *total, MPI_INT64_T, MPI_SUM, "the rows of every rank (MPI_Allreduce)",
                     err);
}

int ts_dist_first_double(const struct ts_dist *d, int has, double value, double *first, int *from, struct ts_error *err)
{
    /* The lowest rank that has one, then its value from it as bytes: the same bits everywhere. */
    int count = 0;
    *first = value;
    int status = ts_dist_first_flagged(d, has, from, &count, err);
    if (status == TS_OK && *from >= 0)
        status = ts_dist_bcast_from(d, *from, first, sizeof *first, err);
    return status;
}

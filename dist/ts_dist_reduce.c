/* Small reductions every rank takes part in and every rank gets the answer of (ts_dist.h):
 * what a rank 0 gathering one row per rank and looping over them would compute, in
 * O(log ranks) and without rank 0 holding anything per rank. */
#include "ts_dist.h"

#include "dist_internal.h"
#include "ts_dist_agree.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>

/* out[i] = op over every rank's values[i], i < n, of item bytes each (values and out may be
 * the same array). Not started: the values. */
static int allreduce(const struct ts_dist *d, const void *values, void *out, int n, size_t item, MPI_Datatype type,
                     MPI_Op op, const char *what, struct ts_error *err)
{
    if (!d->started) {
        memmove(out, values, (size_t)n * item);
        return TS_OK;
    }
    const void *send = values == out ? MPI_IN_PLACE : values;
    int code = MPI_Allreduce(send, out, n, type, op, MPI_COMM_WORLD);
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, what);
}

int ts_dist_sum_i64(const struct ts_dist *d, const int64_t *values, int64_t *sums, int n, struct ts_error *err)
{
    return allreduce(d, values, sums, n, sizeof *sums, MPI_INT64_T, MPI_SUM, "summing across ranks (MPI_Allreduce)",
                     err);
}

int ts_dist_sum_u64(const struct ts_dist *d, const uint64_t *values, uint64_t *sums, int n, struct ts_error *err)
{
    return allreduce(d, values, sums, n, sizeof *sums, MPI_UINT64_T, MPI_SUM,
                     "summing across ranks modulo 2^64 (MPI_Allreduce)", err);
}

int ts_dist_max_double(const struct ts_dist *d, const double *values, double *largest, int n, struct ts_error *err)
{
    return allreduce(d, values, largest, n, sizeof *largest, MPI_DOUBLE, MPI_MAX,
                     "the largest across ranks (MPI_Allreduce)", err);
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

/* Small reductions every rank takes part in and every rank gets the answer of (ts_dist.h):
 * what a rank 0 gathering one row per rank and looping over them would compute, in
 * O(log ranks) and without rank 0 holding anything per rank. */
#include "ts_dist.h"

#include "dist_internal.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>

int ts_dist_sum_i64(const struct ts_dist *d, const int64_t *values, int64_t *sums, int n, struct ts_error *err)
{
    if (!d->started) {
        memmove(sums, values, (size_t)n * sizeof *sums);
        return TS_OK;
    }
    const void *send = values == sums ? MPI_IN_PLACE : (const void *)values;
    int code = MPI_Allreduce(send, sums, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "summing across ranks (MPI_Allreduce)");
}

int ts_dist_max_double(const struct ts_dist *d, const double *values, double *largest, int n, struct ts_error *err)
{
    if (!d->started) {
        memmove(largest, values, (size_t)n * sizeof *largest);
        return TS_OK;
    }
    const void *send = values == largest ? MPI_IN_PLACE : (const void *)values;
    int code = MPI_Allreduce(send, largest, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "the largest across ranks (MPI_Allreduce)");
}

/* A rank's offer to ts_dist_first_double: the lowest rank wins, INT64_MAX offers nothing. */
struct offer {
    int64_t rank;
    double value;
};

/* MPI's user operation: inout[i] = the lower-ranked of in[i] and inout[i]. Choosing the lower
 * rank is commutative and associative, so any tree MPI builds picks the same offer, and the
 * value travels as it was written, never through arithmetic. */
static void lowest_rank(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const struct offer *a = in;
    struct offer *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i].rank < b[i].rank)
            b[i] = a[i];
}

int ts_dist_first_double(const struct ts_dist *d, int has, double value, double *first, int *from, struct ts_error *err)
{
    *first = value;
    *from = has ? d->rank : -1;
    if (!d->started)
        return TS_OK;
    struct offer mine = { has ? d->rank : INT64_MAX, value }, best = mine;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    int code = MPI_Type_contiguous((int)sizeof mine, MPI_BYTE, &type);
    if (code == MPI_SUCCESS)
        code = MPI_Type_commit(&type);
    if (code == MPI_SUCCESS)
        code = MPI_Op_create(lowest_rank, 1, &op);
    if (code == MPI_SUCCESS)
        code = MPI_Allreduce(&mine, &best, 1, type, op, MPI_COMM_WORLD);
    if (op != MPI_OP_NULL)
        MPI_Op_free(&op);
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "the first rank's value (MPI_Allreduce)");
    if (best.rank != INT64_MAX) {
        *first = best.value;
        *from = (int)best.rank;
    }
    return TS_OK;
}

/* The exact sum across ranks as one MPI_Allreduce (ts_dist_xsum.h says why the result cannot
 * depend on the tree MPI builds). */
#include "ts_dist_xsum.h"

#include "dist_internal.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>

/* The bytes MPI moves are the whole accumulator: a field added to it must be plain data too
 * (no pointer, no padding that differs), and this assertion makes whoever adds one look here. */
_Static_assert(sizeof(struct ts_xsum) == (TS_XSUM_LIMBS + 1) * sizeof(int64_t) + sizeof(double),
               "struct ts_xsum changed: check it is still plain data that can travel as bytes");

void ts_dist_xsum_merge_op(const struct ts_xsum *in, struct ts_xsum *inout, int len)
{
    for (int i = 0; i < len; i++) {
        /* ts_xsum_merge normalises its second argument in place; MPI's in buffer may be a
         * rank's send buffer, which it does not expect to change. */
        struct ts_xsum other = in[i];
        ts_xsum_merge(&inout[i], &other);
        if (isnan(inout[i].special))
            inout[i].special = NAN;
    }
}

static void merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    ts_dist_xsum_merge_op(in, inout, *len);
}

int ts_dist_xsum_allreduce(const struct ts_dist *d, struct ts_xsum *acc, struct ts_error *err)
{
    if (!d->started)
        return TS_OK;
    struct ts_xsum mine = *acc;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    int code = MPI_Type_contiguous((int)sizeof mine, MPI_BYTE, &type);
    if (code == MPI_SUCCESS)
        code = MPI_Type_commit(&type);
    if (code == MPI_SUCCESS)
        code = MPI_Op_create(merge_op, 1, &op); /* commutative: MPI may merge in any order */
    if (code == MPI_SUCCESS)
        code = MPI_Allreduce(&mine, acc, 1, type, op, MPI_COMM_WORLD);
    if (op != MPI_OP_NULL)
        MPI_Op_free(&op);
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type);
    if (code != MPI_SUCCESS) {
        *acc = mine;
        return ts_dist_mpi_failed(err, code, "merging the ranks' exact sums (MPI_Allreduce)");
    }
    /* Ranks that merged the same partials in other groupings hold the same exact value in
     * other digits until they are normalised (ts_xsum_round does it in place); a one-rank
     * world's bytes never met the operation. */
    ts_xsum_round(acc);
    if (isnan(acc->special))
        acc->special = NAN;
    return TS_OK;
}

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

/* The buffer ts_dist_head reduces: its shape, then a flag per slot, then the slots. Each slot
 * is held by one rank at most, so merging two buffers is taking the flagged slots of each: an
 * operation that commutes, whatever tree MPI reduces along. */
struct head_shape {
    uint64_t item, want;
};

static void merge_heads(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    struct head_shape s;
    memcpy(&s, in, sizeof s);
    const size_t size = sizeof s + s.want * (1 + s.item);
    for (int i = 0; i < *len; i++) {
        const unsigned char *from = (const unsigned char *)in + (size_t)i * size;
        unsigned char *to = (unsigned char *)inout + (size_t)i * size;
        for (uint64_t k = 0; k < s.want; k++)
            if (from[sizeof s + k]) {
                to[sizeof s + k] = 1;
                memcpy(to + sizeof s + s.want + k * s.item, from + sizeof s + s.want + k * s.item, s.item);
            }
    }
}

int ts_dist_head(const struct ts_dist *d, const void *mine, size_t item, int64_t first, int64_t n, int want, void *head,
                 struct ts_error *err)
{
    const size_t slots = want > 0 ? (size_t)want : 0;
    if (!d->started) {
        memset(head, 0, slots * item);
        for (int64_t k = first; k < first + n && k < (int64_t)slots; k++)
            memcpy((char *)head + (size_t)k * item, (const char *)mine + (size_t)(k - first) * item, item);
        return TS_OK;
    }
    const struct head_shape s = { item, slots };
    const size_t size = sizeof s + slots * (1 + item);
    if (size > INT_MAX)
        return ts_fail(err, TS_INTERNAL_ERROR, "rank %d: a head of %zu bytes, more than MPI_Reduce takes", d->rank,
                       size);
    unsigned char buf[2][sizeof s + 8 * (1 + 1024)];
    if (size > sizeof buf[0])
        return ts_fail(err, TS_INTERNAL_ERROR, "rank %d: a head of %d items of %zu bytes, more than kept", d->rank,
                       want, item);
    memset(buf, 0, sizeof buf);
    memcpy(buf[0], &s, sizeof s);
    for (int64_t k = first; k < first + n && k < (int64_t)slots; k++) {
        buf[0][sizeof s + (size_t)k] = 1;
        memcpy(buf[0] + sizeof s + slots + (size_t)k * item, (const char *)mine + (size_t)(k - first) * item, item);
    }
    MPI_Datatype type;
    MPI_Op op;
    int code = MPI_Type_contiguous((int)size, MPI_BYTE, &type);
    if (code == MPI_SUCCESS && (code = MPI_Type_commit(&type)) == MPI_SUCCESS) {
        if ((code = MPI_Op_create(merge_heads, 1, &op)) == MPI_SUCCESS) {
            code = MPI_Reduce(buf[0], buf[1], 1, type, op, 0, MPI_COMM_WORLD);
            MPI_Op_free(&op);
        }
        MPI_Type_free(&type);
    }
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "the first rows of every rank's (MPI_Reduce)");
    if (d->rank == 0) /* a slot no rank holds is zero in every buffer, so in the result */
        memcpy(head, buf[1] + sizeof s + slots, slots * item);
    return TS_OK;
}

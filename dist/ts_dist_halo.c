#include "ts_dist_halo.h"

#include <errno.h>
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

struct ts_dist_halo {
    int started;
    MPI_Comm cart;
    struct ts_decomp_block block;
    struct ts_decomp_face send[TS_DIR_COUNT], recv[TS_DIR_COUNT];
    double *send_buf[TS_DIR_COUNT], *recv_buf[TS_DIR_COUNT];
    /* Rows (x-runs of a face) of every face laid end to end, so one loop shares them all among
     * the threads: dir's rows are [send_rows[dir], send_rows[dir + 1]). */
    int64_t send_rows[TS_DIR_COUNT + 1], recv_rows[TS_DIR_COUNT + 1];
    int rounds, round_dirs[3][2]; /* ts_decomp_rounds: round r's faces are dirs [round_dirs[r][0], [1]) */
    int round;                    /* the round posted last: what unpack copies */
    MPI_Request requests[2 * TS_DIR_COUNT]; /* of the exchange posted and not yet waited for */
    int n_requests;
    int failed; /* the last post or wait failed: set by the master, read after a barrier */
    int64_t bytes;
};

void ts_dist_halo_destroy(struct ts_dist_halo *h)
{
    if (!h)
        return;
    for (int dir = 0; dir < TS_DIR_COUNT; dir++) {
        free(h->send_buf[dir]);
        free(h->recv_buf[dir]);
    }
    if (h->started && h->cart != MPI_COMM_NULL)
        MPI_Comm_free(&h->cart);
    free(h);
}

/* MPI's view of the rank grid must be the decomposition's: coordinates and neighbours. */
static int check_cart(struct ts_dist_halo *h, const struct ts_decomp *dec, struct ts_error *err)
{
    const struct ts_decomp_block *b = &h->block;
    int rank, mpi_coords[3] = { 0, 0, 0 };
    int code = MPI_Comm_rank(h->cart, &rank);
    if (code == MPI_SUCCESS)
        code = MPI_Cart_coords(h->cart, rank, dec->ndims, mpi_coords);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "MPI_Cart_coords");
    if (rank != b->rank)
        return ts_fail(err, TS_INTERNAL_ERROR, "MPI_Cart_create numbered rank %d as %d", b->rank, rank);
    for (int axis = 0; axis < dec->ndims; axis++) {
        int mpi_axis = dec->ndims - 1 - axis; /* MPI order: slowest axis first */
        int lo, hi;
        code = MPI_Cart_shift(h->cart, mpi_axis, 1, &lo, &hi);
        if (code != MPI_SUCCESS)
            return ts_dist_mpi_failed(err, code, "MPI_Cart_shift");
        lo = lo == MPI_PROC_NULL ? -1 : lo;
        hi = hi == MPI_PROC_NULL ? -1 : hi;
        if (mpi_coords[mpi_axis] != b->coords[axis] || lo != b->neighbour[2 * axis] || hi != b->neighbour[2 * axis + 1])
            return ts_fail(err, TS_INTERNAL_ERROR,
                           "rank %d: MPI's Cartesian grid disagrees with the decomposition along axis %d (coordinate "
                           "%d against %d, neighbours %d/%d against %d/%d)",
                           b->rank, axis, mpi_coords[mpi_axis], b->coords[axis], lo, hi, b->neighbour[2 * axis],
                           b->neighbour[2 * axis + 1]);
    }
    return TS_OK;
}

int ts_dist_halo_create(const struct ts_dist *d, const struct ts_decomp *dec, const struct ts_decomp_block *b,
                        struct ts_dist_halo **out, struct ts_error *err)
{
    struct ts_dist_halo *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the halo exchange");
    h->started = d->started;
    h->cart = MPI_COMM_NULL;
    h->block = *b;
    h->rounds = ts_decomp_rounds(dec);
    for (int r = 0; r < h->rounds; r++)
        ts_decomp_round_dirs(dec, r, &h->round_dirs[r][0], &h->round_dirs[r][1]);
    if (d->started) {
        int cart_dims[3], periods[3] = { 0, 0, 0 };
        ts_decomp_cart_dims(dec, cart_dims);
        int code = MPI_Cart_create(MPI_COMM_WORLD, dec->ndims, cart_dims, periods, 0, &h->cart);
        if (code != MPI_SUCCESS) {
            ts_dist_halo_destroy(h);
            return ts_dist_mpi_failed(err, code, "MPI_Cart_create");
        }
        MPI_Comm_set_errhandler(h->cart, MPI_ERRORS_RETURN);
        if (check_cart(h, dec, err) != TS_OK) {
            ts_dist_halo_destroy(h);
            return err->status;
        }
    }
    for (int dir = 0; dir < 2 * dec->ndims; dir++) {
        if (b->neighbour[dir] < 0)
            continue;
        h->send[dir] = ts_decomp_send_face(b, (enum ts_decomp_dir)dir);
        h->recv[dir] = ts_decomp_recv_face(b, (enum ts_decomp_dir)dir);
        h->send_buf[dir] = malloc((size_t)h->send[dir].elems * sizeof(double));
        h->recv_buf[dir] = malloc((size_t)h->recv[dir].elems * sizeof(double));
        if (!h->send_buf[dir] || !h->recv_buf[dir] || h->send[dir].elems > INT32_MAX) {
            int64_t elems = h->send[dir].elems;
            ts_dist_halo_destroy(h);
            return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the halo buffers (%lld points)",
                                 (long long)elems);
        }
        h->bytes += h->send[dir].elems * (int64_t)sizeof(double);
    }
    for (int dir = 0; dir < TS_DIR_COUNT; dir++) {
        h->send_rows[dir + 1] = h->send_rows[dir] + (h->send_buf[dir] ? h->send[dir].count[1] * h->send[dir].count[2] : 0);
        h->recv_rows[dir + 1] = h->recv_rows[dir] + (h->recv_buf[dir] ? h->recv[dir].count[1] * h->recv[dir].count[2] : 0);
    }
    *out = h;
    return TS_OK;
}

int64_t ts_dist_halo_bytes(const struct ts_dist_halo *h)
{
    return h->bytes;
}

int ts_dist_halo_rounds(const struct ts_dist_halo *h)
{
    return h->rounds;
}

/* This thread's share [*first, *end) of total rows: the static split of the team it runs in
 * (one thread outside a parallel region takes them all). */
static void my_rows(int64_t total, int64_t *first, int64_t *end)
{
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    *first = total * t / n;
    *end = total * (t + 1) / n;
}

/* This thread's rows of round's faces laid end to end (rows[], see struct ts_dist_halo), face
 * by face: pack copies them from grid into the send buffers, else from the receive buffers into
 * grid. Ends in a barrier of the team. */
static void copy_my_rows(struct ts_dist_halo *h, double *grid, int round, int pack)
{
    const int64_t *rows = pack ? h->send_rows : h->recv_rows;
    const int d0 = h->round_dirs[round][0], d1 = h->round_dirs[round][1];
    int64_t first, end;
    my_rows(rows[d1] - rows[d0], &first, &end);
    first += rows[d0];
    end += rows[d0];
    for (int dir = d0; dir < d1; dir++) {
        const int64_t lo = first > rows[dir] ? first : rows[dir], hi = end < rows[dir + 1] ? end : rows[dir + 1];
        if (lo >= hi)
            continue;
        if (pack)
            ts_decomp_pack_rows(grid, &h->send[dir], h->send_buf[dir], lo - rows[dir], hi - rows[dir]);
        else
            ts_decomp_unpack_rows(grid, &h->recv[dir], h->recv_buf[dir], lo - rows[dir], hi - rows[dir]);
    }
#pragma omp barrier
}

void ts_dist_halo_pack(struct ts_dist_halo *h, const double *grid, int round)
{
    if (h->started && round >= 0 && round < h->rounds)
        copy_my_rows(h, (double *)grid, round, 1); /* read only when packing */
}

int ts_dist_halo_post(struct ts_dist_halo *h, int round, struct ts_error *err)
{
    h->failed = 0;
    h->n_requests = 0;
    if (!h->started)
        return TS_OK;
    if (round < 0 || round >= h->rounds) {
        h->failed = 1;
        return ts_fail(err, TS_INTERNAL_ERROR, "halo exchange round %d of %d", round, h->rounds);
    }
    h->round = round;
    const int d0 = h->round_dirs[round][0], d1 = h->round_dirs[round][1];
    int code = MPI_SUCCESS;
    /* What the neighbour across face dir sends is its face dir ^ 1, tagged with that number: two
     * ranks are neighbours across one axis only, so a round's messages never meet another's. */
    for (int dir = d0; dir < d1 && code == MPI_SUCCESS; dir++)
        if (h->recv_buf[dir])
            code = MPI_Irecv(h->recv_buf[dir], (int)h->recv[dir].elems, MPI_DOUBLE, h->block.neighbour[dir], dir ^ 1,
                             h->cart, &h->requests[h->n_requests++]);
    for (int dir = d0; dir < d1 && code == MPI_SUCCESS; dir++)
        if (h->send_buf[dir])
            code = MPI_Isend(h->send_buf[dir], (int)h->send[dir].elems, MPI_DOUBLE, h->block.neighbour[dir], dir,
                             h->cart, &h->requests[h->n_requests++]);
    if (code != MPI_SUCCESS) {
        h->failed = 1;
        return ts_dist_mpi_failed(err, code, "the halo exchange (MPI_Irecv, MPI_Isend)");
    }
    return TS_OK;
}

int ts_dist_halo_wait(struct ts_dist_halo *h, struct ts_error *err)
{
    if (!h->started || h->failed) /* a failed post has told err already */
        return h->failed ? TS_INTERNAL_ERROR : TS_OK;
    const int code = MPI_Waitall(h->n_requests, h->requests, MPI_STATUSES_IGNORE);
    h->n_requests = 0;
    if (code != MPI_SUCCESS) {
        h->failed = 1;
        return ts_dist_mpi_failed(err, code, "the halo exchange (MPI_Waitall)");
    }
    return TS_OK;
}

int ts_dist_halo_unpack(struct ts_dist_halo *h, double *grid)
{
    if (!h->started)
        return TS_OK;
    if (h->failed) /* the buffers hold nothing received */
        return TS_INTERNAL_ERROR;
    copy_my_rows(h, grid, h->round, 0);
    return TS_OK;
}


/* The halo exchange of a stencil run over ranks: the rank grid as an MPI Cartesian
 * communicator (MPI_Cart_create, no reordering, so MPI's numbering is kernels/ts_decomp.h's),
 * and before every iteration each rank's owned faces sent to its neighbours and their faces
 * received into its halos, with non-blocking point-to-point messages of packed faces. The
 * exchange comes in three stages so a team of OpenMP threads shares the copies while only the
 * master speaks MPI (MPI_THREAD_FUNNELED): ts_dist_halo_pack (every thread), ts_dist_halo_post
 * and ts_dist_halo_wait (the master; between them the threads may compute what reads no halo),
 * ts_dist_halo_unpack (every thread), with a barrier before it. Halos deeper than one layer
 * take one such round per axis split among ranks (ts_decomp_rounds), each unpacked before the
 * next is packed: the faces of a later axis carry the halos of the earlier ones, corners
 * included. */
#ifndef TOUCHSTONE_DIST_TS_DIST_HALO_H
#define TOUCHSTONE_DIST_TS_DIST_HALO_H

#include "ts_decomp.h"
#include "ts_dist.h"
#include "ts_error.h"

struct ts_dist_halo;

/* Collective over every rank of d: the Cartesian communicator of dec and this rank's block b,
 * checked against MPI's own coordinates and neighbours (MPI_Cart_coords, MPI_Cart_shift), and
 * the face buffers. TS_INTERNAL_ERROR when MPI fails or disagrees with the decomposition,
 * TS_RESOURCE_ERROR when the buffers cannot be allocated. Not started (one process): a halo
 * with nothing to exchange. */
int ts_dist_halo_create(const struct ts_dist *d, const struct ts_decomp *dec, const struct ts_decomp_block *b,
                        struct ts_dist_halo **out, struct ts_error *err);

/* The rounds of one exchange (ts_decomp_rounds: 1 for halos one layer deep), the same on every
 * rank; round r goes through pack, post, wait and unpack before round r + 1 is packed. */
int ts_dist_halo_rounds(const struct ts_dist_halo *h);

/* Copies the owned faces of round (0 <= round < ts_dist_halo_rounds) of the local array grid
 * (b's local sizes) into the send buffers, the rows of every face shared among the threads:
 * called by every thread of the team (or by one thread outside a parallel region), it ends in
 * a barrier. */
void ts_dist_halo_pack(struct ts_dist_halo *h, const double *grid, int round);

/* Collective among neighbours, after ts_dist_halo_pack, by the thread that called
 * MPI_Init_thread only (MPI_THREAD_FUNNELED): post sends the packed faces and starts receiving
 * the neighbours' into the receive buffers, wait waits for both; a rank may compute what reads
 * no halo between them. TS_INTERNAL_ERROR when a message fails; after a failed post, wait
 * returns TS_INTERNAL_ERROR at once (err was filled by post). The send buffers and the receive
 * buffers must not be touched between them. */
int ts_dist_halo_post(struct ts_dist_halo *h, int round, struct ts_error *err);
int ts_dist_halo_wait(struct ts_dist_halo *h, struct ts_error *err);

/* Copies the received faces of the round posted last into the halo layers of grid: like ts_dist_halo_pack, every
 * thread of the team, after a barrier that follows ts_dist_halo_wait; ends in a barrier.
 * Returns TS_INTERNAL_ERROR on every thread, copying nothing and without the barrier, when
 * the post or the wait failed. */
int ts_dist_halo_unpack(struct ts_dist_halo *h, double *grid);

/* Bytes one exchange (all its rounds) sends from this rank. */
int64_t ts_dist_halo_bytes(const struct ts_dist_halo *h);

void ts_dist_halo_destroy(struct ts_dist_halo *h);

#endif

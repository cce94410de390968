/* The halo exchange of a stencil run over ranks: the rank grid as an MPI Cartesian
 * communicator (MPI_Cart_create, no reordering, so MPI's numbering is kernels/ts_decomp.h's),
 * and before every step each rank's owned faces sent to its neighbours and their faces received
 * into its halos, with non-blocking point-to-point messages of packed faces. */
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

/* Collective among neighbours: fills the halo layers of the local array grid (b's local sizes)
 * with the neighbours' owned faces. Called by the thread that called MPI_Init_thread only
 * (MPI_THREAD_FUNNELED). TS_INTERNAL_ERROR when a message fails. */
int ts_dist_halo_exchange(struct ts_dist_halo *h, double *grid, struct ts_error *err);

/* Bytes one exchange sends from this rank. */
int64_t ts_dist_halo_bytes(const struct ts_dist_halo *h);

void ts_dist_halo_destroy(struct ts_dist_halo *h);

#endif

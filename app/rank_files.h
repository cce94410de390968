/* The ranks writing one HDF5 file together: rank 0 writes what it holds of the world (the
 * threads, the times, the summary) and creates the field's dataset empty; every rank then
 * writes its own block of the field into it with collective MPI-IO (parallel HDF5), and only
 * then does the file get its name. No rank ever holds more of the field than its block. Also
 * the field's digest, which the ranks compute together (checkpoints carry it). */
#ifndef TOUCHSTONE_APP_RANK_FILES_H
#define TOUCHSTONE_APP_RANK_FILES_H

#include <stdint.h>

#include "run_exec.h"
#include "run_ranks.h"
#include "ts_error.h"
#include "ts_h5_write.h"

struct ts_rank_fill {
    const struct ts_run_ranks *rk;
    const char *dataset;
    struct ts_h5_block block; /* this rank's points of the field after the run */
    int announced;            /* rank 0 told the others where to write */
};

/* This rank's block of the field of ex (stencils spread over ranks) as it goes into dataset,
 * of rank 2 (y, x: a run's /field/u in 2-D) or 3 (z, y, x). */
void ts_rank_fill_init(struct ts_rank_fill *f, const struct ts_run_ranks *rk, const struct ts_run_exec *ex,
                       const char *dataset, int dataset_rank);

/* Rank 0: what its writer calls with the temporary file (ts_h5_fill), which sends every rank
 * its name and writes rank 0's block with theirs. */
struct ts_h5_fill ts_rank_fill_hook(struct ts_rank_fill *f);

/* Rank 0, after its writer returned status: when the writer failed before the fill, the other
 * ranks (waiting in ts_rank_fill_join) are told there is nothing to write. Collective then;
 * returns status. */
int ts_rank_fill_end(struct ts_rank_fill *f, int status, struct ts_error *err);

/* The other ranks while rank 0 writes: their block into the file rank 0 names, or nothing when
 * rank 0 failed first. Returns TS_OK but when MPI itself fails: rank 0's status, which covers
 * every rank's block, reaches them afterwards (ts_run_ranks_follow_root). */
int ts_rank_fill_join(struct ts_rank_fill *f, struct ts_error *err);

/* The ts_digest_points of the points grid (this rank's local array) holds for the rank, at
 * their positions in the global grid: the ranks' digests add up to the whole field's. */
uint64_t ts_rank_field_digest(const struct ts_run_ranks *rk, const double *grid);

/* Collective: the sum of every rank's digest (modulo 2^64), on every rank: one reduction. */
int ts_rank_digest_sum(const struct ts_run_ranks *rk, uint64_t mine, uint64_t *sum, struct ts_error *err);

#endif

/* The ranks writing one HDF5 file together: rank 0 writes what it holds of the world (the
 * job's times, /mpi/ranks, the summary) and creates the field's dataset and the tables of
 * every rank's rows (per-iteration times, the per-thread tables) empty, at their full size;
 * every rank then writes its own block of the field and its own rows into them with collective
 * MPI-IO (parallel HDF5), and only then does the file get its name. No rank ever holds more of
 * the field than its block, nor more of those tables than its rows. Also the digests, which
 * the ranks compute together (checkpoints carry them). */
#ifndef TOUCHSTONE_APP_RANK_FILES_H
#define TOUCHSTONE_APP_RANK_FILES_H

#include <stdint.h>

#include "run_exec.h"
#include "run_ranks.h"
#include "ts_error.h"
#include "ts_h5_write.h"

/* The most blocks one file takes from a rank: the field, three per-iteration tables, six
 * per-thread and per-node ones, six per-thread datasets of each placement audit. */
#define TS_RANK_FILL_MAX 22

struct ts_rank_fill {
    const struct ts_run_ranks *rk;
    struct ts_h5_block blocks[TS_RANK_FILL_MAX]; /* every rank adds the same datasets in one order */
    int n_blocks;
    int announced; /* rank 0 told the others where to write */
};

/* An empty fill of rk's ranks: nothing to write yet. */
void ts_rank_fill_start(struct ts_rank_fill *f, const struct ts_run_ranks *rk);

/* Adds this rank's block of the field of ex (stencils spread over ranks) as it goes into
 * dataset, of rank 2 (y, x: a run's /field/u in 2-D) or 3 (z, y, x). */
void ts_rank_fill_field(struct ts_rank_fill *f, const struct ts_run_exec *ex, const char *dataset, int dataset_rank);

/* Adds this rank's rows of a 2-D dataset of doubles [rows][columns]: rows rows from row first,
 * the columns first_column .. first_column + columns of local, an array of rows x row_length
 * doubles (a rank with no rows adds an empty block: the write is collective). */
void ts_rank_fill_rows(struct ts_rank_fill *f, const char *dataset, int64_t first, int64_t rows, int64_t columns,
                       const double *local, int64_t row_length, int64_t first_column);

/* Adds this rank's rows of a table of item (dataset [rows] when columns is 0, else
 * [rows][columns]): rows rows from row first, local holding them contiguous. */
void ts_rank_fill_table(struct ts_rank_fill *f, const char *dataset, enum ts_h5_item item, int64_t first, int64_t rows,
                        int64_t columns, const void *local);

/* Adds this rank's rows of the results file's tables of every rank's rows, where
 * ts_run_ranks_world placed them: its threads' rows of /timings/thread_iteration, /threads/table,
 * /counters/init and kernel, /results/thread_partials and of the placement audits' per-thread
 * datasets (when the ranks audited alike), its nodes' of /results/node_ids and node_partials,
 * its row of /mpi/rank_iteration and of /mpi/rank_halo_iteration. */
void ts_rank_fill_world_rows(struct ts_rank_fill *f, const struct ts_run_exec *ex);

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

/* Collective: sum[i] the sum of every rank's digest mine[i], i < n, on every rank (one
 * reduction: nothing per rank on any of them). */
int ts_rank_digest_sum(const struct ts_run_ranks *rk, const uint64_t *mine, uint64_t *sum, int n, struct ts_error *err);

#endif

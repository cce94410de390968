/* Checkpoints of a running run: written when a signal stops it (and every
 * output.checkpoint_every iterations), read back by `run --restart`. */
#ifndef TOUCHSTONE_APP_RUN_CHECKPOINT_H
#define TOUCHSTONE_APP_RUN_CHECKPOINT_H

#include <stddef.h>

#include "run_exec.h"
#include "run_plan.h"
#include "run_ranks.h"
#include "ts_config.h"
#include "ts_error.h"

struct ts_run_checkpoint {
    const struct ts_config *cfg;
    struct ts_run_output *out;  /* the run's names, and what it may replace */
    char path[4200];            /* where checkpoints of this run go (after a write: where the last one went) */
    struct ts_error err;        /* why the last write failed */
    struct ts_file_id own;      /* the checkpoint this run wrote last, as written */
    struct ts_run_ranks *ranks; /* the ranks; rank 0 writes what every rank sends */
    double seconds;             /* spent writing checkpoints so far (periodic ones and the stop's) */
};

/* Writes the state of ex after ex->out.steps_done iterations (the ts_run_exec checkpoint callback;
 * ctx is a struct ts_run_checkpoint). Across ranks it is collective: every rank sends its threads'
 * times and writes its block of the field into the one checkpoint of the whole problem rank 0
 * assembles (parallel HDF5), the same file a single process writes, so that any rank count (or
 * none) continues it; the other ranks return TS_OK, rank 0 the status. */
int ts_run_checkpoint_save(struct ts_run_exec *ex, void *ctx);

/* At the end of a finished run: deletes the checkpoint next to the output (and the one this run
 * wrote last, if its name changed) when it is this run's: the file it wrote there last, or the
 * file it was restarted from. Anything else (another run's, a file put there meanwhile) stays. */
void ts_run_checkpoint_discard(const struct ts_run_checkpoint *ck);

/* After init, before the iterations: reads the checkpoint at path into ex (field, times,
 * first_step), refusing one written for another kernel, size or numerical config. Across ranks
 * every rank reads its own block of the field (halos included) and the field's digest is
 * checked from every rank's part (collective; a refusal there is agreed, rank 0 says it); the
 * per-thread times of the checkpoint's iterations are not mapped onto the ranks' threads (NaN). */
int ts_run_checkpoint_restore(struct ts_run_exec *ex, const struct ts_config *cfg, const char *path,
                              struct ts_run_ranks *ranks, struct ts_error *err);

/* check --restart: whether the checkpoint at path is one the run of rp (the whole problem) and
 * cfg would continue, read as the run reads it: kernel, keys, sizes, every dataset and its
 * digest (the field in slabs, io/ts_checkpoint.h: ts_checkpoint_verify); *steps the iterations
 * it holds. The statuses and messages of ts_run_checkpoint_restore. */
int ts_run_checkpoint_verify(const struct ts_run_plan *rp, const struct ts_config *cfg, const char *path,
                             int64_t *steps, struct ts_error *err);

#endif

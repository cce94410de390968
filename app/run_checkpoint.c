#include "run_checkpoint.h"

#include <math.h>
#include <stdio.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rank_files.h"
#include "ts_digest.h"
#include "run_record.h"
#include "ts_checkpoint.h"

/* Keys that decide the numbers a run computes: a checkpoint only continues a run that agrees on
 * all of them. Threads, binding, init mode and output may change between the two halves, the
 * result does not depend on them. */
static int decides_the_result(const char *key)
{
    static const char *const prefixes[] = { "run.", "sum.", "triad.", "stencil.", "init.seed" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

static double *stencil_field(struct ts_run_exec *ex, int64_t dims[3])
{
    return (double *)ts_kernel_field(&ex->in.rp->problem, ex->own.arrays, ex->out.steps_done, dims);
}

/* Across ranks, on every rank: where this rank's threads' rows of the times go and how many
 * threads the world has, and the digests of the times and of the field, each the sum of the
 * ranks' digests of their own part (ts_digest_points); each rank writes its rows and its block
 * of the field into the file itself (rank_files.h), so nothing is gathered. */
static int rows_and_digests(struct ts_run_checkpoint *ck, struct ts_run_exec *ex, int64_t *first, int32_t *n_threads,
                            uint64_t digests[2])
{
    struct ts_run_ranks *rk = ck->ranks;
    const int64_t iterations = ex->in.iterations;
    int64_t total = 0;
    int status = ts_dist_rows_before(rk->dist, ex->in.n_threads, first, &total, &ck->err);
    *n_threads = (int32_t)total;
    uint64_t mine[2] = {
        ts_digest_points(ex->out.thread_times, (size_t)ex->in.n_threads * (size_t)iterations,
                         (uint64_t)(*first * iterations)),
        rk->stencil ? ts_rank_field_digest(rk, stencil_field(ex, (int64_t[3]){ 0 })) : 0,
    };
    if (status == TS_OK)
        status = ts_rank_digest_sum(rk, mine, digests, 2, &ck->err);
    return status;
}

/* Rank 0's part: the checkpoint of the whole problem, its field and the threads' times (across
 * ranks) created empty for every rank to write its block and rows into. */
static int write_checkpoint(struct ts_run_checkpoint *ck, struct ts_run_exec *ex, int32_t world_threads,
                            const uint64_t digests[2], struct ts_rank_fill *fill)
{
    struct ts_attr *config = ts_config_attrs(ck->cfg);
    if (!config)
        return ts_fail(&ck->err, TS_RESOURCE_ERROR, "checkpoint %s: out of memory", ck->path);
    struct ts_checkpoint c = {
        .kernel = ex->in.rp->kernel->name,
        .steps_done = ex->out.steps_done,
        .n_warmup = ex->in.warmup,
        .n_iterations = ex->in.iterations,
        .n_threads = ex->in.n_threads,
        .config = config,
        .n_config = (int32_t)ts_config_key_count(),
        .config_text = ck->cfg->text,
        .step_times = ex->out.step_times,
        .thread_times = ex->out.thread_times,
    };
    c.field = stencil_field(ex, c.field_dims);
    const struct ts_run_ranks *rk = ck->ranks;
    struct ts_h5_fill hook = { 0 };
    if (rk && rk->spread) {
        c.n_threads = world_threads;
        c.thread_times = NULL;
        c.thread_times_later = 1;
        c.thread_times_digest = digests[0];
        hook = ts_rank_fill_hook(fill);
        if (rk->stencil) {
            c.field = NULL;
            c.field_later = 1;
            c.field_digest = digests[1];
            c.field_dims[0] = rk->dec.points[2];
            c.field_dims[1] = rk->dec.points[1];
            c.field_dims[2] = rk->dec.points[0];
        }
    }
    struct ts_place place = ts_output_checkpoint_place(ck->out, &ck->own);
    int status = ts_checkpoint_write_placed(&c, &place, hook.fill ? &hook : NULL, &ck->err);
    if (status == TS_OK) {
        snprintf(ck->path, sizeof ck->path, "%s", place.path);
        ck->own = place.written;
    }
    free(config);
    return status;
}

static int save(struct ts_run_exec *ex, struct ts_run_checkpoint *ck)
{
    struct ts_run_ranks *rk = ck->ranks;
    const int spread = rk && rk->spread;
    int32_t world_threads = 0;
    uint64_t digests[2] = { 0, 0 };
    struct ts_rank_fill fill;
    if (spread) {
        int64_t first = 0;
        int status = rows_and_digests(ck, ex, &first, &world_threads, digests);
        if (status != TS_OK)
            return status;
        ts_rank_fill_start(&fill, rk);
        ts_rank_fill_rows(&fill, "/thread_times", first, ex->in.n_threads, ex->in.iterations, ex->out.thread_times,
                          ex->in.iterations, 0);
        if (rk->stencil)
            ts_rank_fill_field(&fill, ex, "/field", 3);
        if (rk->dist->rank != 0) /* rank 0 writes the file; this rank its rows and block */
            return ts_rank_fill_join(&fill, &ck->err);
    }
    int status = write_checkpoint(ck, ex, world_threads, digests, &fill);
    if (spread)
        status = ts_rank_fill_end(&fill, status, &ck->err);
    return status;
}

int ts_run_checkpoint_save(struct ts_run_exec *ex, void *ctx)
{
    struct ts_run_checkpoint *ck = ctx;
    const double t0 = omp_get_wtime();
    int status = save(ex, ck);
    ck->seconds += omp_get_wtime() - t0;
    return status;
}

static void discard_if_own(const struct ts_run_checkpoint *ck, const char *path)
{
    struct ts_file_id there = ts_file_id_of(path);
    if (ts_file_id_same(&there, &ck->own) || ts_file_id_same(&there, &ck->out->restart))
        unlink(path);
}

void ts_run_checkpoint_discard(const struct ts_run_checkpoint *ck)
{
    discard_if_own(ck, ck->out->checkpoint);
    if (strcmp(ck->path, ck->out->checkpoint) != 0)
        discard_if_own(ck, ck->path);
}

/* The grid the step after `steps` iterations reads. */
static double *stencil_field_at(struct ts_run_exec *ex, int64_t steps)
{
    int64_t dims[3];
    return (double *)ts_kernel_field(&ex->in.rp->problem, ex->own.arrays, steps, dims);
}

int ts_run_checkpoint_restore(struct ts_run_exec *ex, const struct ts_config *cfg, const char *path,
                              struct ts_run_ranks *ck_ranks, struct ts_error *err)
{
    struct ts_attr *all = ts_config_attrs(cfg);
    if (!all)
        return ts_fail(err, TS_RESOURCE_ERROR, "restart from %s: out of memory", path);
    int32_t n_match = 0;
    for (size_t i = 0; i < ts_config_key_count(); i++)
        if (decides_the_result(all[i].name))
            all[n_match++] = all[i];

    /* The field goes into the grid the next step reads, whichever that is after k steps; the
     * other grid's interior is overwritten by that step and its boundary is zero in both. */
    int64_t steps = 0;
    struct ts_checkpoint_expect e = {
        .kernel = ex->in.rp->kernel->name,
        .n_warmup = ex->in.warmup,
        .n_iterations = ex->in.iterations,
        .n_threads = ex->in.n_threads,
        .must_match = all,
        .n_must_match = n_match,
        .step_times = ex->out.step_times,
        .thread_times = ex->out.thread_times,
    };
    for (int parity = 0; parity < 2; parity++) {
        ex->out.steps_done = parity;
        e.field[parity] = stencil_field(ex, e.field_dims);
    }
    /* Across ranks: this rank's block of the grid (halos included), whichever parity; the
     * field's digest is checked by rank 0 from every rank's part. */
    struct ts_run_ranks *rk = ck_ranks;
    const int spread = rk && rk->spread;
    uint64_t stored_digest = 0, stored_times = 0, times_part = 0;
    if (spread) {
        e.n_threads = -1; /* never this rank's threads: each rank checks its share of the rows */
        e.part = rk->dist->rank;
        e.parts = rk->dist->size;
        e.times_digest = &stored_times;
        e.times_digest_part = &times_part;
        if (rk->stencil) {
            e.field_dims[0] = rk->dec.points[2];
            e.field_dims[1] = rk->dec.points[1];
            e.field_dims[2] = rk->dec.points[0];
            e.has_block = 1;
            for (int a = 0; a < 3; a++) {
                e.block_origin[a] = rk->block.origin[2 - a];
                e.block_dims[a] = rk->block.local[2 - a];
            }
            e.field_digest = &stored_digest;
        }
    }
    int restored_threads = 0;
    int status = ts_checkpoint_restore(path, &e, &steps, &restored_threads, err);
    free(all);
    /* Each rank read the file alone: a refusal is said once, by rank 0, and no rank aborts. */
    if (spread)
        status = ts_run_ranks_agree_error(rk, status, err);
    /* The parts the ranks read, checked together: their digests add up to the stored ones. */
    if (status == TS_OK && spread) {
        uint64_t sum[2] = { 0, 0 };
        const uint64_t mine[2] = { rk->stencil ? ts_rank_field_digest(rk, stencil_field_at(ex, steps)) : 0,
                                   times_part };
        status = ts_rank_digest_sum(rk, mine, sum, 2, err);
        const char *what = status != TS_OK || rk->dist->rank != 0   ? NULL
                           : rk->stencil && sum[0] != stored_digest ? "/field"
                           : sum[1] != stored_times                 ? "/thread_times"
                                                                    : NULL;
        if (what)
            status = ts_fail(err, TS_BAD_INPUT,
                             "cannot read checkpoint: %s: %s: the values are not those written (the ranks' "
                             "digest differs from %s@digest)",
                             path, what, what);
        status = ts_run_ranks_follow_root(rk, status, err);
    }
    if (status != TS_OK)
        return status;
    if (!restored_threads) /* another thread count: those per-thread times do not map */
        for (size_t i = 0; i < (size_t)ex->in.n_threads * (size_t)ex->in.iterations; i++)
            ex->out.thread_times[i] = NAN;
    ex->in.first_step = steps;
    ex->out.steps_done = steps;
    return TS_OK;
}

int ts_run_checkpoint_verify(const struct ts_run_plan *rp, const struct ts_config *cfg, const char *path,
                             int64_t *steps, struct ts_error *err)
{
    struct ts_attr *all = ts_config_attrs(cfg);
    const size_t n_steps = (size_t)(rp->warmup + rp->iterations);
    const size_t n_times = (size_t)rp->n_threads * (size_t)rp->iterations;
    double *step_times = malloc((n_steps ? n_steps : 1) * sizeof(double));
    double *thread_times = malloc((n_times ? n_times : 1) * sizeof(double));
    int status = TS_OK;
    if (!all || !step_times || !thread_times) {
        status = ts_fail(err, TS_RESOURCE_ERROR, "check --restart %s: out of memory", path);
    } else {
        int32_t n_match = 0;
        for (size_t i = 0; i < ts_config_key_count(); i++)
            if (decides_the_result(all[i].name))
                all[n_match++] = all[i];
        /* The whole problem's grid, as the run restores it; the field itself is read in slabs
         * (field[0] only says there is one). */
        const int stencil = rp->kernel->id == TS_KERNEL_STENCIL2D || rp->kernel->id == TS_KERNEL_STENCIL3D;
        const struct ts_problem *pb = &rp->problem;
        struct ts_checkpoint_expect e = {
            .kernel = rp->kernel->name,
            .n_warmup = rp->warmup,
            .n_iterations = rp->iterations,
            .n_threads = rp->n_threads,
            .must_match = all,
            .n_must_match = n_match,
            .field = { stencil ? step_times : NULL, NULL },
            .field_dims = { rp->kernel->id == TS_KERNEL_STENCIL3D ? pb->nz : 1, pb->ny, pb->nx },
            .step_times = step_times,
            .thread_times = thread_times,
        };
        status = ts_checkpoint_verify(path, &e, steps, err);
    }
    free(all);
    free(step_times);
    free(thread_times);
    return status;
}

#include "run_checkpoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_record.h"
#include "ts_checkpoint.h"

void ts_checkpoint_path_for(const char *output, char *buf, size_t len)
{
    size_t n = strlen(output);
    if (n > 3 && strcmp(output + n - 3, ".h5") == 0)
        snprintf(buf, len, "%.*s.ckpt.h5", (int)(n - 3), output);
    else
        snprintf(buf, len, "%s.ckpt.h5", output);
}

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

/* Across ranks, on every rank: the whole field (stencils) and every thread's times, rank 0's
 * to write; the others get NULL. */
static int gather_state(struct ts_run_checkpoint *ck, struct ts_run_exec *ex, double **field, int64_t dims[3],
                        double **times, int32_t *n_threads)
{
    struct ts_run_ranks *rk = ck->ranks;
    int status = ts_run_ranks_field(rk, ex, field, dims, &ck->err);
    size_t *counts = NULL, row = (size_t)ex->in.iterations * sizeof(double);
    if (status == TS_OK)
        status = ts_dist_gatherv(rk->dist, ex->out.thread_times, (size_t)ex->in.n_threads * row, (void **)times,
                                 &counts, &ck->err);
    *n_threads = 0;
    for (int r = 0; status == TS_OK && counts && r < rk->dist->size; r++)
        *n_threads += (int32_t)(row ? counts[r] / row : 0);
    free(counts);
    return status;
}

int ts_run_checkpoint_save(struct ts_run_exec *ex, void *ctx)
{
    struct ts_run_checkpoint *ck = ctx;
    const int spread = ck->ranks && ck->ranks->spread;
    double *world_field = NULL, *world_times = NULL;
    int64_t world_dims[3] = { 0, 0, 0 };
    int32_t world_threads = 0;
    if (spread) {
        int gathered = gather_state(ck, ex, &world_field, world_dims, &world_times, &world_threads);
        if (gathered != TS_OK || ck->ranks->dist->rank != 0) {
            free(world_field);
            free(world_times);
            return gathered;
        }
    }
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
    if (spread) {
        c.field = world_field;
        memcpy(c.field_dims, world_dims, sizeof world_dims);
        c.n_threads = world_threads;
        c.thread_times = world_times;
    }
    struct ts_place place = ts_output_checkpoint_place(ck->out, &ck->own);
    int status = ts_checkpoint_write_placed(&c, &place, &ck->err);
    if (status == TS_OK) {
        snprintf(ck->path, sizeof ck->path, "%s", place.path);
        ck->own = place.written;
    }
    free(config);
    free(world_field);
    free(world_times);
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
                              const struct ts_run_ranks *ck_ranks, struct ts_error *err)
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
    /* Across ranks: the whole grid into scratch, whichever parity, then this rank's block. */
    const struct ts_run_ranks *rk = ck_ranks;
    const int spread = rk && rk->spread;
    double *whole = NULL;
    if (spread) {
        e.n_threads = -1; /* never this rank's threads: the reader checks them in scratch */
        if (rk->stencil) {
            const int64_t gz = rk->dec.ndims == 3 ? rk->whole.nz : 1;
            e.field_dims[0] = gz;
            e.field_dims[1] = rk->whole.ny;
            e.field_dims[2] = rk->whole.nx;
            whole = malloc((size_t)(gz * rk->whole.ny * rk->whole.nx) * sizeof *whole);
            e.field[0] = e.field[1] = whole;
        }
        if (rk->stencil && !whole) {
            free(all);
            return ts_fail(err, TS_RESOURCE_ERROR, "restart from %s: no memory for the whole field", path);
        }
    }
    int restored_threads = 0;
    int status = ts_checkpoint_restore(path, &e, &steps, &restored_threads, err);
    free(all);
    if (status == TS_OK && whole) {
        const struct ts_decomp_block *b = &rk->block;
        double *grid = stencil_field_at(ex, steps);
        for (int64_t z = 0; z < b->local[2]; z++)
            for (int64_t y = 0; y < b->local[1]; y++)
                memcpy(grid + (z * b->local[1] + y) * b->local[0],
                       whole + ((b->origin[2] + z) * e.field_dims[1] + b->origin[1] + y) * e.field_dims[2]
                           + b->origin[0],
                       (size_t)b->local[0] * sizeof *grid);
    }
    free(whole);
    if (status != TS_OK)
        return status;
    if (!restored_threads) /* another thread count: those per-thread times do not map */
        for (size_t i = 0; i < (size_t)ex->in.n_threads * (size_t)ex->in.iterations; i++)
            ex->out.thread_times[i] = NAN;
    ex->in.first_step = steps;
    ex->out.steps_done = steps;
    return TS_OK;
}

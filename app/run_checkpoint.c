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

int ts_run_checkpoint_save(struct ts_run_exec *ex, void *ctx)
{
    struct ts_run_checkpoint *ck = ctx;
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
    struct ts_place place = ts_output_checkpoint_place(ck->out, &ck->own);
    int status = ts_checkpoint_write_placed(&c, &place, &ck->err);
    if (status == TS_OK) {
        snprintf(ck->path, sizeof ck->path, "%s", place.path);
        ck->own = place.written;
    }
    free(config);
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

int ts_run_checkpoint_restore(struct ts_run_exec *ex, const struct ts_config *cfg, const char *path,
                              struct ts_error *err)
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
    int restored_threads = 0;
    int status = ts_checkpoint_restore(path, &e, &steps, &restored_threads, err);
    free(all);
    if (status != TS_OK)
        return status;
    if (!restored_threads) /* another thread count: those per-thread times do not map */
        for (size_t i = 0; i < (size_t)ex->in.n_threads * (size_t)ex->in.iterations; i++)
            ex->out.thread_times[i] = NAN;
    ex->in.first_step = steps;
    ex->out.steps_done = steps;
    return TS_OK;
}

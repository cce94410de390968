/* Restart: the checkpoint reader behind --restart (ts_checkpoint_restore_image: the bytes of a
 * file, read in this process, through the same code as ts_checkpoint_restore after the open),
 * into each run of checkpoint_cases.h, with buffers of exactly the size the run has:
 * a restore must check everything before it copies, and never write past the run's buffers
 * (ASan sees such a write, also when HDF5 does it). Every input ends in a restore whose step
 * count and times are in range, or in an error naming the file; nothing stays open. */
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "checkpoint_cases.h"
#include "fuzz_util.h"
#include "ts_checkpoint.h"

#define NAME "fuzzed.ckpt.h5"

static void restore(const uint8_t *data, size_t size, const struct ckpt_case *c)
{
    struct ts_attr must[4];
    for (int i = 0; i < 4; i++) {
        snprintf(must[i].name, sizeof must[i].name, "%s", c->keys[i][0]);
        snprintf(must[i].value, sizeof must[i].value, "%s", c->keys[i][1]);
    }
    size_t cells = (size_t)(c->field_dims[0] * c->field_dims[1] * c->field_dims[2]);
    size_t steps_max = (size_t)(c->n_warmup + c->n_iterations);
    size_t thread_values = (size_t)c->n_threads * (size_t)c->n_iterations;
    struct ts_checkpoint_expect e = {
        .kernel = c->kernel,
        .n_warmup = c->n_warmup,
        .n_iterations = c->n_iterations,
        .n_threads = c->n_threads,
        .must_match = must,
        .n_must_match = 4,
        .field = { cells ? malloc(cells * sizeof(double)) : NULL, cells ? malloc(cells * sizeof(double)) : NULL },
        .field_dims = { c->field_dims[0], c->field_dims[1], c->field_dims[2] },
        .step_times = malloc(steps_max * sizeof(double)),
        .thread_times = malloc(thread_values * sizeof(double)),
    };
    int64_t steps = -1;
    int thread_times = -1;
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_checkpoint_restore_image(data, size, NAME, &e, &steps, &thread_times, &err);
    fuzz_note("checkpoint as %s: %s", c->kernel, status == TS_OK ? "restored" : err.message);
    if (status == TS_OK) {
        FUZZ_CHECK(steps >= 0 && (size_t)steps < steps_max, "%s: steps_done %lld of %zu", c->kernel, (long long)steps,
                   steps_max);
        /* 0, or a time a clock can measure and a run can take (io/ts_checkpoint_read.c). */
        for (int64_t i = 0; i < steps; i++)
            FUZZ_CHECK(e.step_times[i] == 0 || (e.step_times[i] >= 1e-10 && e.step_times[i] <= 1e7),
                       "%s: step_times[%lld] = %g", c->kernel, (long long)i, e.step_times[i]);
        for (size_t i = 0; thread_times == 1 && i < thread_values; i++)
            FUZZ_CHECK(isnan(e.thread_times[i]) || e.thread_times[i] == 0
                           || (e.thread_times[i] >= 1e-10 && e.thread_times[i] <= 1e7),
                       "%s: thread_times[%zu] = %g", c->kernel, i, e.thread_times[i]);
        for (size_t i = 0; i < cells; i++)
            FUZZ_CHECK(isfinite(e.field[steps % 2][i]), "%s: field[%zu] = %g", c->kernel, i, e.field[steps % 2][i]);
        FUZZ_CHECK(thread_times == 0 || thread_times == 1, "thread_times_restored %d", thread_times);
    } else {
        FUZZ_CHECK(status == TS_BAD_INPUT, "status %d", status);
        FUZZ_CHECK(strstr(err.message, NAME) != NULL, "the error does not name the file: %s", err.message);
        FUZZ_CHECK(thread_times == 0, "thread times restored from a refused checkpoint");
    }
    free(e.field[0]);
    free(e.field[1]);
    free(e.step_times);
    free(e.thread_times);
    ssize_t open_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    FUZZ_CHECK(open_ids == 0, "%zd HDF5 objects still open after the restore", open_ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_hdf5_heap_known_bad(data, size)) {
        fuzz_note("checkpoint: skipped, a global heap HDF5 1.10 cannot read");
        return 0;
    }
    for (size_t i = 0; i < N_CKPT_CASES; i++)
        restore(data, size, &ckpt_cases[i]);
    return 0;
}

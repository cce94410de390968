/* Reading a checkpoint back: untrusted input like any file, so every fact goes through the one
 * validation layer (h5_reader.h) and is compared with the run before anything is copied. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_checkpoint.h"
#include "h5_chunk.h"
#include "h5_reader.h"
#include "ts_digest.h"
#include "ts_run_read.h"

/* Stored times go into the results: each is 0 (faster than the clock could tell) or between a
 * clock tick and a plausible iteration. A positive time below any clock's resolution, or longer
 * than months, was not measured by this program. */
#define MIN_TIME 1e-10
#define MAX_TIME 1e7

/* The oldest format read: 3's thread_times digest is ts_digest64 of the whole array, which one
 * process can recompute (format 4's adds up over the ranks' rows). */
#define OLDEST_READ 3

static int check_header(struct h5r *r, const struct ts_checkpoint_expect *e, int64_t *steps, int64_t *threads,
                        int64_t *format)
{
    int64_t version, warmup, iterations;
    char kernel[64];
    if (h5r_has_attr(r, "/", "touchstone_checkpoint") != 1)
        return h5r_fail(r, "/", "not a touchstone checkpoint (no touchstone_checkpoint attribute)");
    if (h5r_int_attr(r, "/", "touchstone_checkpoint", 1, INT32_MAX, &version))
        return r->err->status;
    if (version < 2)
        return h5r_fail(r, "/@touchstone_checkpoint",
                        "checkpoint format %lld, written by an older touchstone without "
                        "digests of its data, so it cannot be checked: start the run again without --restart",
                        (long long)version);
    if (version < OLDEST_READ)
        return h5r_fail(r, "/@touchstone_checkpoint",
                        "checkpoint format %lld, written by an older touchstone whose field digest this one "
                        "does not compute: continue it with that touchstone, or start the run again without --restart",
                        (long long)version);
    if (version > TS_CHECKPOINT_VERSION)
        return h5r_fail(r, "/@touchstone_checkpoint", "checkpoint format %lld is newer than this touchstone reads (%d)",
                        (long long)version, TS_CHECKPOINT_VERSION);
    *format = version;
    if (h5r_str_attr(r, "/", "kernel", kernel, sizeof kernel))
        return r->err->status;
    if (strcmp(kernel, e->kernel) != 0)
        return h5r_fail(r, "/", "checkpoint of kernel %s, this run is %s", kernel, e->kernel);
    const int64_t max_steps = e->n_warmup + e->n_iterations;
    if (h5r_int_attr(r, "/", "n_warmup", 0, INT64_MAX, &warmup)
        || h5r_int_attr(r, "/", "n_iterations", 0, INT64_MAX, &iterations))
        return r->err->status;
    if (warmup != e->n_warmup || iterations != e->n_iterations)
        return h5r_fail(r, "/", "checkpoint of %lld + %lld iterations, this run has %lld + %lld", (long long)warmup,
                        (long long)iterations, (long long)e->n_warmup, (long long)e->n_iterations);
    /* A checkpoint always holds a run with iterations left: steps_done < warm-up + timed. */
    return h5r_int_attr(r, "/", "steps_done", 0, max_steps - 1, steps)
                   || h5r_int_attr(r, "/", "n_threads", 1, 65536, threads)
               ? r->err->status
               : TS_OK;
}

/* h5r_read_doubles checks [0, MAX_TIME]; what it cannot say is that a positive time must be a
 * clock's. */
static int check_ticks(struct h5r *r, const char *path, const double *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] > 0 && t[i] < MIN_TIME)
            return h5r_fail(r, path, "value [%zu] = %g s is shorter than any clock measures", i, t[i]);
    return TS_OK;
}

/* A reader's part of the per-thread times (e->parts > 1): its rows checked, their digest at
 * their place and the stored one to the caller (ts_checkpoint_expect); copied nowhere. */
static int read_thread_times_part(struct h5r *r, const struct ts_checkpoint_expect *e, struct h5r_doubles *times,
                                  int64_t threads, int *restored)
{
    const int64_t lo = threads * e->part / e->parts, hi = threads * (e->part + 1) / e->parts;
    const size_t n = (size_t)(hi - lo) * (size_t)e->n_iterations;
    const hsize_t start[2] = { (hsize_t)lo, 0 }, count[2] = { (hsize_t)(hi - lo), (hsize_t)e->n_iterations };
    times->start = start;
    times->count = count;
    times->digest_read = e->times_digest;
    double *part = malloc((n ? n : 1) * sizeof *part);
    if (!part)
        return h5r_out_of_memory(r, times->path, "out of memory for %zu values", n);
    int st = h5r_read_doubles(r, times, part);
    if (st == TS_OK)
        st = check_ticks(r, times->path, part, n);
    if (st == TS_OK)
        *e->times_digest_part = ts_digest_points(part, n, (uint64_t)lo * (uint64_t)e->n_iterations);
    free(part);
    *restored = 0;
    return st;
}

/* The per-thread times, checked whatever the thread count; copied into the run's buffer only
 * when they map onto it (the same thread count). */
static int read_thread_times(struct h5r *r, const struct ts_checkpoint_expect *e, int64_t threads, int64_t format,
                             int *restored)
{
    const size_t n = (size_t)threads * (size_t)e->n_iterations;
    if ((int64_t)n > TS_READ_MAX_VALUES)
        return h5r_fail(r, "/thread_times",
                        "%lld threads x %lld iterations is more than the %lld values touchstone "
                        "reads",
                        (long long)threads, (long long)e->n_iterations, (long long)TS_READ_MAX_VALUES);
    struct h5r_doubles times = { .path = "/thread_times",
                                 .rank = 2,
                                 .why = "n_threads x n_iterations",
                                 .dims = { (hsize_t)threads, (hsize_t)e->n_iterations },
                                 .min = 0.0,
                                 .max = MAX_TIME,
                                 .nan_ok = 1,
                                 .exact = 1,
                                 .digest = "digest",
                                 .digest_points = format >= 4 };
    const int same = threads == e->n_threads;
    double *scratch = NULL;
    if (e->parts > 1 && format >= 4 && !same)
        return read_thread_times_part(r, e, &times, threads, restored);
    if (e->parts > 1)
        *e->times_digest = *e->times_digest_part = 0;
    int st = same ? h5r_read_doubles(r, &times, e->thread_times) : h5r_read_doubles_alloc(r, &times, &scratch);
    if (st == TS_OK)
        st = check_ticks(r, times.path, same ? e->thread_times : scratch, n);
    free(scratch);
    *restored = st == TS_OK && same;
    return st;
}

static int check_config(struct h5r *r, const struct ts_checkpoint_expect *e)
{
    if (h5r_group(r, "/config"))
        return r->err->status;
    for (int32_t i = 0; i < e->n_must_match; i++) {
        char value[sizeof e->must_match[i].value];
        if (h5r_str_attr(r, "/config", e->must_match[i].name, value, sizeof value))
            return r->err->status;
        if (strcmp(value, e->must_match[i].value) != 0)
            return h5r_fail(r, "/config",
                            "checkpoint was written for %s = %s, this run has %s = %s; refusing to restart",
                            e->must_match[i].name, value, e->must_match[i].name, e->must_match[i].value);
    }
    return TS_OK;
}

/* Everything after the open; closes r. Each dataset must be what this program wrote: its type,
 * the field's chunks and checksum, and a digest of its values (docs/how-it-works.md,
 * "Checkpoint and restart"). */
static int restore_opened(struct h5r *r, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                          int *thread_times_restored)
{
    int64_t steps = 0, threads = 0, format = 0;
    int rc = check_header(r, e, &steps, &threads, &format);
    if (rc == TS_OK)
        rc = check_config(r, e);
    if (rc == TS_OK) {
        struct h5r_doubles times = { .path = "/step_times",
                                     .rank = 1,
                                     .dims = { (hsize_t)steps },
                                     .why = "steps_done",
                                     .min = 0.0,
                                     .max = MAX_TIME,
                                     .exact = 1,
                                     .digest = "digest" };
        rc = h5r_read_doubles(r, &times, e->step_times);
        if (rc == TS_OK)
            rc = check_ticks(r, times.path, e->step_times, (size_t)steps);
    }
    if (rc == TS_OK)
        rc = read_thread_times(r, e, threads, format, thread_times_restored);
    /* steps is a number of the file's until check_header accepts it (a damaged one is -1). */
    double *field = rc == TS_OK ? e->field[steps % 2] : NULL;
    if (rc == TS_OK && field) {
        struct h5r_doubles grid = { .path = "/field",
                                    .rank = 3,
                                    .why = "the run's grid, nz x ny x nx",
                                    .dims = { (hsize_t)e->field_dims[0], (hsize_t)e->field_dims[1],
                                              (hsize_t)e->field_dims[2] },
                                    .min = -DBL_MAX,
                                    .max = DBL_MAX,
                                    .exact = 1,
                                    .digest = "digest",
                                    .digest_points = 1 };
        hsize_t chunk[3], start[3], count[3];
        if (e->has_block) {
            for (int a = 0; a < 3; a++) {
                start[a] = (hsize_t)e->block_origin[a];
                count[a] = (hsize_t)e->block_dims[a];
            }
            grid.start = start;
            grid.count = count;
            grid.digest_read = e->field_digest;
        }
        ts_h5_field_chunk(3, grid.dims, chunk);
        grid.chunk = chunk;
        rc = h5r_read_doubles(r, &grid, field);
    }
    h5r_close(r);
    if (rc == TS_OK)
        *steps_done = steps;
    else
        *thread_times_restored = 0;
    return rc;
}

static int restore_path(const char *path, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                        int *thread_times_restored, struct ts_error *err)
{
    struct h5r r;
    *thread_times_restored = 0;
    if (h5r_open_path(&r, path, err)) {
        ts_error_prefix(err, "cannot read checkpoint: ");
        return err->status;
    }
    return restore_opened(&r, e, steps_done, thread_times_restored);
}

struct dry_run {
    const char *path;
    const struct ts_checkpoint_expect *e;
};

/* In the checking child: everything but the field, into the child's copies of the small
 * buffers. The attributes, where HDF5 1.10 trips over a corrupted global heap, are all read. */
static int restore_without_field(const void *ctx, struct ts_error *err)
{
    const struct dry_run *d = ctx;
    struct ts_checkpoint_expect e = *d->e;
    e.field[0] = e.field[1] = NULL;
    int64_t steps;
    int thread_times;
    return restore_path(d->path, &e, &steps, &thread_times, err);
}

/* A checkpoint is a file like any other: HDF5 may crash or hang on a corrupted one, and that
 * must end in a message, not take the run down with it (io/ts_run_isolate.c). So it is first
 * restored, without its field, in a child. */
static int dry_restore(const char *path, const struct ts_checkpoint_expect *e, struct ts_error *err)
{
    struct dry_run d = { path, e };
    char name[4200];
    snprintf(name, sizeof name, "checkpoint %s", path);
    return ts_read_check_isolated(restore_without_field, &d, name, ts_read_limits_of(path), err);
}

int ts_checkpoint_restore(const char *path, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                          int *thread_times_restored, struct ts_error *err)
{
    *thread_times_restored = 0;
    int status = dry_restore(path, e, err);
    if (status != TS_OK)
        return status;
    return restore_path(path, e, steps_done, thread_times_restored, err);
}

int ts_checkpoint_restore_image(const void *bytes, size_t n, const char *name, const struct ts_checkpoint_expect *e,
                                int64_t *steps_done, int *thread_times_restored, struct ts_error *err)
{
    struct h5r r;
    *thread_times_restored = 0;
    if (h5r_open_image(&r, bytes, n, name, err)) {
        ts_error_prefix(err, "cannot read checkpoint: ");
        return err->status;
    }
    return restore_opened(&r, e, steps_done, thread_times_restored);
}

/* Bytes of the field read at a time by ts_checkpoint_verify: whole rows, a few MiB. */
#define VERIFY_SLAB_BYTES ((size_t)8 << 20)

/* The field in slabs of whole rows (z, y0..y0+dy, every x), each slab's points digested at
 * their positions; the sum must be the stored digest, as when the run reads it whole. */
static int verify_field(struct h5r *r, const struct ts_checkpoint_expect *e, double *slab, size_t rows_per)
{
    const int64_t nz = e->field_dims[0], ny = e->field_dims[1], nx = e->field_dims[2];
    hsize_t chunk[3], dims[3] = { (hsize_t)nz, (hsize_t)ny, (hsize_t)nx };
    ts_h5_field_chunk(3, dims, chunk);
    uint64_t sum = 0, stored = 0;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y += (int64_t)rows_per) {
            int64_t dy = ny - y < (int64_t)rows_per ? ny - y : (int64_t)rows_per;
            hsize_t start[3] = { (hsize_t)z, (hsize_t)y, 0 }, count[3] = { 1, (hsize_t)dy, (hsize_t)nx };
            struct h5r_doubles grid = { .path = "/field",
                                        .rank = 3,
                                        .why = "the run's grid, nz x ny x nx",
                                        .dims = { dims[0], dims[1], dims[2] },
                                        .min = -DBL_MAX,
                                        .max = DBL_MAX,
                                        .exact = 1,
                                        .chunk = chunk,
                                        .digest = "digest",
                                        .digest_points = 1,
                                        .start = start,
                                        .count = count,
                                        .digest_read = &stored };
            int rc = h5r_read_doubles(r, &grid, slab);
            if (rc != TS_OK)
                return rc;
            sum += ts_digest_points(slab, (size_t)(dy * nx), (uint64_t)((z * ny + y) * nx));
        }
    if (sum != stored)
        return h5r_fail(r, "/field", "the values are not those written (their digest differs from /field@digest)");
    return TS_OK;
}

int ts_checkpoint_verify(const char *path, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                         struct ts_error *err)
{
    int status = dry_restore(path, e, err);
    if (status != TS_OK)
        return status;
    struct ts_checkpoint_expect whole = *e;
    whole.field[0] = whole.field[1] = NULL;
    int restored = 0;
    status = restore_path(path, &whole, steps_done, &restored, err);
    const int64_t nx = e->field_dims[2];
    if (status != TS_OK || !e->field[0] || nx <= 0 || e->field_dims[0] <= 0 || e->field_dims[1] <= 0)
        return status;
    size_t rows_per = VERIFY_SLAB_BYTES / sizeof(double) / (size_t)nx;
    rows_per = rows_per ? rows_per : 1;
    if (rows_per > (size_t)e->field_dims[1])
        rows_per = (size_t)e->field_dims[1];
    double *slab = malloc(rows_per * (size_t)nx * sizeof *slab);
    if (!slab)
        return ts_fail(err, TS_RESOURCE_ERROR, "cannot read checkpoint: %s: no memory for %zu rows of its field", path,
                       rows_per);
    struct h5r r;
    if (h5r_open_path(&r, path, err)) {
        free(slab);
        ts_error_prefix(err, "cannot read checkpoint: ");
        return err->status;
    }
    status = verify_field(&r, e, slab, rows_per);
    h5r_close(&r);
    free(slab);
    return status;
}

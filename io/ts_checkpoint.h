/* Checkpoints: what a run interrupted by its batch system's time limit needs to continue, so
 * that the restarted run ends bitwise identical to one that was never stopped. */
#ifndef TOUCHSTONE_IO_TS_CHECKPOINT_H
#define TOUCHSTONE_IO_TS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_file_place.h"
#include "ts_h5_write.h"
#include "ts_record.h"

/* 2: every dataset carries a digest of its values; 3: the field's is ts_digest_points, which
 * ranks holding its blocks compute together; 4: so is thread_times', which ranks holding their
 * threads' rows compute together (format 3 is still read) */
#define TS_CHECKPOINT_VERSION 4

struct ts_checkpoint {
    const char *kernel;
    int64_t steps_done; /* iterations completed, warm-up included */
    int64_t n_warmup;
    int64_t n_iterations;
    int32_t n_threads;
    const struct ts_attr *config; /* every resolved key */
    int32_t n_config;
    const char *config_text;
    const double *step_times;     /* steps_done seconds */
    const double *thread_times;   /* n_threads x n_iterations (only the completed ones matter) */
    int thread_times_later;       /* thread_times NULL, the ranks write their threads' rows (fill): */
    uint64_t thread_times_digest; /*   then its ts_digest_points, summed over the ranks' rows */
    const double *field;          /* the stencil field after steps_done; NULL for sum and triad */
    int64_t field_dims[3];        /* nz, ny, nx */
    int field_later;              /* a field whose values the ranks write (fill), field NULL: */
    uint64_t field_digest;        /*   then its ts_digest_points, summed over the ranks' blocks */
};

/* Written atomically (temporary file, fsync, rename): a checkpoint is complete or absent.
 * Renamed over whatever regular file is at path (tests, seeds). */
int ts_checkpoint_write(const struct ts_checkpoint *c, const char *path, struct ts_error *err);

/* The same, given its name as place says (ts_file_place: without replacing another file
 * unless allowed); with c->field_later, fill has the ranks write the field (ts_h5_fill). */
int ts_checkpoint_write_placed(const struct ts_checkpoint *c, struct ts_place *place, const struct ts_h5_fill *fill,
                               struct ts_error *err);

/* What the restarting run expects, and where to put what the checkpoint holds. */
struct ts_checkpoint_expect {
    const char *kernel;
    int64_t n_warmup;
    int64_t n_iterations;
    int32_t n_threads;
    const struct ts_attr *must_match; /* keys whose values must be equal ("stencil.nx", ...) */
    int32_t n_must_match;
    double *field[2]; /* the field after k steps goes to field[k % 2] (Jacobi grids
                                         alternate); NULL when the kernel has none */
    int64_t field_dims[3];
    /* A rank's block (has_block): only the points block_origin .. + block_dims (z, y, x) of the
     * field_dims grid go to field[k % 2], an array of block_dims; the field's digest, which a
     * block cannot check, goes to *field_digest for the ranks to check together. */
    int has_block;
    int64_t block_origin[3], block_dims[3];
    uint64_t *field_digest;
    /* Across ranks (parts > 1): of thread_times' rows (an even split of the checkpoint's
     * threads) this reader checks only part `part` of `parts`, puts ts_digest_points of them at
     * their place in *times_digest_part and the stored digest in *times_digest, for the ranks to
     * check together (their parts add up). A format 3 checkpoint's digest does not add up: its
     * whole array is checked here, and both are 0. */
    int part, parts;
    uint64_t *times_digest, *times_digest_part;
    double *step_times;   /* capacity n_warmup + n_iterations */
    double *thread_times; /* n_threads x n_iterations; filled when n_threads matches (a
                                         checkpoint of another thread count is checked in scratch) */
};

/* Checks that the checkpoint at path belongs to this run (kernel, every must_match key, sizes)
 * before reading anything into the caller's buffers, and never reads past a dataset's
 * declared shape. Every dataset must be what ts_checkpoint_write wrote: IEEE f64 little-endian,
 * its digest right, the field chunked as written with Fletcher32 its only filter; times 0 or
 * 1e-10..1e7 s (thread_times also NaN, checked whatever the thread count), the field finite,
 * steps_done < n_warmup + n_iterations; format TS_CHECKPOINT_VERSION only. A negative
 * n_threads takes no thread count for its own (the ranks' threads are other threads). TS_BAD_INPUT naming
 * the file, the dataset or the mismatch and both values otherwise (TS_RESOURCE_ERROR when
 * memory runs out, the status of the errno when the file cannot be opened). *thread_times_restored is
 * 1 when the thread count matched and thread_times were copied. */
int ts_checkpoint_restore(const char *path, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                          int *thread_times_restored, struct ts_error *err);

/* What `check --restart` reads: everything ts_checkpoint_restore checks (kernel, keys, sizes,
 * times and their digests, in a child first), and the field read in slabs of a few MiB and
 * digested as it goes, so that nothing the size of the field is allocated. e->field[0] only
 * says whether the kernel has a field (non-NULL: it is not written to); e->field_dims as for
 * ts_checkpoint_restore, no block. The same statuses and messages as ts_checkpoint_restore. */
int ts_checkpoint_verify(const char *path, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                         struct ts_error *err);

/* The same for a checkpoint's bytes in memory (copied; name appears in messages): the entry
 * point of the checkpoint fuzzer (tests/fuzz). */
int ts_checkpoint_restore_image(const void *bytes, size_t n, const char *name, const struct ts_checkpoint_expect *e,
                                int64_t *steps_done, int *thread_times_restored, struct ts_error *err);

#endif

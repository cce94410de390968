/* Checkpoints written by touchstone's own writer (so every digest is right) with values no run
 * measures: a restart refuses each for its reason, and restores the ones a run can write. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_fixture.h"
#include "ts_checkpoint.h"
#include "ts_digest.h"

enum { WARMUP = 1, ITERS = 6, THREADS = 2, NZ = 1, NY = 6, NX = 7, CELLS = NZ * NY * NX };

struct ckpt {
    int64_t steps_done;
    int32_t threads;
    double steps[WARMUP + ITERS];
    double thread_times[4 * ITERS];
    double field[CELLS];
};

static const struct ts_attr must_match[] = { { "stencil.nx", "7" }, { "stencil.ny", "6" } };

/* A checkpoint as a run writes it after 3 steps: plausible times, the rest not yet run (0). */
static void plausible(struct ckpt *c)
{
    memset(c, 0, sizeof *c);
    c->steps_done = 3;
    c->threads = THREADS;
    for (int i = 0; i < WARMUP + ITERS; i++)
        c->steps[i] = i < 3 ? 1e-3 * (i + 1) : 0.0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < 2; i++)
            c->thread_times[t * ITERS + i] = 0.5e-3 * (t + i + 1);
    for (int i = 0; i < CELLS; i++)
        c->field[i] = sin(0.25 * i);
}

/* Writes c and restores it into a run of THREADS threads; TS_OK or the error in err. */
static int write_and_restore(const struct ckpt *c, const char *dir, double *field, int64_t *steps,
                             int *threads_restored, struct ts_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/c.ckpt.h5", dir);
    struct ts_checkpoint w = {
        .kernel = "stencil2d",
        .steps_done = c->steps_done,
        .n_warmup = WARMUP,
        .n_iterations = ITERS,
        .n_threads = c->threads,
        .config = must_match,
        .n_config = 2,
        .config_text = "[run]\n",
        .step_times = c->steps,
        .thread_times = c->thread_times,
        .field = c->field,
        .field_dims = { NZ, NY, NX },
    };
    struct ts_error werr = { 0 };
    if (ts_checkpoint_write(&w, path, &werr) != TS_OK) {
        CHECK(0, "writing the checkpoint: %s", werr.message);
        return -1;
    }
    static double other[CELLS], step_times[WARMUP + ITERS], thread_times[THREADS * ITERS];
    struct ts_checkpoint_expect e = {
        .kernel = "stencil2d",
        .n_warmup = WARMUP,
        .n_iterations = ITERS,
        .n_threads = THREADS,
        .must_match = must_match,
        .n_must_match = 2,
        .field = { c->steps_done % 2 ? other : field, c->steps_done % 2 ? field : other },
        .field_dims = { NZ, NY, NX },
        .step_times = step_times,
        .thread_times = thread_times,
    };
    memset(err, 0, sizeof *err);
    return ts_checkpoint_restore(path, &e, steps, threads_restored, err);
}

/* The checkpoint edit makes of a plausible one is refused, naming why. */
static void refused(const char *what, void (*edit)(struct ckpt *), const char *reason, const char *dir)
{
    struct ckpt c;
    plausible(&c);
    edit(&c);
    double field[CELLS];
    int64_t steps = -1;
    int restored = -1;
    struct ts_error err;
    int st = write_and_restore(&c, dir, field, &steps, &restored, &err);
    CHECK(st == TS_BAD_INPUT && strstr(err.message, reason), "%s: restore gave %d \"%s\", expected \"%s\"", what, st,
          err.message, reason);
    CHECK(restored == 0, "%s: refused, yet thread times were restored", what);
}

static void steps_all(struct ckpt *c)
{
    c->steps_done = WARMUP + ITERS;
}
static void tiny_step(struct ckpt *c)
{
    c->steps[1] = 1.9e-159;
}
static void huge_step(struct ckpt *c)
{
    c->steps[0] = 1e300;
}
static void negative_thread(struct ckpt *c)
{
    c->thread_times[1] = -1e-3;
}
static void tiny_thread(struct ckpt *c)
{
    c->thread_times[0] = 1e-200;
}
static void infinite_field(struct ckpt *c)
{
    c->field[5] = INFINITY;
}
static void nan_field(struct ckpt *c)
{
    c->field[0] = NAN;
}
static void nan_step(struct ckpt *c)
{
    c->steps[2] = NAN;
}

/* The field's digest is a sum over points: any split into parts adds up to the whole (what
 * ranks rely on), and a changed, moved or swapped value changes it. */
static void digest_of_parts(void)
{
    double v[CELLS];
    for (int i = 0; i < CELLS; i++)
        v[i] = sin(0.25 * i);
    const uint64_t whole = ts_digest_points(v, CELLS, 0);
    for (int cut = 0; cut <= CELLS; cut += 5) {
        uint64_t parts =
            ts_digest_points(v + cut, (size_t)(CELLS - cut), (uint64_t)cut) + ts_digest_points(v, (size_t)cut, 0);
        CHECK(parts == whole, "digest of [0,%d) + [%d,%d) is not the whole array's", cut, cut, CELLS);
    }
    double swapped[CELLS];
    memcpy(swapped, v, sizeof v);
    swapped[3] = v[4], swapped[4] = v[3];
    CHECK(ts_digest_points(swapped, CELLS, 0) != whole, "two values swapped give the same digest");
    CHECK(ts_digest_points(v + 1, CELLS - 1, 0) != ts_digest_points(v + 1, CELLS - 1, 1),
          "values moved by one position give the same digest");
    swapped[3] = v[3], swapped[4] = nextafter(v[4], 2.0);
    CHECK(ts_digest_points(swapped, CELLS, 0) != whole, "a value changed in its last bit gives the same digest");
}

/* A rank's block of the field (rows 2..4, columns 1..5): exactly those values, and the stored
 * digest handed back unchecked, the whole field's. */
static void block_of_field(const char *dir)
{
    struct ckpt c;
    plausible(&c);
    double whole[CELLS];
    int64_t steps = -1;
    int restored = -1;
    struct ts_error err;
    CHECK(write_and_restore(&c, dir, whole, &steps, &restored, &err) == TS_OK, "writing the checkpoint: %s",
          err.message);
    char path[4200];
    snprintf(path, sizeof path, "%s/c.ckpt.h5", dir);
    enum { BY = 3, BX = 5 };
    static double block[BY * BX], other[BY * BX], step_times[WARMUP + ITERS], thread_times[THREADS * ITERS];
    uint64_t stored = 0;
    struct ts_checkpoint_expect e = {
        .kernel = "stencil2d",
        .n_warmup = WARMUP,
        .n_iterations = ITERS,
        .n_threads = -1,
        .must_match = must_match,
        .n_must_match = 2,
        .field = { other, block }, /* 3 steps done: the odd grid */
        .field_dims = { NZ, NY, NX },
        .has_block = 1,
        .block_origin = { 0, 2, 1 },
        .block_dims = { 1, BY, BX },
        .field_digest = &stored,
        .step_times = step_times,
        .thread_times = thread_times,
    };
    int st = ts_checkpoint_restore(path, &e, &steps, &restored, &err);
    CHECK(st == TS_OK && steps == 3, "block restore: %d \"%s\"", st, err.message);
    for (int y = 0; y < BY; y++)
        for (int x = 0; x < BX; x++)
            CHECK(block[y * BX + x] == c.field[(2 + y) * NX + 1 + x], "block [%d][%d] is not the field's", y, x);
    CHECK(stored == ts_digest_points(c.field, CELLS, 0), "the digest handed back is not the whole field's");
    e.block_origin[1] = 4; /* rows 4..6 of 6 */
    st = ts_checkpoint_restore(path, &e, &steps, &restored, &err);
    CHECK(st == TS_BAD_INPUT && strstr(err.message, "outside the dataset"), "a block past the field: %d \"%s\"", st,
          err.message);
}

int main(void)
{
    char dir[4096];
    io_dir_make(dir, sizeof dir);

    /* What runs write: restored exactly, thread times only onto the same thread count. */
    struct ckpt c;
    plausible(&c);
    double field[CELLS];
    int64_t steps = -1;
    int restored = -1;
    struct ts_error err;
    int st = write_and_restore(&c, dir, field, &steps, &restored, &err);
    CHECK(st == TS_OK && steps == 3 && restored == 1, "plausible checkpoint: %d \"%s\", steps %lld, threads %d", st,
          err.message, (long long)steps, restored);
    CHECK(st != TS_OK || memcmp(field, c.field, sizeof field) == 0, "the field read back differs");
    c.threads = 4;
    c.thread_times[3 * ITERS] = NAN; /* not measured: before a restart on another thread count */
    st = write_and_restore(&c, dir, field, &steps, &restored, &err);
    CHECK(st == TS_OK && restored == 0, "checkpoint of 4 threads into 2: %d \"%s\", threads restored %d", st,
          err.message, restored);
    plausible(&c);
    c.steps_done = 0;
    st = write_and_restore(&c, dir, field, &steps, &restored, &err);
    CHECK(st == TS_OK && steps == 0, "checkpoint before the first step: %d \"%s\"", st, err.message);

    /* Values no run writes, each behind a right digest. */
    refused("steps_done = the whole run", steps_all, "/@steps_done: 7 is out of range, expected 0..6", dir);
    refused("a step of 1.9e-159 s", tiny_step, "/step_times: value [1] = 1.9e-159 s is shorter than any clock measures",
            dir);
    refused("a step of 1e300 s", huge_step, "/step_times: value [0] = 1e+300 is out of range", dir);
    refused("a NaN step", nan_step, "/step_times: value [2] = nan is out of range", dir);
    refused("a negative thread time", negative_thread, "/thread_times: value [0][1] = -0.001 is out of range", dir);
    refused("a thread time of 1e-200 s", tiny_thread, "/thread_times: value [0] = 1e-200 s is shorter than any clock",
            dir);
    refused("an infinite field value", infinite_field, "/field: value = inf is out of range", dir);
    refused("a NaN field value", nan_field, "/field: value = nan is out of range", dir);

    digest_of_parts();
    block_of_field(dir);

    io_dir_remove(dir);
    return ts_test_finish();
}

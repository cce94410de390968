/* Every kernel at odd sizes and 1-4 threads: verified against its analytic answer, results
 * bitwise identical across thread counts and init modes, and verification that notices a
 * wrong value. The driver here is deliberately minimal: the real one is tested end to end
 * through the CLI. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_kernel.h"
#include "ts_record.h"
#include "ts_test.h"

struct outcome {
    double result;
    struct ts_verification ver;
    double *arrays[3];
    struct ts_plan plan;
    const double *field; /* a stencil's grid after the run; NULL for the other kernels */
};

static void release(struct outcome *o)
{
    for (int a = 0; a < 3; a++)
        free(o->arrays[a]);
    memset(o, 0, sizeof *o);
}

static int run(const struct ts_problem *pb, int threads, int serial_init, int64_t steps, struct outcome *o)
{
    const struct ts_kernel *k = ts_kernel_get(pb->kernel);
    memset(o, 0, sizeof *o);
    char why[256];
    if (k->plan(pb, &o->plan, why, sizeof why) != 0) {
        fprintf(stderr, "plan refused: %s\n", why);
        return -1;
    }
    for (int a = 0; a < o->plan.n_arrays; a++)
        o->arrays[a] = malloc((size_t)o->plan.array_elems * sizeof(double));
    ts_partition *part;
    if (ts_partition_create(&part, o->plan.items, threads, o->plan.granule_multiple) != 0)
        return -1;

    if (serial_init) {
        for (int c = 0; c < threads; c++)
            k->init(pb, o->arrays, ts_partition_range(part, c));
    } else {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int c = 0; c < threads; c++)
            k->init(pb, o->arrays, ts_partition_range(part, c));
    }

    struct ts_xsum slots[8];
    for (int64_t s = 0; s < steps; s++) {
#pragma omp parallel num_threads(threads)
        {
            struct ts_xsum partial;
            ts_xsum_init(&partial);
#pragma omp for schedule(static)
            for (int c = 0; c < threads; c++)
                k->step(pb, o->arrays, ts_partition_range(part, c), s, &partial);
            slots[omp_get_thread_num()] = partial;
        }
    }
    if (k->result) {
#pragma omp parallel num_threads(threads)
        {
            ts_xsum_init(&slots[omp_get_thread_num()]);
#pragma omp for schedule(static)
            for (int c = 0; c < threads; c++)
                k->result(pb, o->arrays, ts_partition_range(part, c), steps, &slots[omp_get_thread_num()]);
        }
    }
    struct ts_xsum total;
    ts_xsum_init(&total);
    for (int t = 0; t < threads; t++)
        ts_xsum_merge(&total, &slots[t]);
    o->result = ts_xsum_round(&total);
    k->verify(pb, o->arrays, steps, o->result, &o->ver);
    int64_t dims[3];
    o->field = ts_kernel_field(pb, o->arrays, steps, dims);
    ts_partition_destroy(part);
    return 0;
}

/* A stencil's state is its field: the other grid holds whatever the variant left there (the
 * wavefront keeps its intermediate steps out of it), which no later step reads. */
static int same_arrays(const struct outcome *a, const struct outcome *b)
{
    if (a->field && b->field)
        return memcmp(a->field, b->field, (size_t)a->plan.array_elems * sizeof(double)) == 0;
    for (int i = 0; i < a->plan.n_arrays; i++)
        if (memcmp(a->arrays[i], b->arrays[i], (size_t)a->plan.array_elems * sizeof(double)) != 0)
            return 0;
    return 1;
}

static const char *describe(const struct ts_problem *pb)
{
    static char buf[192];
    int n;
    if (pb->kernel == TS_KERNEL_SUM || pb->kernel == TS_KERNEL_TRIAD)
        n = snprintf(buf, sizeof buf, "%s n=%lld", ts_kernel_get(pb->kernel)->name, (long long)pb->n);
    else
        n = snprintf(buf, sizeof buf, "%s %lldx%lldx%lld", ts_kernel_get(pb->kernel)->name, (long long)pb->nx,
                     (long long)pb->ny, (long long)pb->nz);
    snprintf(buf + n, sizeof buf - (size_t)n, "%s%s time_block=%lld block_y=%lld",
             pb->sum_mode == TS_SUM_FAST ? " fast" : "", pb->nontemporal ? " nontemporal" : "",
             (long long)pb->time_block, (long long)pb->block_y);
    return buf;
}

/* Runs pb on 1..4 threads with both init modes; all must verify and agree bitwise. */
static void check_problem(const struct ts_problem *pb, int64_t steps)
{
    struct outcome first;
    if (run(pb, 1, 0, steps, &first) != 0) {
        CHECK(0, "%s: could not run", describe(pb));
        return;
    }
    CHECK(first.ver.passed, "%s, 1 thread: verification failed: error %g > tolerance %g (%s)", describe(pb),
          first.ver.error, first.ver.tolerance, first.ver.method);
    for (int threads = 1; threads <= 4; threads++) {
        for (int serial = 0; serial <= 1; serial++) {
            struct outcome o;
            if (run(pb, threads, serial, steps, &o) != 0) {
                CHECK(0, "%s: could not run", describe(pb));
                continue;
            }
            CHECK(o.ver.passed, "%s, %d threads, %s init: verification failed: error %g > tolerance %g", describe(pb),
                  threads, serial ? "serial" : "parallel", o.ver.error, o.ver.tolerance);
            /* A fast sum is allowed to depend on the thread count: only its tolerance binds it. */
            CHECK(pb->sum_mode == TS_SUM_FAST || memcmp(&o.result, &first.result, sizeof o.result) == 0,
                  "%s, %d threads, %s init: result %a differs from 1 thread's %a", describe(pb), threads,
                  serial ? "serial" : "parallel", o.result, first.result);
            CHECK(same_arrays(&o, &first), "%s, %d threads, %s init: arrays differ from 1 thread's", describe(pb),
                  threads, serial ? "serial" : "parallel");
            release(&o);
        }
    }
    release(&first);
}

/* A variant (streaming stores, blocking, time_block) must verify like any problem and give
 * bitwise the arrays and result of the plain problem, for 1 to 4 threads. */
static void check_same_as_plain(const struct ts_problem *variant, int64_t variant_steps, const struct ts_problem *plain,
                                int64_t plain_steps)
{
    check_problem(variant, variant_steps);
    for (int threads = 1; threads <= 4; threads++) {
        struct outcome a, b;
        if (run(variant, threads, 0, variant_steps, &a) != 0 || run(plain, threads, 0, plain_steps, &b) != 0) {
            CHECK(0, "%s: could not run", describe(variant));
            continue;
        }
        CHECK(memcmp(&a.result, &b.result, sizeof a.result) == 0 && same_arrays(&a, &b),
              "%s, %d threads, %lld iterations: result %a or arrays differ from the plain kernel's %a after %lld",
              describe(variant), threads, (long long)variant_steps, a.result, b.result, (long long)plain_steps);
        release(&a);
        release(&b);
    }
}

/* Verification must fail when one value is wrong. */
static void check_detects(const struct ts_problem *pb, int64_t steps, int array, int64_t index, double factor,
                          double result_factor)
{
    struct outcome o;
    if (run(pb, 2, 0, steps, &o) != 0)
        return;
    o.arrays[array][index] *= factor;
    o.result *= result_factor;
    const struct ts_kernel *k = ts_kernel_get(pb->kernel);
    struct ts_verification ver;
    k->verify(pb, o.arrays, steps, o.result, &ver);
    CHECK(!ver.passed,
          "%s: verification passed although array %d element %lld was scaled by %.15g and the result by %.15g",
          describe(pb), array, (long long)index, factor, result_factor);
    release(&o);
}

static void sum_and_triad(void)
{
    const int64_t sizes[] = { 1, 2, 3, 17, 1000003 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct ts_problem sum = { .kernel = TS_KERNEL_SUM, .n = sizes[i], .seed = 7 };
        struct ts_problem triad = { .kernel = TS_KERNEL_TRIAD, .n = sizes[i], .scalar = 3.0, .seed = 7 };
        check_problem(&sum, 2);
        check_problem(&triad, 2);
    }
    const int64_t odd_sizes[] = { 1, 3, 511, 513, 100003 };
    for (size_t i = 0; i < sizeof odd_sizes / sizeof odd_sizes[0]; i++) {
        struct ts_problem fast = { .kernel = TS_KERNEL_SUM, .n = odd_sizes[i], .seed = 5, .sum_mode = TS_SUM_FAST };
        check_problem(&fast, 2);
        struct ts_problem triad = { .kernel = TS_KERNEL_TRIAD, .n = odd_sizes[i], .scalar = -0.5, .seed = 5 };
        struct ts_problem streamed = triad;
        streamed.nontemporal = 1;
        check_same_as_plain(&streamed, 2, &triad, 2);
    }
    struct ts_problem sum = { .kernel = TS_KERNEL_SUM, .n = 1000, .seed = 3 };
    check_detects(&sum, 1, 0, 0, 1.0, 1.0 + 1e-12);
    struct ts_problem fast = { .kernel = TS_KERNEL_SUM, .n = 1000, .seed = 3, .sum_mode = TS_SUM_FAST };
    check_detects(&fast, 1, 0, 0, 1.0, 1.0 + 1e-12);
    struct ts_problem triad = { .kernel = TS_KERNEL_TRIAD, .n = 1000, .scalar = 3.0, .seed = 3 };
    check_detects(&triad, 1, 0, 999, 1.0 + 1e-12, 1.0);
    check_detects(&triad, 1, 1, 5, 2.0, 1.0); /* b changed behind the kernel's back */
}

static void stencils(void)
{
    const int64_t grids2d[][2] = { { 3, 3 }, { 5, 7 }, { 129, 65 } };
    for (size_t i = 0; i < 3; i++) {
        struct ts_problem pb = {
            .kernel = TS_KERNEL_STENCIL2D, .nx = grids2d[i][0], .ny = grids2d[i][1], .nz = 1, .alpha = 0.2
        };
        check_problem(&pb, 7);
    }
    const int64_t grids3d[][3] = { { 3, 3, 3 }, { 9, 9, 9 }, { 17, 5, 11 } };
    for (size_t i = 0; i < 3; i++) {
        struct ts_problem pb = { .kernel = TS_KERNEL_STENCIL3D,
                                 .nx = grids3d[i][0],
                                 .ny = grids3d[i][1],
                                 .nz = grids3d[i][2],
                                 .alpha = 1.0 / 6.0 };
        check_problem(&pb, 7);
    }
    /* Many steps at the stability limit: the eigenmode decays and the tolerance still holds. */
    struct ts_problem long_run = { .kernel = TS_KERNEL_STENCIL2D, .nx = 33, .ny = 17, .nz = 1, .alpha = 0.25 };
    check_problem(&long_run, 500);

    struct ts_problem grid = { .kernel = TS_KERNEL_STENCIL2D, .nx = 17, .ny = 9, .nz = 1, .alpha = 0.2 };
    check_detects(&grid, 4, 0, 4 * 17 + 8, 1.0 + 1e-9, 1.0);
    struct ts_problem cube = { .kernel = TS_KERNEL_STENCIL3D, .nx = 9, .ny = 9, .nz = 9, .alpha = 0.1 };
    check_detects(&cube, 3, 1, (4 * 9 + 4) * 9 + 4, 1.0 + 1e-9, 1.0);

    /* Blocking, streaming stores and temporal blocking change the order of the work, never a bit
     * of the result: blocks of 1 to 4 rows, time blocks deeper than a thread's share of items;
     * streamed runs of rows longer than one strip (TS_STREAM_STRIP), whose x-boundary points are
     * zeroed in the vector registers (or, without vector streaming stores, in the strip), and
     * runs starting anywhere in a cache line. */
    const int64_t odd3d[][3] = { { 9, 9, 9 }, { 17, 5, 11 }, { 5, 7, 21 }, { 67, 23, 7 } };
    for (size_t i = 0; i < sizeof odd3d / sizeof odd3d[0]; i++) {
        struct ts_problem plain = {
            .kernel = TS_KERNEL_STENCIL3D, .nx = odd3d[i][0], .ny = odd3d[i][1], .nz = odd3d[i][2], .alpha = 0.15
        };
        for (int64_t rows = 1; rows <= 4; rows++) {
            struct ts_problem blocked = plain;
            blocked.block_y = rows;
            blocked.nontemporal = rows % 2;
            check_same_as_plain(&blocked, 6, &plain, 6);
        }
        for (int64_t k = 2; k <= 5; k++) {
            struct ts_problem waved = plain;
            waved.time_block = k;
            check_same_as_plain(&waved, 3, &plain, 3 * k);
        }
        /* The wavefront in skewed y-tiles: tiles of 1 row (thinner than k), tiles that leave a
         * remainder, a tile as many rows as the grid has and one more. */
        const int64_t tiles[][2] = {
            { 1, 3 }, { 2, 2 }, { 3, 4 }, { 4, 5 }, { odd3d[i][1] - 2, 2 }, { odd3d[i][1], 3 }
        };
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
            struct ts_problem tiled = plain;
            tiled.block_y = tiles[t][0];
            tiled.time_block = tiles[t][1];
            check_same_as_plain(&tiled, 2, &plain, 2 * tiles[t][1]);
        }
    }
    /* Parts long enough for the wavefront's ring (kernels/stencil_wave_levels.c) at 1 to 4
     * threads: levels in the ring and in the grids side by side, tiles of one row up to all. */
    struct ts_problem long_parts = { .kernel = TS_KERNEL_STENCIL3D, .nx = 13, .ny = 11, .nz = 64, .alpha = 0.15 };
    const int64_t ring_tiles[][2] = { { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 6 }, { 0, 4 }, { 9, 5 } };
    for (size_t t = 0; t < sizeof ring_tiles / sizeof ring_tiles[0]; t++) {
        struct ts_problem tiled = long_parts;
        tiled.block_y = ring_tiles[t][0];
        tiled.time_block = ring_tiles[t][1];
        check_same_as_plain(&tiled, 3, &long_parts, 3 * ring_tiles[t][1]);
    }
    const int64_t odd2d[][2] = { { 129, 65 }, { 7, 33 }, { 1031, 9 }, { 520, 12 } };
    for (size_t i = 0; i < sizeof odd2d / sizeof odd2d[0]; i++) {
        struct ts_problem plain = {
            .kernel = TS_KERNEL_STENCIL2D, .nx = odd2d[i][0], .ny = odd2d[i][1], .nz = 1, .alpha = 0.2
        };
        struct ts_problem streamed = plain;
        streamed.nontemporal = 1;
        check_same_as_plain(&streamed, 5, &plain, 5);
        for (int64_t k = 2; k <= 9; k += 7) {
            struct ts_problem waved = plain;
            waved.time_block = k;
            check_same_as_plain(&waved, 4, &plain, 4 * k);
        }
    }
    struct ts_problem waved = {
        .kernel = TS_KERNEL_STENCIL3D, .nx = 9, .ny = 9, .nz = 9, .alpha = 0.1, .time_block = 3
    };
    check_detects(&waved, 2, 0, (4 * 9 + 4) * 9 + 4, 1.0 + 1e-9, 1.0);

    /* Plans refuse grids without an interior point. */
    struct ts_plan plan;
    char why[256];
    struct ts_problem tiny = { .kernel = TS_KERNEL_STENCIL2D, .nx = 2, .ny = 5, .nz = 1, .alpha = 0.1 };
    CHECK(ts_kernel_get(TS_KERNEL_STENCIL2D)->plan(&tiny, &plan, why, sizeof why) != 0, "2x5 grid accepted");
    struct ts_problem both = {
        .kernel = TS_KERNEL_STENCIL3D, .nx = 9, .ny = 9, .nz = 9, .alpha = 0.1, .nontemporal = 1, .time_block = 2
    };
    CHECK(ts_kernel_get(TS_KERNEL_STENCIL3D)->plan(&both, &plan, why, sizeof why) != 0,
          "streaming stores with temporal blocking accepted");
    CHECK(ts_kernel_find("stencil3d") == ts_kernel_get(TS_KERNEL_STENCIL3D), "lookup by name");
    CHECK(ts_kernel_find("stencil4d") == NULL, "unknown kernel name found");
}

/* The names a run file may give its kernel (record/ts_record.h, what the readers accept) are
 * the kernel table's, in the order of enum ts_kernel_id: a kernel added to one only would make
 * its files unreadable, or let files name a kernel that does not exist. */
static void record_names(void)
{
    static const char *const names[] = TS_KERNEL_NAMES;
    int n = 0;
    for (; names[n]; n++) {
        const struct ts_kernel *k = ts_kernel_get((enum ts_kernel_id)n);
        CHECK(k && strcmp(k->name, names[n]) == 0, "TS_KERNEL_NAMES[%d] is %s, the kernel table's %d is %s", n,
              names[n], n, k ? k->name : "(none)");
    }
    CHECK(n == TS_KERNEL_COUNT, "TS_KERNEL_NAMES has %d names, the kernel table %d kernels", n, TS_KERNEL_COUNT);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    record_names();
    if (strcmp(which, "1d") == 0 || strcmp(which, "all") == 0)
        sum_and_triad();
    if (strcmp(which, "stencils") == 0 || strcmp(which, "all") == 0)
        stencils();
    return ts_test_finish();
}

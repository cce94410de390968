/* The kernels on a rank's part of a problem (struct ts_problem_part), R ranks simulated in one
 * process: sum and triad on slices from ts_decomp_slice, the stencils on blocks from
 * kernels/ts_decomp.h with their halos exchanged (pack, unpack) before every step. What a run
 * over ranks must give: the owned values and the merged result bitwise those of the whole
 * problem in one process, every part verified, the checked counts adding up to the whole. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_decomp.h"
#include "ts_kernel.h"
#include "ts_test.h"

/* One process's problem (the whole one, or a rank's part) and its arrays. */
struct run {
    struct ts_problem pb;
    const struct ts_kernel *k;
    struct ts_plan plan;
    double *arrays[3];
    ts_partition *threads;
    int n_threads;
    struct ts_verification ver;
};

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Plans, allocates and initialises (first touch by n_threads threads over granule items). */
static void setup(struct run *r, const struct ts_problem *pb, int n_threads, int64_t granule)
{
    memset(r, 0, sizeof *r);
    r->pb = *pb;
    r->k = ts_kernel_get(pb->kernel);
    r->n_threads = n_threads;
    char why[256] = "";
    REQUIRE(r->k->plan(pb, &r->plan, why, sizeof why) == 0, "plan refused: %s", why);
    for (int a = 0; a < r->plan.n_arrays; a++) {
        r->arrays[a] = malloc((size_t)(r->plan.array_elems > 0 ? r->plan.array_elems : 1) * sizeof(double));
        REQUIRE(r->arrays[a], "out of memory");
    }
    REQUIRE(ts_partition_create(&r->threads, r->plan.items, n_threads, granule) == 0, "partition refused");
#pragma omp parallel for schedule(static) num_threads(n_threads)
    for (int c = 0; c < n_threads; c++)
        r->k->init(&r->pb, r->arrays, ts_partition_range(r->threads, c));
}

/* One iteration over every thread's range; the threads' partials (sum) merged into acc. */
static void step(struct run *r, int64_t s, struct ts_xsum *acc)
{
    struct ts_xsum slot[16];
    REQUIRE(r->n_threads <= 16, "too many threads");
#pragma omp parallel for schedule(static) num_threads(r->n_threads)
    for (int c = 0; c < r->n_threads; c++) {
        ts_xsum_init(&slot[c]);
        r->k->step(&r->pb, r->arrays, ts_partition_range(r->threads, c), s, &slot[c]);
    }
    for (int c = 0; c < r->n_threads; c++)
        ts_xsum_merge(acc, &slot[c]);
}

/* One half of an overlapped iteration (step_split) over every thread's range. */
static void step_half(struct run *r, int64_t s, int rim)
{
#pragma omp parallel for schedule(static) num_threads(r->n_threads)
    for (int c = 0; c < r->n_threads; c++)
        r->k->step_split(&r->pb, r->arrays, ts_partition_range(r->threads, c), s, rim);
}

/* The points of grid g of part r that it does not own (its halo layers) set to poison, or, with
 * count, the owned points of grid g that are NaN counted. */
static int64_t halo_points(struct run *r, int g, double poison, int count)
{
    const struct ts_problem_part *q = &r->pb.part;
    const int64_t lx = r->pb.nx, ly = r->pb.ny, lz = r->pb.kernel == TS_KERNEL_STENCIL3D ? r->pb.nz : 1;
    int64_t n = 0;
    for (int64_t k = 0; k < lz; k++)
        for (int64_t j = 0; j < ly; j++)
            for (int64_t i = 0; i < lx; i++) {
                const int owned = k >= q->own_begin[2] && k < q->own_end[2] && j >= q->own_begin[1] && j < q->own_end[1]
                                  && i >= q->own_begin[0] && i < q->own_end[0];
                double *v = &r->arrays[g][(k * ly + j) * lx + i];
                if (count)
                    n += owned && isnan(*v);
                else if (!owned)
                    *v = poison;
            }
    return n;
}

/* The result after steps iterations (kernels with a result function), merged into acc. */
static void result(struct run *r, int64_t steps, struct ts_xsum *acc)
{
    struct ts_xsum slot[16];
#pragma omp parallel for schedule(static) num_threads(r->n_threads)
    for (int c = 0; c < r->n_threads; c++) {
        ts_xsum_init(&slot[c]);
        r->k->result(&r->pb, r->arrays, ts_partition_range(r->threads, c), steps, &slot[c]);
    }
    for (int c = 0; c < r->n_threads; c++)
        ts_xsum_merge(acc, &slot[c]);
}

static void release(struct run *r)
{
    for (int a = 0; a < 3; a++)
        free(r->arrays[a]);
    ts_partition_destroy(r->threads);
    memset(r, 0, sizeof *r);
}

/* Runs steps iterations of pb whole, then as `ranks` slices of `granule` elements: the merged
 * result bitwise the whole run's, every element a part owns equal to the whole run's, every
 * part verified, part 0 alone judging the combined result. */
static void check_slices(const struct ts_problem *pb, int ranks, int64_t granule, int64_t steps)
{
    const char *name = ts_kernel_get(pb->kernel)->name;
    struct run whole;
    setup(&whole, pb, 3, granule);
    struct ts_xsum acc;
    for (int64_t s = 0; s < steps; s++) {
        ts_xsum_init(&acc);
        step(&whole, s, &acc);
    }
    if (whole.k->result) {
        ts_xsum_init(&acc);
        result(&whole, steps, &acc);
    }
    const double want = ts_xsum_round(&acc);

    struct run *part = calloc((size_t)ranks, sizeof *part);
    struct ts_range *slice = calloc((size_t)ranks, sizeof *slice);
    REQUIRE(part && slice, "out of memory");
    for (int r = 0; r < ranks; r++) {
        REQUIRE(ts_decomp_slice(pb->n, ranks, r, granule, &slice[r]) == 0, "slice refused");
        struct ts_problem lp = *pb;
        lp.n = slice[r].end - slice[r].begin;
        lp.part = (struct ts_problem_part){ .whole = { pb->n, 0, 0 },
                                            .origin = { slice[r].begin, 0, 0 },
                                            .own_begin = { 0, 0, 0 },
                                            .own_end = { lp.n, 1, 1 },
                                            .checks_result = r == 0 };
        setup(&part[r], &lp, 1 + r % 3, granule);
    }
    struct ts_xsum merged;
    for (int64_t s = 0; s < steps; s++) {
        ts_xsum_init(&merged);
        for (int r = 0; r < ranks; r++)
            step(&part[r], s, &merged);
    }
    if (whole.k->result) {
        ts_xsum_init(&merged);
        for (int r = 0; r < ranks; r++)
            result(&part[r], steps, &merged);
    }
    const double got = ts_xsum_round(&merged);
    CHECK(same_bits(got, want), "%s n=%lld on %d ranks, granule %lld: merged result %.17g, whole run %.17g", name,
          (long long)pb->n, ranks, (long long)granule, got, want);

    int64_t checked = 0;
    for (int r = 0; r < ranks; r++) {
        struct run *p = &part[r];
        for (int a = 0; a < p->plan.n_arrays; a++)
            CHECK(p->pb.n == 0
                      || memcmp(p->arrays[a], whole.arrays[a] + slice[r].begin, (size_t)p->pb.n * sizeof(double)) == 0,
                  "%s n=%lld on %d ranks: rank %d's array %d differs from the whole run's", name, (long long)pb->n,
                  ranks, r, a);
        p->k->verify(&p->pb, p->arrays, steps, got, &p->ver);
        CHECK(p->ver.passed, "%s n=%lld on %d ranks, granule %lld: rank %d (elements [%lld, %lld)) failed: %s", name,
              (long long)pb->n, ranks, (long long)granule, r, (long long)slice[r].begin, (long long)slice[r].end,
              p->ver.method);
        CHECK(r == 0 ? isfinite(p->ver.expected) : isnan(p->ver.expected),
              "%s: rank %d's expected %g: only part 0 judges the combined result", name, r, p->ver.expected);
        checked += p->ver.checked;
    }
    CHECK(checked == pb->n + 1, "%s n=%lld on %d ranks: %lld values checked, expected every element and the result",
          name, (long long)pb->n, ranks, (long long)checked);

    /* A wrong combined result is noticed by part 0. */
    struct ts_verification bad;
    part[0].k->verify(&part[0].pb, part[0].arrays, steps, got * (1 + 0x1p-20), &bad);
    CHECK(!bad.passed, "%s: part 0 passed a wrong combined result", name);

    for (int r = 0; r < ranks; r++)
        release(&part[r]);
    free(part);
    free(slice);
    release(&whole);
}

static void slices(void)
{
    const int64_t sizes[] = { 100037, 1500, 512 * 40 };
    const int64_t granules[] = { TS_SUM_BLOCK, 8 * TS_SUM_BLOCK };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t g = 0; g < sizeof granules / sizeof granules[0]; g++)
            for (int ranks = 1; ranks <= 4; ranks++) {
                struct ts_problem sum = { .kernel = TS_KERNEL_SUM, .n = sizes[i], .seed = 7 };
                check_slices(&sum, ranks, granules[g], 2);
                struct ts_problem triad = { .kernel = TS_KERNEL_TRIAD, .n = sizes[i], .seed = 11, .scalar = 3.0 };
                check_slices(&triad, ranks, granules[g], 2);
                triad.nontemporal = 1;
                check_slices(&triad, ranks, granules[g], 1);
            }

    /* A part's own elements are checked: a changed one is a failure, of that part only. */
    struct ts_problem sum = { .kernel = TS_KERNEL_SUM, .n = 2048, .seed = 3 };
    sum.part = (struct ts_problem_part){ .whole = { 4096 }, .origin = { 2048 }, .own_end = { 2048, 1, 1 } };
    struct run p;
    setup(&p, &sum, 1, TS_SUM_BLOCK);
    p.arrays[0][17] += 1.0;
    p.k->verify(&p.pb, p.arrays, 1, 0.0, &p.ver);
    CHECK(!p.ver.passed && p.ver.failures == 1 && p.ver.checked == 2048,
          "sum part with one wrong element: passed %d, %lld failures of %lld", p.ver.passed, (long long)p.ver.failures,
          (long long)p.ver.checked);
    release(&p);

    /* A part that does not lie in its whole problem is refused by plan. */
    struct ts_plan plan;
    char why[256] = "";
    sum.part.origin[0] = 3000;
    CHECK(ts_kernel_get(TS_KERNEL_SUM)->plan(&sum, &plan, why, sizeof why) != 0, "a slice past the end accepted");
}

/* The own ranges of block b (the brief of struct ts_problem_part): the owned interior, plus the
 * boundary layer where no neighbour is, so that the parts together answer for every point. */
static struct ts_problem_part part_of(const struct ts_decomp *d, const struct ts_decomp_block *b)
{
    struct ts_problem_part p = { .checks_result = b->rank == 0 };
    for (int a = 0; a < 3; a++) {
        p.whole[a] = d->points[a];
        p.origin[a] = b->origin[a];
        p.own_begin[a] = b->neighbour[2 * a] < 0 ? 0 : 1;
        p.own_end[a] = b->local[a] - (b->neighbour[2 * a + 1] < 0 ? 0 : 1);
    }
    return p;
}

/* Every rank sends its faces of grid g, then every rank receives into its halos. */
static void exchange(struct run *part, const struct ts_decomp_block *blocks, int ranks, int ndims, int g,
                     double *(*buf)[TS_DIR_COUNT])
{
    for (int r = 0; r < ranks; r++)
        for (int dir = 0; dir < 2 * ndims; dir++)
            if (blocks[r].neighbour[dir] >= 0) {
                struct ts_decomp_face f = ts_decomp_send_face(&blocks[r], (enum ts_decomp_dir)dir);
                ts_decomp_pack(part[r].arrays[g], &f, buf[r][dir]);
            }
    for (int r = 0; r < ranks; r++)
        for (int dir = 0; dir < 2 * ndims; dir++) {
            const int from = blocks[r].neighbour[dir];
            if (from < 0)
                continue;
            struct ts_decomp_face f = ts_decomp_recv_face(&blocks[r], (enum ts_decomp_dir)dir);
            ts_decomp_unpack(part[r].arrays[g], &f, buf[from][dir ^ 1]);
        }
}

/* pb whole against pb over ranks (dims NULL: automatic), `variant` applied to the parts only
 * (streaming stores, spatial blocks: the same values by construction), after steps steps. With
 * split, the parts step as a rank that overlaps its exchange does: the points that read no halo
 * (step_split's rim = 0) with NaN in every halo, which must reach no owned point, then the
 * exchange, then the rim. */
static void check_split_blocks(const struct ts_problem *pb, int ranks, const int *dims, int64_t steps,
                               const struct ts_problem *variant, int split)
{
    const int ndims = pb->kernel == TS_KERNEL_STENCIL3D ? 3 : 2;
    const int64_t points[3] = { pb->nx, pb->ny, ndims == 3 ? pb->nz : 1 };
    const char *name = ts_kernel_get(pb->kernel)->name;
    struct ts_decomp d;
    char why[256] = "", text[48] = "";
    REQUIRE(ts_decomp_create(&d, ndims, points, ranks, dims, 1, why, sizeof why) == TS_DECOMP_OK, "decomp refused: %s",
            why);
    ts_decomp_dims_text(&d, text, sizeof text);
    char label[160];
    snprintf(label, sizeof label, "%s %lldx%lldx%lld on %d ranks as %s%s%s%s", name, (long long)points[0],
             (long long)points[1], (long long)points[2], ranks, text, variant->nontemporal ? ", streaming stores" : "",
             variant->block_y ? ", y-blocked" : "", split ? ", overlapped" : "");

    struct run whole;
    setup(&whole, pb, 2, 1);
    struct ts_xsum acc;
    for (int64_t s = 0; s < steps; s++) {
        ts_xsum_init(&acc);
        step(&whole, s, &acc);
    }
    ts_xsum_init(&acc);
    result(&whole, steps, &acc);
    const double want = ts_xsum_round(&acc);
    whole.k->verify(&whole.pb, whole.arrays, steps, want, &whole.ver);
    CHECK(whole.ver.passed, "%s: the whole run failed: %s", label, whole.ver.method);

    struct run *part = calloc((size_t)ranks, sizeof *part);
    struct ts_decomp_block *blocks = calloc((size_t)ranks, sizeof *blocks);
    double *(*buf)[TS_DIR_COUNT] = calloc((size_t)ranks, sizeof *buf);
    REQUIRE(part && blocks && buf, "out of memory");
    for (int r = 0; r < ranks; r++) {
        struct ts_decomp_block *b = &blocks[r];
        REQUIRE(ts_decomp_block(&d, r, b) == 0, "block of rank %d refused", r);
        struct ts_problem lp = *pb;
        lp.nontemporal = variant->nontemporal;
        lp.block_y = variant->block_y;
        lp.nx = b->local[0];
        lp.ny = b->local[1];
        lp.nz = b->local[2];
        lp.part = part_of(&d, b);
        setup(&part[r], &lp, 1 + r % 3, 1);
        for (int dir = 0; dir < 2 * ndims; dir++) {
            struct ts_decomp_face f = ts_decomp_send_face(b, (enum ts_decomp_dir)dir);
            buf[r][dir] = malloc((size_t)(f.elems > 0 ? f.elems : 1) * sizeof(double));
            REQUIRE(buf[r][dir], "out of memory");
        }
    }
    int64_t poisoned = 0;
    for (int64_t s = 0; s < steps; s++) {
        const int in = (int)(s % 2);
        if (split) {
            for (int r = 0; r < ranks; r++) {
                halo_points(&part[r], in, NAN, 0);
                step_half(&part[r], s, 0);
                poisoned += halo_points(&part[r], 1 - in, 0.0, 1);
            }
        }
        exchange(part, blocks, ranks, ndims, in, buf);
        for (int r = 0; r < ranks; r++) {
            if (split)
                step_half(&part[r], s, 1);
            else
                step(&part[r], s, &acc);
        }
    }
    CHECK(poisoned == 0, "%s: the points that read no halo read one: %lld owned points NaN", label,
          (long long)poisoned);
    struct ts_xsum merged;
    ts_xsum_init(&merged);
    for (int r = 0; r < ranks; r++)
        result(&part[r], steps, &merged);
    const double got = ts_xsum_round(&merged);
    CHECK(same_bits(got, want), "%s: merged sum of u^2 %.17g, whole run %.17g", label, got, want);

    int64_t checked = 0, differ = 0;
    int centres = 0;
    const int g = (int)(steps % 2);
    for (int r = 0; r < ranks; r++) {
        struct run *p = &part[r];
        const struct ts_problem_part *q = &p->pb.part;
        const int64_t lx = p->pb.nx, ly = p->pb.ny;
        for (int64_t k = q->own_begin[2]; k < q->own_end[2]; k++)
            for (int64_t j = q->own_begin[1]; j < q->own_end[1]; j++)
                for (int64_t i = q->own_begin[0]; i < q->own_end[0]; i++) {
                    int64_t gi = ((q->origin[2] + k) * points[1] + q->origin[1] + j) * points[0] + q->origin[0] + i;
                    differ += !same_bits(p->arrays[g][(k * ly + j) * lx + i], whole.arrays[g][gi]);
                }
        p->k->verify(&p->pb, p->arrays, steps, got, &p->ver);
        CHECK(p->ver.passed, "%s: rank %d failed: %s", label, r, p->ver.method);
        CHECK(same_bits(p->ver.expected, whole.ver.expected), "%s: rank %d expects %.17g, the whole run %.17g", label,
              r, p->ver.expected, whole.ver.expected);
        if (!isnan(p->ver.observed)) {
            centres++;
            CHECK(same_bits(p->ver.observed, whole.ver.observed), "%s: rank %d observes %.17g at the centre, not %.17g",
                  label, r, p->ver.observed, whole.ver.observed);
        }
        checked += p->ver.checked;
    }
    CHECK(differ == 0, "%s: %lld owned points differ from the whole run after %lld steps", label, (long long)differ,
          (long long)steps);
    CHECK(checked == points[0] * points[1] * points[2], "%s: %lld points checked over the parts, the grid has %lld",
          label, (long long)checked, (long long)(points[0] * points[1] * points[2]));
    CHECK(centres == 1, "%s: %d parts observed the centre point, expected exactly one", label, centres);

    /* A wrong owned point fails its part's verification; a wrong halo point (not owned) does not. */
    if (ranks > 1 && blocks[0].neighbour[TS_DIR_X_HI] >= 0) {
        struct run *p = &part[0];
        const int64_t lx = p->pb.nx, row = 1 * lx; /* y = 1 (z = 1 in 3D): owned */
        const int64_t at = (ndims == 3 ? p->pb.ny * lx : 0) + row;
        struct ts_verification v;
        p->arrays[g][at + lx - 1] = 42.0; /* the x halo on the high side */
        p->k->verify(&p->pb, p->arrays, steps, got, &v);
        CHECK(v.passed, "%s: a wrong halo point failed rank 0's verification", label);
        p->arrays[g][at + lx - 2] = 42.0; /* its last owned point */
        p->k->verify(&p->pb, p->arrays, steps, got, &v);
        CHECK(!v.passed && v.failures == 1, "%s: a wrong owned point gave %lld failures", label, (long long)v.failures);
    }

    for (int r = 0; r < ranks; r++) {
        release(&part[r]);
        for (int dir = 0; dir < 2 * ndims; dir++)
            free(buf[r][dir]);
    }
    free(buf);
    free(blocks);
    free(part);
    release(&whole);
}

static void check_blocks(const struct ts_problem *pb, int ranks, const int *dims, int64_t steps,
                         const struct ts_problem *variant)
{
    check_split_blocks(pb, ranks, dims, steps, variant, 0);
}

/* The overlapped step (step_split: the points that read no halo, the exchange, the rim) gives
 * the plain step's bits on every rank grid shape: halos along one axis, along two, along all
 * three, parts with halos on one side or both, thin parts whose core is empty, streaming stores
 * and y-blocks, one to three threads a part. */
static void split_blocks(void)
{
    const struct ts_problem plain = { 0 };
    const struct ts_problem streamed = { .nontemporal = 1 };
    const struct ts_problem blocked = { .block_y = 2 };
    struct ts_problem s2 = { .kernel = TS_KERNEL_STENCIL2D, .nx = 129, .ny = 65, .nz = 1, .alpha = 0.2 };
    check_split_blocks(&s2, 3, (const int[3]){ 1, 3, 1 }, 5, &plain, 1);
    check_split_blocks(&s2, 3, (const int[3]){ 3, 1, 1 }, 4, &streamed, 1);
    check_split_blocks(&s2, 1, NULL, 3, &plain, 1);
    s2.nx = 33;
    s2.ny = 20;
    check_split_blocks(&s2, 6, (const int[3]){ 2, 3, 1 }, 5, &plain, 1);
    check_split_blocks(&s2, 6, (const int[3]){ 1, 6, 1 }, 4, &streamed, 1); /* parts of 3 or 4 rows */

    struct ts_problem s3 = { .kernel = TS_KERNEL_STENCIL3D, .nx = 17, .ny = 9, .nz = 31, .alpha = 0.15 };
    check_split_blocks(&s3, 5, NULL, 5, &plain, 1);
    check_split_blocks(&s3, 8, (const int[3]){ 2, 2, 2 }, 4, &plain, 1);
    check_split_blocks(&s3, 8, (const int[3]){ 2, 2, 2 }, 4, &blocked, 1);
    check_split_blocks(&s3, 6, (const int[3]){ 3, 1, 2 }, 4, &streamed, 1);
    check_split_blocks(&s3, 10, (const int[3]){ 1, 1, 10 }, 4, &blocked, 1); /* parts of 3 or 4 planes */
    s3.nx = 67;
    s3.ny = 23;
    s3.nz = 7;
    check_split_blocks(&s3, 4, (const int[3]){ 2, 2, 1 }, 4, &streamed, 1);
    check_split_blocks(&s3, 3, (const int[3]){ 1, 3, 1 }, 4, &blocked, 1);
}

static void blocks(void)
{
    const struct ts_problem plain = { 0 };
    const struct ts_problem streamed = { .nontemporal = 1 };
    const struct ts_problem blocked = { .block_y = 2 };
    struct ts_problem s2 = { .kernel = TS_KERNEL_STENCIL2D, .nx = 129, .ny = 65, .nz = 1, .alpha = 0.2 };
    check_blocks(&s2, 3, NULL, 7, &plain);
    check_blocks(&s2, 3, (const int[3]){ 3, 1, 1 }, 6, &plain);
    check_blocks(&s2, 6, (const int[3]){ 3, 2, 1 }, 5, &streamed);
    check_blocks(&s2, 1, NULL, 4, &plain);
    s2.nx = 33;
    s2.ny = 20;
    check_blocks(&s2, 4, (const int[3]){ 2, 2, 1 }, 7, &plain);
    check_blocks(&s2, 4, (const int[3]){ 2, 2, 1 }, 6, &streamed);

    struct ts_problem s3 = { .kernel = TS_KERNEL_STENCIL3D, .nx = 17, .ny = 9, .nz = 31, .alpha = 0.15 };
    check_blocks(&s3, 5, NULL, 7, &plain);
    check_blocks(&s3, 8, (const int[3]){ 2, 2, 2 }, 6, &plain);
    check_blocks(&s3, 8, (const int[3]){ 2, 2, 2 }, 5, &blocked);
    check_blocks(&s3, 6, (const int[3]){ 3, 1, 2 }, 4, &streamed);
    s3.nx = 67;
    s3.ny = 23;
    s3.nz = 7;
    check_blocks(&s3, 4, (const int[3]){ 2, 2, 1 }, 5, &streamed);
    check_blocks(&s3, 3, (const int[3]){ 1, 3, 1 }, 5, &blocked);

    /* Temporal blocking takes time_block steps between two halo exchanges: refused on a part
     * whose halo is shallower, accepted once it is as deep (4 layers past the owned columns). */
    struct ts_problem tb = {
        .kernel = TS_KERNEL_STENCIL2D, .nx = 10, .ny = 10, .nz = 1, .alpha = 0.2, .time_block = 4
    };
    tb.part = (struct ts_problem_part){
        .whole = { 18, 10, 1 }, .origin = { 0, 0, 0 }, .own_begin = { 0, 0, 0 }, .own_end = { 9, 10, 1 }
    };
    struct ts_plan plan;
    char why[256] = "";
    CHECK(ts_kernel_get(TS_KERNEL_STENCIL2D)->plan(&tb, &plan, why, sizeof why) != 0,
          "time_block 4 accepted on a part whose halo is 1 layer deep");
    CHECK(strstr(why, "stencil.time_block = 4 on a part whose halo along x is 1 deep"), "thin halo: %s", why);
    tb.nx = 13;
    tb.part.whole[0] = 21;
    CHECK(ts_kernel_get(TS_KERNEL_STENCIL2D)->plan(&tb, &plan, why, sizeof why) == 0,
          "time_block 4 refused on a part whose halo is 4 deep: %s", why);
    tb.nx = 10;
    tb.part.whole[0] = 18;
    tb.time_block = 1;
    CHECK(ts_kernel_get(TS_KERNEL_STENCIL2D)->plan(&tb, &plan, why, sizeof why) == 0, "a part refused: %s", why);
    tb.part.own_end[1] = 11;
    CHECK(ts_kernel_get(TS_KERNEL_STENCIL2D)->plan(&tb, &plan, why, sizeof why) != 0,
          "owned rows past the local array accepted");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    if (strcmp(which, "slices") == 0 || strcmp(which, "all") == 0)
        slices();
    if (strcmp(which, "blocks") == 0 || strcmp(which, "all") == 0)
        blocks();
    if (strcmp(which, "split") == 0 || strcmp(which, "all") == 0)
        split_blocks();
    return ts_test_finish();
}

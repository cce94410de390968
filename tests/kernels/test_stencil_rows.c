/* stencil3d's AVX-512 row (kernels/stencil_wide.c), alone and three planes at once, against the
 * portable one (ts_stencil_row3d), bit for bit: every length up to a few vectors and across the
 * point where its prefetch stops, every alignment of input and output, neighbour distances that
 * are and are not whole vectors, and values chosen to show a reordered sum (subnormals, huge and
 * tiny values, signed zeros, infinities). Each input is allocated to exactly the points the
 * portable row reads, so the ASan build also proves the wide row reads no point outside them.
 * Then whole steps of the sweep (the planes grouped in threes, y-blocks, two parts) against the
 * portable row at every point. Skipped (exit 77) on a CPU without AVX-512, where the wide row
 * cannot run and is never chosen. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_common.h"
#include "stencil_wide.h"
#include "ts_partition.h"
#include "ts_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double value(int kind)
{
    static const double odd[] = { 0x1p-1074, -0x1p-1074, 0x1.8p-1022, -0.0, 0.0, 0x1p1000, -0x1p1000, 1.0, 0x1p-60 };
    uint64_t r = next();
    switch (kind) {
    case 0: return (double)(r >> 11) * 0x1p-53;
    case 1: {
        double v = ldexp((double)(r >> 11) * 0x1p-53, (int)(r % 600) - 300);
        return (r >> 10) & 1 ? -v : v;
    }
    case 2: return odd[r % (sizeof odd / sizeof odd[0])];
    default: return r % 97 == 0 ? (r & 1 ? INFINITY : -INFINITY) : (double)(r % 7);
    }
}

/* One row of len points, input c at shift doubles past a cache line (its allocation ends at the
 * last point the row reads), output o at o_shift; wide and portable must write the same bits. */
static void check_row(int64_t len, int64_t nx, int64_t plane, int shift, int o_shift, int kind);
static void check_planes(int64_t len, int64_t nx, int64_t plane, int shift, int o_shift, int kind);

static void check_row(int64_t len, int64_t nx, int64_t plane, int shift, int o_shift, int kind)
{
    /* c[-plane] .. c[len - 1 + plane], after `shift` more doubles: the allocation ends at the
     * footprint's last point (an allocation on a cache line puts c at plane + shift past it). */
    const int64_t reads = len + 2 * plane, n = reads + shift;
    void *in_mem = NULL, *out_mem = NULL;
    double *ref = malloc((size_t)(len + 1) * sizeof *ref);
    REQUIRE(posix_memalign(&in_mem, 64, (size_t)n * sizeof(double)) == 0
                && posix_memalign(&out_mem, 64, (size_t)(len + 8) * sizeof(double)) == 0 && ref,
            "out of memory");
    double *in = in_mem, *out = out_mem;
    for (int64_t i = 0; i < n; i++)
        in[i] = value(kind);
    const double *c = in + shift + plane;
    double *o = out + o_shift;
    ts_stencil_row3d(ref, c, nx, plane, (struct ts_stencil_weights){ 0.4, 0.1 }, len);
    ts_stencil_row3d_wide(o, c, nx, plane, (struct ts_stencil_weights){ 0.4, 0.1 }, len);
    int64_t bad = -1;
    for (int64_t i = 0; i < len && bad < 0; i++)
        if (memcmp(&o[i], &ref[i], sizeof ref[i]) != 0)
            bad = i;
    CHECK(bad < 0,
          "len %lld, nx %lld, plane %lld, input %lld doubles past a line, output %d, values %d: point %lld "
          "differs (%.17g against %.17g)",
          (long long)len, (long long)nx, (long long)plane, (long long)(((uintptr_t)c & 63) / 8), o_shift, kind,
          (long long)bad, bad < 0 ? 0.0 : o[bad], bad < 0 ? 0.0 : ref[bad]);
    free(in);
    free(out);
    free(ref);
}

/* The same for ts_stencil_planes3d_wide: TS_STENCIL_PLANES planes of len points at once, plane
 * apart (the sweep's runs are shorter than a plane: the test's planes are made so), each plane's
 * output against ts_stencil_row3d's, the input allocated to exactly what the three rows read. */
static void check_planes(int64_t len, int64_t nx, int64_t plane, int shift, int o_shift, int kind)
{
    while (plane < len)
        plane += plane + 1; /* odd from the first growth on: planes 1 and 2 off plane 0's alignment */
    const int64_t reads = len + (TS_STENCIL_PLANES + 1) * plane, n = reads + shift;
    const int64_t outs = (TS_STENCIL_PLANES - 1) * plane + len;
    void *in_mem = NULL, *out_mem = NULL;
    double *ref = malloc((size_t)(outs + 1) * sizeof *ref);
    REQUIRE(posix_memalign(&in_mem, 64, (size_t)n * sizeof(double)) == 0
                && posix_memalign(&out_mem, 64, (size_t)(outs + 8) * sizeof(double)) == 0 && ref,
            "out of memory");
    double *in = in_mem, *out = out_mem;
    for (int64_t i = 0; i < n; i++)
        in[i] = value(kind);
    const double *c = in + shift + plane;
    double *o = out + o_shift;
    const struct ts_stencil_weights w = { 0.4, 0.1 };
    for (int k = 0; k < TS_STENCIL_PLANES; k++)
        ts_stencil_row3d(ref + k * plane, c + k * plane, nx, plane, w, len);
    ts_stencil_planes3d_wide(o, c, nx, plane, w, len);
    int64_t bad = -1;
    for (int k = 0; k < TS_STENCIL_PLANES && bad < 0; k++)
        for (int64_t i = k * plane; i < k * plane + len && bad < 0; i++)
            if (memcmp(&o[i], &ref[i], sizeof ref[i]) != 0)
                bad = i;
    CHECK(bad < 0,
          "planes: len %lld, nx %lld, plane %lld, input %lld doubles past a line, output %d, values %d: point %lld "
          "(plane %lld) differs (%.17g against %.17g)",
          (long long)len, (long long)nx, (long long)plane, (long long)(((uintptr_t)c & 63) / 8), o_shift, kind,
          (long long)bad, (long long)(bad < 0 ? 0 : bad / plane), bad < 0 ? 0.0 : o[bad], bad < 0 ? 0.0 : ref[bad]);
    free(in);
    free(out);
    free(ref);
}

/* A whole step through the sweep (ts_stencil_step: its planes in threes where this CPU takes them,
 * the rest one by one, y-blocks of block_y rows, the items split at cut between two parts) against
 * the portable row over every interior row, bit for bit at every point: no plane, row or point
 * is missed, done twice or given another expression by the grouping. */
static void check_step(int64_t nx, int64_t ny, int64_t nz, int64_t block_y, int64_t cut)
{
    const int64_t n = nx * ny * nz, plane = nx * ny;
    double *u = malloc((size_t)n * sizeof *u), *got = malloc((size_t)n * sizeof *got);
    double *want = malloc((size_t)n * sizeof *want);
    REQUIRE(u && got && want, "out of memory");
    /* The x-boundary points +0.0, as init writes them: the sweep computes them within its runs of
     * rows and sets them back to that. */
    for (int64_t i = 0; i < n; i++)
        u[i] = i % nx == 0 || i % nx == nx - 1 ? 0.0 : value(0);
    memcpy(got, u, (size_t)n * sizeof *u);
    memcpy(want, u, (size_t)n * sizeof *u);
    const struct ts_problem pb = {
        .kernel = TS_KERNEL_STENCIL3D, .nx = nx, .ny = ny, .nz = nz, .alpha = 0.1, .block_y = block_y
    };
    const struct ts_stencil_weights w = ts_stencil_weights(&pb, 3);
    for (int64_t q = 1; q < nz - 1; q++)
        for (int64_t j = 1; j < ny - 1; j++)
            ts_stencil_row3d(want + q * plane + j * nx + 1, u + q * plane + j * nx + 1, nx, plane, w, nx - 2);
    double *const arrays[2] = { u, got };
    ts_stencil_step(&pb, 3, arrays, (struct ts_range){ 0, cut, 0 }, 0);
    ts_stencil_step(&pb, 3, arrays, (struct ts_range){ cut, nz, 1 }, 0);
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0)
            bad = i;
    CHECK(bad < 0,
          "step of %lldx%lldx%lld, block_y %lld, parts cut at plane %lld: point %lld (x %lld, y %lld, z %lld) differs",
          (long long)nx, (long long)ny, (long long)nz, (long long)block_y, (long long)cut, (long long)bad,
          (long long)(bad % nx), (long long)(bad / nx % ny), (long long)(bad / plane));
    free(u);
    free(got);
    free(want);
}

int main(void)
{
    if (!ts_stencil_row3d_wide || !ts_stencil_row3d_wide_available()) {
        printf("stencil rows: no AVX-512 on this CPU, the wide row cannot run here: skipped\n");
        return 77;
    }
    static const int64_t longer[] = { 63, 64, 65, 526, 527, 528, 535, 536, 600, 1031, 3001 };
    static const int64_t widths[][2] = { { 3, 9 }, { 8, 64 }, { 13, 52 }, { 88, 7744 } };
    int cases = 0;
    for (int kind = 0; kind < 4; kind++)
        for (size_t d = 0; d < sizeof widths / sizeof widths[0]; d++)
            for (int shift = 0; shift < 8; shift++) {
                for (int64_t len = 0; len <= 40; len++, cases += 2) {
                    check_row(len, widths[d][0], widths[d][1], shift, shift % 4, kind);
                    check_planes(len, widths[d][0], widths[d][1], shift, shift % 4, kind);
                }
                for (size_t k = 0; k < sizeof longer / sizeof longer[0]; k++, cases += 2) {
                    check_row(longer[k], widths[d][0], widths[d][1], shift, (shift + 1) % 8, kind);
                    check_planes(longer[k], widths[d][0], widths[d][1], shift, (shift + 1) % 8, kind);
                }
            }
    /* Planes per part: 1 to 9 interior (none, a three, threes and a rest), blocks that do and do not
     * divide the rows, rows of 8 and not. */
    static const int64_t grids[][3] = { { 19, 13, 11 }, { 88, 12, 10 }, { 24, 9, 5 }, { 17, 29, 4 } };
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (int64_t block_y = 0; block_y <= 5; block_y += 5)
            for (int64_t cut = 1; cut < grids[g][2]; cut += 2, cases++)
                check_step(grids[g][0], grids[g][1], grids[g][2], block_y, cut);
    printf("stencil rows: the AVX-512 row, its three planes at once and the sweep's steps against the portable row in "
           "%d cases (%s chosen on this CPU)\n",
           cases, ts_stencil_row3d_variant());
    return ts_test_finish();
}

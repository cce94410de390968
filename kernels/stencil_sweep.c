/* How a Jacobi step walks the grid: one row function per stencil shape, spatial blocking of
 * stencil3d, streaming stores, and the plan both stencils share. */
#include <stdio.h>

#include "kernels_internal.h"
#include "stencil_common.h"
#include "stencil_stream.h"
#include "stream_store.h"

/* The cache a y-block's input strips may fill: half of a 1 MiB L2, leaving room for the output
 * strip and for what the hardware keeps of other data. The L2 sizes cpuid reports are sound on
 * VMs, the L3 sizes often are not (bench/README.md, "Notes behind the code"), so this is fixed. */
#define BLOCK_CACHE_BYTES ((int64_t)512 << 10)
/* Below this many rows per block the two halo rows re-read per plane cost more than the layer
 * condition saves (L3 serves them; bench/README.md). */
#define MIN_BLOCK_ROWS 16

/* The arithmetic order of each update is fixed here, once: every variant (blocked, streamed,
 * time-blocked) computes bitwise the same values. */
static void row2d(double *restrict o, const double *restrict c, int64_t nx, int64_t plane, struct ts_stencil_weights w,
                  int64_t len)
{
    (void)plane;
    for (int64_t i = 0; i < len; i++)
        o[i] = w.center * c[i] + w.neighbour * ((c[i - nx] + c[i + nx]) + (c[i - 1] + c[i + 1]));
}

static void row3d(double *restrict o, const double *restrict c, int64_t nx, int64_t plane, struct ts_stencil_weights w,
                  int64_t len)
{
    for (int64_t i = 0; i < len; i++)
        o[i] = w.center * c[i]
               + w.neighbour * (((c[i - 1] + c[i + 1]) + (c[i - nx] + c[i + nx])) + (c[i - plane] + c[i + plane]));
}

struct ts_stencil_sweep ts_stencil_sweep_of(const struct ts_problem *pb, int dims)
{
    int three = dims == 3;
    return (struct ts_stencil_sweep){
        .row = three ? row3d : row2d,
        .run_streamed = ts_stream_run(dims),
        .w = ts_stencil_weights(pb, dims),
        .nx = pb->nx,
        .plane = pb->nx * pb->ny,
        .item_elems = three ? pb->nx * pb->ny : pb->nx,
        .items = three ? pb->nz : pb->ny,
        .row_lo = three ? 1 : 0,
        .row_hi = three ? pb->ny - 1 : 1,
        .nontemporal = pb->nontemporal,
    };
}

/* Elements from p to the next cache line (0 when p is on one), at most len. */
static int64_t to_line(const double *p, int64_t len)
{
    int64_t head = (int64_t)((64 - ((uintptr_t)p & 63)) & 63) / (int64_t)sizeof(double);
    return head < len ? head : len;
}

/* Sets the x-boundary points of a run back to their fixed zero (+0.0, as init writes them):
 * offsets o of [from, to) with (o + 1) % nx in {nx - 1, 0}, i.e. x = nx - 1 of a row and x = 0
 * of the next. dst[0] is offset from; the run's offset 0 is x = 1 of its first row. */
static void zero_x_boundary(double *dst, int64_t nx, int64_t from, int64_t to)
{
    for (int64_t r = from / nx; r * nx + nx - 2 < to; r++) {
        int64_t last = r * nx + nx - 2, first_of_next = last + 1;
        if (last >= from)
            dst[last - from] = 0.0;
        if (first_of_next >= from && first_of_next < to)
            dst[first_of_next - from] = 0.0;
    }
}

/* n consecutive rows (stride nx) from the interior point at, as one run of updates from the
 * first row's first interior point to the last row's last: the x-boundary points between rows
 * are computed too and then set back to zero. One long stream instead of a short row at a time
 * (126 points in the bench's 3D planes), and every vector store after the first cache line
 * writes one whole line instead of straddling two. */
static void rows_as_one(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t at, int64_t n)
{
    const int64_t nx = s->nx, len = (n - 1) * nx + (nx - 2);
    const int64_t head = to_line(out + at, len);
    s->row(out + at, in + at, nx, s->plane, s->w, head);
    s->row(out + at + head, in + at + head, nx, s->plane, s->w, len - head);
    zero_x_boundary(out + at, nx, 0, len);
}

/* Builds without vector streaming stores: each strip computed into L1, then streamed. */
static void stream_strips(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t at, int64_t from,
                          int64_t to)
{
    _Alignas(64) double strip[TS_STREAM_STRIP];
    for (int64_t i = from; i < to; i += TS_STREAM_STRIP) {
        int64_t m = to - i < TS_STREAM_STRIP ? to - i : TS_STREAM_STRIP;
        s->row(strip, in + at + i, s->nx, s->plane, s->w, m);
        zero_x_boundary(strip, s->nx, i, i + m);
        ts_stream_store(out + at + i, strip, m);
    }
}

/* The same run with streaming stores: the whole cache lines in its middle are streamed, so u'
 * costs no write-allocate read, and no line is ever part streamed, part cached (a partial
 * streaming store is a read-modify-write in the memory controller). The first and last
 * partial lines, which a neighbouring run may share, go through the cache. */
static void rows_as_one_streamed(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t at, int64_t n)
{
    const int64_t nx = s->nx, len = (n - 1) * nx + (nx - 2);
    const int64_t head = to_line(out + at, len);
    const int64_t body_end = head + (len - head) / 8 * 8;
    s->row(out + at, in + at, nx, s->plane, s->w, head);
    zero_x_boundary(out + at, nx, 0, head);
    if (s->run_streamed)
        s->run_streamed(out + at + head, in + at + head, nx, s->plane, s->w, body_end - head, (head + 1) % nx);
    else
        stream_strips(s, in, out, at, head, body_end);
    s->row(out + at + body_end, in + at + body_end, nx, s->plane, s->w, len - body_end);
    zero_x_boundary(out + at + body_end, nx, body_end, len);
}

static void run_of_rows(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t at, int64_t n)
{
    if (n <= 0)
        return;
    if (s->nontemporal)
        rows_as_one_streamed(s, in, out, at, n);
    else
        rows_as_one(s, in, out, at, n);
}

void ts_stencil_item(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q, int64_t j0, int64_t j1)
{
    run_of_rows(s, in, out, q * s->item_elems + j0 * s->nx + 1, j1 - j0);
}

int64_t ts_stencil_block_rows(const struct ts_problem *pb, int dims)
{
    int64_t rows = dims == 3 ? pb->ny - 2 : 1;
    if (dims != 3)
        return rows;
    if (pb->block_y > 0)
        return pb->block_y < rows ? pb->block_y : rows;
    /* A block of b rows keeps 3 input strips of b + 2 rows and one output strip of b rows. */
    int64_t fit = (BLOCK_CACHE_BYTES / (8 * pb->nx) - 6) / 4;
    if (fit < MIN_BLOCK_ROWS)
        fit = MIN_BLOCK_ROWS;
    return fit < rows ? fit : rows;
}

void ts_stencil_step(const struct ts_problem *pb, int dims, double *const *arrays, struct ts_range r, int64_t t0)
{
    const struct ts_stencil_sweep s = ts_stencil_sweep_of(pb, dims);
    if (pb->time_block > 1) {
        ts_stencil_wavefront(&s, arrays, r, t0, pb->time_block, ts_stencil_wave_rows(pb, dims));
        return;
    }
    const double *in = arrays[t0 % 2];
    double *out = arrays[(t0 + 1) % 2];
    const int64_t first = r.begin > 1 ? r.begin : 1;
    const int64_t last = r.end < s.items - 1 ? r.end : s.items - 1;
    const int64_t block = ts_stencil_block_rows(pb, dims);
    if (dims == 2) {
        /* 2D items are single rows, one after the other: the thread's rows are one run. */
        run_of_rows(&s, in, out, first * s.nx + 1, last - first);
        if (s.nontemporal)
            ts_stream_fence();
        return;
    }
    /* Each block of rows sweeps the thread's items once: its input strips are read from memory
     * once and reused, from cache, by the three steps that need them. */
    for (int64_t j0 = s.row_lo; j0 < s.row_hi; j0 += block) {
        int64_t j1 = j0 + block < s.row_hi ? j0 + block : s.row_hi;
        for (int64_t q = first; q < last; q++)
            ts_stencil_item(&s, in, out, q, j0, j1);
    }
    if (s.nontemporal)
        ts_stream_fence();
}

/* Updates the points q in [q0, q1) (items), j in [j0, j1) (rows of an item), x in [x0, x1):
 * one row call per row, as short as the box is wide. */
static void box(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q0, int64_t q1, int64_t j0,
                int64_t j1, int64_t x0, int64_t x1)
{
    if (x1 <= x0)
        return;
    for (int64_t q = q0; q < q1; q++)
        for (int64_t j = j0; j < j1; j++) {
            const int64_t at = q * s->item_elems + j * s->nx + x0;
            s->row(out + at, in + at, s->nx, s->plane, s->w, x1 - x0);
        }
}

/* The rim of the items [q0, q1) that lie inside along the item axis: in 3D the first and last
 * updated rows of each plane and the first and last point of the rows between, in 2D the
 * first and last point of each row (a rank's x halo is read by x = 1 and nx - 2 only). */
static void rim_of_inner_items(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q0, int64_t q1)
{
    const int64_t nx = s->nx, lo = s->row_lo, hi = s->row_hi;
    const int three = s->item_elems != nx;
    const int64_t inner_lo = three ? lo + 1 : lo, inner_hi = three ? hi - 1 : hi;
    if (three) {
        box(s, in, out, q0, q1, lo, lo + 1, 1, nx - 1);
        if (hi - 1 > lo)
            box(s, in, out, q0, q1, hi - 1, hi, 1, nx - 1);
    }
    box(s, in, out, q0, q1, inner_lo, inner_hi, 1, 2);
    if (nx - 2 > 1)
        box(s, in, out, q0, q1, inner_lo, inner_hi, nx - 2, nx - 1);
}

void ts_stencil_step_split(const struct ts_problem *pb, int dims, double *const *arrays, struct ts_range r, int64_t t0,
                           int rim)
{
    const struct ts_stencil_sweep s = ts_stencil_sweep_of(pb, dims);
    const double *in = arrays[t0 % 2];
    double *out = arrays[(t0 + 1) % 2];
    const int64_t first = r.begin > 1 ? r.begin : 1;
    const int64_t last = r.end < s.items - 1 ? r.end : s.items - 1;
    /* Items [2, items - 2) are inside along the item axis; of them, the inner points. */
    const int64_t q0 = first > 2 ? first : 2, q1 = last < s.items - 2 ? last : s.items - 2;
    const int three = dims == 3;
    if (!rim) {
        box(&s, in, out, q0, q1, three ? s.row_lo + 1 : s.row_lo, three ? s.row_hi - 1 : s.row_hi, 2, s.nx - 2);
        return;
    }
    if (first <= 1 && last > 1) /* item 1: whole */
        box(&s, in, out, 1, 2, s.row_lo, s.row_hi, 1, s.nx - 1);
    if (s.items - 2 > 1 && first <= s.items - 2 && last > s.items - 2) /* item items - 2: whole */
        box(&s, in, out, s.items - 2, s.items - 1, s.row_lo, s.row_hi, 1, s.nx - 1);
    if (q1 > q0)
        rim_of_inner_items(&s, in, out, q0, q1);
}

/* A part's time block takes its steps between two exchanges: every halo (the layers outside
 * its own points on a side that is not the physical boundary, which a part owns) must be as
 * deep as the steps, or the owned points next to it would read what no exchange sent. */
static int thin_halo(const struct ts_problem *pb, int dims, const char *name, char *why, size_t why_len)
{
    const int64_t local[3] = { pb->nx, pb->ny, pb->nz };
    for (int a = 0; a < dims; a++) {
        const int64_t below = pb->part.own_begin[a], above = local[a] - pb->part.own_end[a];
        const int64_t thinnest = below == 0 ? above : above == 0 ? below : below < above ? below : above;
        if (thinnest > 0 && thinnest < pb->time_block) {
            snprintf(why, why_len, "%s: stencil.time_block = %lld on a part whose halo along %c is %lld deep", name,
                     (long long)pb->time_block, "xyz"[a], (long long)thinnest);
            return 1;
        }
    }
    return 0;
}

int ts_stencil_plan(const struct ts_problem *pb, int dims, struct ts_plan *plan, char *why, size_t why_len)
{
    const char *name = dims == 3 ? "stencil3d" : "stencil2d";
    const int64_t nz = dims == 3 ? pb->nz : 1;
    char grid[80];
    int used = snprintf(grid, sizeof grid, "%lldx%lld", (long long)pb->nx, (long long)pb->ny);
    if (dims == 3)
        snprintf(grid + used, sizeof grid - (size_t)used, "x%lld", (long long)nz);
    if (pb->nx < 3 || pb->ny < 3 || nz < (dims == 3 ? 3 : 1)) {
        snprintf(why, why_len, "%s needs at least %s points (one interior point), got %s", name,
                 dims == 3 ? "3x3x3" : "3x3", grid);
        return 1;
    }
    if (pb->nx > INT64_MAX / pb->ny || pb->nx * pb->ny > INT64_MAX / nz) {
        snprintf(why, why_len, "%s grid %s overflows a 64-bit index", name, grid);
        return 1;
    }
    if (ts_is_part(pb) && ts_part_check(pb, name, dims, (const int64_t[3]){ pb->nx, pb->ny, nz }, why, why_len))
        return 1;
    if (ts_is_part(pb) && pb->time_block > 1 && thin_halo(pb, dims, name, why, why_len))
        return 1;
    if (pb->nontemporal && pb->time_block > 1) {
        snprintf(why, why_len,
                 "%s: stencil.nontemporal = true with stencil.time_block = %lld would stream every "
                 "intermediate step to memory, which temporal blocking exists to avoid; use one of them",
                 name, (long long)pb->time_block);
        return 1;
    }
    const int64_t k = pb->time_block > 1 ? pb->time_block : 1;
    const int64_t rows = dims == 3 ? pb->ny - 2 : 1;
    const int64_t block = k == 1 ? ts_stencil_block_rows(pb, dims) : ts_stencil_wave_rows(pb, dims);
    *plan = (struct ts_plan){
        .n_arrays = 2,
        .array_elems = pb->nx * pb->ny * nz,
        .items = dims == 3 ? nz : pb->ny,
        .elems_per_item = dims == 3 ? pb->nx * pb->ny : pb->nx,
        .granule_multiple = 1,
        .units_per_step = k * (pb->nx - 2) * (pb->ny - 2) * (dims == 3 ? nz - 2 : 1),
        .block_y = dims == 3 && block < rows ? block : 0,
    };
    char blocked[80] = "";
    if (plan->block_y)
        snprintf(blocked, sizeof blocked,
                 k > 1 ? ", skewed y-tiles: %lld of %lld rows per tile" : ", y-blocked: %lld of %lld rows per block",
                 (long long)plan->block_y, (long long)rows);
    if (k > 1)
        snprintf(plan->variant, sizeof plan->variant,
                 "temporal blocking: %lld steps per iteration in one wavefront sweep over each thread's %s%s",
                 (long long)k, dims == 3 ? "planes" : "rows", blocked);
    else
        snprintf(plan->variant, sizeof plan->variant, "%s%s",
                 pb->nontemporal ? "streaming stores of u'" : "cached stores of u' (write-allocate)", blocked);
    return 0;
}

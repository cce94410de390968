/* How a Jacobi step walks the grid: one row function per stencil shape, spatial blocking of
 * stencil3d, streaming stores, and the plan both stencils share. */
#include <stdio.h>

#include "kernels_internal.h"
#include "stencil_common.h"
#include "stencil_stream.h"
#include "stencil_wide.h"
#include "stream_store.h"

/* The cache a y-block's input strips may fill: half of a 1 MiB L2, leaving room for the output
 * strip and for what the hardware keeps of other data. The L2 sizes cpuid reports are sound on
 * VMs, the L3 sizes often are not (bench/README.md, "Notes behind the code"), so this is fixed. */
#define BLOCK_CACHE_BYTES ((int64_t)512 << 10)
/* Below this many rows per block the two halo rows re-read per plane cost more than the layer
 * condition saves (L3 serves them; bench/README.md). */
#define MIN_BLOCK_ROWS 16

/* The arithmetic order of each update is fixed here, once: every variant (blocked, streamed,
 * time-blocked, stencil_wide.c's rows) computes bitwise the same values. */
static void row2d(double *restrict o, const double *restrict c, int64_t nx, int64_t plane, struct ts_stencil_weights w,
                  int64_t len)
{
    (void)plane;
    for (int64_t i = 0; i < len; i++)
        o[i] = w.center * c[i] + w.neighbour * ((c[i - nx] + c[i + nx]) + (c[i - 1] + c[i + 1]));
}

void ts_stencil_row3d(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                      struct ts_stencil_weights w, int64_t len)
{
    for (int64_t i = 0; i < len; i++)
        o[i] = w.center * c[i]
               + w.neighbour * (((c[i - 1] + c[i + 1]) + (c[i - nx] + c[i + nx])) + (c[i - plane] + c[i + plane]));
}

/* The kernel that takes three planes a pass, where it pays: cached stores (streamed runs keep
 * their own path) and planes a whole number of cache lines apart. Its stores share one index
 * across the three planes and only the first plane's are aligned to a line; were the planes
 * not 8 doubles apart, the other two planes' 64-byte stores would each split two lines (341^3
 * ran 0.82x as fast as 336^3 on an Intel AVX-512 VM, docs/performance.md), and the rows one
 * plane at a time, each aligned, are the faster choice. */
static ts_stencil_row_fn *three_planes(const struct ts_problem *pb, int dims)
{
    return dims == 3 && !pb->nontemporal && (pb->nx * pb->ny) % 8 == 0 ? ts_stencil_planes3d_for_cpu() : 0;
}

struct ts_stencil_sweep ts_stencil_sweep_of(const struct ts_problem *pb, int dims)
{
    int three = dims == 3;
    return (struct ts_stencil_sweep){
        .row = three ? ts_stencil_row3d_for_cpu() : row2d,
        .planes = three_planes(pb, dims),
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

/* rows_as_one in TS_STENCIL_PLANES consecutive planes at once (s->planes), at, at + plane, ... */
static void planes_as_one(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t at, int64_t n)
{
    const int64_t nx = s->nx, len = (n - 1) * nx + (nx - 2);
    const int64_t head = to_line(out + at, len);
    s->planes(out + at, in + at, nx, s->plane, s->w, head);
    s->planes(out + at + head, in + at + head, nx, s->plane, s->w, len - head);
    for (int k = 0; k < TS_STENCIL_PLANES; k++)
        zero_x_boundary(out + at + k * s->plane, nx, 0, len);
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

/* Rows [j0, j1) of item q of one step, from grid in to grid out. */
static void item(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q, int64_t j0, int64_t j1)
{
    run_of_rows(s, in, out, q * s->item_elems + j0 * s->nx + 1, j1 - j0);
}

void ts_stencil_rows_at(const struct ts_stencil_sweep *s, const double *in, int64_t in_plane, double *out, int64_t n)
{
    struct ts_stencil_sweep from = *s;
    from.plane = in_plane;
    run_of_rows(&from, in, out, 0, n);
}

int64_t ts_stencil_block_rows(const struct ts_problem *pb, int dims)
{
    int64_t rows = dims == 3 ? pb->ny - 2 : 1;
    if (dims != 3)
        return rows;
    if (pb->block_y > 0)
        return ts_stencil_even_rows(rows, pb->block_y);
    /* A block of b rows keeps 3 input strips of b + 2 rows and one output strip of b rows; taken
     * three planes a pass (items_rows), 5 input strips and 3 output strips, as the next pass
     * takes two of the input strips again from the cache. */
    const int threes = three_planes(pb, dims) != 0;
    const int64_t in_strips = threes ? TS_STENCIL_PLANES + 2 : 3, out_strips = threes ? TS_STENCIL_PLANES : 1;
    int64_t fit = (BLOCK_CACHE_BYTES / (8 * pb->nx) - 2 * in_strips) / (in_strips + out_strips);
    if (fit < MIN_BLOCK_ROWS)
        fit = MIN_BLOCK_ROWS;
    return ts_stencil_even_rows(rows, fit);
}

/* The points of one step a sweep updates: items [q0, q1), rows [j0, j1) of each item (3D; [0, 1)
 * in 2D), x in [x0, x1). */
struct box {
    int64_t q0, q1, j0, j1, x0, x1;
};

static int box_empty(struct box b)
{
    return b.q1 <= b.q0 || b.j1 <= b.j0 || b.x1 <= b.x0;
}

/* Rows [j0, j1) of item q, x in [x0, x1): one run of rows when they are whole (x from 1 to
 * nx - 2), else one row call per row, as short as the box is wide. */
static void item_rows(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q, int64_t j0,
                      int64_t j1, int64_t x0, int64_t x1)
{
    if (x0 == 1 && x1 == s->nx - 1) {
        item(s, in, out, q, j0, j1);
        return;
    }
    for (int64_t j = j0; j < j1; j++) {
        const int64_t at = q * s->item_elems + j * s->nx + x0;
        s->row(out + at, in + at, s->nx, s->plane, s->w, x1 - x0);
    }
}

/* Rows [j0, j1) of items [q0, q1), whole rows, the items TS_STENCIL_PLANES at a time where the CPU
 * has s->planes (cached stores only: streamed runs keep their own path), the rest one by one. */
static void items_rows(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q0, int64_t q1,
                       int64_t j0, int64_t j1, int64_t x0, int64_t x1)
{
    int64_t q = q0;
    if (s->planes && !s->nontemporal && x0 == 1 && x1 == s->nx - 1)
        for (; q + TS_STENCIL_PLANES <= q1; q += TS_STENCIL_PLANES)
            planes_as_one(s, in, out, q * s->item_elems + j0 * s->nx + 1, j1 - j0);
    for (; q < q1; q++)
        item_rows(s, in, out, q, j0, j1, x0, x1);
}

/* Updates the points of b, the step's way: in 2D the items (rows) one after the other, whole rows
 * as one run; in 3D by blocks of `block` rows counted from row_lo, each block sweeping the items
 * once, so that its input strips are read from memory once and reused, from cache, by the three
 * steps that need them. A box that is part of a step sweeps the step's blocks, cut to the box. */
static void sweep_box(const struct ts_stencil_sweep *s, const double *in, double *out, struct box b, int64_t block)
{
    if (box_empty(b))
        return;
    if (s->item_elems == s->nx) {
        if (b.x0 == 1 && b.x1 == s->nx - 1)
            run_of_rows(s, in, out, b.q0 * s->nx + 1, b.q1 - b.q0);
        else
            for (int64_t q = b.q0; q < b.q1; q++)
                item_rows(s, in, out, q, 0, 1, b.x0, b.x1);
        return;
    }
    const struct ts_stencil_blocks blocks = ts_stencil_blocks_of(s->row_lo, s->row_hi, block);
    for (int64_t i = 0; i < blocks.n; i++) {
        const int64_t j0 = ts_stencil_block_edge(blocks, i), end = ts_stencil_block_edge(blocks, i + 1);
        const int64_t lo = j0 > b.j0 ? j0 : b.j0, hi = end < b.j1 ? end : b.j1;
        if (lo >= hi)
            continue;
        items_rows(s, in, out, b.q0, b.q1, lo, hi, b.x0, b.x1);
    }
}

void ts_stencil_sweep_items(const struct ts_stencil_sweep *s, const double *in, double *out, int64_t q0, int64_t q1,
                            int64_t block)
{
    sweep_box(s, in, out,
              (struct box){ .q0 = q0, .q1 = q1, .j0 = s->row_lo, .j1 = s->row_hi, .x0 = 1, .x1 = s->nx - 1 }, block);
}

/* Every point a step updates in the items of r: items [1, items - 1) of r, rows [row_lo, row_hi),
 * x in [1, nx - 1). */
static struct box step_box(const struct ts_stencil_sweep *s, struct ts_range r)
{
    return (struct box){
        .q0 = r.begin > 1 ? r.begin : 1,
        .q1 = r.end < s->items - 1 ? r.end : s->items - 1,
        .j0 = s->row_lo,
        .j1 = s->row_hi,
        .x0 = 1,
        .x1 = s->nx - 1,
    };
}

void ts_stencil_step(const struct ts_problem *pb, int dims, double *const *arrays, struct ts_range r, int64_t t0)
{
    const struct ts_stencil_sweep s = ts_stencil_sweep_of(pb, dims);
    if (pb->time_block > 1) {
        ts_stencil_wavefront(&s, arrays, r, t0, pb->time_block, ts_stencil_wave_rows(pb, dims),
                             ts_stencil_block_rows(pb, dims));
        return;
    }
    sweep_box(&s, arrays[t0 % 2], arrays[(t0 + 1) % 2], step_box(&s, r), ts_stencil_block_rows(pb, dims));
    if (s.nontemporal)
        ts_stream_fence();
}

/* The points of the step over r that read no halo layer: without the layer of points next to
 * each halo. Only the sides where the part has a halo count (own_begin > 0, own_end short of the
 * local size): the physical boundary is no halo, and the whole problem has none. In 2D the item
 * axis is y and an item has no rows to cut. Halos one layer deep (time_block = 1). */
static struct box core_box(const struct ts_problem *pb, int dims, const struct ts_stencil_sweep *s, struct ts_range r)
{
    const struct ts_stencil_frame f = ts_stencil_frame_of(pb, dims);
    const int64_t local[3] = { pb->nx, pb->ny, dims == 3 ? pb->nz : 1 };
    int lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = f.own_begin[a] > 0;
        hi[a] = f.own_end[a] < local[a];
    }
    const int item = dims - 1;
    struct box b = step_box(s, r);
    if (b.q0 < 1 + lo[item])
        b.q0 = 1 + lo[item];
    if (b.q1 > s->items - 1 - hi[item])
        b.q1 = s->items - 1 - hi[item];
    if (dims == 3) {
        b.j0 += lo[1];
        b.j1 -= hi[1];
    }
    b.x0 += lo[0];
    b.x1 -= hi[0];
    return b;
}

/* The rim: the points of outer (the step over r) outside core, as disjoint boxes (the items
 * below and above the core's, then in the core's items the rows below and above its rows, then
 * in its rows the points left and right of its x range). An empty core leaves outer whole. */
static void sweep_rim(const struct ts_stencil_sweep *s, const double *in, double *out, struct box outer,
                      struct box core, int64_t block)
{
    if (box_empty(core)) {
        sweep_box(s, in, out, outer, block);
        return;
    }
    struct box part = outer;
    part.q1 = core.q0;
    sweep_box(s, in, out, part, block); /* items below the core's */
    part.q0 = core.q1;
    part.q1 = outer.q1;
    sweep_box(s, in, out, part, block); /* items above */
    part.q0 = core.q0;
    part.q1 = core.q1;
    part.j1 = core.j0;
    sweep_box(s, in, out, part, block); /* the core's items: rows below the core's */
    part.j0 = core.j1;
    part.j1 = outer.j1;
    sweep_box(s, in, out, part, block); /* rows above */
    part.j0 = core.j0;
    part.j1 = core.j1;
    part.x1 = core.x0;
    sweep_box(s, in, out, part, block); /* the core's rows: x below the core's */
    part.x0 = core.x1;
    part.x1 = outer.x1;
    sweep_box(s, in, out, part, block); /* x above */
}

void ts_stencil_step_split(const struct ts_problem *pb, int dims, double *const *arrays, struct ts_range r, int64_t t0,
                           int rim)
{
    const struct ts_stencil_sweep s = ts_stencil_sweep_of(pb, dims);
    const double *in = arrays[t0 % 2];
    double *out = arrays[(t0 + 1) % 2];
    const int64_t block = ts_stencil_block_rows(pb, dims);
    /* The core is the step's own sweep cut to the points that read no halo: the same blocks, the
     * same long runs, the same items per thread (so the pages each thread first touched). */
    const struct box core = core_box(pb, dims, &s, r);
    if (!rim)
        sweep_box(&s, in, out, core, block);
    else
        sweep_rim(&s, in, out, step_box(&s, r), core, block);
    if (s.nontemporal)
        ts_stream_fence();
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
    /* stencil_wave_levels.c's rings, where a part can be long enough for them (on one thread). */
    const int rings = dims == 3 && ts_wave_rings_fit(nz - 2, k);
    if (k > 1)
        snprintf(plan->variant, sizeof plan->variant,
                 "temporal blocking: %lld steps per iteration, per-thread wavefronts%s%s", (long long)k,
                 rings ? ", inner steps in L2 rings" : "", blocked);
    else
        snprintf(plan->variant, sizeof plan->variant, "%s%s%s",
                 pb->nontemporal ? "streaming stores of u'" : "cached stores of u' (write-allocate)", blocked,
                 three_planes(pb, dims) ? ", three planes a pass" : "");
    if (dims == 3) {
        /* The rows the CPU gave it (stencil_wide.c), for the record: the bits never depend on it. */
        size_t used_len = strlen(plan->variant);
        snprintf(plan->variant + used_len, sizeof plan->variant - used_len, "; %s", ts_stencil_row3d_variant());
    }
    return 0;
}

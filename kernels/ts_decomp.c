#include "ts_decomp.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char axis_name[3] = { 'x', 'y', 'z' };

/* What one interior layer across an axis is called: a column of points for x, a row for y, a
 * plane for z. */
static const char *layer_name(int axis, int64_t count)
{
    static const char *const one[3] = { "column", "row", "plane" };
    static const char *const many[3] = { "columns", "rows", "planes" };
    return count == 1 ? one[axis] : many[axis];
}

static void grid_text(const int64_t points[3], int ndims, char *buf, size_t len)
{
    if (ndims == 3)
        snprintf(buf, len, "%lldx%lldx%lld", (long long)points[0], (long long)points[1], (long long)points[2]);
    else
        snprintf(buf, len, "%lldx%lld", (long long)points[0], (long long)points[1]);
}

static void say(char *why, size_t why_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

static int dims_text(const int dims[3], int ndims, char *buf, size_t len)
{
    if (ndims == 3)
        return snprintf(buf, len, "%dx%dx%d", dims[0], dims[1], dims[2]);
    return snprintf(buf, len, "%dx%d", dims[0], dims[1]);
}

/* The most ranks some rank grid fits on d's grid, and that grid: "at most 4 ranks fit, as
 * mpi.dims = 2x2". */
static void most_text(const struct ts_decomp *d, char *buf, size_t len)
{
    int dims[3];
    int most = ts_decomp_most_ranks(d->ndims, d->points, d->ranks, d->depth, dims);
    char text[48];
    dims_text(dims, d->ndims, text, sizeof text);
    snprintf(buf, len, "at most %d rank%s, as mpi.dims = %s", most, most == 1 ? " fits" : "s fit", text);
}

/* Appends to why, after "; ", what would work instead (auto's rank grid for the run's ranks,
 * or, when none fits, the most ranks that do) and returns st. */
static enum ts_decomp_status refuse(const struct ts_decomp *d, enum ts_decomp_status st, const char *grid, char *why,
                                    size_t why_len)
{
    if (!why || why_len == 0)
        return st;
    size_t used = strlen(why);
    if (used + 1 >= why_len)
        return st;
    int dims[3];
    char text[48], most[128];
    if (ts_decomp_best_dims(d->ndims, d->points, d->ranks, d->depth, dims)) {
        dims_text(dims, d->ndims, text, sizeof text);
        snprintf(why + used, why_len - used, "; mpi.dims = %s fits (auto's choice)", text);
    } else {
        most_text(d, most, sizeof most);
        snprintf(why + used, why_len - used, "; no rank grid of %d ranks fits the grid %s: %s", d->ranks, grid, most);
    }
    return st;
}

/* The interior layers along each axis, "7 interior columns in x and 1 interior row in y". */
static void interior_text(const struct ts_decomp *d, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < d->ndims && used < len; a++) {
        const int64_t n = d->points[a] - 2;
        const char *sep = a == 0 ? "" : a == d->ndims - 1 ? " and " : ", ";
        int w = snprintf(buf + used, len - used, "%s%lld interior %s in %c", sep, (long long)n, layer_name(a, n),
                         axis_name[a]);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* Takes explicit dims (x, y, z) into d, or refuses them: a count below 1, z counts in 2D, or a
 * product that is not the run's ranks. */
static enum ts_decomp_status take_dims(struct ts_decomp *d, const int dims[3], const char *grid, char *why,
                                       size_t why_len)
{
    int64_t product = 1;
    for (int a = 0; a < d->ndims; a++) {
        d->dims[a] = dims[a];
        if (dims[a] < 1)
            product = -1;
        else if (product > 0) /* stops above INT_MAX: no int64 overflow */
            product = product * dims[a] > INT_MAX ? (int64_t)INT_MAX + 1 : product * dims[a];
    }
    d->dims[2] = d->ndims == 3 ? dims[2] : 1;
    char text[48];
    ts_decomp_dims_text(d, text, sizeof text);
    if (d->ndims == 2 && dims[2] != 1 && dims[2] != 0) {
        snprintf(text, sizeof text, "%dx%dx%d", dims[0], dims[1], dims[2]);
        say(why, why_len, "dims %s split z, which the 2D grid %s does not have: give 2 counts, x and y", text, grid);
        return refuse(d, TS_DECOMP_BAD_DIMS, grid, why, why_len);
    }
    if (product < 1) {
        say(why, why_len, "dims %s: every count must be at least 1", text);
        return refuse(d, TS_DECOMP_BAD_DIMS, grid, why, why_len);
    }
    if (product > INT_MAX) {
        say(why, why_len, "dims %s make more than %d ranks, but the run has %d", text, INT_MAX, d->ranks);
        return refuse(d, TS_DECOMP_BAD_DIMS, grid, why, why_len);
    }
    if (product != d->ranks) {
        say(why, why_len, "dims %s make %lld ranks, but the run has %d", text, (long long)product, d->ranks);
        return refuse(d, TS_DECOMP_BAD_DIMS, grid, why, why_len);
    }
    return TS_DECOMP_OK;
}

/* Refuses an axis along which some rank would own fewer interior layers than its halos are
 * deep: the halo comes from the neighbour's owned layers alone. The thinnest ranks are the last
 * along the axis (the first ones take the extra layers). */
static enum ts_decomp_status too_thin(const struct ts_decomp *d, int a, const char *grid, char *why, size_t why_len)
{
    const int64_t interior = d->points[a] - 2, base = interior / d->dims[a];
    int coords[3] = { 0, 0, 0 };
    coords[a] = (int)(interior % d->dims[a]);
    char text[48], split[64];
    ts_decomp_dims_text(d, text, sizeof text);
    const int64_t most = interior / d->depth;
    char smaller[64] = "";
    if (base > 0)
        snprintf(smaller, sizeof smaller, ", or stencil.time_block <= %lld", (long long)base);
    if (most > 1)
        snprintf(split, sizeof split, "at most %lld ranks along %c", (long long)most, axis_name[a]);
    else
        snprintf(split, sizeof split, "1 rank along %c", axis_name[a]);
    say(why, why_len,
        "%d ranks as %s leave rank %d (%c coordinate %d) %lld interior %s in %c, fewer than its halo's %d layers "
        "(stencil.time_block = %d: a halo is the neighbour's own points): the grid %s has %lld interior %s in %c; "
        "use %s or n%c >= %lld%s",
        d->ranks, text, ts_decomp_rank(d, coords), axis_name[a], coords[a], (long long)base, layer_name(a, base),
        axis_name[a], d->depth, d->depth, grid, (long long)interior, layer_name(a, interior), axis_name[a], split,
        axis_name[a], (long long)d->dims[a] * d->depth + 2, smaller);
    return refuse(d, TS_DECOMP_TOO_SMALL, grid, why, why_len);
}

enum ts_decomp_status ts_decomp_create(struct ts_decomp *d, int ndims, const int64_t points[3], int ranks,
                                       const int dims[3], int depth, char *why, size_t why_len)
{
    memset(d, 0, sizeof *d);
    say(why, why_len, "%s", "");
    if (ndims != 2 && ndims != 3) {
        say(why, why_len, "a stencil grid has 2 or 3 dimensions, not %d", ndims);
        return TS_DECOMP_BAD_ARGUMENT;
    }
    if (ranks < 1) {
        say(why, why_len, "a run has at least 1 rank, not %d", ranks);
        return TS_DECOMP_BAD_ARGUMENT;
    }
    if (depth < 1) {
        say(why, why_len, "a halo is at least 1 layer deep, not %d", depth);
        return TS_DECOMP_BAD_ARGUMENT;
    }
    d->ndims = ndims;
    d->ranks = ranks;
    d->depth = depth;
    for (int a = 0; a < 3; a++)
        d->points[a] = a < ndims ? points[a] : 1;
    char grid[80];
    grid_text(d->points, ndims, grid, sizeof grid);
    for (int a = 0; a < ndims; a++)
        if (d->points[a] < 3) {
            say(why, why_len, "the grid %s has no interior point along %c: n%c must be at least 3", grid, axis_name[a],
                axis_name[a]);
            return TS_DECOMP_BAD_ARGUMENT;
        }

    if (dims && (dims[0] || dims[1] || dims[2])) {
        enum ts_decomp_status st = take_dims(d, dims, grid, why, why_len);
        if (st != TS_DECOMP_OK)
            return st;
    } else if (!ts_decomp_best_dims(ndims, d->points, ranks, depth, d->dims)) {
        char layers[200], most[128];
        interior_text(d, layers, sizeof layers);
        most_text(d, most, sizeof most);
        say(why, why_len,
            "no rank grid of %d ranks fits the grid %s, which has %s, and every rank needs at least one along "
            "each axis%s: %s",
            ranks, grid, layers, depth > 1 ? " and as many as its halo's layers along each axis it shares" : "", most);
        return TS_DECOMP_TOO_SMALL;
    } else {
        d->automatic = 1;
    }

    for (int a = 0; a < ndims && depth > 1; a++)
        if (d->dims[a] > 1 && (d->points[a] - 2) / d->dims[a] < depth)
            return too_thin(d, a, grid, why, why_len);
    for (int a = 0; a < ndims; a++) {
        int64_t interior = d->points[a] - 2;
        if (d->dims[a] <= interior)
            continue;
        /* The first ranks along the axis take one layer each: the first without one is at
         * coordinate `interior`, the others' coordinates 0. */
        int coords[3] = { 0, 0, 0 };
        coords[a] = (int)interior;
        char text[48];
        ts_decomp_dims_text(d, text, sizeof text);
        say(why, why_len,
            "%d ranks as %s leave 0 interior %s to rank %d (%c coordinate %d): the grid %s has %lld interior "
            "%s in %c; use at most %lld rank%s along %c or n%c >= %lld",
            ranks, text, layer_name(a, 2), ts_decomp_rank(d, coords), axis_name[a], coords[a], grid,
            (long long)interior, layer_name(a, interior), axis_name[a], (long long)interior, interior == 1 ? "" : "s",
            axis_name[a], axis_name[a], (long long)d->dims[a] + 2);
        return refuse(d, TS_DECOMP_TOO_SMALL, grid, why, why_len);
    }
    return TS_DECOMP_OK;
}

int ts_decomp_rank(const struct ts_decomp *d, const int coords[3])
{
    for (int a = 0; a < 3; a++)
        if (coords[a] < 0 || coords[a] >= d->dims[a])
            return -1;
    return (coords[2] * d->dims[1] + coords[1]) * d->dims[0] + coords[0];
}

void ts_decomp_coords(const struct ts_decomp *d, int rank, int coords[3])
{
    if (rank < 0 || rank >= d->ranks) {
        coords[0] = coords[1] = coords[2] = -1;
        return;
    }
    coords[0] = rank % d->dims[0];
    coords[1] = rank / d->dims[0] % d->dims[1];
    coords[2] = rank / d->dims[0] / d->dims[1];
}

int ts_decomp_cart_dims(const struct ts_decomp *d, int cart[3])
{
    for (int i = 0; i < d->ndims; i++)
        cart[i] = d->dims[d->ndims - 1 - i];
    return d->ndims;
}

int ts_decomp_block(const struct ts_decomp *d, int rank, struct ts_decomp_block *b)
{
    memset(b, 0, sizeof *b);
    if (rank < 0 || rank >= d->ranks)
        return EINVAL;
    b->rank = rank;
    b->depth = d->depth;
    ts_decomp_coords(d, rank, b->coords);
    for (int a = 0; a < 3; a++) {
        if (a >= d->ndims) { /* 2D: one plane, no layer around it */
            b->begin[a] = 0;
            b->end[a] = 1;
            b->origin[a] = 0;
            b->local[a] = 1;
            b->neighbour[2 * a] = b->neighbour[2 * a + 1] = -1;
            continue;
        }
        const int64_t interior = d->points[a] - 2, parts = d->dims[a], c = b->coords[a];
        const int64_t base = interior / parts, extra = interior % parts;
        b->begin[a] = 1 + c * base + (c < extra ? c : extra);
        b->end[a] = b->begin[a] + base + (c < extra);
        int lo[3] = { b->coords[0], b->coords[1], b->coords[2] }, hi[3] = { lo[0], lo[1], lo[2] };
        lo[a]--;
        hi[a]++;
        b->neighbour[2 * a] = ts_decomp_rank(d, lo);
        b->neighbour[2 * a + 1] = ts_decomp_rank(d, hi);
        const int64_t below = b->neighbour[2 * a] >= 0 ? d->depth : 1,
                      above = b->neighbour[2 * a + 1] >= 0 ? d->depth : 1;
        b->origin[a] = b->begin[a] - below;
        b->local[a] = b->end[a] - b->begin[a] + below + above;
    }
    return 0;
}

/* The layers on the side of dir: the halo's depth where a neighbour is, one at the physical
 * boundary. */
static int64_t side_layers(const struct ts_decomp_block *b, enum ts_decomp_dir dir)
{
    const int axis = (int)dir / 2;
    return (dir & 1) ? b->origin[axis] + b->local[axis] - b->end[axis] : b->begin[axis] - b->origin[axis];
}

/* The layers [at, at + thick) across the axis of dir, over the owned range of the other axes,
 * or, with halos deeper than one, over the whole local range of the axes before dir's. */
static struct ts_decomp_face layer(const struct ts_decomp_block *b, enum ts_decomp_dir dir, int64_t at, int64_t thick)
{
    struct ts_decomp_face f;
    memset(&f, 0, sizeof f);
    const int axis = (int)dir / 2;
    if (b->local[axis] == 1) /* no such face (z in 2D) */
        return f;
    f.stride[0] = 1;
    f.stride[1] = b->local[0];
    f.stride[2] = b->local[0] * b->local[1];
    f.elems = 1;
    for (int a = 0; a < 3; a++) {
        const int whole = b->depth > 1 && a < axis;
        f.start[a] = a == axis ? at : whole ? 0 : b->begin[a] - b->origin[a];
        f.count[a] = a == axis ? thick : whole ? b->local[a] : b->end[a] - b->begin[a];
        f.offset += f.start[a] * f.stride[a];
        f.elems *= f.count[a];
    }
    return f;
}

/* The empty face: what an unknown dir gives. */
static struct ts_decomp_face no_face(void)
{
    struct ts_decomp_face f;
    memset(&f, 0, sizeof f);
    return f;
}

struct ts_decomp_face ts_decomp_send_face(const struct ts_decomp_block *b, enum ts_decomp_dir dir)
{
    if ((int)dir < 0 || dir >= TS_DIR_COUNT)
        return no_face();
    const int axis = (int)dir / 2;
    const int64_t thick = side_layers(b, dir);
    return layer(b, dir, (dir & 1) ? b->end[axis] - b->origin[axis] - thick : b->begin[axis] - b->origin[axis], thick);
}

struct ts_decomp_face ts_decomp_recv_face(const struct ts_decomp_block *b, enum ts_decomp_dir dir)
{
    if ((int)dir < 0 || dir >= TS_DIR_COUNT)
        return no_face();
    const int axis = (int)dir / 2;
    return layer(b, dir, (dir & 1) ? b->end[axis] - b->origin[axis] : 0, side_layers(b, dir));
}

int ts_decomp_rounds(const struct ts_decomp *d)
{
    int split = 0;
    for (int a = 0; a < d->ndims; a++)
        split += d->dims[a] > 1;
    return d->depth > 1 && split > 0 ? split : 1;
}

void ts_decomp_round_dirs(const struct ts_decomp *d, int round, int *first, int *end)
{
    *first = *end = 0;
    if (ts_decomp_rounds(d) == 1 && round == 0) {
        *end = 2 * d->ndims;
        return;
    }
    for (int a = 0; a < d->ndims; a++)
        if (d->dims[a] > 1 && round-- == 0) {
            *first = 2 * a;
            *end = 2 * a + 2;
            return;
        }
}

/* A face's x extent is contiguous in the local array (stride[0] = 1): one memcpy per row. Row
 * r of the face is (j, k) = (r % count[1], r / count[1]), divided once and then stepped. */
static void copy_rows(double *local, const struct ts_decomp_face *f, double *buf, int64_t first, int64_t end,
                      int into_buf)
{
    if (first >= end || f->count[1] <= 0)
        return;
    const size_t row = (size_t)f->count[0] * sizeof *buf;
    int64_t j = first % f->count[1], k = first / f->count[1];
    for (int64_t r = first; r < end; r++) {
        double *at = local + f->offset + j * f->stride[1] + k * f->stride[2], *in_buf = buf + r * f->count[0];
        if (into_buf)
            memcpy(in_buf, at, row);
        else
            memcpy(at, in_buf, row);
        if (++j == f->count[1]) {
            j = 0;
            k++;
        }
    }
}

void ts_decomp_pack_rows(const double *local, const struct ts_decomp_face *f, double *buf, int64_t first, int64_t end)
{
    copy_rows((double *)local, f, buf, first, end, 1); /* read only: into_buf */
}

void ts_decomp_unpack_rows(double *local, const struct ts_decomp_face *f, const double *buf, int64_t first, int64_t end)
{
    copy_rows(local, f, (double *)buf, first, end, 0); /* read only: out of buf */
}

int64_t ts_decomp_pack(const double *local, const struct ts_decomp_face *f, double *buf)
{
    ts_decomp_pack_rows(local, f, buf, 0, f->count[1] * f->count[2]);
    return f->elems;
}

int64_t ts_decomp_unpack(double *local, const struct ts_decomp_face *f, const double *buf)
{
    ts_decomp_unpack_rows(local, f, buf, 0, f->count[1] * f->count[2]);
    return f->elems;
}

int ts_decomp_slice(int64_t n, int ranks, int rank, int64_t granule, struct ts_range *out)
{
    *out = (struct ts_range){ 0, 0, rank };
    if (rank < 0 || rank >= ranks)
        return EINVAL;
    ts_partition *part;
    int rc = ts_partition_create(&part, n, ranks, granule);
    if (rc)
        return rc;
    *out = ts_partition_range(part, rank);
    ts_partition_destroy(part);
    return 0;
}

void ts_decomp_sum_squares(const double *local, const struct ts_decomp_block *b, int64_t first_row, int64_t end_row,
                           struct ts_xsum *acc)
{
    const int64_t nx = b->local[0], ny = b->local[1];
    const int64_t x0 = b->begin[0] - b->origin[0], owned_x = b->end[0] - b->begin[0];
    for (int64_t row = first_row; row < end_row; row++) {
        int64_t y = b->origin[1] + row % ny, z = b->origin[2] + row / ny;
        if (y >= b->begin[1] && y < b->end[1] && z >= b->begin[2] && z < b->end[2])
            ts_xsum_add_squares(acc, local + row * nx + x0, owned_x);
    }
}

int ts_decomp_dims_text(const struct ts_decomp *d, char *buf, size_t len)
{
    return dims_text(d->dims, d->ndims, buf, len);
}

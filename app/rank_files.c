#include "rank_files.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ts_digest.h"
#include "ts_dist_agree.h"

/* What a rank answers for, per axis in decomp order (x, y, z): its interior and the physical
 * boundary next to it, never a halo. */
static void own_ranges(const struct ts_run_ranks *rk, int64_t lo[3], int64_t hi[3])
{
    for (int a = 0; a < 3; a++)
        ts_run_ranks_own(&rk->block, rk->dec.ndims, a, &lo[a], &hi[a]);
}

void ts_rank_fill_start(struct ts_rank_fill *f, const struct ts_run_ranks *rk)
{
    memset(f, 0, sizeof *f);
    f->rk = rk;
}

/* The next block, or NULL past TS_RANK_FILL_MAX (a bug: the writer then says the file is
 * incomplete by the block it lacks, never writes past the array). */
static struct ts_h5_block *next_block(struct ts_rank_fill *f, const char *dataset, int rank)
{
    if (f->n_blocks >= TS_RANK_FILL_MAX)
        return NULL;
    struct ts_h5_block *b = &f->blocks[f->n_blocks++];
    memset(b, 0, sizeof *b);
    b->dataset = dataset;
    b->rank = rank;
    return b;
}

void ts_rank_fill_field(struct ts_rank_fill *f, const struct ts_run_exec *ex, const char *dataset, int dataset_rank)
{
    struct ts_h5_block *b = next_block(f, dataset, dataset_rank);
    if (!b)
        return;
    const struct ts_run_ranks *rk = f->rk;
    int64_t dims[3], lo[3], hi[3];
    b->local = ts_kernel_field(&ex->in.rp->problem, ex->own.arrays, ex->out.steps_done, dims);
    own_ranges(rk, lo, hi);
    /* The block's arrays run z, y, x like the datasets; the decomposition's x, y, z. */
    for (int a = 0; a < 3; a++) {
        const int axis = 2 - a;
        b->start[a] = rk->block.origin[axis] + lo[axis];
        b->count[a] = hi[axis] - lo[axis];
        b->local_dims[a] = rk->block.local[axis];
        b->local_start[a] = lo[axis];
    }
}

void ts_rank_fill_rows(struct ts_rank_fill *f, const char *dataset, int64_t first, int64_t rows, int64_t columns,
                       const double *local, int64_t row_length, int64_t first_column)
{
    struct ts_h5_block *b = next_block(f, dataset, 2);
    if (!b)
        return;
    b->local = local;
    b->start[1] = first;
    b->count[0] = 1;
    b->count[1] = rows;
    b->count[2] = columns;
    b->local_dims[0] = 1;
    b->local_dims[1] = rows;
    b->local_dims[2] = row_length;
    b->local_start[2] = first_column;
}

void ts_rank_fill_table(struct ts_rank_fill *f, const char *dataset, enum ts_h5_item item, int64_t first, int64_t rows,
                        int64_t columns, const void *local)
{
    struct ts_h5_block *b = next_block(f, dataset, columns > 0 ? 2 : 1);
    if (!b)
        return;
    b->item = item;
    b->local = local;
    b->count[0] = b->local_dims[0] = 1;
    if (columns > 0) { /* [rows][columns] */
        b->start[1] = first;
        b->count[1] = b->local_dims[1] = rows;
        b->count[2] = b->local_dims[2] = columns;
    } else { /* [rows] */
        b->count[1] = b->local_dims[1] = 1;
        b->start[2] = first;
        b->count[2] = b->local_dims[2] = rows;
    }
}

/* This rank's rows of an audit's per-thread datasets: pass 0 under /placement, 1 under /placement/end. */
static void fill_audit(struct ts_rank_fill *f, const struct ts_placement *p, const int32_t *node, int pass)
{
    static const char *const names[2][6] = {
        { "/placement/thread_node", "/placement/thread_rank", "/placement/thread_pages",
          "/placement/thread_local_pages", "/placement/thread_local_fraction", "/placement/thread_node_pages" },
        { "/placement/end/thread_node", "/placement/end/thread_rank", "/placement/end/thread_pages",
          "/placement/end/thread_local_pages", "/placement/end/thread_local_fraction",
          "/placement/end/thread_node_pages" },
    };
    const struct ts_run_ranks *rk = f->rk;
    const char *const *n = names[pass];
    const int64_t first = rk->first_thread, rows = rk->n_threads;
    ts_rank_fill_table(f, n[0], TS_H5_INT32, first, rows, 0, node);
    ts_rank_fill_table(f, n[1], TS_H5_INT32, first, rows, 0, rk->thread_rank);
    ts_rank_fill_table(f, n[2], TS_H5_INT64, first, rows, 0, p->thread_pages);
    ts_rank_fill_table(f, n[3], TS_H5_INT64, first, rows, 0, p->thread_local_pages);
    ts_rank_fill_table(f, n[4], TS_H5_DOUBLE, first, rows, 0, p->thread_local_fraction);
    ts_rank_fill_table(f, n[5], TS_H5_INT64, first, rows, p->rec.n_nodes, p->thread_node_pages);
}

void ts_rank_fill_world_rows(struct ts_rank_fill *f, const struct ts_run_exec *ex)
{
    const struct ts_run_ranks *rk = f->rk;
    const int64_t steps = ex->in.warmup + ex->in.iterations, mine = rk->dist->rank;
    const int64_t first = rk->first_thread, n = rk->n_threads;
    ts_rank_fill_rows(f, "/timings/thread_iteration", first, n, rk->timed, ex->out.thread_times, ex->in.iterations, 0);
    ts_rank_fill_rows(f, "/mpi/rank_iteration", mine, 1, rk->timed, rk->own_steps, steps, ex->in.warmup);
    ts_rank_fill_rows(f, "/mpi/rank_halo_iteration", mine, 1, rk->timed, rk->own_steps + steps, steps, ex->in.warmup);
    ts_rank_fill_table(f, "/threads/table", TS_H5_THREAD_ROW, first, n, 0, ex->out.threads);
    ts_rank_fill_table(f, "/counters/init", TS_H5_COUNTER_ROW, first, n, 0, ex->out.init_counters);
    ts_rank_fill_table(f, "/counters/kernel", TS_H5_COUNTER_ROW, first, n, 0, ex->out.kernel_counters);
    ts_rank_fill_table(f, "/results/thread_partials", TS_H5_DOUBLE, first, n, 0, ex->out.thread_partials);
    ts_rank_fill_table(f, "/results/node_partials", TS_H5_DOUBLE, rk->first_node, ex->out.n_nodes, 0,
                       ex->out.node_partials);
    ts_rank_fill_table(f, "/results/node_ids", TS_H5_INT32, rk->first_node, ex->out.n_nodes, 0, ex->out.node_ids);
    /* Every rank knows whether the ranks audited alike (ts_run_ranks_world): the same blocks on all. */
    if (rk->placement_by_ranks && ex->out.have_placement)
        fill_audit(f, &ex->out.placement, ex->out.init_node, 0);
    if (rk->placement_by_ranks && ex->out.have_placement_end)
        fill_audit(f, &ex->out.placement_end, ex->out.init_node, 1);
}

/* Every rank's block written; the first failure (by rank) is everyone's answer on rank 0: one
 * reduction finds that rank, one broadcast carries its "STATUS MESSAGE", so that rank 0 holds
 * one message, never a line of every rank. */
static int write_blocks(struct ts_rank_fill *f, const char *tmp, struct ts_error *err)
{
    struct ts_error mine;
    ts_error_clear(&mine);
    const struct ts_dist *d = f->rk->dist;
    int status = ts_h5_write_blocks(tmp, f->blocks, f->n_blocks, &mine);
    int first = -1, count = 0;
    int collective = ts_dist_first_flagged(d, status != TS_OK, &first, &count, err);
    if (collective != TS_OK || first < 0)
        return collective;
    char text[sizeof mine.message + 32] = "", *theirs = NULL;
    if (d->rank == first)
        snprintf(text, sizeof text, "%d %s", status, mine.message);
    collective = ts_dist_bcast_text(d, first, text, &theirs, err);
    if (collective != TS_OK || d->rank != 0) {
        free(theirs);
        return collective;
    }
    char *reason = NULL;
    long code = strtol(theirs, &reason, 10);
    status =
        ts_fail(err, code > 0 && code < 256 ? (int)code : TS_IO_ERROR, "rank %d: %s", first, *reason ? reason + 1 : "");
    free(theirs);
    return status;
}

static int fill_from_root(const char *tmp, void *ctx, struct ts_error *err)
{
    struct ts_rank_fill *f = ctx;
    int go = TS_OK;
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s", tmp);
    f->announced = 1;
    if (ts_dist_bcast(f->rk->dist, &go, sizeof go, err) != TS_OK
        || ts_dist_bcast(f->rk->dist, name, sizeof name, err) != TS_OK)
        return err->status;
    return write_blocks(f, name, err);
}

struct ts_h5_fill ts_rank_fill_hook(struct ts_rank_fill *f)
{
    return (struct ts_h5_fill){ .fill = fill_from_root, .ctx = f };
}

int ts_rank_fill_end(struct ts_rank_fill *f, int status, struct ts_error *err)
{
    if (f->announced)
        return status;
    int stop = status != TS_OK ? status : TS_INTERNAL_ERROR;
    struct ts_error e;
    ts_error_clear(&e);
    if (ts_dist_bcast(f->rk->dist, &stop, sizeof stop, &e) != TS_OK && status == TS_OK) {
        *err = e;
        return e.status;
    }
    return status;
}

int ts_rank_fill_join(struct ts_rank_fill *f, struct ts_error *err)
{
    int go = TS_OK;
    char name[PATH_MAX];
    if (ts_dist_bcast(f->rk->dist, &go, sizeof go, err) != TS_OK)
        return err->status;
    if (go != TS_OK)
        return TS_OK; /* rank 0 failed before the file had a name; its status follows */
    if (ts_dist_bcast(f->rk->dist, name, sizeof name, err) != TS_OK)
        return err->status;
    struct ts_error ignored; /* rank 0 reports every rank's failure */
    ts_error_clear(&ignored);
    write_blocks(f, name, &ignored);
    return TS_OK;
}

uint64_t ts_rank_field_digest(const struct ts_run_ranks *rk, const double *grid)
{
    int64_t lo[3], hi[3];
    own_ranges(rk, lo, hi);
    const struct ts_decomp_block *b = &rk->block;
    const int64_t gx = rk->dec.points[0], gy = rk->dec.points[1];
    uint64_t sum = 0;
    for (int64_t z = lo[2]; z < hi[2]; z++)
        for (int64_t y = lo[1]; y < hi[1]; y++) {
            const int64_t first = ((b->origin[2] + z) * gy + b->origin[1] + y) * gx + b->origin[0] + lo[0];
            sum += ts_digest_points(grid + (z * b->local[1] + y) * b->local[0] + lo[0], (size_t)(hi[0] - lo[0]),
                                    (uint64_t)first);
        }
    return sum;
}

int ts_rank_digest_sum(const struct ts_run_ranks *rk, const uint64_t *mine, uint64_t *sum, int n, struct ts_error *err)
{
    return ts_dist_sum_u64(rk->dist, mine, sum, n, err);
}

#include "run_ranks.h"

#include "rank_warnings.h"
#include "ts_dist_xsum.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_run_ranks_own(const struct ts_decomp_block *b, int ndims, int axis, int64_t *begin, int64_t *end)
{
    /* A rank answers for its interior points and for the physical boundary next to them. */
    *begin = axis < ndims && b->neighbour[2 * axis] >= 0 ? b->begin[axis] - b->origin[axis] : 0;
    *end = axis < ndims && b->neighbour[2 * axis + 1] >= 0 ? b->end[axis] - b->origin[axis] : b->local[axis];
}

static int split_grid(struct ts_run_ranks *rk, const struct ts_config *cfg, struct ts_problem_part *part,
                      int64_t local[3], struct ts_error *err)
{
    const struct ts_problem *pb = &rk->whole;
    const int ndims = pb->kernel == TS_KERNEL_STENCIL3D ? 3 : 2;
    const int64_t points[3] = { pb->nx, pb->ny, ndims == 3 ? pb->nz : 1 };
    const int *dims = cfg->dims[0] > 0 ? cfg->dims : NULL; /* mpi.dims; NULL: auto */
    /* One exchange per iteration of time_block steps: halos as deep as the steps between two. */
    const int depth = pb->time_block > 1 ? (int)pb->time_block : 1;
    char why[768];
    if (ts_decomp_create(&rk->dec, ndims, points, rk->dist->size, dims, depth, why, sizeof why) != TS_DECOMP_OK) {
        rk->agreed = 1;
        return ts_fail(err, TS_BAD_INPUT, "%s on %d ranks: %s", cfg->kernel, rk->dist->size, why);
    }
    if (ts_decomp_block(&rk->dec, rk->dist->rank, &rk->block) != 0)
        return ts_fail(err, TS_INTERNAL_ERROR, "rank %d has no block of the %d-rank grid", rk->dist->rank,
                       rk->dec.ranks);
    for (int a = 0; a < 3; a++) {
        part->whole[a] = points[a];
        part->origin[a] = rk->block.origin[a];
        local[a] = rk->block.local[a];
        ts_run_ranks_own(&rk->block, ndims, a, &part->own_begin[a], &part->own_end[a]);
    }
    ts_decomp_dims_text(&rk->dec, rk->decomposition, sizeof rk->decomposition);
    return TS_OK;
}

static int split_array(struct ts_run_ranks *rk, const struct ts_config *cfg, struct ts_problem_part *part,
                       int64_t local[3], struct ts_error *err)
{
    const int64_t n = rk->whole.n, block = TS_SUM_BLOCK, blocks = (n + block - 1) / block;
    /* Slices on whole 512-element blocks: each block of the reproducible sum is summed by one
     * rank, as by one thread, so the result does not depend on the ranks. */
    if (blocks < rk->dist->size) {
        rk->agreed = 1;
        return ts_fail(err, TS_BAD_INPUT,
                       "%s on %d ranks: %lld elements are %lld block%s of %lld, fewer than the ranks, and a rank "
                       "needs at least one; use at most %lld ranks, or n >= %lld",
                       cfg->kernel, rk->dist->size, (long long)n, (long long)blocks, blocks == 1 ? "" : "s",
                       (long long)block, (long long)blocks, (long long)(block * (rk->dist->size - 1) + 1));
    }
    int rc = ts_decomp_slice(n, rk->dist->size, rk->dist->rank, block, &rk->slice);
    if (rc != 0)
        return ts_fail_errno(err, rc == ENOMEM ? TS_RESOURCE_ERROR : TS_INTERNAL_ERROR, rc,
                             "cannot slice %lld elements over %d ranks", (long long)n, rk->dist->size);
    part->whole[0] = n;
    part->origin[0] = rk->slice.begin;
    part->own_end[0] = local[0] = rk->slice.end - rk->slice.begin;
    part->own_end[1] = part->own_end[2] = local[1] = local[2] = 1;
    snprintf(rk->decomposition, sizeof rk->decomposition, "slices");
    return TS_OK;
}

/* The faces this rank's halo exchange sends, as dist/ts_dist_halo.c allocates them: deep halos
 * are as many points per face times their depth, plus the edges they carry. */
static void count_halos(const struct ts_run_ranks *rk, struct ts_run_plan *rp)
{
    int faces = 0;
    int64_t points = 0;
    for (int dir = 0; dir < 2 * rk->dec.ndims; dir++)
        if (rk->block.neighbour[dir] >= 0) {
            faces++;
            points += ts_decomp_send_face(&rk->block, (enum ts_decomp_dir)dir).elems;
        }
    ts_run_plan_halos(rp, faces, points, rk->dec.depth);
}

void ts_run_ranks_attach(struct ts_run_ranks *rk, const struct ts_dist *d)
{
    memset(rk, 0, sizeof *rk);
    rk->dist = d;
    rk->spread = d->size > 1;
}

int ts_run_ranks_split(struct ts_run_ranks *rk, const struct ts_dist *d, const struct ts_config *cfg,
                       struct ts_run_plan *rp, struct ts_error *err)
{
    ts_run_ranks_attach(rk, d);
    if (!rk->spread)
        return TS_OK;
    rk->whole = rp->problem;
    rk->whole_plan = rp->plan;
    rk->stencil = rp->kernel->id == TS_KERNEL_STENCIL2D || rp->kernel->id == TS_KERNEL_STENCIL3D;

    struct ts_problem_part part = { .checks_result = d->rank == 0 };
    int64_t local[3];
    int status = rk->stencil ? split_grid(rk, cfg, &part, local, err) : split_array(rk, cfg, &part, local, err);
    if (status == TS_OK)
        status = ts_run_plan_part(rp, cfg, local, &part, err);
    if (status == TS_OK && rk->stencil)
        count_halos(rk, rp);
    return status;
}

int ts_run_ranks_count_world(const struct ts_run_ranks *rk, struct ts_run_plan *rp, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    ts_run_plan_spread(rp);
    int64_t threads = rp->n_threads;
    int status = ts_dist_sum_i64(rk->dist, &threads, &threads, 1, err);
    if (status == TS_OK && rk->dist->rank == 0)
        ts_run_plan_world(rp, rk->dist->size, threads);
    return status;
}

int ts_run_ranks_follow_root(struct ts_run_ranks *rk, int status, struct ts_error *err)
{
    if (!rk->spread)
        return status;
    int root = status;
    struct ts_error e;
    ts_error_clear(&e);
    if (ts_dist_bcast(rk->dist, &root, sizeof root, &e) != TS_OK) {
        *err = e;
        return e.status;
    }
    if (root == TS_OK)
        return status;
    rk->agreed = 1;
    return rk->dist->rank == 0 ? status : ts_fail(err, root, "rank 0 failed");
}

/* The first failing rank's status, whether its error is every rank's (rk->agreed: the same
 * config reached alike), its host and message as one text: "STATUS\x1fAGREED\x1fHOST\x1fMESSAGE". */
static void failure_text(const struct ts_run_ranks *rk, int status, const struct ts_error *err, char *text, size_t len)
{
    snprintf(text, len, "%d\x1f%d\x1f%s\x1f%s", status, rk->agreed, rk->dist->host, err->message);
}

int ts_run_ranks_agree_error(struct ts_run_ranks *rk, int status, struct ts_error *err)
{
    if (!rk->spread)
        return status;
    /* One reduction finds the first failing rank, one broadcast carries its reason: O(log P),
     * nothing gathered on rank 0. */
    struct ts_error e;
    ts_error_clear(&e);
    int first = -1, count = 0;
    if (ts_dist_first_flagged(rk->dist, ts_status_is_error(status), &first, &count, &e) != TS_OK) {
        *err = e;
        return e.status;
    }
    if (first < 0)
        return TS_OK;
    char mine[sizeof err->message + 320], *theirs = NULL;
    failure_text(rk, status, err, mine, sizeof mine);
    if (ts_dist_bcast_text(rk->dist, first, mine, &theirs, &e) != TS_OK) {
        *err = e;
        rk->agreed = e.status == TS_RESOURCE_ERROR;
        return e.status;
    }
    const int agreed = atoi(theirs);
    const char *flag = strchr(theirs, '\x1f'), *host = flag ? strchr(flag + 1, '\x1f') : NULL;
    const char *msg = host ? strchr(host + 1, '\x1f') : NULL;
    /* Every rank failed with this very message: it is the job's, no rank to name. */
    const int same = ts_status_is_error(status) && msg && strcmp(err->message, msg + 1) == 0;
    int first_other = -1, others = 0;
    if (ts_dist_first_flagged(rk->dist, !same, &first_other, &others, &e) != TS_OK) {
        free(theirs);
        *err = e;
        return e.status;
    }
    const int everyones = (flag && atoi(flag + 1)) || first_other < 0;
    rk->agreed = 1;
    int code = agreed;
    char more[64] = "";
    if (count > 1 && !everyones)
        snprintf(more, sizeof more, " (and %d more rank%s failed)", count - 1, count == 2 ? "" : "s");
    if (rk->dist->rank != 0)
        code = ts_fail(err, agreed, "another rank failed");
    else if (first != 0 && host && msg) /* named, unless the error is every rank's alike */
        code = everyones ? ts_fail(err, agreed, "%s", msg + 1)
                         : ts_fail(err, agreed, "rank %d of %d (%.*s): %s%s", first, rk->dist->size,
                                   (int)(msg - host - 1), host + 1, msg + 1, more);
    else if (!everyones) { /* rank 0's own error, already in err: named as the others' are */
        size_t used = strlen(err->message);
        snprintf(err->message + used, sizeof err->message - used, "%s", more);
        ts_error_prefix(err, "rank 0 of %d (%s): ", rk->dist->size, rk->dist->host);
    }
    free(theirs);
    return code;
}

/* The grid iteration `step` reads, whichever parity its time_block steps per iteration leave. */
static double *grid_read_by(struct ts_run_exec *ex, int64_t step)
{
    int64_t dims[3];
    const double *field = ts_kernel_field(&ex->in.rp->problem, ex->own.arrays, step, dims);
    return field == ex->own.arrays[0] ? ex->own.arrays[0] : ex->own.arrays[1];
}

/* The halo exchange of the grid iteration `step` reads, by every thread of the team
 * (ts_run_exec's halo_post and halo_wait): they share the copies, the master alone speaks MPI
 * (MPI_THREAD_FUNNELED); the barriers of pack, unpack and the one before it order them, and
 * unpack tells every thread whether the messages arrived. halo_post starts the first round;
 * halo_wait finishes it and runs the others (deep halos: one round per axis, each packing what
 * the round before unpacked), so nothing computes between those. */
static void start_round(struct ts_run_ranks *rk, double *grid, int round, struct ts_error *err)
{
    ts_dist_halo_pack(rk->halo, grid, round);
#pragma omp master
    ts_dist_halo_post(rk->halo, round, err);
}

static int finish_round(struct ts_run_ranks *rk, double *grid, struct ts_error *err)
{
#pragma omp master
    ts_dist_halo_wait(rk->halo, err);
#pragma omp barrier
    return ts_dist_halo_unpack(rk->halo, grid);
}

static void exchange_post(struct ts_run_exec *ex, int64_t step, void *ctx, struct ts_error *err)
{
    start_round(ctx, grid_read_by(ex, step), 0, err);
}

static int exchange_wait(struct ts_run_exec *ex, int64_t step, void *ctx, struct ts_error *err)
{
    struct ts_run_ranks *rk = ctx;
    double *grid = grid_read_by(ex, step);
    int status = finish_round(rk, grid, err);
    for (int round = 1; round < ts_dist_halo_rounds(rk->halo) && status == TS_OK; round++) {
        start_round(rk, grid, round, err);
        status = finish_round(rk, grid, err);
    }
    return status;
}

/* The overlap is on unless TOUCHSTONE_HALO_OVERLAP=0: the points that read no halo are swept
 * as the plain step sweeps them (kernels/stencil_sweep.c), so hiding the exchange costs nothing
 * measurable where it has little to hide (bench/README.md, "The halo exchange overlapped"); the
 * variable is there to compare the two. */
static int overlap_wanted(void)
{
    const char *v = getenv("TOUCHSTONE_HALO_OVERLAP");
    return !(v && strcmp(v, "0") == 0);
}

/* The stop vote posted after step i is read after step i + 1: every rank reads the same answer
 * after the same step, and the reduction has a whole step to travel instead of holding every
 * rank in a barrier after each one. A signal is obeyed one step later than on one rank. */
static int agree_stop(struct ts_run_exec *ex, int stop, int more, void *ctx)
{
    (void)ex;
    struct ts_run_ranks *rk = ctx;
    struct ts_error e;
    int agreed = 0;
    ts_error_clear(&e);
    /* A failed vote stops this rank: the others then fail in their next exchange or vote. */
    if (ts_dist_vote_read(rk->dist, &rk->stop_vote, &agreed, &e) != TS_OK)
        return 1;
    if (more && !agreed && ts_dist_vote_post(rk->dist, stop, &rk->stop_vote, &e) != TS_OK)
        return 1;
    return agreed;
}

int ts_run_ranks_hook(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    ex->in.ranks_ctx = rk;
    ex->in.agree_stop = agree_stop;
    if (ex->in.rp->problem.part.whole[0] != 0 && rk->stencil) {
        int status = ts_dist_halo_create(rk->dist, &rk->dec, &rk->block, &rk->halo, err);
        if (status != TS_OK)
            return status;
        ex->in.halo_post = exchange_post;
        ex->in.halo_wait = exchange_wait;
        /* A time block's steps all read the halos' depth, and its exchange is several rounds:
         * not overlapped. */
        const struct ts_problem *pb = &ex->in.rp->problem;
        ex->in.overlap_halo = ex->in.rp->kernel->step_split && pb->time_block <= 1 && overlap_wanted();
    }
    return TS_OK;
}

int ts_run_ranks_combine(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    double t0 = omp_get_wtime();
    /* A copy: ex->out.process_sum stays this rank's own exact sum, as documented in run_exec.h. */
    struct ts_xsum all = ex->out.process_sum;
    int status = ts_dist_xsum_allreduce(rk->dist, &all, err);
    if (status == TS_OK) {
        rk->rank_partial = ex->out.global;
        ex->out.global = ts_xsum_round(&all);
    }
    rk->t_reduction = omp_get_wtime() - t0;
    return status;
}

int ts_run_ranks_verify(struct ts_run_ranks *rk, struct ts_verification *ver, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    /* Counts add up; a part that did not pass fails the whole. */
    int64_t counts[3] = { ver->checked, ver->failures, !ver->passed };
    int status = ts_dist_sum_i64(rk->dist, counts, counts, 3, err);
    /* Rank 0 checked the combined result (sum, triad); a stencil's error is per grid point:
     * the largest of all (a NaN as infinite, as the stencils' own verification reports it), and
     * the centre point is observed by the rank that holds it. */
    double worst = isnan(ver->error) ? INFINITY : ver->error, observed = ver->observed;
    int from = -1;
    if (status == TS_OK && rk->stencil)
        status = ts_dist_max_double(rk->dist, &worst, &worst, 1, err);
    if (status == TS_OK && rk->stencil)
        status = ts_dist_first_double(rk->dist, !isnan(ver->observed), ver->observed, &observed, &from, err);
    if (status != TS_OK)
        return status;
    ver->checked = counts[0];
    ver->failures = counts[1];
    ver->passed = counts[2] == 0 && ver->failures == 0;
    if (rk->stencil) {
        ver->error = worst;
        ver->observed = observed;
    }
    size_t used = strlen(ver->method);
    snprintf(ver->method + used, sizeof ver->method - used, "; over the parts of %d ranks", rk->dist->size);
    return TS_OK;
}

/* The most lines the ranks' own warnings take: distinct texts past it are counted, not shown. */
enum { MAX_RANK_LINES = 32 };

int ts_run_ranks_gather_lines(struct ts_run_ranks *rk, char lines[][512], int n, char ***all, struct ts_error *err)
{
    *all = NULL;
    if (rk->spread) {
        const char **mine = malloc((size_t)(n > 0 ? n : 1) * sizeof *mine);
        if (!mine)
            return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot gather the warnings");
        for (int i = 0; i < n; i++)
            mine[i] = lines[i];
        int status = ts_rank_lines_merge(rk->dist, "", mine, n, MAX_RANK_LINES, all, err);
        free(mine);
        return status;
    }
    /* One process: its lines as they are, in one block (the pointers, then their text). */
    char **block = malloc((size_t)(n + 1) * sizeof *block + (size_t)n * sizeof lines[0]);
    if (!block)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot gather the warnings");
    char(*text)[512] = (char(*)[512])(block + n + 1);
    memcpy(text, lines, (size_t)n * sizeof lines[0]);
    for (int i = 0; i < n; i++)
        block[i] = text[i];
    block[n] = NULL;
    *all = block;
    return TS_OK;
}

void ts_run_ranks_release(struct ts_run_ranks *rk)
{
    ts_dist_halo_destroy(rk->halo);
    rk->halo = NULL;
    free(rk->ranks);
    free(rk->own_steps);
    free(rk->elapsed);
    free(rk->thread_rank);
    rk->ranks = NULL;
    rk->own_steps = rk->elapsed = NULL;
    rk->thread_rank = NULL;
}

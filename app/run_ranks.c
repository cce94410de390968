#include "run_ranks.h"

#include "rank_warnings.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_run_ranks_own(const struct ts_decomp_block *b, int ndims, int axis, int64_t *begin, int64_t *end)
{
    /* A rank answers for its interior points and for the physical boundary next to them. */
    *begin = axis < ndims && b->neighbour[2 * axis] >= 0 ? 1 : 0;
    *end = b->local[axis] - (axis < ndims && b->neighbour[2 * axis + 1] >= 0 ? 1 : 0);
}

static int split_grid(struct ts_run_ranks *rk, const struct ts_config *cfg, struct ts_problem_part *part,
                      int64_t local[3], struct ts_error *err)
{
    const struct ts_problem *pb = &rk->whole;
    const int ndims = pb->kernel == TS_KERNEL_STENCIL3D ? 3 : 2;
    const int64_t points[3] = { pb->nx, pb->ny, ndims == 3 ? pb->nz : 1 };
    const int *dims = cfg->dims[0] > 0 ? cfg->dims : NULL; /* mpi.dims; NULL: auto */
    char why[512];
    if (ts_decomp_create(&rk->dec, ndims, points, rk->dist->size, dims, why, sizeof why) != TS_DECOMP_OK) {
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

int ts_run_ranks_split(struct ts_run_ranks *rk, const struct ts_dist *d, const struct ts_config *cfg,
                       struct ts_run_plan *rp, struct ts_error *err)
{
    memset(rk, 0, sizeof *rk);
    rk->dist = d;
    if (d->size <= 1)
        return TS_OK;
    rk->spread = 1;
    rk->whole = rp->problem;
    rk->whole_plan = rp->plan;
    rk->stencil = rp->kernel->id == TS_KERNEL_STENCIL2D || rp->kernel->id == TS_KERNEL_STENCIL3D;
    if (rk->stencil && rp->problem.time_block > 1) {
        rk->agreed = 1;
        return ts_fail(err, TS_BAD_INPUT,
                       "stencil.time_block = %lld on %d ranks: a time block needs halos as deep as its steps, and "
                       "ranks exchange one layer per step; use stencil.time_block = 1",
                       (long long)rp->problem.time_block, d->size);
    }

    struct ts_problem_part part = { .checks_result = d->rank == 0 };
    int64_t local[3];
    int status = rk->stencil ? split_grid(rk, cfg, &part, local, err) : split_array(rk, cfg, &part, local, err);
    if (status != TS_OK)
        return status;
    return ts_run_plan_part(rp, cfg, local, &part, err);
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

/* One rank's outcome as a record of the gathered text: "" for success, else "STATUS\x1fMESSAGE";
 * records end with \x1e (a message holds neither character). */
static char *outcome_record(int status, const struct ts_error *err)
{
    size_t len = sizeof err->message + 32;
    char *text = malloc(len);
    if (!text)
        return NULL;
    if (ts_status_is_error(status))
        snprintf(text, len, "%d\x1f%s\x1e", status, err->message);
    else
        snprintf(text, len, "\x1e");
    return text;
}

/* On rank 0: the first failing rank's status and message from the gathered records. */
static int first_failure(const struct ts_run_ranks *rk, const char *all, struct ts_error *err)
{
    int r = 0;
    for (const char *p = all; *p; r++) {
        const char *end = strchr(p, '\x1e');
        if (!end)
            break;
        if (end != p) {
            int status = atoi(p);
            const char *msg = strchr(p, '\x1f');
            int len = msg && msg < end ? (int)(end - msg - 1) : 0;
            if (r == 0)
                return status; /* rank 0's own error, already in err */
            return ts_fail(err, status, "rank %d of %d: %.*s", r, rk->dist->size, len, msg ? msg + 1 : "");
        }
        p = end + 1;
    }
    return TS_OK;
}

int ts_run_ranks_agree_error(struct ts_run_ranks *rk, int status, struct ts_error *err)
{
    if (!rk->spread)
        return status;
    char *mine = outcome_record(status, err), *all = NULL, no_memory[64];
    struct ts_error e;
    ts_error_clear(&e);
    /* Every rank takes part, even without memory for its record: then it says it failed. */
    snprintf(no_memory, sizeof no_memory,
             "%d\x1f"
             "out of memory\x1e",
             TS_RESOURCE_ERROR);
    int code = ts_dist_gather_text(rk->dist, mine ? mine : no_memory, &all, &e);
    free(mine);
    int agreed = code;
    if (code == TS_OK && rk->dist->rank == 0)
        agreed = first_failure(rk, all ? all : "", err);
    free(all);
    if (code != TS_OK) {
        *err = e;
        return code;
    }
    if (ts_dist_bcast(rk->dist, &agreed, sizeof agreed, &e) != TS_OK) {
        *err = e;
        return e.status;
    }
    if (agreed == TS_OK)
        return TS_OK;
    rk->agreed = 1;
    return rk->dist->rank == 0 ? agreed : ts_fail(err, agreed, "another rank failed");
}

static int exchange(struct ts_run_exec *ex, int64_t step, void *ctx, struct ts_error *err)
{
    struct ts_run_ranks *rk = ctx;
    /* Step k reads grid k % 2 (stencil.time_block = 1 with ranks). */
    return ts_dist_halo_exchange(rk->halo, ex->own.arrays[step % 2], err);
}

static int agree_stop(struct ts_run_exec *ex, int stop, void *ctx)
{
    (void)ex;
    struct ts_run_ranks *rk = ctx;
    struct ts_error e;
    int any = stop;
    ts_error_clear(&e);
    /* A failed vote stops this rank: the others then fail in their next exchange or vote. */
    return ts_dist_max(rk->dist, stop, &any, &e) == TS_OK ? any : 1;
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
        ex->in.before_step = exchange;
    }
    return TS_OK;
}

int ts_run_ranks_combine(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    const int size = rk->dist->size;
    double t0 = omp_get_wtime();
    struct ts_xsum *all = rk->dist->rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    if (rk->dist->rank == 0 && !all)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the partials of %d ranks", size);
    int status = ts_dist_gather(rk->dist, &ex->out.process_sum, sizeof ex->out.process_sum, all, err);
    double global = NAN;
    if (status == TS_OK && all) {
        struct ts_xsum acc;
        ts_xsum_init(&acc);
        for (int r = 0; r < size; r++)
            ts_xsum_merge(&acc, &all[r]);
        global = ts_xsum_round(&acc);
    }
    free(all);
    if (status == TS_OK)
        status = ts_dist_bcast(rk->dist, &global, sizeof global, err);
    if (status == TS_OK) {
        rk->rank_partial = ex->out.global;
        ex->out.global = global;
    }
    rk->t_reduction = omp_get_wtime() - t0;
    return status;
}

int ts_run_ranks_verify(struct ts_run_ranks *rk, struct ts_verification *ver, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    const int size = rk->dist->size;
    struct ts_verification *all = rk->dist->rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    if (rk->dist->rank == 0 && !all)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the verifications of %d ranks", size);
    int status = ts_dist_gather(rk->dist, ver, sizeof *ver, all, err);
    if (status != TS_OK || !all) {
        free(all);
        return status;
    }
    /* Rank 0 checked the combined result (sum, triad); a stencil's error is per grid point:
     * the largest of all, and the centre point is observed by the rank that holds it. */
    for (int r = 1; r < size; r++) {
        const struct ts_verification *v = &all[r];
        ver->checked += v->checked;
        ver->failures += v->failures;
        ver->passed = ver->passed && v->passed;
        if (rk->stencil) {
            if (isnan(v->error) || v->error > ver->error)
                ver->error = isnan(v->error) ? INFINITY : v->error;
            if (isnan(ver->observed) && !isnan(v->observed))
                ver->observed = v->observed;
        }
    }
    ver->passed = ver->passed && ver->failures == 0;
    size_t used = strlen(ver->method);
    snprintf(ver->method + used, sizeof ver->method - used, "; over the parts of %d ranks", size);
    free(all);
    return TS_OK;
}

/* The most lines the ranks' own warnings take: distinct texts past it are counted, not shown. */
enum { MAX_RANK_LINES = 32 };

int ts_run_ranks_gather_lines(struct ts_run_ranks *rk, char lines[][512], int n, char ***all, struct ts_error *err)
{
    *all = NULL;
    const char **mine = malloc((size_t)(n > 0 ? n : 1) * sizeof *mine);
    if (!mine)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot gather the warnings");
    for (int i = 0; i < n; i++)
        mine[i] = lines[i];
    if (rk->spread) {
        int status = ts_rank_lines_merge(rk->dist, "", mine, n, MAX_RANK_LINES, all, err);
        free(mine);
        return status;
    }
    /* One process: its lines as they are, in one block (the pointers, then their text). */
    char **block = malloc((size_t)(n + 1) * sizeof *block + (size_t)n * sizeof lines[0]);
    if (!block) {
        free(mine);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot gather the warnings");
    }
    char(*text)[512] = (char(*)[512])(block + n + 1);
    for (int i = 0; i < n; i++) {
        snprintf(text[i], sizeof text[i], "%s", mine[i]);
        block[i] = text[i];
    }
    block[n] = NULL;
    free(mine);
    *all = block;
    return TS_OK;
}

void ts_run_ranks_release(struct ts_run_ranks *rk)
{
    ts_dist_halo_destroy(rk->halo);
    rk->halo = NULL;
    free(rk->ranks);
    free(rk->rank_iteration);
    free(rk->rank_halo_iteration);
    free(rk->elapsed);
    free(rk->thread_rank);
    rk->ranks = NULL;
    rk->rank_iteration = rk->rank_halo_iteration = rk->elapsed = NULL;
    rk->thread_rank = NULL;
}

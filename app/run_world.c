/* ts_run_ranks_world: what every rank measured, on rank 0 as the run's record and the /mpi
 * group, so that the record, the summary and the file see every thread of every rank as one run
 * sees its threads. One row a rank is gathered (/mpi/ranks and its start: the summary's slowest
 * rank and host, the hosts counted); no row of a thread nor any time per iteration is: each rank
 * keeps its rows for the write (app/rank_files.h), where an MPI_Exscan places them, and rank 0
 * gets what the record and the summary need of them by reductions: their first rows, sums,
 * each step's slowest rank. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "run_ranks.h"
#include "ts_distinct.h"
#include "ts_summary.h"

/* Rank 0 gets in *all (malloc'd) every rank's item of `item` bytes at mine, in rank order: a
 * bounded row per rank (ts_dist_gather: one MPI item a rank, so no int count of bytes limits
 * the whole). A rank 0 without the memory says so first, and no rank gathers. */
static int gather_rows(const struct ts_run_ranks *rk, const void *mine, size_t item, void **all, struct ts_error *err)
{
    const struct ts_dist *d = rk->dist;
    *all = d->rank == 0 ? malloc((size_t)d->size * item) : NULL;
    int short_of = 0;
    int status = ts_dist_max(d, d->rank == 0 && !*all, &short_of, err);
    if (status == TS_OK && short_of)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM,
                               "rank 0 cannot hold a row of %zu bytes for each of %d ranks", item, d->size);
    if (status == TS_OK)
        status = ts_dist_gather(d, mine, item, *all ? *all : (void *)mine, err);
    if (status != TS_OK) {
        free(*all);
        *all = NULL;
    }
    return status;
}

/* Replaces *slot (malloc'd) with fresh, on rank 0. */
static void take(void *slot, void *fresh)
{
    void **p = slot;
    free(*p);
    *p = fresh;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* This rank's row of /mpi/ranks. */
static void my_rank(const struct ts_run_ranks *rk, const struct ts_run_exec *ex, struct ts_rank_rec *me)
{
    const struct ts_dist *d = rk->dist;
    memset(me, 0, sizeof *me);
    me->rank = d->rank;
    me->local_rank = d->local_rank;
    snprintf(me->host, sizeof me->host, "%.63s", d->host);
    snprintf(me->boot_id, sizeof me->boot_id, "%s", d->boot_id);
    me->n_threads = ex->in.n_threads;
    for (int a = 0; a < 3; a++) {
        me->coords[a] = rk->stencil ? rk->block.coords[a] : 0;
        me->own_begin[a] = rk->stencil ? rk->block.begin[a] : a == 0 ? rk->slice.begin : 0;
        me->own_end[a] = rk->stencil ? rk->block.end[a] : a == 0 ? rk->slice.end : 1;
    }
    me->partial = rk->rank_partial;
    int64_t first = ex->in.warmup, done = ex->out.steps_done - first;
    double *times = done > 0 ? malloc((size_t)done * sizeof *times) : NULL;
    /* No timed iteration (stopped in the warm-up): no times, as the reader wants them (NaN). */
    me->time_min = me->time_median = me->time_max = NAN;
    if (times) {
        memcpy(times, ex->out.step_times + first, (size_t)done * sizeof *times);
        me->time_median = median_of(times, (size_t)done);
        me->time_min = times[0];
        me->time_max = times[done - 1];
        free(times);
    }
    for (int64_t s = first; s < ex->out.steps_done; s++)
        me->halo += ex->out.halo_times[s];
    me->reduction = rk->t_reduction;
    me->allocation = ex->out.t_allocation;
    me->init = ex->out.t_init;
    me->kernel = ex->out.t_kernel; /* its own step_times summed, as timed_steps adds them */
    me->combine = ex->out.t_combine;
    me->result = ex->out.t_result;
    me->verify = ex->out.t_verify;
    me->placement = ex->out.t_placement;
    me->total = NAN; /* rank 0 knows it when it writes: ts_run_ranks_total */
}

/* On rank 0, after its step_times became each step's slowest rank's: the job's times. The
 * kernel is the sum of those steps, in the order one process sums its own, so that /timings/kernel
 * is the sum of /timings/iteration under ranks too; each other phase is the slowest rank's,
 * phase by phase (ranks wait for each other only in the collectives, outside every phase). */
static void job_times(struct ts_run_exec *ex, const struct ts_rank_rec *ranks, int size)
{
    struct ts_run_outputs *o = &ex->out;
    o->t_kernel = 0.0;
    for (int64_t s = ex->in.warmup; s < o->steps_done; s++)
        o->t_kernel += o->step_times[s];
    for (int r = 0; r < size; r++) {
        const struct ts_rank_rec *k = &ranks[r];
        o->t_allocation = fmax(o->t_allocation, k->allocation);
        o->t_init = fmax(o->t_init, k->init);
        o->t_combine = fmax(o->t_combine, k->combine);
        o->t_result = fmax(o->t_result, k->result);
        o->t_verify = fmax(o->t_verify, k->verify);
        o->t_placement = fmax(o->t_placement, k->placement);
    }
}

/* Collective: each rank's seconds since its start, read as every rank leaves one barrier, to
 * rank 0 (rk->elapsed): how much earlier or later than rank 0 each began, for the totals. */
static int gather_elapsed(struct ts_run_ranks *rk, struct ts_error *err)
{
    int ignore = 0;
    int status = ts_dist_max(rk->dist, 0, &ignore, err); /* an allreduce: no rank leaves before all came */
    double mine = omp_get_wtime() - rk->started;
    void *all = NULL;
    if (status == TS_OK)
        status = gather_rows(rk, &mine, sizeof mine, &all, err);
    if (status == TS_OK && rk->dist->rank == 0) {
        take(&rk->elapsed, all);
        all = NULL;
    }
    free(all);
    return status;
}

double ts_run_ranks_total(struct ts_run_ranks *rk, double own_total)
{
    if (!rk->spread || !rk->ranks)
        return own_total;
    double job = own_total;
    for (int r = 0; r < rk->dist->size; r++) {
        rk->ranks[r].total = own_total + (rk->elapsed ? rk->elapsed[r] - rk->elapsed[0] : 0.0);
        job = fmax(job, rk->ranks[r].total);
    }
    return job;
}

/* The hosts and whether two names share one kernel (an emulated cluster), by sorting: O(P log P)
 * at rank 0. -1 when memory ran out. */
static int count_hosts(struct ts_mpi_rec *m, const struct ts_rank_rec *ranks)
{
    const size_t n = (size_t)m->size;
    const char **hosts = malloc((n ? n : 1) * sizeof *hosts);
    struct ts_named_key *kernels = malloc((n ? n : 1) * sizeof *kernels);
    if (!hosts || !kernels) {
        free(hosts);
        free(kernels);
        return -1;
    }
    for (size_t r = 0; r < n; r++) {
        hosts[r] = ranks[r].host;
        kernels[r] = (struct ts_named_key){ .key = ranks[r].boot_id, .name = ranks[r].host };
    }
    m->n_hosts = (int)ts_count_distinct(hosts, n);
    m->shared_kernel = ts_key_has_two_names(kernels, n);
    free(hosts);
    free(kernels);
    return 0;
}

/* The most NUMA nodes whose lists the ranks compare; past it every rank takes the audits for
 * mixed alike (rank 0's rows alone), rather than allocate. */
#define MAX_AUDIT_NODES 4096

/* Collective: whether some rank audited other NUMA nodes than rank 0 (the columns of every
 * per-thread placement row: hosts that differ), the same answer on every rank: rank 0's list
 * broadcast, each rank's verdict reduced. */
static int audit_mixed(const struct ts_run_ranks *rk, const struct ts_placement_rec *rec, int *mixed,
                       struct ts_error *err)
{
    const struct ts_dist *d = rk->dist;
    static int32_t ids[MAX_AUDIT_NODES];
    int nn = rec->n_nodes;
    *mixed = 1;
    int status = ts_dist_bcast(d, &nn, sizeof nn, err);
    if (status != TS_OK || nn < 0 || nn > MAX_AUDIT_NODES)
        return status;
    if (d->rank == 0)
        memcpy(ids, rec->node_ids, (size_t)nn * sizeof *ids);
    status = ts_dist_bcast(d, ids, (size_t)nn * sizeof *ids, err);
    int differs = nn != rec->n_nodes;
    for (int i = 0; !differs && i < nn; i++)
        differs = ids[i] != rec->node_ids[i];
    return status == TS_OK ? ts_dist_max(d, differs, mixed, err) : status;
}

/* Collective, every rank having audited the same NUMA nodes: what rank 0's record takes of
 * every rank's placement rows, which each rank writes itself (app/rank_files.c). The arrays'
 * pages and the pages local to their thread are summed; the first ranks' own local fractions
 * come by ts_dist_head. On rank 0, p->rec says the world: its totals and local fraction. */
static int reduce_placement(struct ts_run_ranks *rk, struct ts_placement *p, struct ts_run_audit_sums *sums,
                            struct ts_error *err)
{
    const struct ts_dist *d = rk->dist;
    struct ts_placement_rec *rec = &p->rec;
    const size_t nn = (size_t)rec->n_nodes, na = (size_t)rec->n_arrays;
    int64_t counts[2] = { 0, 0 }; /* pages of the threads' chunks, of them local */
    for (int t = 0; t < rk->n_threads; t++) {
        counts[0] += p->thread_pages[t];
        counts[1] += p->thread_local_pages[t];
    }
    const double own = counts[0] > 0 ? (double)counts[1] / (double)counts[0] : 0.0;
    /* Every rank's arrays in place: the others' own counts are written nowhere after this. */
    int status = ts_dist_sum_i64(d, p->array_node_pages, p->array_node_pages, (int)(na * nn), err);
    if (status == TS_OK)
        status = ts_dist_sum_i64(d, p->array_absent_pages, p->array_absent_pages, (int)na, err);
    if (status == TS_OK)
        status = ts_dist_sum_i64(d, p->array_error_pages, p->array_error_pages, (int)na, err);
    if (status == TS_OK)
        status = ts_dist_sum_i64(d, counts, counts, 2, err);
    sums->n_ranks_head = d->size < TS_RECORD_HEAD ? d->size : TS_RECORD_HEAD;
    if (status == TS_OK)
        status = ts_dist_head(d, &own, sizeof own, d->rank, 1, sums->n_ranks_head, sums->rank_local_fraction, err);
    sums->pages = counts[0];
    if (status == TS_OK && d->rank == 0 && counts[0] > 0)
        rec->local_fraction = (double)counts[1] / (double)counts[0];
    return status;
}

/* Collective: what rank 0's record takes of every thread's rows (rk->world), which each rank
 * writes itself: the first rows the summary shows (ts_dist_head) and the counters' sums. */
static int reduce_thread_rows(struct ts_run_ranks *rk, const struct ts_run_exec *ex, struct ts_error *err)
{
    const struct ts_dist *d = rk->dist;
    struct ts_run_world_rows *w = &rk->world;
    const int n = rk->n_threads;
    const int64_t first = rk->first_thread;
    const int head = TS_RECORD_HEAD;
    int status = ts_dist_head(d, ex->out.threads, sizeof *w->threads, first, n, head, w->threads, err);
    if (status == TS_OK)
        status = ts_dist_head(d, ex->out.init_counters, sizeof *w->init, first, n, head, w->init, err);
    if (status == TS_OK)
        status = ts_dist_head(d, ex->out.kernel_counters, sizeof *w->kernel, first, n, head, w->kernel, err);
    struct ts_counter_sums s;
    ts_counter_sums_of(ex->out.init_counters, ex->out.kernel_counters, n, &s);
    /* The threads that touched the rank's pages: all of them, its first in a serial init. */
    const int touching = ex->in.serial_init && n > 0 ? 1 : n;
    for (int t = 0; t < touching; t++) {
        s.touch_system += ex->out.init_counters[t].system_time;
        s.touch_span += ex->out.init_counters[t].user_time + ex->out.init_counters[t].system_time;
    }
    int64_t counts[3] = { s.init_faults, s.involuntary, s.migrations };
    double times[3] = { s.touch_system, s.touch_span, s.wait };
    if (status == TS_OK)
        status = ts_dist_sum_i64(d, counts, counts, 3, err);
    if (status == TS_OK)
        status = ts_dist_sum_double(d, times, times, 3, err);
    w->counters = (struct ts_counter_sums){ .init_faults = counts[0],
                                            .involuntary = counts[1],
                                            .migrations = counts[2],
                                            .touch_system = times[0],
                                            .touch_span = times[1],
                                            .wait = times[2] };
    return status;
}

/* Collective: this rank's own step and halo times kept for its rows before
 * every rank's step_times become each step's slowest rank's (every rank gets that answer: an
 * allreduce, O(steps) on each rank and nothing per rank). The sum of every rank's measured
 * iterations, which the summary's halo share divides by, is one more reduction. */
static int reduce_times(struct ts_run_ranks *rk, struct ts_run_exec *ex, int *short_of, struct ts_error *err)
{
    const struct ts_dist *d = rk->dist;
    const size_t steps = (size_t)(ex->in.warmup + ex->in.iterations);
    const int64_t done = ex->out.steps_done - ex->in.warmup;
    rk->n_threads = ex->in.n_threads;
    rk->timed = done > 0 ? done : 0;
    free(rk->own_steps);
    rk->own_steps = malloc((2 * steps + 1) * sizeof *rk->own_steps);
    /* A rank out of memory here still joins the reductions below (with its own numbers, which
     * still bound the others') and every collective after, then fails (*short_of). */
    *short_of |= !rk->own_steps;
    if (rk->own_steps) {
        memcpy(rk->own_steps, ex->out.step_times, steps * sizeof *rk->own_steps);
        memcpy(rk->own_steps + steps, ex->out.halo_times, steps * sizeof *rk->own_steps);
    }
    double mine = 0.0;
    for (int64_t i = 0; i < rk->timed; i++)
        mine += ex->out.step_times[ex->in.warmup + i];
    int reduced = ts_dist_max_double(d, ex->out.step_times, ex->out.step_times, steps, err);
    if (reduced == TS_OK)
        reduced = ts_dist_max_double(d, ex->out.halo_times, ex->out.halo_times, steps, err);
    if (reduced == TS_OK)
        reduced = ts_dist_sum_double(d, &mine, &rk->mpi.iteration_time, 1, err);
    return reduced;
}

/* Collective: every rank's placement rows written by the ranks when they audited the same
 * NUMA nodes (rk->placement_by_ranks, the same on every rank), rank 0's alone otherwise. */
static int reduce_audits(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err)
{
    struct ts_placement *audits[2] = { ex->out.have_placement ? &ex->out.placement : NULL,
                                       ex->out.have_placement_end ? &ex->out.placement_end : NULL };
    int status = TS_OK, mixed = 0;
    /* The flags are the config's, the same on every rank. */
    for (int a = 0; a < 2 && status == TS_OK; a++) {
        int this_mixed = 0;
        if (audits[a])
            status = audit_mixed(rk, &audits[a]->rec, &this_mixed, err);
        mixed |= this_mixed;
    }
    rk->placement_mixed = mixed;
    rk->placement_by_ranks = status == TS_OK && !mixed;
    rk->world.placement_by_ranks = rk->placement_by_ranks;
    for (int a = 0; a < 2 && status == TS_OK && rk->placement_by_ranks; a++)
        if (audits[a])
            status = reduce_placement(rk, audits[a], &rk->world.audit[a], err);
    return status;
}

int ts_run_ranks_world(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_run_plan *rp, struct ts_error *err)
{
    if (!rk->spread)
        return TS_OK;
    const struct ts_dist *d = rk->dist;
    const size_t n = (size_t)ex->in.n_threads;
    for (size_t t = 0; t < n; t++) {
        ex->out.threads[t].rank = d->rank;
        ex->out.threads[t].local_rank = d->local_rank;
        snprintf(ex->out.threads[t].host, sizeof ex->out.threads[t].host, "%.63s", d->host);
    }
    free(rk->thread_rank);
    rk->thread_rank = malloc((n ? n : 1) * sizeof *rk->thread_rank);
    for (size_t t = 0; rk->thread_rank && t < n; t++)
        rk->thread_rank[t] = d->rank;
    struct ts_rank_rec me;
    my_rank(rk, ex, &me);
    int status = gather_elapsed(rk, err);
    rk->mpi.iteration_time = 0.0;
    ex->out.thread_times_by_ranks = 1;
    /* A rank out of memory for what it keeps of its own rows still joins every collective
     * below (they fail only when MPI does), then fails at the agreement after the stage. */
    int short_of = !rk->thread_rank;
    if (status == TS_OK)
        status = reduce_times(rk, ex, &short_of, err);
    const double iteration_time = rk->mpi.iteration_time;

    int64_t world_threads = 0, world_nodes = 0;
    if (status == TS_OK)
        status = ts_dist_rows_before(d, rk->n_threads, &rk->first_thread, &world_threads, err);
    if (status == TS_OK)
        status = ts_dist_rows_before(d, ex->out.n_nodes, &rk->first_node, &world_nodes, err);
    me.first_thread = (int32_t)rk->first_thread;
    void *ranks = NULL;
    if (status == TS_OK)
        status = gather_rows(rk, &me, sizeof me, &ranks, err);
    if (status == TS_OK)
        status = reduce_thread_rows(rk, ex, err);
    if (status == TS_OK)
        status = reduce_audits(rk, ex, err);
    if (status == TS_OK && short_of)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot keep the rows of this rank's %zu threads", n);
    if (status == TS_OK && d->rank == 0) {
        job_times(ex, ranks, d->size);
        take(&rk->ranks, ranks);
        ranks = NULL;
        rk->world.n_threads = (int)world_threads;
        rk->world.n_nodes = (int)world_nodes;
        ex->out.world = &rk->world;

        struct ts_mpi_rec *m = &rk->mpi;
        memset(m, 0, sizeof *m);
        m->size = d->size;
        m->launcher = d->launcher;
        m->library = d->library;
        m->thread_level = d->thread_level_name;
        m->decomposition = rk->decomposition;
        m->ranks = rk->ranks;
        m->n_iterations = rk->timed;
        m->rows_later = 1;
        m->iteration_time = iteration_time;
    }
    free(ranks);

    /* Rank 0 alone from here: the collectives are behind it, the stage's agreement follows. */
    if (status == TS_OK && d->rank == 0 && count_hosts(&rk->mpi, rk->ranks) != 0)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot count the hosts of %d ranks", d->size);
    if (status == TS_OK && d->rank == 0) {
        ex->in.n_threads = (int)world_threads;
        rp->problem = rk->whole;
        rp->plan = rk->whole_plan;
        rp->array_bytes = (size_t)rk->whole_plan.array_elems * sizeof(double);
        rp->arrays_bytes = rp->array_bytes * (size_t)rk->whole_plan.n_arrays;
    }
    return status;
}

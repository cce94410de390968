/* ts_run_ranks_world: what every rank measured, on rank 0 as the run's tables and the /mpi
 * group, so that the record, the summary and the file see every thread of every rank as one run
 * sees its threads. The rows of a rank or a thread are gathered; what grows with the iterations
 * is not: each rank keeps its rows for the write (app/rank_files.h) and rank 0 gets what it
 * needs of them by reductions. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "run_ranks.h"
#include "ts_distinct.h"

/* Rank 0 gets every rank's n items of `item` bytes, concatenated in rank order (and how many
 * items in all); the others send theirs. */
static int gather_table(const struct ts_run_ranks *rk, const void *mine, size_t item, size_t n, void **all,
                        size_t *total, struct ts_error *err)
{
    size_t *counts = NULL;
    int status = ts_dist_gatherv(rk->dist, mine, item * n, all, &counts, err);
    *total = 0;
    for (int r = 0; status == TS_OK && counts && r < rk->dist->size; r++)
        *total += counts[r] / item;
    free(counts);
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
    size_t n = 0;
    if (status == TS_OK)
        status = gather_table(rk, &mine, sizeof mine, 1, &all, &n, err);
    /* Rank 0 must not fail alone here (the others go on to the next gather): without every
     * rank's time, ts_run_ranks_total takes the starts for rank 0's. */
    if (status == TS_OK && rk->dist->rank == 0 && n == (size_t)rk->dist->size) {
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

/* Every thread's placement row, when every rank audited the same NUMA node columns; rank 0's
 * alone otherwise (hosts that differ), and returns 1 to say so. */
static int gather_placement(struct ts_run_ranks *rk, struct ts_placement *p, const int32_t *thread_node, int n_threads,
                            struct ts_error *err, int *status)
{
    const struct ts_placement_rec *rec = &p->rec;
    const size_t nn = (size_t)rec->n_nodes, n = (size_t)n_threads, na = (size_t)rec->n_arrays;
    void *ids = NULL, *pages = NULL, *local = NULL, *fraction = NULL, *node_pages = NULL, *arrays = NULL,
         *absent = NULL, *errors = NULL;
    size_t total = 0, threads = 0, ignore = 0;
    *status = gather_table(rk, rec->node_ids, sizeof(int32_t), nn, &ids, &total, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->thread_pages, sizeof(int64_t), n, &pages, &threads, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->thread_local_pages, sizeof(int64_t), n, &local, &ignore, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->thread_local_fraction, sizeof(double), n, &fraction, &ignore, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->thread_node_pages, sizeof(int64_t), n * nn, &node_pages, &ignore, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->array_node_pages, sizeof(int64_t), na * nn, &arrays, &ignore, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->array_absent_pages, sizeof(int64_t), na, &absent, &ignore, err);
    if (*status == TS_OK)
        *status = gather_table(rk, p->array_error_pages, sizeof(int64_t), na, &errors, &ignore, err);
    int mixed = 0;
    if (*status == TS_OK && rk->dist->rank == 0) {
        const int32_t *all_ids = ids;
        mixed = total != nn * (size_t)rk->dist->size;
        for (size_t i = 0; !mixed && i < total; i++)
            mixed = all_ids[i] != rec->node_ids[i % nn];
    }
    if (*status == TS_OK && rk->dist->rank == 0 && !mixed) {
        const int64_t *all_arrays = arrays, *all_absent = absent, *all_errors = errors, *all_pages = pages,
                      *all_local = local;
        for (int r = 1; r < rk->dist->size; r++) {
            for (size_t i = 0; i < na * nn; i++)
                p->array_node_pages[i] += all_arrays[(size_t)r * na * nn + i];
            for (size_t i = 0; i < na; i++) {
                p->array_absent_pages[i] += all_absent[(size_t)r * na + i];
                p->array_error_pages[i] += all_errors[(size_t)r * na + i];
            }
        }
        int64_t owned = 0, at_home = 0;
        for (size_t t = 0; t < threads; t++) {
            owned += all_pages[t];
            at_home += all_local[t];
        }
        take(&p->thread_pages, pages);
        take(&p->thread_local_pages, local);
        take(&p->thread_local_fraction, fraction);
        take(&p->thread_node_pages, node_pages);
        pages = local = fraction = node_pages = NULL;
        p->rec.n_threads = (int32_t)threads;
        p->rec.thread_pages = p->thread_pages;
        p->rec.thread_local_pages = p->thread_local_pages;
        p->rec.thread_local_fraction = p->thread_local_fraction;
        p->rec.thread_node_pages = p->thread_node_pages;
        p->rec.thread_node = thread_node;
        p->rec.thread_rank = rk->thread_rank;
        p->rec.local_fraction = owned > 0 ? (double)at_home / (double)owned : p->rec.local_fraction;
    }
    free(ids);
    free(pages);
    free(local);
    free(fraction);
    free(node_pages);
    free(arrays);
    free(absent);
    free(errors);
    return mixed;
}

/* Collective: where this rank's rows go, and its own step and halo times kept for them before
 * every rank's step_times become each step's slowest rank's (every rank gets that answer: an
 * allreduce, O(steps) on each rank and nothing per rank). The sum of every rank's measured
 * iterations, which the summary's halo share divides by, is one more reduction. */
static int reduce_times(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err)
{
    const struct ts_dist *d = rk->dist;
    const size_t steps = (size_t)(ex->in.warmup + ex->in.iterations);
    const int64_t done = ex->out.steps_done - ex->in.warmup;
    rk->n_threads = ex->in.n_threads;
    rk->timed = done > 0 ? done : 0;
    int64_t total = 0;
    int status = ts_dist_rows_before(d, rk->n_threads, &rk->first_thread, &total, err);
    free(rk->own_steps);
    rk->own_steps = malloc((2 * steps + 1) * sizeof *rk->own_steps);
    /* A rank out of memory here still joins the reductions below (with its own numbers, which
     * still bound the others'), then fails at the agreement after the stage. */
    if (status == TS_OK && !rk->own_steps)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot keep this rank's %zu step times", steps);
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
    return status == TS_OK ? reduced : status;
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
    struct ts_rank_rec me;
    my_rank(rk, ex, &me);
    int status = gather_elapsed(rk, err);
    rk->mpi.iteration_time = 0.0;
    ex->out.thread_times_by_ranks = 1;
    if (status == TS_OK)
        status = reduce_times(rk, ex, err);
    const double iteration_time = rk->mpi.iteration_time;

    void *ranks = NULL, *threads = NULL, *init_node = NULL, *init_counters = NULL, *kernel_counters = NULL,
         *partials = NULL, *node_ids = NULL, *node_partials = NULL;
    size_t n_ranks = 0, total = 0, nodes = 0, ignore = 0;
    if (status == TS_OK)
        status = gather_table(rk, &me, sizeof me, 1, &ranks, &n_ranks, err);
    if (status == TS_OK)
        status = gather_table(rk, ex->out.threads, sizeof *ex->out.threads, n, &threads, &total, err);
    if (status == TS_OK)
        status = gather_table(rk, ex->out.init_node, sizeof(int32_t), n, &init_node, &ignore, err);
    if (status == TS_OK)
        status =
            gather_table(rk, ex->out.init_counters, sizeof(struct ts_counter_row), n, &init_counters, &ignore, err);
    if (status == TS_OK)
        status =
            gather_table(rk, ex->out.kernel_counters, sizeof(struct ts_counter_row), n, &kernel_counters, &ignore, err);
    if (status == TS_OK)
        status = gather_table(rk, ex->out.thread_partials, sizeof(double), n, &partials, &ignore, err);
    if (status == TS_OK)
        status = gather_table(rk, ex->out.node_ids, sizeof(int32_t), (size_t)ex->out.n_nodes, &node_ids, &nodes, err);
    if (status == TS_OK)
        status = gather_table(rk, ex->out.node_partials, sizeof(double), (size_t)ex->out.n_nodes, &node_partials,
                              &ignore, err);

    if (status == TS_OK && d->rank == 0) {
        struct ts_rank_rec *rr = ranks;
        rk->thread_rank = malloc((total ? total : 1) * sizeof *rk->thread_rank);
        if (!rk->thread_rank) {
            status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot gather the records of %d ranks", d->size);
        } else {
            int32_t first = 0;
            for (int r = 0; r < d->size; r++) {
                rr[r].first_thread = first;
                for (int32_t t = 0; t < rr[r].n_threads; t++)
                    rk->thread_rank[first + t] = r;
                first += rr[r].n_threads;
            }
            job_times(ex, rr, d->size);
            take(&rk->ranks, ranks);
            ranks = NULL;
            take(&ex->out.threads, threads);
            take(&ex->out.init_node, init_node);
            take(&ex->out.init_counters, init_counters);
            take(&ex->out.kernel_counters, kernel_counters);
            take(&ex->out.thread_partials, partials);
            take(&ex->out.node_ids, node_ids);
            take(&ex->out.node_partials, node_partials);
            threads = init_node = init_counters = kernel_counters = partials = node_ids = node_partials = NULL;
            ex->out.n_nodes = (int)nodes;

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
    }
    free(ranks);
    free(threads);
    free(init_node);
    free(init_counters);
    free(kernel_counters);
    free(partials);
    free(node_ids);
    free(node_partials);

    /* Every rank takes part in the placement gathers: the flags are the config's, the same on all. */
    const int n_before = (int)n;
    if (status == TS_OK && ex->out.have_placement)
        rk->placement_mixed |= gather_placement(rk, &ex->out.placement, ex->out.init_node, n_before, err, &status);
    if (status == TS_OK && ex->out.have_placement_end)
        rk->placement_mixed |= gather_placement(rk, &ex->out.placement_end, ex->out.init_node, n_before, err, &status);

    /* Rank 0 alone from here: the collectives are behind it, the stage's agreement follows. */
    if (status == TS_OK && d->rank == 0 && count_hosts(&rk->mpi, rk->ranks) != 0)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot count the hosts of %d ranks", d->size);
    if (status == TS_OK && d->rank == 0) {
        ex->in.n_threads = (int)total;
        rp->problem = rk->whole;
        rp->plan = rk->whole_plan;
        rp->array_bytes = (size_t)rk->whole_plan.array_elems * sizeof(double);
        rp->arrays_bytes = rp->array_bytes * (size_t)rk->whole_plan.n_arrays;
    }
    return status;
}

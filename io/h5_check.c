/* A record is checked before any file exists, so a caller's bug (a count without its array)
 * is reported as such instead of as a crash or an HDF5 error halfway through the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_parts.h"

struct array_fact {
    const char *what;
    int64_t n;
    const void *data;
};

static int check_arrays(const struct array_fact *a, size_t n, const char *final_path, struct ts_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i].n < 0)
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: record has %lld %s", final_path,
                           (long long)a[i].n, a[i].what);
        if (a[i].n > 0 && a[i].data == NULL)
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: record has %lld %s but no array of them",
                           final_path, (long long)a[i].n, a[i].what);
    }
    return TS_OK;
}

static int by_host(const void *a, const void *b)
{
    const struct ts_rank_rec *const *x = a, *const *y = b;
    return strncmp((*x)->host, (*y)->host, sizeof(*x)->host);
}

/* /mpi as the reader checks it (io/h5_mpi_read.c): the ranks in order, tiling the thread rows,
 * their hosts counted right, the per-rank times of every timed iteration. */
static int check_mpi(const struct ts_record *rec, const char *final_path, struct ts_error *err)
{
    const struct ts_mpi_rec *m = rec->mpi;
    const char *fmt = "cannot write output %s: /mpi: %s";
    if (m->size < 1)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: /mpi of %d ranks", final_path, (int)m->size);
    if (m->n_iterations != rec->timings->n_iterations)
        return ts_fail(err, TS_INTERNAL_ERROR, fmt, final_path, "n_iterations is not /timings'");
    /* Rows the ranks write themselves are theirs to get right: each rank's statistics come from
     * its own row (app/run_world.c), and the reader checks them against each other. */
    const int64_t iteration_rows = m->rows_later ? 0 : m->size;
    const struct array_fact arrays[] = {
        { "ranks", m->size, m->ranks },
        { "rank iteration times", iteration_rows * m->n_iterations, m->rank_iteration },
        { "rank halo times", iteration_rows * m->n_iterations, m->rank_halo_iteration },
    };
    if (check_arrays(arrays, H5W_COUNT(arrays), final_path, err))
        return err->status;
    int64_t next = 0;
    for (int32_t i = 0; i < m->size; i++) {
        const struct ts_rank_rec *k = &m->ranks[i];
        if (k->rank != i || k->first_thread != next || k->n_threads < 1)
            return ts_fail(err, TS_INTERNAL_ERROR,
                           "cannot write output %s: /mpi/ranks row %d: rank %d, threads %d from %d (expected rank %d "
                           "from thread %lld)",
                           final_path, (int)i, (int)k->rank, (int)k->n_threads, (int)k->first_thread, (int)i,
                           (long long)next);
        for (int64_t t = next; !rec->threads_later && t < next + k->n_threads && t < rec->n_threads; t++)
            if (rec->threads[t].rank != i)
                return ts_fail(err, TS_INTERNAL_ERROR,
                               "cannot write output %s: thread row %lld has rank %d, /mpi/ranks says %d", final_path,
                               (long long)t, (int)rec->threads[t].rank, (int)i);
        next += k->n_threads;
    }
    if (next != rec->n_threads)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: the ranks have %lld threads, the record %d",
                       final_path, (long long)next, (int)rec->n_threads);
    const size_t iters = (size_t)m->n_iterations;
    for (int32_t i = 0; i < m->size; i++) {
        const struct ts_rank_rec *k = &m->ranks[i];
        /* The reader refuses a negative or NaN own time (schema 4): never one is written. */
        const struct {
            const char *name;
            double v;
        } own[] = { { "allocation", k->allocation }, { "init", k->init },     { "kernel", k->kernel },
                    { "combine", k->combine },       { "result", k->result }, { "verify", k->verify },
                    { "placement", k->placement },   { "total", k->total } };
        for (size_t t = 0; t < H5W_COUNT(own); t++)
            if (!(own[t].v >= 0.0))
                return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: rank %d: %s time %g", final_path,
                               (int)i, own[t].name, own[t].v);
        if (m->rows_later)
            continue;
        const double *v = m->rank_iteration + (size_t)i * iters, *h = m->rank_halo_iteration + (size_t)i * iters;
        double lo = NAN, hi = NAN;
        for (size_t it = 0; it < iters; it++) {
            if (isnan(v[it]) != isnan(h[it]))
                return ts_fail(err, TS_INTERNAL_ERROR,
                               "cannot write output %s: rank %d, iteration %zu: halo time %g of iteration time %g",
                               final_path, (int)i, it, h[it], v[it]);
            lo = isnan(lo) || v[it] < lo ? v[it] : lo;
            hi = isnan(hi) || v[it] > hi ? v[it] : hi;
        }
        if (isnan(lo) ? !isnan(k->time_min) || !isnan(k->time_median) || !isnan(k->time_max)
                      : k->time_min != lo || k->time_max != hi
                            || !(k->time_min <= k->time_median && k->time_median <= k->time_max))
            return ts_fail(err, TS_INTERNAL_ERROR,
                           "cannot write output %s: rank %d: time min %g, median %g, max %g, its iterations "
                           "%g to %g",
                           final_path, (int)i, k->time_min, k->time_median, k->time_max, lo, hi);
    }
    const struct ts_rank_rec **sorted = malloc((size_t)m->size * sizeof *sorted);
    if (!sorted)
        return ts_fail(err, TS_RESOURCE_ERROR, "cannot write output %s: out of memory", final_path);
    for (int32_t i = 0; i < m->size; i++)
        sorted[i] = &m->ranks[i];
    qsort(sorted, (size_t)m->size, sizeof *sorted, by_host);
    int32_t hosts = 1;
    for (int32_t i = 1; i < m->size; i++)
        hosts += by_host(&sorted[i - 1], &sorted[i]) != 0;
    free(sorted);
    if (hosts != m->n_hosts)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: /mpi: n_hosts %d, the ranks name %d",
                       final_path, (int)m->n_hosts, (int)hosts);
    return TS_OK;
}

int h5w_check_record(const struct ts_record *rec, const char *final_path, struct ts_error *err)
{
    const char *missing = !rec                 ? "record"
                          : !rec->topology     ? "topology"
                          : !rec->timings      ? "timings"
                          : !rec->results      ? "results"
                          : !rec->verification ? "verification"
                                               : NULL;
    if (missing)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: the record has no %s", final_path, missing);
    const struct ts_topology_rec *t = rec->topology;
    const struct ts_timings_rec *tm = rec->timings;
    const struct ts_results_rec *r = rec->results;
    /* Rows the ranks write themselves (*_later): the record holds the first of them at most. */
    const int64_t head = TS_RECORD_HEAD;
    const struct array_fact arrays[] = {
        { "config entries", rec->n_config, rec->config },
        { "environment entries", rec->n_environment, rec->environment },
        { "binding entries", rec->n_binding, rec->binding },
        { "thread rows", rec->threads_later && rec->n_threads > head ? head : rec->n_threads, rec->threads },
        { "warnings", rec->n_warnings, rec->warnings },
        { "summary lines", rec->n_summary, rec->summary },
        { "NUMA nodes", t->n_numa, t->numa },
        { "NUMA distances", (int64_t)t->n_numa * t->n_numa, t->distances },
        { "cores", t->n_cores_rec, t->cores },
        { "caches", t->n_caches, t->caches },
        { "warm-up times", tm->n_warmup, tm->warmup },
        { "iteration times", tm->n_iterations, tm->iteration },
        { "thread iteration times", tm->thread_iteration_later ? 0 : (int64_t)r->n_threads * tm->n_iterations,
          tm->thread_iteration },
        { "thread partials", r->rows_later ? 0 : r->n_threads, r->thread_partials },
        { "node ids", r->rows_later ? 0 : r->n_nodes, r->node_ids },
        { "node partials", r->rows_later ? 0 : r->n_nodes, r->node_partials },
    };
    if (check_arrays(arrays, H5W_COUNT(arrays), final_path, err))
        return err->status;
    for (const struct ts_placement_rec *p = rec->placement; p; p = p == rec->placement ? rec->placement_end : NULL) {
        const int64_t rows = p->rows_later ? 0 : p->n_threads;
        const struct array_fact audit[] = {
            { "placement nodes", p->n_nodes, p->node_ids },
            { "placement threads", rows, p->thread_node },
            { "placement thread pages", rows, p->thread_pages },
            { "placement local pages", rows, p->thread_local_pages },
            { "placement local fractions", rows, p->thread_local_fraction },
            { "placement thread-node pages", rows * p->n_nodes, p->thread_node_pages },
            { "placement array-node pages", (int64_t)p->n_arrays * p->n_nodes, p->array_node_pages },
            { "placement absent pages", p->n_arrays, p->array_absent_pages },
            { "placement error pages", p->n_arrays, p->array_error_pages },
        };
        if (check_arrays(audit, H5W_COUNT(audit), final_path, err))
            return err->status;
    }
    if (rec->placement_end && !rec->placement)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: an end audit without the init audit",
                       final_path);
    if (rec->counters) {
        const struct ts_counters_rec *c = rec->counters;
        const int64_t rows = c->rows_later && c->n_threads > head ? head : c->n_threads;
        const struct array_fact counters[] = {
            { "init counter rows", rows, c->init },
            { "kernel counter rows", rows, c->kernel },
        };
        if (check_arrays(counters, H5W_COUNT(counters), final_path, err))
            return err->status;
    }
    for (int32_t i = 0; i < rec->n_warnings; i++)
        if (!rec->warnings[i])
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: warning %d is NULL", final_path, (int)i);
    for (int32_t i = 0; i < rec->n_summary; i++)
        if (!rec->summary[i])
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: summary line %d is NULL", final_path,
                           (int)i);
    if (rec->mpi && check_mpi(rec, final_path, err))
        return err->status;
    if (!rec->mpi && (rec->threads_later || rec->results->rows_later))
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: rows the ranks write, but no /mpi", final_path);
    for (int32_t t = 0; !rec->mpi && t < rec->n_threads; t++)
        if (rec->threads[t].rank != 0)
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: thread row %d has rank %d but no /mpi",
                           final_path, (int)t, (int)rec->threads[t].rank);
    if (rec->field || rec->field_later) {
        const int64_t *d = rec->field_dims;
        if (d[0] < 1 || d[1] < 1 || d[2] < 1)
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: field of %lld x %lld x %lld points",
                           final_path, (long long)d[0], (long long)d[1], (long long)d[2]);
    }
    return TS_OK;
}

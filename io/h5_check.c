/* A record is checked before any file exists, so a caller's bug (a count without its array)
 * is reported as such instead of as a crash or an HDF5 error halfway through the file. */
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
    const struct array_fact arrays[] = {
        { "config entries", rec->n_config, rec->config },
        { "environment entries", rec->n_environment, rec->environment },
        { "binding entries", rec->n_binding, rec->binding },
        { "thread rows", rec->n_threads, rec->threads },
        { "warnings", rec->n_warnings, rec->warnings },
        { "summary lines", rec->n_summary, rec->summary },
        { "NUMA nodes", t->n_numa, t->numa },
        { "NUMA distances", (int64_t)t->n_numa * t->n_numa, t->distances },
        { "cores", t->n_cores_rec, t->cores },
        { "caches", t->n_caches, t->caches },
        { "warm-up times", tm->n_warmup, tm->warmup },
        { "iteration times", tm->n_iterations, tm->iteration },
        { "thread iteration times", (int64_t)r->n_threads * tm->n_iterations, tm->thread_iteration },
        { "thread partials", r->n_threads, r->thread_partials },
        { "node ids", r->n_nodes, r->node_ids },
        { "node partials", r->n_nodes, r->node_partials },
    };
    if (check_arrays(arrays, H5W_COUNT(arrays), final_path, err))
        return err->status;
    for (const struct ts_placement_rec *p = rec->placement; p; p = p == rec->placement ? rec->placement_end : NULL) {
        const struct array_fact audit[] = {
            { "placement nodes", p->n_nodes, p->node_ids },
            { "placement threads", p->n_threads, p->thread_node },
            { "placement thread pages", p->n_threads, p->thread_pages },
            { "placement local pages", p->n_threads, p->thread_local_pages },
            { "placement local fractions", p->n_threads, p->thread_local_fraction },
            { "placement thread-node pages", (int64_t)p->n_threads * p->n_nodes, p->thread_node_pages },
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
        const struct array_fact counters[] = {
            { "init counter rows", rec->counters->n_threads, rec->counters->init },
            { "kernel counter rows", rec->counters->n_threads, rec->counters->kernel },
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
    if (rec->field) {
        const int64_t *d = rec->field_dims;
        if (d[0] < 1 || d[1] < 1 || d[2] < 1)
            return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: field of %lld x %lld x %lld points",
                           final_path, (long long)d[0], (long long)d[1], (long long)d[2]);
    }
    return TS_OK;
}

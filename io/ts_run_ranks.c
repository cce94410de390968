/* show's ranks section: one row per rank of /mpi, aligned to the longest host and range. */
#include "ts_run_ranks.h"

#include <math.h>
#include <string.h>

/* Axes a rank's part has: 1 for sum and triad, 2 or 3 for the stencils (ts_run_size_text's rule). */
static int axes_of(const struct ts_run_summary *s)
{
    return s->nx > 0 ? (s->nz > 1 ? 3 : 2) : 1;
}

void ts_rank_owns_text(const struct ts_run_summary *s, int32_t k, char *buf, size_t size)
{
    const struct ts_rank_rec *r = &s->ranks[k];
    const int axes = axes_of(s);
    static const char names[] = "xyz";
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < axes && used < size; d++) {
        int n = axes == 1 ? snprintf(buf, size, "[%lld, %lld)", (long long)r->own_begin[0], (long long)r->own_end[0])
                          : snprintf(buf + used, size - used, "%s%c [%lld, %lld)", d ? " " : "", names[d],
                                     (long long)r->own_begin[d], (long long)r->own_end[d]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void print_time(FILE *out, double v)
{
    if (isnan(v))
        fprintf(out, "  %-10s", "-");
    else
        fprintf(out, "  %-10.4g", v);
}

void ts_ranks_print(const struct ts_run_summary *s, FILE *out)
{
    if (s->n_ranks <= 0)
        return;
    int host_w = 4, owns_w = 4;
    char owns[160];
    for (int32_t k = 0; k < s->n_ranks; k++) {
        int h = (int)strlen(s->ranks[k].host);
        host_w = h > host_w ? h : host_w;
        ts_rank_owns_text(s, k, owns, sizeof owns);
        int o = (int)strlen(owns);
        owns_w = o > owns_w ? o : owns_w;
    }
    fprintf(out, "\nranks      %d on %d host%s%s, decomposition %s\n", s->n_ranks, s->n_hosts,
            s->n_hosts == 1 ? "" : "s", s->shared_kernel ? " (some share one kernel: an emulated cluster)" : "",
            s->decomposition[0] ? s->decomposition : "-");
    fprintf(out, "MPI        %s, %s, launcher %s\n", s->mpi_library[0] ? s->mpi_library : "-",
            s->thread_level[0] ? s->thread_level : "-", s->launcher[0] ? s->launcher : "-");
    fprintf(out, "%6s  %-*s  %5s  %7s  %-*s  %-12s  %-10s  %-10s  %-10s  %-10s  %s\n", "rank", host_w, "host", "local",
            "threads", owns_w, "owns", "partial", "min s", "median s", "max s", "halo s", "kernel s");
    for (int32_t k = 0; k < s->n_ranks; k++) {
        const struct ts_rank_rec *r = &s->ranks[k];
        ts_rank_owns_text(s, k, owns, sizeof owns);
        fprintf(out, "%6d  %-*s  %5d  %7d  %-*s  %-12.6g", (int)r->rank, host_w, r->host[0] ? r->host : "-",
                (int)r->local_rank, (int)r->n_threads, owns_w, owns, r->partial);
        print_time(out, r->time_min);
        print_time(out, r->time_median);
        print_time(out, r->time_max);
        print_time(out, r->halo);
        /* its own sum of iterations: /timings/kernel is the job's (NaN: a schema 3 file) */
        fprintf(out, isnan(r->kernel) ? "  -\n" : "  %.4g\n", r->kernel);
    }
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *xyz(const struct ts_run_summary *s, const int64_t *v)
{
    json_t *a = json_array();
    for (int d = 0; a && d < axes_of(s); d++)
        json_array_append_new(a, json_integer((json_int_t)v[d]));
    return a;
}

/* A rank's own run-level times, by the /mpi/ranks columns' names (null: a schema 3 file). */
static json_t *own_times(json_t *o, const struct ts_rank_rec *r)
{
    const struct {
        const char *name;
        double v;
    } t[] = { { "allocation_s", r->allocation }, { "init_s", r->init },     { "kernel_s", r->kernel },
              { "combine_s", r->combine },       { "result_s", r->result }, { "verify_s", r->verify },
              { "placement_s", r->placement },   { "total_s", r->total } };
    for (size_t i = 0; o && i < sizeof t / sizeof t[0]; i++)
        if (json_object_set_new(o, t[i].name, number(t[i].v)) != 0) {
            json_decref(o);
            return NULL;
        }
    return o;
}

static json_t *rank_json(const struct ts_run_summary *s, int32_t k)
{
    const struct ts_rank_rec *r = &s->ranks[k];
    const int64_t coords[3] = { r->coords[0], r->coords[1], r->coords[2] };
    char owns[160];
    ts_rank_owns_text(s, k, owns, sizeof owns);
    return own_times(json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
                               "rank", r->rank, "host", r->host, "boot_id", r->boot_id, "local_rank", r->local_rank,
                               "threads", r->n_threads, "first_thread", r->first_thread, "coords", xyz(s, coords),
                               "own_begin", xyz(s, r->own_begin), "own_end", xyz(s, r->own_end), "owns", owns,
                               "partial", number(r->partial), "time_min_s", number(r->time_min), "time_median_s",
                               number(r->time_median), "time_max_s", number(r->time_max), "halo_s", number(r->halo),
                               "reduction_s", number(r->reduction)),
                     r);
}

json_t *ts_ranks_json(const struct ts_run_summary *s)
{
    if (s->n_ranks <= 0)
        return json_null();
    json_t *ranks = json_array();
    for (int32_t k = 0; ranks && k < s->n_ranks; k++)
        if (json_array_append_new(ranks, rank_json(s, k)) != 0) {
            json_decref(ranks);
            return NULL;
        }
    if (!ranks)
        return NULL;
    return json_pack("{s:i, s:i, s:b, s:s, s:s, s:s, s:s, s:o}", "size", s->n_ranks, "n_hosts", s->n_hosts,
                     "shared_kernel", s->shared_kernel, "launcher", s->launcher, "library", s->mpi_library,
                     "thread_level", s->thread_level, "decomposition", s->decomposition, "ranks", ranks);
}

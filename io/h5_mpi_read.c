/* The /mpi walk: the group's counts first, then the rank table against them, the thread rows
 * against the ranks' tiles, and the per-rank times against the table's statistics; nothing is
 * allocated before its count has been checked against what the file already showed. */
#include "h5_mpi_read.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_text_safe.h"

#define MAX_RANKS (1 << 16)
#define PROBLEM_MAX ((double)((int64_t)1 << 40))

/* The rank columns of one /threads/table row. */
struct thread_cols {
    int32_t rank, local_rank;
    char host[sizeof(((struct ts_thread_rec *)0)->host)];
};

/* clang-format off */
#define COL_INT(s, f, lo, hi) { #f, offsetof(s, f), H5T_NATIVE_INT32, 0, (lo), (hi), 0 }
#define COL_XYZ(prefix, s, f, type, hi) \
    { prefix "x", offsetof(s, f[0]), (type), 0, 0, (hi), 0 }, \
    { prefix "y", offsetof(s, f[1]), (type), 0, 0, (hi), 0 }, \
    { prefix "z", offsetof(s, f[2]), (type), 0, 0, (hi), 0 }
#define COL_STR(s, f) { #f, offsetof(s, f), 0, sizeof(((s *)0)->f), 0, 0, 0 }
#define COL_F64(s, f, lo, hi, nan) { #f, offsetof(s, f), H5T_NATIVE_DOUBLE, 0, (lo), (hi), (nan) }
/* clang-format on */

static int by_host(const void *a, const void *b)
{
    const struct ts_rank_rec *const *x = a, *const *y = b;
    return strncmp((*x)->host, (*y)->host, sizeof(*x)->host);
}

/* Distinct host names among the ranks, compared as stored (before they are made safe). */
static int count_hosts(struct h5r *r, const struct ts_rank_rec *ranks, int32_t n, int32_t *hosts)
{
    const struct ts_rank_rec **sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        return h5r_out_of_memory(r, "/mpi/ranks", "out of memory for %d rows", (int)n);
    for (int32_t i = 0; i < n; i++)
        sorted[i] = &ranks[i];
    qsort(sorted, (size_t)n, sizeof *sorted, by_host);
    *hosts = 1;
    for (int32_t i = 1; i < n; i++)
        *hosts += by_host(&sorted[i - 1], &sorted[i]) != 0;
    free(sorted);
    return TS_OK;
}

/* The run-level columns of /mpi/ranks, the last of the table: a schema 3 file has none. */
#define OWN_TIMES 8

/* A schema 3 file kept rank 0's times in /timings and no rank's own: NaN, not measured. */
static void unknown_own_times(struct ts_run_summary *s)
{
    for (int32_t i = 0; i < s->n_ranks; i++) {
        struct ts_rank_rec *k = &s->ranks[i];
        k->allocation = k->init = k->kernel = k->combine = k->result = k->verify = k->placement = k->total = NAN;
    }
}

static int read_rank_table(struct h5r *r, struct ts_run_summary *s)
{
    typedef struct ts_rank_rec R;
    const double size = s->n_ranks, threads = MAX_RANKS;
    const struct h5r_col cols[] = {
        COL_INT(R, rank, 0, size - 1),
        COL_INT(R, local_rank, 0, size - 1),
        COL_STR(R, host),
        COL_STR(R, boot_id),
        COL_INT(R, n_threads, 1, threads),
        COL_INT(R, first_thread, 0, threads - 1),
        COL_XYZ("coords_", R, coords, H5T_NATIVE_INT32, size - 1),
        COL_XYZ("own_begin_", R, own_begin, H5T_NATIVE_INT64, PROBLEM_MAX),
        COL_XYZ("own_end_", R, own_end, H5T_NATIVE_INT64, PROBLEM_MAX),
        COL_F64(R, partial, -HUGE_VAL, HUGE_VAL, 0),
        COL_F64(R, time_min, 0, DBL_MAX, 1),
        COL_F64(R, time_median, 0, DBL_MAX, 1),
        COL_F64(R, time_max, 0, DBL_MAX, 1),
        COL_F64(R, halo, 0, DBL_MAX, 0),
        COL_F64(R, reduction, 0, DBL_MAX, 0),
        /* schema 4: each rank's own run-level times; left out below for older files */
        COL_F64(R, allocation, 0, DBL_MAX, 0),
        COL_F64(R, init, 0, DBL_MAX, 0),
        COL_F64(R, kernel, 0, DBL_MAX, 0),
        COL_F64(R, combine, 0, DBL_MAX, 0),
        COL_F64(R, result, 0, DBL_MAX, 0),
        COL_F64(R, verify, 0, DBL_MAX, 0),
        COL_F64(R, placement, 0, DBL_MAX, 0),
        COL_F64(R, total, 0, DBL_MAX, 0),
    };
    const size_t n_cols = sizeof cols / sizeof cols[0] - (s->schema_version >= 4 ? 0 : OWN_TIMES);
    if (!(s->ranks = calloc((size_t)s->n_ranks, sizeof *s->ranks)))
        return h5r_out_of_memory(r, "/mpi/ranks", "out of memory for %d rows", (int)s->n_ranks);
    if (h5r_read_table(r, "/mpi/ranks", (hsize_t)s->n_ranks, "/mpi@size", sizeof(R), cols, n_cols, 1, s->ranks))
        return r->err->status;
    if (s->schema_version < 4)
        unknown_own_times(s);
    int32_t hosts = 0;
    if (count_hosts(r, s->ranks, s->n_ranks, &hosts))
        return r->err->status;
    if (hosts != s->n_hosts)
        return h5r_fail(r, "/mpi@n_hosts", "%d, but /mpi/ranks names %d distinct hosts", (int)s->n_hosts, (int)hosts);
    int64_t next = 0;
    for (int32_t i = 0; i < s->n_ranks; i++) {
        R *k = &s->ranks[i];
        ts_sanitize_text(k->host);
        ts_sanitize_text(k->boot_id);
        if (k->rank != i)
            return h5r_fail(r, "/mpi/ranks:rank", "row %d holds rank %d: the rows are in rank order", (int)i,
                            (int)k->rank);
        if (k->first_thread != next)
            return h5r_fail(r, "/mpi/ranks:first_thread",
                            "rank %d starts at thread row %d, expected %lld: the ranks' threads tile /threads/table "
                            "in rank order",
                            (int)i, (int)k->first_thread, (long long)next);
        next += k->n_threads;
        if (next > s->n_threads)
            return h5r_fail(r, "/mpi/ranks:n_threads", "ranks 0 to %d have %lld threads, more than the run's %d",
                            (int)i, (long long)next, (int)s->n_threads);
        for (int d = 0; d < 3; d++)
            if (k->own_begin[d] > k->own_end[d])
                return h5r_fail(r, "/mpi/ranks:own_begin",
                                "rank %d owns [%lld, %lld) along axis %d: an empty range "
                                "starts where it ends",
                                (int)i, (long long)k->own_begin[d], (long long)k->own_end[d], d);
    }
    if (next != s->n_threads)
        return h5r_fail(r, "/mpi/ranks:n_threads", "the ranks have %lld threads, the run %d (/results@n_threads)",
                        (long long)next, (int)s->n_threads);
    return TS_OK;
}

/* The rank columns of /threads/table: rank 0 everywhere without /mpi, else each row in the
 * tile of its rank, on that rank's host and local rank. */
static int read_thread_ranks(struct h5r *r, struct ts_run_summary *s)
{
    typedef struct thread_cols T;
    const struct h5r_col cols[] = {
        COL_INT(T, rank, 0, MAX_RANKS - 1),
        COL_INT(T, local_rank, 0, MAX_RANKS - 1),
        COL_STR(T, host),
    };
    T *rows = calloc((size_t)s->n_threads, sizeof *rows);
    if (!rows)
        return h5r_out_of_memory(r, "/threads/table", "out of memory for %d rows", (int)s->n_threads);
    int st = h5r_read_table(r, "/threads/table", (hsize_t)s->n_threads, "/results@n_threads", sizeof(T), cols,
                            sizeof cols / sizeof cols[0], 0, rows);
    for (int32_t rank = 0, t = 0; st == TS_OK && t < s->n_threads; t++) {
        while (s->n_ranks > 0 && t >= s->ranks[rank].first_thread + s->ranks[rank].n_threads)
            rank++;
        const struct ts_rank_rec *k = s->n_ranks > 0 ? &s->ranks[rank] : NULL;
        const int32_t local = k ? k->local_rank : 0;
        if (rows[t].rank != rank || rows[t].local_rank != local)
            st = h5r_fail(r, "/threads/table:rank", "row %d: rank %d, local rank %d; %s says rank %d, local rank %d",
                          (int)t, (int)rows[t].rank, (int)rows[t].local_rank, k ? "/mpi/ranks" : "a run without /mpi",
                          (int)rank, (int)local);
        else if (k && strcmp(rows[t].host, k->host) != 0)
            st = h5r_fail(r, "/threads/table:host", "row %d: host '%s', but rank %d ran on '%s'", (int)t, rows[t].host,
                          (int)rank, k->host);
    }
    free(rows);
    return st;
}

/* rank_iteration's row r: the rank's statistics describe its measured (not NaN) values. */
static int check_rank_times(struct h5r *r, const struct ts_run_summary *s)
{
    const size_t iters = (size_t)s->n_iterations;
    for (int32_t k = 0; k < s->n_ranks; k++) {
        const struct ts_rank_rec *rk = &s->ranks[k];
        const double *v = s->rank_iteration + (size_t)k * iters, *h = s->rank_halo_iteration + (size_t)k * iters;
        double lo = NAN, hi = NAN;
        for (size_t i = 0; i < iters; i++) {
            if (isnan(v[i]) != isnan(h[i]))
                return h5r_fail(r, "/mpi/rank_halo_iteration",
                                "[%d][%zu] is %s, its iteration time %s: the halo time is of a measured iteration",
                                (int)k, i, isnan(h[i]) ? "NaN" : "a number", isnan(v[i]) ? "NaN" : "a number");
            lo = isnan(lo) || v[i] < lo ? v[i] : lo;
            hi = isnan(hi) || v[i] > hi ? v[i] : hi;
        }
        const int measured = !isnan(lo);
        if (measured ? rk->time_min != lo || rk->time_max != hi
                     : !isnan(rk->time_min) || !isnan(rk->time_max) || !isnan(rk->time_median))
            return h5r_fail(r, "/mpi/ranks:time_min",
                            "rank %d: min %.17g, max %.17g, but /mpi/rank_iteration[%d] holds %s %.17g to %.17g",
                            (int)k, rk->time_min, rk->time_max, (int)k,
                            measured ? "times from" : "no measured time (NaN)", lo, hi);
        if (measured && !(rk->time_min <= rk->time_median && rk->time_median <= rk->time_max))
            return h5r_fail(r, "/mpi/ranks:time_median", "rank %d: %.17g is not between its time_min and time_max",
                            (int)k, rk->time_median);
    }
    return TS_OK;
}

/* "slices" (sum, triad) or the rank grid of a stencil, x first: "2x2", "2x1x3". */
static int is_decomposition(const char *d)
{
    if (strcmp(d, "slices") == 0)
        return 1;
    int counts = 0;
    for (const char *p = d;; p++) {
        size_t digits = strspn(p, "0123456789");
        if (digits == 0 || digits > 9 || *p == '0')
            return 0;
        counts++;
        p += digits;
        if (*p == '\0')
            return counts == 2 || counts == 3;
        if (*p != 'x')
            return 0;
    }
}

static int read_group(struct h5r *r, struct ts_run_summary *s)
{
    int64_t size = 0, hosts = 0, shared = 0;
    if (h5r_int_attr(r, "/mpi", "size", 1, MAX_RANKS, &size))
        return r->err->status;
    if (size > s->n_threads)
        return h5r_fail(r, "/mpi@size", "%lld ranks, more than the run's %d threads (each rank has one at least)",
                        (long long)size, (int)s->n_threads);
    if (h5r_int_attr(r, "/mpi", "n_hosts", 1, size, &hosts) || h5r_int_attr(r, "/mpi", "shared_kernel", 0, 1, &shared)
        || h5r_str_attr(r, "/mpi", "launcher", s->launcher, sizeof s->launcher)
        || h5r_str_attr(r, "/mpi", "library", s->mpi_library, sizeof s->mpi_library)
        || h5r_str_attr(r, "/mpi", "thread_level", s->thread_level, sizeof s->thread_level)
        || h5r_str_attr(r, "/mpi", "decomposition", s->decomposition, sizeof s->decomposition))
        return r->err->status;
    static const char *const levels[] = TS_MPI_THREAD_LEVELS;
    if (h5r_known(r, "/mpi@thread_level", s->thread_level, levels, "a thread level MPI provides"))
        return r->err->status;
    if (!is_decomposition(s->decomposition))
        return h5r_fail(r, "/mpi@decomposition",
                        "'%s' is not a decomposition (slices, or the rank grid as 2x2 or 2x1x3)", s->decomposition);
    s->n_ranks = (int32_t)size;
    s->n_hosts = (int32_t)hosts;
    s->shared_kernel = (int32_t)shared;
    return TS_OK;
}

int h5r_read_mpi(struct h5r *r, struct ts_run_summary *s)
{
    int has = h5r_has(r, "/mpi", H5I_GROUP);
    if (has < 0)
        return r->err->status;
    if (has) {
        struct h5r_doubles want = { .rank = 2,
                                    .dims = { 0, (hsize_t)s->n_iterations },
                                    .why = "/mpi@size x /timings@n_iterations",
                                    .min = 0,
                                    .max = DBL_MAX,
                                    .nan_ok = 1 };
        if (read_group(r, s) || read_rank_table(r, s))
            return r->err->status;
        want.dims[0] = (hsize_t)s->n_ranks;
        want.path = "/mpi/rank_iteration";
        if (h5r_read_doubles_alloc(r, &want, &s->rank_iteration))
            return r->err->status;
        want.path = "/mpi/rank_halo_iteration";
        if (h5r_read_doubles_alloc(r, &want, &s->rank_halo_iteration) || check_rank_times(r, s))
            return r->err->status;
    }
    /* Schema 1 and 2 files have no rank columns: every thread is rank 0 there. */
    return s->schema_version >= 3 ? read_thread_ranks(r, s) : TS_OK;
}

/* The schema walk: which items a summary needs, what each must look like, and how they must
 * agree with each other. Counts are read first so that every array's shape is checked
 * against them before anything is allocated. */
#include "ts_run_read.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_layout_read.h"
#include "h5_mpi_read.h"
#include "h5_reader.h"
#include "ts_record.h"
#include "ts_summary.h"

/* A schema bump in the writer must come with a reader that knows the new version. */
_Static_assert(TS_SCHEMA_VERSION == TS_READ_SCHEMA_VERSION, "the writer's schema_version changed: update the reader");

#define S struct ts_run_summary
#define FIELD(f) offsetof(S, f), sizeof(((S *)0)->f)

static const char *const kernel_names[] = TS_KERNEL_NAMES;
static const char *const init_modes[] = TS_INIT_MODES;

static const struct str_item {
    const char *obj, *name;
    size_t offset, size;
    const char *const *known; /* an enumerated attribute: one of these, NULL-terminated */
    const char *what;         /* what one of them is, for the message */
} strings[] = {
    { "/", "program_version", FIELD(program_version), NULL, NULL },
    { "/", "host", FIELD(host), NULL, NULL },
    { "/", "start_time", FIELD(start_time), NULL, NULL },
    { "/config", "file", FIELD(config_path), NULL, NULL },
    { "/config", "init.policy", FIELD(policy), NULL, NULL },
    { "/threads", "OMP_PLACES", FIELD(places), NULL, NULL },
    { "/threads", "OMP_PROC_BIND", FIELD(proc_bind), NULL, NULL },
    { "/results", "kernel", FIELD(kernel), kernel_names, "a kernel" },
    { "/results", "init_mode", FIELD(init_mode), init_modes, "an init mode" },
};

/* Scalar datasets; optional ones are NaN when absent (the schema leaves out what does not
 * apply). Times are finite; rates may be infinite when an iteration was faster than the
 * timer could tell. Statistics of the timed iterations are NaN, as written, in a run stopped
 * before its first timed iteration (n_iterations = 0), and only there. */
static const struct scalar_item {
    const char *path;
    size_t offset, size;
    double min, max;
    int optional;
    int of_timed; /* a statistic of the timed iterations */
} scalars[] = {
    { "/timings/init", FIELD(init_time), 0, DBL_MAX, 0, 0 },
    { "/timings/kernel", FIELD(kernel_time), 0, DBL_MAX, 0, 0 },
    { "/results/time_min", FIELD(time_min), 0, DBL_MAX, 0, 1 },
    { "/results/time_median", FIELD(time_median), 0, DBL_MAX, 0, 1 },
    { "/results/time_max", FIELD(time_max), 0, DBL_MAX, 0, 1 },
    { "/results/gbs_best", FIELD(gbs_best), 0, HUGE_VAL, 0, 1 },
    { "/results/gbs_median", FIELD(gbs_median), 0, HUGE_VAL, 0, 1 },
    { "/results/glups_best", FIELD(glups_best), 0, HUGE_VAL, 1, 1 },
    { "/results/glups_median", FIELD(glups_median), 0, HUGE_VAL, 1, 1 },
    { "/results/global", FIELD(global), -HUGE_VAL, HUGE_VAL, 0, 0 },
};

/* Ranges as the config accepts them (docs/configuration.md, "Keys"); 0 is "not this kernel's". */
static const struct int_item {
    const char *obj, *name;
    size_t offset, size;
    int64_t min, max;
} ints[] = {
    { "/results", "n", FIELD(n), 0, (int64_t)1 << 40 },
    { "/results", "nx", FIELD(nx), 0, (int64_t)1 << 24 },
    { "/results", "ny", FIELD(ny), 0, (int64_t)1 << 24 },
    { "/results", "nz", FIELD(nz), 0, (int64_t)1 << 20 },
    { "/results", "n_threads", FIELD(n_threads), 1, 1 << 16 },
    { "/timings", "n_iterations", FIELD(n_iterations), 0, 1000000000 }, /* 0: stopped in the warm-up */
    { "/timings", "n_warmup", FIELD(n_warmup), 0, 1000000 },
    { "/verification", "passed", FIELD(verified), 0, 1 },
};

static const char *const groups[] = { "/config", "/threads", "/timings", "/results", "/verification" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int read_strings(struct h5r *r, S *s)
{
    for (size_t i = 0; i < COUNT(strings); i++) {
        const struct str_item *it = &strings[i];
        char *buf = (char *)s + it->offset;
        if (h5r_str_attr(r, it->obj, it->name, buf, it->size))
            return r->err->status;
        char where[128];
        snprintf(where, sizeof where, "%s@%s", it->obj, it->name);
        if (it->known && h5r_known(r, where, buf, it->known, it->what))
            return r->err->status;
    }
    return TS_OK;
}

/* The size attributes a kernel has: n for sum and triad, a grid for the stencils (nz = 1 in 2D). */
static int kernel_shape(struct h5r *r, const S *s)
{
    const int grid = strncmp(s->kernel, "stencil", 7) == 0, three_d = strcmp(s->kernel, "stencil3d") == 0;
    const int fits = grid ? s->n == 0 && s->nx > 0 && s->ny > 0 && (three_d ? s->nz > 0 : s->nz <= 1)
                          : s->n > 0 && s->nx == 0 && s->ny == 0 && s->nz == 0;
    if (!fits)
        return h5r_fail(r, "/results@n", "n = %lld, nx x ny x nz = %lld x %lld x %lld is not the size of a %s run (%s)",
                        (long long)s->n, (long long)s->nx, (long long)s->ny, (long long)s->nz, s->kernel,
                        !grid     ? "n > 0, no grid"
                        : three_d ? "a grid nx x ny x nz, n = 0"
                                  : "a grid nx x ny with nz <= 1, n = 0");
    return TS_OK;
}

static int read_ints(struct h5r *r, S *s)
{
    for (size_t i = 0; i < COUNT(ints); i++) {
        const struct int_item *it = &ints[i];
        int64_t v = 0;
        if (h5r_int_attr(r, it->obj, it->name, it->min, it->max, &v))
            return r->err->status;
        if (it->size == sizeof(int64_t))
            *(int64_t *)(void *)((char *)s + it->offset) = v;
        else
            *(int32_t *)(void *)((char *)s + it->offset) = (int32_t)v;
    }
    if (s->n == 0 && s->nx == 0)
        return h5r_fail(r, "/results@n", "the problem has no size (n and nx are both 0)");
    if (kernel_shape(r, s))
        return r->err->status;
    if (s->n_iterations == 0 && s->complete)
        return h5r_fail(r, "/timings@n_iterations",
                        "0 timed iterations in a complete run (only a run stopped "
                        "during its warm-up has none)");
    return TS_OK;
}

static int read_scalars(struct h5r *r, S *s)
{
    for (size_t i = 0; i < COUNT(scalars); i++) {
        const struct scalar_item *it = &scalars[i];
        double *v = (double *)(void *)((char *)s + it->offset);
        *v = NAN;
        int has = it->optional ? h5r_has(r, it->path, H5I_DATASET) : 1;
        if (has < 0)
            return r->err->status;
        const int none_timed = it->of_timed && s->n_iterations == 0;
        struct h5r_doubles want = { .path = it->path, .min = it->min, .max = it->max, .nan_ok = none_timed };
        if (has && h5r_read_doubles(r, &want, v))
            return r->err->status;
        if (none_timed && !isnan(*v))
            return h5r_fail(r, it->path, "%g, but the run has no timed iteration it could describe (NaN expected)", *v);
    }
    return TS_OK;
}

/* Allocates *out and reads path into it; rows x cols values, already bounded by the caller,
 * allocated only once the file is known to store them. */
static int read_array(struct h5r *r, const char *path, int64_t rows, int64_t cols, const char *why, double min,
                      double max, int nan_ok, double **out)
{
    struct h5r_doubles want = {
        .path = path, .rank = rows ? 2 : 1, .why = why, .min = min, .max = max, .nan_ok = nan_ok
    };
    want.dims[0] = (hsize_t)(rows ? rows : cols);
    want.dims[1] = (hsize_t)cols;
    return h5r_read_doubles_alloc(r, &want, out);
}

static int read_placement(struct h5r *r, S *s)
{
    s->local_fraction = NAN;
    int has = h5r_has(r, "/placement", H5I_GROUP);
    if (has <= 0)
        return has < 0 ? r->err->status : TS_OK;
    s->has_placement = 1;
    struct h5r_doubles local = { .path = "/placement/local_fraction", .min = 0, .max = 1, .nan_ok = 1 };
    if (h5r_read_doubles(r, &local, &s->local_fraction))
        return r->err->status;
    return read_array(r, "/placement/thread_local_fraction", 0, s->n_threads, "n_threads", 0, 1, 1,
                      &s->thread_local_fraction);
}

/* A string attribute that older files may lack: "" then. */
static int optional_str(struct h5r *r, const char *obj, const char *name, char *buf, size_t size)
{
    buf[0] = '\0';
    int has = h5r_has(r, obj, H5I_BADID);
    if (has > 0)
        has = h5r_has_attr(r, obj, name);
    if (has < 0)
        return r->err->status;
    return has ? h5r_str_attr(r, obj, name, buf, size) : TS_OK;
}

/* /results@working_set_bytes, NaN in files before schema 2. */
static int optional_working_set(struct h5r *r, S *s)
{
    int64_t v = 0;
    s->working_set_bytes = NAN;
    int has = h5r_has_attr(r, "/results", "working_set_bytes");
    if (has < 0 || (has && h5r_int_attr(r, "/results", "working_set_bytes", 0, INT64_MAX, &v)))
        return r->err->status;
    if (has)
        s->working_set_bytes = (double)v;
    return TS_OK;
}

/* The root's build_* (the build that wrote the file), "" in files before them. */
static int read_build(struct h5r *r, S *s)
{
    const struct {
        const char *name;
        char *buf;
        size_t size;
    } items[] = {
        { "build_commit", s->build_commit, sizeof s->build_commit },
        { "build_compiler", s->build_compiler, sizeof s->build_compiler },
        { "build_openmp", s->build_openmp, sizeof s->build_openmp },
        { "build_mpi", s->build_mpi, sizeof s->build_mpi },
        { "build_hdf5", s->build_hdf5, sizeof s->build_hdf5 },
    };
    for (size_t i = 0; i < COUNT(items); i++)
        if (optional_str(r, "/", items[i].name, items[i].buf, items[i].size))
            return r->err->status;
    return TS_OK;
}

/* The batch job: an array task is named as Slurm's %A_%a and squeue name it. */
static int read_job(struct h5r *r, S *s)
{
    char array[64], task[64];
    if (optional_str(r, "/job", "job_id", s->job_id, sizeof s->job_id)
        || optional_str(r, "/job", "array_job_id", array, sizeof array)
        || optional_str(r, "/job", "array_task_id", task, sizeof task))
        return r->err->status;
    if (array[0] && task[0])
        snprintf(s->job_id, sizeof s->job_id, "%s_%s", array, task);
    static const char *const huge_pages[] = TS_HUGE_PAGES_VALUES;
    if (optional_working_set(r, s))
        return r->err->status;
    if (optional_str(r, "/results", "variant", s->variant, sizeof s->variant)
        || optional_str(r, "/config", "init.huge_pages", s->huge_pages, sizeof s->huge_pages)
        || (s->huge_pages[0]
            && h5r_known(r, "/config@init.huge_pages", s->huge_pages, huge_pages, "a value of init.huge_pages")))
        return r->err->status;
    /* The machine conditions (TS_CONDITION_NAMES) in /environment; "" in files before them. */
    static const char *const names[TS_N_CONDITIONS] = TS_CONDITION_NAMES;
    for (int i = 0; i < TS_N_CONDITIONS; i++)
        if (optional_str(r, "/environment", names[i], s->conditions[i], sizeof s->conditions[i]))
            return r->err->status;
    return TS_OK;
}

static int read_counter_rows(struct h5r *r, const char *path, int32_t n_threads, struct ts_counter_row **out);

/* Switches of all threads over the iterations, from /counters/kernel when the file has it, and
 * both tables' rows; their wait for a CPU (NaN in files without it). */
static int read_counters(struct h5r *r, S *s)
{
    s->involuntary = s->voluntary = s->wait = NAN;
    int has = h5r_has(r, "/counters", H5I_GROUP);
    if (has <= 0)
        return has < 0 ? r->err->status : TS_OK;
    int64_t *v = malloc((size_t)s->n_threads * sizeof *v);
    if (!v)
        return h5r_out_of_memory(r, "/counters/kernel", "out of memory for %d rows", s->n_threads);
    static const char *const fields[] = { "involuntary_switches", "voluntary_switches" };
    double *sums[] = { &s->involuntary, &s->voluntary };
    int st = TS_OK;
    for (size_t f = 0; st == TS_OK && f < COUNT(fields); f++) {
        st = h5r_read_int_field(r, "/counters/kernel", fields[f], (hsize_t)s->n_threads, 0, INT64_MAX / 65536, v);
        *sums[f] = 0;
        for (int32_t t = 0; st == TS_OK && t < s->n_threads; t++)
            *sums[f] += (double)v[t];
    }
    free(v);
    if (st == TS_OK)
        st = read_counter_rows(r, "/counters/init", s->n_threads, &s->init_counters)
                 ? r->err->status
                 : read_counter_rows(r, "/counters/kernel", s->n_threads, &s->kernel_counters);
    if (st == TS_OK)
        s->wait = ts_counters_wait(s->kernel_counters, s->n_threads);
    return st;
}

#define COUNT_COL(f, lo)                                                                                               \
    {                                                                                                                  \
#f, offsetof(struct ts_counter_row, f), H5T_NATIVE_INT64, 0, (lo), INT64_MAX / 65536, 0                        \
    }
#define TIME_COL(f)                                                                                                    \
    {                                                                                                                  \
#f, offsetof(struct ts_counter_row, f), H5T_NATIVE_DOUBLE, 0, 0, DBL_MAX, 1                                    \
    }

/* The rows of /counters/init or /counters/kernel. The CPU times came later, the wait for a CPU
 * after them: without their columns (older files) they are NaN, not known. */
static int read_counter_rows(struct h5r *r, const char *path, int32_t n_threads, struct ts_counter_row **out)
{
    const struct h5r_col cols[] = {
        COUNT_COL(minor_faults, 0),
        COUNT_COL(major_faults, 0),
        COUNT_COL(voluntary_switches, 0),
        COUNT_COL(involuntary_switches, 0),
        COUNT_COL(migrations, -1),
        TIME_COL(user_time),
        TIME_COL(system_time),
        TIME_COL(wait_time),
    };
    const int times = h5r_has_field(r, path, "system_time");
    const int waits = times > 0 ? h5r_has_field(r, path, "wait_time") : 0;
    if (times < 0 || waits < 0)
        return r->err->status;
    if (!(*out = calloc((size_t)n_threads, sizeof **out)))
        return h5r_out_of_memory(r, path, "out of memory for %d rows", (int)n_threads);
    if (h5r_read_table(r, path, (hsize_t)n_threads, "/results@n_threads", sizeof **out, cols,
                       COUNT(cols) - (times ? 0 : 2) - (waits ? 0 : 1), 0, *out))
        return r->err->status;
    for (int32_t t = 0; t < n_threads; t++) {
        if (!times)
            (*out)[t].user_time = (*out)[t].system_time = NAN;
        if (!waits)
            (*out)[t].wait_time = NAN;
    }
    return TS_OK;
}

/* A group of what else ran on the run's CPUs: /counters/machine (schema 2) over the iterations,
 * /counters/init_machine over the first touch. *has is 1 when the file has it. */
static int read_machine_group(struct h5r *r, const char *group, struct ts_machine_rec *m, int *has)
{
    *has = 0;
    int found = h5r_has(r, group, H5I_GROUP);
    if (found <= 0)
        return found < 0 ? r->err->status : TS_OK;
    const struct {
        const char *name;
        double *v, max;
    } values[] = {
        { "elapsed", &m->elapsed, DBL_MAX },   { "own_cpu", &m->own_cpu, DBL_MAX },
        { "busy", &m->busy, DBL_MAX },         { "others_cpu", &m->others_cpu, DBL_MAX },
        { "steal", &m->steal, DBL_MAX },       { "clock_tick", &m->clock_tick, 1 },
        { "load_start", &m->load_start, 1e9 }, { "load_end", &m->load_end, 1e9 },
    };
    int64_t n_cpus = 0, online = 0;
    if (h5r_str_attr(r, group, "cpus", m->cpus, sizeof m->cpus) || h5r_int_attr(r, group, "n_cpus", 1, 1 << 20, &n_cpus)
        || h5r_int_attr(r, group, "online_cpus", 1, 1 << 20, &online))
        return r->err->status;
    m->n_cpus = (int32_t)n_cpus;
    m->online_cpus = (int32_t)online;
    char path[128];
    for (size_t i = 0; i < COUNT(values); i++) {
        snprintf(path, sizeof path, "%s/%s", group, values[i].name);
        struct h5r_doubles want = { .path = path, .min = 0, .max = values[i].max };
        if (h5r_read_doubles(r, &want, values[i].v))
            return r->err->status;
    }
    if (!(m->clock_tick > 0)) {
        snprintf(path, sizeof path, "%s/clock_tick", group);
        return h5r_fail(r, path, "0 s is not a clock tick");
    }
    *has = 1;
    return TS_OK;
}

static int read_machine(struct h5r *r, S *s)
{
    return read_machine_group(r, "/counters/machine", &s->machine, &s->has_machine)
               ? r->err->status
               : read_machine_group(r, "/counters/init_machine", &s->init_machine, &s->has_init_machine);
}

/* /counters/init_memory: the kernel's memory management over the first touch. Counts are -1
 * (this kernel has no such counter) or more; memory_stall is -1 when the file leaves it out. */
static int read_init_memory(struct h5r *r, S *s)
{
    static const char *const group = "/counters/init_memory";
    int has = h5r_has(r, group, H5I_GROUP);
    if (has <= 0)
        return has < 0 ? r->err->status : TS_OK;
    struct ts_init_memory_rec *m = &s->init_memory;
    const struct {
        const char *name;
        int64_t *v;
    } counts[] = {
        { "thp_fault_alloc", &m->thp_fault_alloc },
        { "thp_fault_fallback", &m->thp_fault_fallback },
        { "thp_fault_fallback_charge", &m->thp_fault_fallback_charge },
        { "compact_stall", &m->compact_stall },
        { "compact_fail", &m->compact_fail },
        { "compact_success", &m->compact_success },
        { "allocstall", &m->allocstall },
        { "pgfault", &m->pgfault },
        { "pgmajfault", &m->pgmajfault },
    };
    for (size_t i = 0; i < COUNT(counts); i++)
        if (h5r_int_attr(r, group, counts[i].name, -1, INT64_MAX, counts[i].v))
            return r->err->status;
    struct h5r_doubles elapsed = { .path = "/counters/init_memory/elapsed", .min = 0, .max = DBL_MAX };
    struct h5r_doubles stall = { .path = "/counters/init_memory/memory_stall", .min = 0, .max = DBL_MAX };
    m->memory_stall = -1;
    int has_stall = h5r_has(r, stall.path, H5I_DATASET);
    if (has_stall < 0 || h5r_read_doubles(r, &elapsed, &m->elapsed)
        || (has_stall && h5r_read_doubles(r, &stall, &m->memory_stall)))
        return r->err->status;
    s->has_init_memory = 1;
    return TS_OK;
}

/* The warnings' text, and the summary run printed (schema 2). */
static int read_texts(struct h5r *r, S *s)
{
    hsize_t n = 0;
    if (h5r_read_lines(r, "/warnings", TS_READ_MAX_LINES, TS_READ_MAX_LINE, &s->warning_text, &s->warning_bytes, &n))
        return r->err->status;
    s->n_warnings = (int64_t)n;
    int has = h5r_has(r, "/summary", H5I_DATASET);
    if (has < 0
        || (has > 0
            && h5r_read_lines(r, "/summary", TS_READ_MAX_LINES, TS_READ_MAX_LINE, &s->summary, &s->summary_bytes, &n)))
        return r->err->status;
    s->n_summary = has > 0 ? (int64_t)n : 0;
    return TS_OK;
}

/* /results stores statistics of /timings/iteration: they must describe that array. */
static int check_agreement(struct h5r *r, const S *s)
{
    if (s->n_iterations == 0)
        return TS_OK; /* NaN, as read_scalars made sure */
    double lo = s->iteration[0], hi = s->iteration[0];
    for (int64_t i = 1; i < s->n_iterations; i++) {
        lo = fmin(lo, s->iteration[i]);
        hi = fmax(hi, s->iteration[i]);
    }
    if (s->time_min != lo)
        return h5r_fail(r, "/results/time_min", "%.17g is not the smallest of /timings/iteration (%.17g)", s->time_min,
                        lo);
    if (s->time_max != hi)
        return h5r_fail(r, "/results/time_max", "%.17g is not the largest of /timings/iteration (%.17g)", s->time_max,
                        hi);
    if (!(s->time_min <= s->time_median && s->time_median <= s->time_max))
        return h5r_fail(r, "/results/time_median", "%.17g is not between time_min and time_max", s->time_median);
    return TS_OK;
}

/* NaN in /timings/thread_iteration means "not measured": a run restarted on another thread
 * count has no per-thread times for the iterations before the restart (app/run_checkpoint.c).
 * So NaN only fills whole iterations (every thread's), only the first ones, and only as many as
 * /job says the checkpoint it continued held. */
static int check_unmeasured(struct h5r *r, const S *s)
{
    const size_t iters = (size_t)s->n_iterations, threads = (size_t)s->n_threads;
    size_t unmeasured = 0;
    for (size_t i = 0; i < iters; i++) {
        size_t nan = 0;
        for (size_t t = 0; t < threads; t++)
            nan += isnan(s->thread_iteration[t * iters + i]) != 0;
        if (nan == 0)
            continue;
        if (nan != threads || unmeasured != i)
            return h5r_fail(r, "/timings/thread_iteration", "NaN (not measured) in iteration %zu %s", i,
                            nan != threads
                                ? "for some threads only: a restart leaves every thread's time of an "
                                  "iteration unmeasured, or none"
                                : "after measured ones: only the iterations before a restart are unmeasured");
        unmeasured++;
    }
    if (unmeasured == 0)
        return TS_OK;
    int64_t restarted = 0, before = 0;
    int has_job = h5r_has(r, "/job", H5I_GROUP);
    if (has_job < 0
        || (has_job
            && (h5r_int_attr(r, "/job", "restarted", 0, 1, &restarted)
                || h5r_int_attr(r, "/job", "steps_before_restart", 0, INT64_MAX, &before))))
        return r->err->status;
    if (!restarted || (int64_t)unmeasured > before - s->n_warmup)
        return h5r_fail(r, "/timings/thread_iteration", "iterations 0 to %zu have no per-thread times (NaN), but %s",
                        unmeasured - 1,
                        restarted ? "the checkpoint the run continued held fewer (/job@steps_before_restart)"
                                  : "the run was not restarted (/job@restarted): only a restart leaves "
                                    "iterations unmeasured");
    return TS_OK;
}
static int read_run(struct h5r *r, S *s)
{
    int64_t version = 0, complete = 1;
    if (h5r_int_attr(r, "/", "schema_version", 1, INT32_MAX, &version))
        return r->err->status;
    if (version > TS_READ_SCHEMA_VERSION)
        return h5r_fail(r, "/@schema_version", "schema_version %lld is newer than this touchstone reads (%d)",
                        (long long)version, TS_READ_SCHEMA_VERSION);
    s->schema_version = (int32_t)version;
    int has_complete = h5r_has_attr(r, "/", "complete");
    if (has_complete < 0 || (has_complete && h5r_int_attr(r, "/", "complete", 0, 1, &complete)))
        return r->err->status;
    s->complete = (int32_t)complete;
    for (size_t i = 0; i < COUNT(groups); i++)
        if (h5r_group(r, groups[i]))
            return r->err->status;
    if (read_strings(r, s) || read_ints(r, s) || read_scalars(r, s))
        return r->err->status;
    if (s->n_iterations * s->n_threads > TS_READ_MAX_VALUES)
        return h5r_fail(r, "/timings/thread_iteration",
                        "%d threads x %lld iterations is more than the %lld "
                        "values touchstone reads",
                        s->n_threads, (long long)s->n_iterations, (long long)TS_READ_MAX_VALUES);
    if (read_array(r, "/timings/iteration", 0, s->n_iterations, "n_iterations", 0, DBL_MAX, 0, &s->iteration)
        || read_array(r, "/timings/thread_iteration", s->n_threads, s->n_iterations, "n_threads x n_iterations", 0,
                      DBL_MAX, 1, &s->thread_iteration)
        || check_agreement(r, s) || check_unmeasured(r, s))
        return r->err->status;
    if (read_texts(r, s) || read_job(r, s) || read_counters(r, s) || read_machine(r, s) || read_init_memory(r, s)
        || read_placement(r, s))
        return r->err->status;
    if (optional_str(r, "/", "command_line", s->command_line, sizeof s->command_line) || read_build(r, s)
        || h5r_read_mpi(r, s))
        return r->err->status;
    return h5r_read_layout(r, s);
}

/* Tells checkpoints and other programs' HDF5 files apart from broken run files, so that a
 * directory listing can skip what is clearly not a run and still stop at a damaged run. */
static int classify(struct h5r *r, S *s)
{
    int version = h5r_has_attr(r, "/", "schema_version");
    int checkpoint = version == 0 ? h5r_has_attr(r, "/", "touchstone_checkpoint") : 0;
    int results = version == 0 && checkpoint == 0 ? h5r_has(r, "/results", H5I_BADID) : 1;
    if (version < 0 || checkpoint < 0 || results < 0)
        return r->err->status;
    if (checkpoint) {
        s->kind = TS_FILE_CHECKPOINT;
        return h5r_fail(r, "/@touchstone_checkpoint",
                        "a touchstone checkpoint, not a run file "
                        "(continue it with touchstone run --restart)");
    }
    if (!results) {
        s->kind = TS_FILE_FOREIGN;
        return h5r_fail(r, "/@schema_version", "missing: an HDF5 file, but not a touchstone run file");
    }
    return TS_OK; /* a run file, maybe without schema_version: read_run says so */
}

static int read_opened(struct h5r *r, S *out)
{
    int st = TS_OK;
    if (r->file < 0)
        st = r->err->status;
    else {
        out->kind = TS_FILE_RUN;
        st = classify(r, out) ? r->err->status : read_run(r, out);
        h5r_close(r);
    }
    if (st != TS_OK) {
        enum ts_file_kind kind = out->kind;
        ts_run_summary_free(out);
        out->kind = kind;
    }
    return st;
}

static void start(S *out, const char *name)
{
    memset(out, 0, sizeof *out);
    out->kind = TS_FILE_UNREADABLE;
    snprintf(out->file, sizeof out->file, "%s", name);
}

int ts_run_read_file(const char *path, S *out, struct ts_error *err)
{
    struct h5r r;
    start(out, path);
    h5r_open_path(&r, path, err);
    return read_opened(&r, out);
}

int ts_run_read_image(const void *bytes, size_t n, const char *name, S *out, struct ts_error *err)
{
    struct h5r r;
    start(out, name);
    h5r_open_image(&r, bytes, n, name, err);
    return read_opened(&r, out);
}

void ts_run_summary_free(S *s)
{
    free(s->iteration);
    free(s->thread_iteration);
    free(s->init_counters);
    free(s->kernel_counters);
    free(s->thread_local_fraction);
    free(s->warning_text);
    free(s->summary);
    free(s->ranks);
    free(s->rank_iteration);
    free(s->rank_halo_iteration);
    free(s->topology.numa);
    free(s->topology.distances);
    free(s->topology.cores);
    free(s->topology.caches);
    free(s->threads);
    free(s->place_node_ids);
    free(s->thread_node_pages);
    char file[sizeof s->file];
    memcpy(file, s->file, sizeof file);
    memset(s, 0, sizeof *s);
    memcpy(s->file, file, sizeof file);
}

void ts_run_size_text(const S *s, char *buf, size_t size)
{
    if (s->nx > 0 && s->nz > 1)
        snprintf(buf, size, "%lld x %lld x %lld", (long long)s->nx, (long long)s->ny, (long long)s->nz);
    else if (s->nx > 0)
        snprintf(buf, size, "%lld x %lld", (long long)s->nx, (long long)s->ny);
    else
        snprintf(buf, size, "%lld", (long long)s->n);
}

/* Writes a synthetic record and reads every group, dataset, attribute and units back through
 * the HDF5 C API. "full": a stencil run with a 4x5 field and warnings; "minimal": an array sum
 * without field or warnings; "field3d": the full run with a 3D field spanning several chunks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_read.h"
#include "io_fixture.h"
#include "ts_h5_write.h"

static void expect_scalars(hid_t f, const char *group, const char *const *names, const double *values, size_t n,
                           const char *units)
{
    for (size_t i = 0; i < n; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", group, names[i]);
        double got = rd_scalar(f, path);
        CHECK(got == values[i], "%s is %g, expected %g", path, got, values[i]);
        expect_units(f, path, units);
    }
}

static void expect_attr_list(hid_t f, const char *obj, const struct ts_attr *a, int n)
{
    for (int i = 0; i < n; i++)
        expect_str_attr(f, obj, a[i].name, a[i].value);
}

static int attr_count(hid_t f, const char *obj)
{
    H5O_info_t info;
    return H5Oget_info_by_name2(f, obj, &info, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) < 0 ? -1 : (int)info.num_attrs;
}

/* A scalar or 1D dataset of variable-length strings, element i. */
static char *rd_vstr(hid_t f, const char *path, hsize_t i, hsize_t n)
{
    char **values = calloc(n, sizeof *values);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    char *copy = NULL;
    if (rd_all(f, path, t, values, n) == 0 && values[i])
        copy = strdup(values[i]);
    for (hsize_t k = 0; k < n; k++)
        H5free_memory(values[k]);
    H5Tclose(t);
    free(values);
    return copy;
}

static void check_root(hid_t f, const struct ts_record *rec)
{
    expect_str_attr(f, "/", "program_version", rec->program_version);
    expect_str_attr(f, "/", "command_line", rec->command_line);
    expect_str_attr(f, "/", "host", rec->host);
    expect_str_attr(f, "/", "start_time", rec->start_time);
    CHECK(rd_int_attr(f, "/", "schema_version") == TS_SCHEMA_VERSION, "schema_version wrong");
    H5G_info_t info;
    H5Gget_info(f, &info);
    unsigned links = 9u + (rec->field != NULL) + (rec->counters != NULL);
    CHECK(info.nlinks == links, "root has %llu links, expected %u", (unsigned long long)info.nlinks, links);
}

static void check_config(hid_t f, const struct ts_record *rec)
{
    expect_attr_list(f, "config", rec->config, rec->n_config);
    expect_str_attr(f, "config", "file", rec->config_path);
    expect_str_attr(f, "config", "overrides", rec->config_overrides);
    CHECK(attr_count(f, "config") == rec->n_config + 2, "/config has extra attributes");
    hsize_t dims[3];
    CHECK(rd_dims(f, "config/text", dims) == 0, "/config/text is not scalar");
    char *text = rd_vstr(f, "config/text", 0, 1);
    CHECK(text && strcmp(text, rec->config_text) == 0, "/config/text differs from the file");
    free(text);
    expect_units(f, "config/text", "");

    expect_attr_list(f, "environment", rec->environment, rec->n_environment);
    CHECK(attr_count(f, "environment") == rec->n_environment, "/environment attribute count");
}

static void check_topology(hid_t f, const struct io_fixture *fx)
{
    const struct ts_topology_rec *t = &fx->topo;
    const char *ints[] = { "n_packages", "n_cores", "n_pus", "n_numa", "cache_line_bytes" };
    const int64_t want[] = { t->n_packages, t->n_cores, t->n_pus, t->n_numa, 64 };
    for (int i = 0; i < 5; i++)
        CHECK(rd_int_attr(f, "topology", ints[i]) == want[i], "/topology %s", ints[i]);
    expect_str_attr(f, "topology", "cache_line_source", "hwloc L1d");
    expect_str_attr(f, "topology", "hwloc_version", "2.9.0");

    const struct rd_col numa_cols[] = {
        RD_NUM(struct ts_numa_rec, os_index, H5T_NATIVE_INT32),
        RD_NUM(struct ts_numa_rec, memory_bytes, H5T_NATIVE_UINT64),
        RD_STR(struct ts_numa_rec, cpus),
    };
    struct ts_numa_rec numa[FX_NUMA] = { 0 };
    rd_table(f, "topology/numa_nodes", sizeof numa[0], numa_cols, 3, numa, FX_NUMA);
    CHECK(numa[1].os_index == 1 && numa[1].memory_bytes == (uint64_t)2 << 33 && strcmp(numa[1].cpus, "2-3") == 0,
          "/topology/numa_nodes row 1 wrong");
    expect_units(f, "topology/numa_nodes", "memory_bytes: bytes");

    hsize_t dims[3];
    int32_t dist[FX_NUMA * FX_NUMA] = { 0 };
    CHECK(rd_dims(f, "topology/distances", dims) == 2 && dims[0] == 2 && dims[1] == 2,
          "/topology/distances is not 2x2");
    rd_all(f, "topology/distances", H5T_NATIVE_INT32, dist, 4);
    CHECK(dist[0] == 10 && dist[1] == 21 && dist[2] == 21 && dist[3] == 10, "distances values");
    expect_units(f, "topology/distances", "relative (10 = local)");

    const struct rd_col core_cols[] = {
        RD_NUM(struct ts_core_rec, index, H5T_NATIVE_INT32),
        RD_NUM(struct ts_core_rec, os_index, H5T_NATIVE_INT32),
        RD_NUM(struct ts_core_rec, package, H5T_NATIVE_INT32),
        RD_NUM(struct ts_core_rec, numa, H5T_NATIVE_INT32),
        RD_STR(struct ts_core_rec, cpus),
    };
    struct ts_core_rec cores[4] = { 0 };
    rd_table(f, "topology/cores", sizeof cores[0], core_cols, 5, cores, 4);
    CHECK(cores[3].index == 3 && cores[3].os_index == 103 && cores[3].package == 1 && cores[3].numa == 1
              && strcmp(cores[3].cpus, "3") == 0,
          "/topology/cores row 3 wrong");
    expect_units(f, "topology/cores", "1");

    const struct rd_col cache_cols[] = {
        RD_NUM(struct ts_cache_rec, level, H5T_NATIVE_INT32),
        RD_STR(struct ts_cache_rec, type),
        RD_NUM(struct ts_cache_rec, size_bytes, H5T_NATIVE_UINT64),
        RD_NUM(struct ts_cache_rec, line_bytes, H5T_NATIVE_UINT32),
        RD_NUM(struct ts_cache_rec, count, H5T_NATIVE_INT32),
    };
    struct ts_cache_rec caches[3] = { 0 };
    rd_table(f, "topology/caches", sizeof caches[0], cache_cols, 5, caches, 3);
    CHECK(caches[2].level == 3 && strcmp(caches[2].type, "unified") == 0 && caches[2].size_bytes == 33554432
              && caches[2].line_bytes == 64 && caches[2].count == 2,
          "/topology/caches row 2 wrong");
    expect_units(f, "topology/caches", "size_bytes: bytes, line_bytes: bytes");
}

static void check_threads(hid_t f, const struct io_fixture *fx)
{
    expect_attr_list(f, "threads", fx->binding, 2);
    CHECK(attr_count(f, "threads") == 2, "/threads attribute count");
    typedef struct ts_thread_rec T;
    const struct rd_col cols[] = {
        RD_NUM(T, thread, H5T_NATIVE_INT32),
        RD_NUM(T, place, H5T_NATIVE_INT32),
        RD_STR(T, place_cpus),
        RD_STR(T, affinity),
        RD_NUM(T, cpu_start, H5T_NATIVE_INT32),
        RD_NUM(T, cpu_end, H5T_NATIVE_INT32),
        RD_NUM(T, core, H5T_NATIVE_INT32),
        RD_NUM(T, node, H5T_NATIVE_INT32),
        RD_NUM(T, counted_for_node, H5T_NATIVE_INT32),
        RD_NUM(T, item_begin, H5T_NATIVE_INT64),
        RD_NUM(T, item_end, H5T_NATIVE_INT64),
        RD_NUM(T, rank, H5T_NATIVE_INT32),
        RD_NUM(T, local_rank, H5T_NATIVE_INT32),
        RD_STR(T, host),
    };
    hsize_t dims[3];
    CHECK(rd_dims(f, "threads/table", dims) == 1 && dims[0] == FX_THREADS, "table rows");
    T rows[FX_THREADS];
    memset(rows, 0, sizeof rows);
    rd_table(f, "threads/table", sizeof(T), cols, sizeof cols / sizeof cols[0], rows, FX_THREADS);
    const T *r = &rows[2];
    CHECK(r->thread == 2 && r->place == 2 && strcmp(r->place_cpus, "{3}") == 0 && strcmp(r->affinity, "3") == 0
              && r->cpu_start == 3 && r->cpu_end == 3 && r->core == 3 && r->node == 1 && r->counted_for_node == 1
              && r->item_begin == 14 && r->item_end == 21 && r->rank == 0 && r->local_rank == 0 && r->host[0] == '\0',
          "/threads/table row 2 wrong (place_cpus \"%s\")", r->place_cpus);
    expect_units(f, "threads/table", "1");
}

static void check_timings(hid_t f, const struct io_fixture *fx)
{
    const struct ts_timings_rec *t = &fx->timings;
    const char *names[] = { "allocation", "init",  "kernel",           "combine", "verify",
                            "write",      "total", "timer_resolution", "startup", "reexec",
                            "setup",      "plan",  "finish",           "wall",    "checkpoint" };
    const double values[] = { t->allocation, t->init,  t->kernel,           t->combine, t->verify,
                              t->write,      t->total, t->timer_resolution, t->startup, t->reexec,
                              t->setup,      t->plan,  t->finish,           t->wall,    t->checkpoint };
    expect_scalars(f, "timings", names, values, 15, "s");
    CHECK(rd_int_attr(f, "timings", "n_iterations") == FX_ITER, "n_iterations");
    CHECK(rd_int_attr(f, "timings", "n_warmup") == FX_WARMUP, "n_warmup");

    double it[FX_ITER] = { 0 }, warm[FX_WARMUP] = { 0 }, ti[FX_THREADS][FX_ITER];
    hsize_t dims[3];
    CHECK(rd_dims(f, "timings/iteration", dims) == 1 && dims[0] == FX_ITER, "iteration shape");
    rd_all(f, "timings/iteration", H5T_NATIVE_DOUBLE, it, FX_ITER);
    CHECK(memcmp(it, fx->iteration, sizeof it) == 0, "/timings/iteration values");
    rd_all(f, "timings/warmup", H5T_NATIVE_DOUBLE, warm, FX_WARMUP);
    CHECK(memcmp(warm, fx->warmup, sizeof warm) == 0, "/timings/warmup values");
    CHECK(rd_dims(f, "timings/thread_iteration", dims) == 2 && dims[0] == FX_THREADS && dims[1] == FX_ITER,
          "thread_iteration is not threads x iterations");
    rd_all(f, "timings/thread_iteration", H5T_NATIVE_DOUBLE, ti, FX_THREADS * FX_ITER);
    CHECK(fabs(ti[2][4] - 0.0034) < 1e-15 && memcmp(ti, fx->thread_iteration, sizeof ti) == 0,
          "thread_iteration[2][4] is %g, expected 0.0034", ti[2][4]);
    expect_str_attr(f, "timings/thread_iteration", "dims", "thread, iteration");
    const char *vectors[] = { "timings/iteration", "timings/warmup", "timings/thread_iteration" };
    for (int i = 0; i < 3; i++)
        expect_units(f, vectors[i], "s");
}

static void check_results(hid_t f, const struct io_fixture *fx)
{
    const struct ts_results_rec *r = &fx->results;
    const char *strs[][2] = { { "kernel", r->kernel },
                              { "unit", r->unit },
                              { "byte_model", r->byte_model },
                              { "result_name", r->result_name },
                              { "init_mode", r->init_mode } };
    for (int i = 0; i < 5; i++)
        expect_str_attr(f, "results", strs[i][0], strs[i][1]);
    const char *ints[] = { "n", "nx", "ny", "nz", "n_threads", "units_per_iteration" };
    const int64_t want[] = { r->n, r->nx, r->ny, r->nz, r->n_threads, r->units_per_iteration };
    for (int i = 0; i < 6; i++)
        CHECK(rd_int_attr(f, "results", ints[i]) == want[i], "/results %s", ints[i]);
    CHECK(rd_f64_attr(f, "results", "bytes_per_unit") == r->bytes_per_unit, "bytes_per_unit");
    CHECK(rd_f64_attr(f, "results", "flops_per_unit") == r->flops_per_unit, "flops_per_unit");

    const char *unitless[] = { "global" };
    expect_scalars(f, "results", unitless, &r->global, 1, "1");
    const char *times[] = { "time_min", "time_median", "time_max" };
    const double tv[] = { r->time_min, r->time_median, r->time_max };
    expect_scalars(f, "results", times, tv, 3, "s");
    const char *gbs[] = { "gbs_best", "gbs_median" };
    expect_scalars(f, "results", gbs, (double[]){ r->gbs_best, r->gbs_median }, 2, "GB/s");
    const char *gf[] = { "gflops_best", "gflops_median" };
    expect_scalars(f, "results", gf, (double[]){ r->gflops_best, r->gflops_median }, 2, "GFLOP/s");
    const char *gl[] = { "glups_best", "glups_median" };
    if (isnan(r->glups_best))
        CHECK(H5Lexists(f, "results/glups_best", H5P_DEFAULT) == 0
                  && H5Lexists(f, "results/glups_median", H5P_DEFAULT) == 0,
              "NaN GLUP/s must be left out");
    else
        expect_scalars(f, "results", gl, (double[]){ r->glups_best, r->glups_median }, 2, "GLUP/s");

    double tp[FX_THREADS] = { 0 }, np[FX_NUMA] = { 0 };
    int32_t ids[FX_NUMA] = { -1, -1 };
    rd_all(f, "results/thread_partials", H5T_NATIVE_DOUBLE, tp, FX_THREADS);
    rd_all(f, "results/node_partials", H5T_NATIVE_DOUBLE, np, FX_NUMA);
    rd_all(f, "results/node_ids", H5T_NATIVE_INT32, ids, FX_NUMA);
    CHECK(tp[2] == 4.5 && np[1] == 7.5 && ids[0] == 0 && ids[1] == 1, "partials or node_ids");
    const char *vectors[] = { "results/thread_partials", "results/node_partials", "results/node_ids" };
    for (int i = 0; i < 3; i++)
        expect_units(f, vectors[i], "1");

    const char *ver[] = { "expected", "observed", "error", "tolerance" };
    const struct ts_verification_rec *v = &fx->verification;
    expect_scalars(f, "verification", ver, (double[]){ v->expected, v->observed, v->error, v->tolerance }, 4, "1");
    CHECK(rd_int_attr(f, "verification", "passed") == 1, "verification passed");
    CHECK(rd_int_attr(f, "verification", "checked") == 20, "verification checked");
    CHECK(rd_int_attr(f, "verification", "failures") == 0, "verification failures");
    expect_str_attr(f, "verification", "method", v->method);
}

/* chunk: the chunk dims the writer should pick (whole rows, ~1 MiB at most). */
static void check_field(hid_t f, const struct ts_record *rec, const hsize_t *chunk_want)
{
    if (!rec->field) {
        CHECK(H5Lexists(f, "field", H5P_DEFAULT) == 0, "/field written without a field");
        return;
    }
    const int64_t *fd = rec->field_dims;
    const int rank = fd[0] == 1 ? 2 : 3;
    hsize_t dims[3] = { 0 }, n = 1;
    CHECK(rd_dims(f, "field/u", dims) == rank, "/field/u is not of rank %d", rank);
    for (int i = 0; i < rank; i++) {
        CHECK(dims[i] == (hsize_t)fd[3 - rank + i], "/field/u dim %d is %llu", i, (unsigned long long)dims[i]);
        n *= dims[i];
    }
    double *u = calloc(n, sizeof *u);
    rd_all(f, "field/u", H5T_NATIVE_DOUBLE, u, n);
    CHECK(memcmp(u, rec->field, n * sizeof *u) == 0, "/field/u values differ");
    free(u);
    expect_units(f, "field/u", "1");
    expect_str_attr(f, "field/u", "dims", rank == 2 ? "y, x" : "z, y, x");

    hid_t d = H5Dopen2(f, "field/u", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    hsize_t chunk[3] = { 0 };
    CHECK(H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 3, chunk) == rank
              && memcmp(chunk, chunk_want, (size_t)rank * sizeof *chunk) == 0,
          "/field/u chunks are %llu x %llu x %llu", (unsigned long long)chunk[0], (unsigned long long)chunk[1],
          (unsigned long long)chunk[2]);
    unsigned flags, level = 0;
    size_t n_cd = 1;
    H5Z_filter_t filter =
        H5Pget_nfilters(dcpl) < 1 ? -1 : H5Pget_filter2(dcpl, 0, &flags, &n_cd, &level, 0, NULL, NULL);
    CHECK(filter == H5Z_FILTER_DEFLATE && level == 4, "/field/u is not deflated at level 4");
    H5Pclose(dcpl);
    H5Dclose(d);
}

static void check_warnings(hid_t f, const struct ts_record *rec)
{
    hsize_t dims[3] = { 99 };
    CHECK(rd_dims(f, "warnings", dims) == 1 && dims[0] == (hsize_t)rec->n_warnings, "/warnings shape");
    CHECK(rd_int_attr(f, "warnings", "count") == rec->n_warnings, "/warnings count");
    expect_units(f, "warnings", "");
    for (int i = 0; i < rec->n_warnings; i++) {
        char *w = rd_vstr(f, "warnings", (hsize_t)i, (hsize_t)rec->n_warnings);
        CHECK(w && strcmp(w, rec->warnings[i]) == 0, "warning %d is \"%s\"", i, w ? w : "");
        free(w);
    }
}

/* Schema 2: the summary as printed, one string per line, and what the machine did. */
static void check_summary_and_machine(hid_t f, const struct ts_record *rec)
{
    hsize_t dims[3] = { 99 };
    CHECK(rd_dims(f, "summary", dims) == 1 && dims[0] == (hsize_t)rec->n_summary, "/summary shape");
    expect_units(f, "summary", "");
    for (int i = 0; i < rec->n_summary; i++) {
        char *line = rd_vstr(f, "summary", (hsize_t)i, (hsize_t)rec->n_summary);
        CHECK(line && strcmp(line, rec->summary[i]) == 0, "summary line %d is \"%s\"", i, line ? line : "");
        free(line);
    }
    const struct ts_machine_rec *m = rec->counters ? rec->counters->machine : NULL;
    CHECK((H5Lexists(f, "counters", H5P_DEFAULT) > 0) == (m != NULL), "/counters present without counters");
    if (!m)
        return;
    static const char *const seconds[] = { "elapsed", "own_cpu", "busy", "others_cpu", "steal", "clock_tick" };
    const double s_values[] = { m->elapsed, m->own_cpu, m->busy, m->others_cpu, m->steal, m->clock_tick };
    expect_scalars(f, "counters/machine", seconds, s_values, 6, "s");
    static const char *const loads[] = { "load_start", "load_end" };
    const double l_values[] = { m->load_start, m->load_end };
    expect_scalars(f, "counters/machine", loads, l_values, 2, "1");
    expect_str_attr(f, "counters/machine", "cpus", m->cpus);
    CHECK(rd_int_attr(f, "counters/machine", "n_cpus") == m->n_cpus, "/counters/machine@n_cpus");
    CHECK(rd_int_attr(f, "counters/machine", "online_cpus") == m->online_cpus, "/counters/machine@online_cpus");
}

/* What the machine and its memory management did during the first touch: the machine's
 * datasets again under init_machine, the counts as int64 attributes of init_memory. */
static void check_init(hid_t f, const struct ts_record *rec)
{
    const struct ts_machine_rec *m = rec->counters ? rec->counters->init_machine : NULL;
    const struct ts_init_memory_rec *v = rec->counters ? rec->counters->init_memory : NULL;
    CHECK((H5Lexists(f, "counters", H5P_DEFAULT) > 0 && H5Lexists(f, "counters/init_machine", H5P_DEFAULT) > 0)
              == (m != NULL),
          "/counters/init_machine present without its record, or missing with it");
    CHECK((H5Lexists(f, "counters", H5P_DEFAULT) > 0 && H5Lexists(f, "counters/init_memory", H5P_DEFAULT) > 0)
              == (v != NULL),
          "/counters/init_memory present without its record, or missing with it");
    if (m) {
        static const char *const seconds[] = { "elapsed", "own_cpu", "busy", "others_cpu", "steal", "clock_tick" };
        const double s_values[] = { m->elapsed, m->own_cpu, m->busy, m->others_cpu, m->steal, m->clock_tick };
        expect_scalars(f, "counters/init_machine", seconds, s_values, 6, "s");
        expect_str_attr(f, "counters/init_machine", "cpus", m->cpus);
        CHECK(rd_int_attr(f, "counters/init_machine", "n_cpus") == m->n_cpus, "/counters/init_machine@n_cpus");
    }
    if (!v)
        return;
    static const char *const counts[] = { "thp_fault_alloc",
                                          "thp_fault_fallback",
                                          "thp_fault_fallback_charge",
                                          "compact_stall",
                                          "compact_fail",
                                          "compact_success",
                                          "allocstall",
                                          "pgfault",
                                          "pgmajfault" };
    const int64_t want[] = { v->thp_fault_alloc,
                             v->thp_fault_fallback,
                             v->thp_fault_fallback_charge,
                             v->compact_stall,
                             v->compact_fail,
                             v->compact_success,
                             v->allocstall,
                             v->pgfault,
                             v->pgmajfault };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        CHECK(rd_int_attr(f, "counters/init_memory", counts[i]) == want[i],
              "/counters/init_memory@%s is %lld, want %lld", counts[i],
              (long long)rd_int_attr(f, "counters/init_memory", counts[i]), (long long)want[i]);
    static const char *const seconds[] = { "elapsed", "memory_stall" };
    const double s_values[] = { v->elapsed, v->memory_stall };
    expect_scalars(f, "counters/init_memory", seconds, s_values, 2, "s");
    expect_str_attr(f, "counters/init_memory", "source", "/proc/vmstat, /proc/pressure/memory: the whole machine");
}

static herr_t units_everywhere(hid_t obj, const char *name, const H5O_info_t *info, void *op)
{
    (void)op;
    if (info->type == H5O_TYPE_DATASET)
        CHECK(H5Aexists_by_name(obj, name, "units", H5P_DEFAULT) > 0, "dataset %s has no units attribute", name);
    return 0;
}

/* A 2 x 300 x 600 field: rows of 600 fit 218 times in a 1 MiB chunk, so chunks are
 * 1 x 218 x 600 and a plane is split. */
static void use_field3d(struct io_fixture *fx)
{
    enum { NZ = 2, NY = 300, NX = 600 };
    static double field[NZ * NY * NX];
    for (size_t i = 0; i < NZ * NY * NX; i++)
        field[i] = sin(0.001 * (double)i);
    fx->rec.field = field;
    fx->rec.field_dims[0] = NZ, fx->rec.field_dims[1] = NY, fx->rec.field_dims[2] = NX;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fill)(struct io_fixture *);
        void (*adjust)(struct io_fixture *);
        hsize_t chunk[3];
    } modes[] = {
        { "full", io_fixture_full, NULL, { FX_NY, FX_NX } },
        { "minimal", io_fixture_minimal, NULL, { 0 } },
        { "field3d", io_fixture_full, use_field3d, { 1, 218, 600 } },
    };
    size_t m = 0;
    while (m < sizeof modes / sizeof modes[0] && (argc < 2 || strcmp(argv[1], modes[m].name)))
        m++;
    if (m == sizeof modes / sizeof modes[0]) {
        fprintf(stderr, "usage: %s full|minimal|field3d\n", argv[0]);
        return 2;
    }
    static struct io_fixture fx;
    modes[m].fill(&fx);
    if (modes[m].adjust)
        modes[m].adjust(&fx);

    char dir[4096], path[4200];
    io_dir_make(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/run.h5", dir);
    struct ts_error err = { 0 };
    CHECK(ts_output_check(path, &err) == TS_OK && io_dir_entries(dir) == 0,
          "ts_output_check refused or left its probe: %s", err.message);
    int st = ts_record_write(&fx.rec, path, &err);
    CHECK(st == TS_OK, "ts_record_write failed: %s", err.message);
    CHECK(io_dir_entries(dir) == 1, "temporary files left beside the output");

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "written file does not open");
    if (f >= 0) {
        check_root(f, &fx.rec);
        check_config(f, &fx.rec);
        check_topology(f, &fx);
        check_threads(f, &fx);
        check_timings(f, &fx);
        check_results(f, &fx);
        check_field(f, &fx.rec, modes[m].chunk);
        check_warnings(f, &fx.rec);
        check_summary_and_machine(f, &fx.rec);
        check_init(f, &fx.rec);
        H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_NATIVE, units_everywhere, NULL, H5O_INFO_BASIC);
        H5Fclose(f);
    }
    io_dir_remove(dir);
    return ts_test_finish();
}

#include "io_fixture.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts_section.h"

/* Non-ASCII on purpose: the file promises UTF-8 strings. */
const char io_config_text[] = "[run]\nkernel = stencil2d\n# grid in µm-free units\n"
                              "[grid]\nnx = 5\nny = 4\n";

static void set_attr(struct ts_attr *a, const char *name, const char *value)
{
    snprintf(a->name, sizeof a->name, "%s", name);
    snprintf(a->value, sizeof a->value, "%s", value);
}

static void fill_topology(struct io_fixture *f)
{
    for (int i = 0; i < FX_NUMA; i++) {
        f->numa[i] = (struct ts_numa_rec){ .os_index = i, .memory_bytes = (uint64_t)(i + 1) << 33 };
        snprintf(f->numa[i].cpus, sizeof f->numa[i].cpus, i == 0 ? "0-1" : "2-3");
        for (int j = 0; j < FX_NUMA; j++)
            f->distances[i * FX_NUMA + j] = i == j ? 10 : 21;
    }
    for (int c = 0; c < 4; c++) {
        f->cores[c] = (struct ts_core_rec){ .index = c, .os_index = 100 + c, .package = c / 2, .numa = c / 2 };
        snprintf(f->cores[c].cpus, sizeof f->cores[c].cpus, "%d", c);
    }
    f->caches[0] = (struct ts_cache_rec){ 1, "data", 32768, 64, 4 };
    f->caches[1] = (struct ts_cache_rec){ 2, "unified", 1048576, 64, 4 };
    f->caches[2] = (struct ts_cache_rec){ 3, "unified", 33554432, 64, 2 };
    f->topo = (struct ts_topology_rec){ .n_packages = 2,
                                        .n_cores = 4,
                                        .n_pus = 4,
                                        .n_numa = FX_NUMA,
                                        .numa = f->numa,
                                        .distances = f->distances,
                                        .n_cores_rec = 4,
                                        .cores = f->cores,
                                        .n_caches = 3,
                                        .caches = f->caches,
                                        .cache_line_bytes = 64,
                                        .cache_line_source = "hwloc L1d",
                                        .hwloc_version = "2.9.0" };
}

static void fill_threads(struct io_fixture *f)
{
    for (int t = 0; t < FX_THREADS; t++) {
        f->threads[t] = (struct ts_thread_rec){ .thread = t,
                                                .place = t,
                                                .cpu_start = t + 1,
                                                .cpu_end = t + 1,
                                                .core = t + 1,
                                                .node = t == 0 ? 0 : 1,
                                                .counted_for_node = t == 0 ? 0 : 1,
                                                .item_begin = 7 * t,
                                                .item_end = 7 * (t + 1) };
        snprintf(f->threads[t].place_cpus, sizeof f->threads[t].place_cpus, "{%d}", t + 1);
        snprintf(f->threads[t].affinity, sizeof f->threads[t].affinity, "%d", t + 1);
    }
    set_attr(&f->binding[0], "OMP_PLACES", "cores");
    set_attr(&f->binding[1], "OMP_PROC_BIND", "close");
}

static void fill_timings(struct io_fixture *f)
{
    for (int i = 0; i < FX_WARMUP; i++)
        f->warmup[i] = 0.01 + 0.001 * i;
    for (int i = 0; i < FX_ITER; i++)
        f->iteration[i] = 0.002 + 0.0001 * i;
    for (int t = 0; t < FX_THREADS; t++)
        for (int i = 0; i < FX_ITER; i++)
            f->thread_iteration[t * FX_ITER + i] = 0.001 * (t + 1) + 0.0001 * i;
    f->timings = (struct ts_timings_rec){ .allocation = 0.5,
                                          .init = 0.25,
                                          .kernel = 0.125,
                                          .combine = 1e-6,
                                          .verify = 0.0625,
                                          .write = 0.03125,
                                          .total = 1.5,
                                          .startup = 0.006,
                                          .reexec = 0.009,
                                          .setup = 0.002,
                                          .plan = 0.003,
                                          .finish = 0.001,
                                          .wall = 1.53,
                                          .checkpoint = 0.004,
                                          .timer_resolution = 1e-9,
                                          .n_warmup = FX_WARMUP,
                                          .n_iterations = FX_ITER,
                                          .warmup = f->warmup,
                                          .iteration = f->iteration,
                                          .thread_iteration = f->thread_iteration };
}

static void fill_results(struct io_fixture *f)
{
    for (int t = 0; t < FX_THREADS; t++)
        f->thread_partials[t] = 1.5 * (t + 1);
    f->node_ids[0] = 0;
    f->node_ids[1] = 1;
    f->node_partials[0] = 1.5;
    f->node_partials[1] = 7.5;
    f->results = (struct ts_results_rec){ .kernel = "stencil2d",
                                          .unit = "lattice update",
                                          .byte_model = "2 loads + 1 store",
                                          .result_name = "sum of u^2",
                                          .n = 0,
                                          .nx = FX_NX,
                                          .ny = FX_NY,
                                          .nz = 1,
                                          .n_threads = FX_THREADS,
                                          .init_mode = "parallel",
                                          .global = 9.0,
                                          .thread_partials = f->thread_partials,
                                          .n_nodes = FX_NUMA,
                                          .node_ids = f->node_ids,
                                          .node_partials = f->node_partials,
                                          .units_per_iteration = FX_NX * FX_NY,
                                          .bytes_per_unit = 24.0,
                                          .flops_per_unit = 6.0,
                                          .time_min = 0.002,
                                          .time_median = 0.0022,
                                          .time_max = 0.0024,
                                          .gbs_best = 0.24,
                                          .gbs_median = 0.2,
                                          .gflops_best = 0.06,
                                          .gflops_median = 0.05,
                                          .glups_best = 0.01,
                                          .glups_median = 0.009 };
    f->verification = (struct ts_verification_rec){ .expected = 9.0,
                                                    .observed = 9.0,
                                                    .error = 0.0,
                                                    .tolerance = 1e-12,
                                                    .passed = 1,
                                                    .checked = 20,
                                                    .failures = 0,
                                                    .method = "closed form" };
}

void io_fixture_full(struct io_fixture *f)
{
    memset(f, 0, sizeof *f);
    fill_topology(f);
    fill_threads(f);
    fill_timings(f);
    fill_results(f);
    set_attr(&f->config[0], "run.kernel", "stencil2d");
    set_attr(&f->config[1], "grid.nx", "5");
    set_attr(&f->config[2], "grid.ny", "4");
    set_attr(&f->environment[0], "OMP_NUM_THREADS", "3");
    set_attr(&f->environment[1], "SLURM_JOB_ID", "4242");
    for (int i = 0; i < FX_NY * FX_NX; i++)
        f->field[i] = 0.5 * i - 1.0;
    f->warnings[0] = "OMP_PLACES unset: using cores";
    f->warnings[1] = "node 1 has 2 threads, node 0 has 1";
    f->summary[0] = "touchstone 0.1.0: stencil2d, 5 x 4 grid";
    f->summary[1] = "  output     run.h5";
    for (int t = 0; t < FX_THREADS; t++)
        f->counter_rows[t] =
            (struct ts_counter_row){ 10 + t, t, 2 * t, 3 * t, -1, 0.125 * (t + 1), 0.0625 * (t + 1), 0.001 * (t + 1) };
    f->machine = (struct ts_machine_rec){ .cpus = "1-3",
                                          .n_cpus = 3,
                                          .online_cpus = 4,
                                          .elapsed = 0.5,
                                          .own_cpu = 1.25,
                                          .busy = 1.375,
                                          .others_cpu = 0.125,
                                          .steal = 0.0625,
                                          .clock_tick = 0.01,
                                          .load_start = 0.5,
                                          .load_end = 3.25 };
    f->init_machine = f->machine;
    f->init_machine.elapsed = 0.25;
    f->init_machine.own_cpu = 0.5;
    f->init_machine.busy = 0.5;
    f->init_machine.others_cpu = 0;
    f->init_machine.steal = 0;
    f->init_memory = (struct ts_init_memory_rec){ .elapsed = 0.25,
                                                  .thp_fault_alloc = 96,
                                                  .thp_fault_fallback = 0,
                                                  .thp_fault_fallback_charge = -1,
                                                  .compact_stall = 0,
                                                  .compact_fail = 0,
                                                  .compact_success = 0,
                                                  .allocstall = 0,
                                                  .pgfault = 250,
                                                  .pgmajfault = 1,
                                                  .memory_stall = 0.0009765625 };
    f->counters = (struct ts_counters_rec){ .n_threads = FX_THREADS,
                                            .init = f->counter_rows,
                                            .kernel = f->counter_rows,
                                            .migrations_source = "unavailable",
                                            .machine = &f->machine,
                                            .init_machine = &f->init_machine,
                                            .init_memory = &f->init_memory };
    f->rec = (struct ts_record){ .program_version = "0.1.0",
                                 .command_line = "touchstone run configs/x.ini --set a=b",
                                 .host = "node-7",
                                 .start_time = "2024-05-01T12:00:00Z",
                                 .config = f->config,
                                 .n_config = 3,
                                 .config_path = "configs/x.ini",
                                 .config_text = io_config_text,
                                 .config_overrides = "a=b\n",
                                 .environment = f->environment,
                                 .n_environment = 2,
                                 .binding = f->binding,
                                 .n_binding = 2,
                                 .topology = &f->topo,
                                 .threads = f->threads,
                                 .n_threads = FX_THREADS,
                                 .timings = &f->timings,
                                 .results = &f->results,
                                 .verification = &f->verification,
                                 .field = f->field,
                                 .field_dims = { 1, FX_NY, FX_NX },
                                 .warnings = f->warnings,
                                 .n_warnings = 2,
                                 .counters = &f->counters,
                                 .summary = f->summary,
                                 .n_summary = 2 };
}

void io_fixture_minimal(struct io_fixture *f)
{
    static char big_text[200001];
    memset(big_text, 'x', sizeof big_text - 1);
    for (size_t i = 79; i < sizeof big_text - 1; i += 80)
        big_text[i] = '\n';
    io_fixture_full(f);
    f->rec.config_text = big_text;
    f->rec.field = NULL;
    f->rec.warnings = NULL;
    f->rec.n_warnings = 0;
    f->rec.counters = NULL;
    f->rec.summary = NULL;
    f->rec.n_summary = 0;
    f->results.kernel = "sum";
    f->results.unit = "element";
    f->results.glups_best = NAN;
    f->results.glups_median = NAN;
}

void io_fixture_mpi(struct io_fixture *f)
{
    io_fixture_full(f);
    for (int k = 0; k < FX_THREADS; k++) {
        const char *host = k < 2 ? "node-a" : "node-b";
        f->threads[k].rank = k;
        f->threads[k].local_rank = k < 2 ? k : 0;
        snprintf(f->threads[k].host, sizeof f->threads[k].host, "%s", host);
        for (int i = 0; i < FX_ITER; i++) {
            f->rank_iteration[k * FX_ITER + i] = (double)(2 + i + k) / 1024.0;
            f->rank_halo_iteration[k * FX_ITER + i] = 1.0 / 4096.0;
        }
        f->ranks[k] =
            (struct ts_rank_rec){ .rank = k,
                                  .local_rank = f->threads[k].local_rank,
                                  .boot_id = "0b5e55ed-0000-4000-8000-000000000001",
                                  .n_threads = 1,
                                  .first_thread = k,
                                  .coords = { k, 0, 0 },
                                  .own_begin = { 1 + k, 1, 0 },
                                  .own_end = { 2 + k, FX_NY - 1, 1 },
                                  .partial = 1.5 * (k + 1),
                                  .time_min = (double)(2 + k) / 1024.0,
                                  .time_median = (double)(4 + k) / 1024.0,
                                  .time_max = (double)(2 + FX_ITER - 1 + k) / 1024.0,
                                  .halo = FX_ITER / 4096.0,
                                  .reduction = 1.0 / 65536.0,
                                  .allocation = (k + 1) / 8192.0,
                                  .init = (k + 1) / 256.0,
                                  .kernel = (double)(FX_ITER * (2 + k) + FX_ITER * (FX_ITER - 1) / 2) / 1024.0,
                                  .combine = (k + 1) / 32768.0,
                                  .result = 0.0,
                                  .verify = (k + 1) / 128.0,
                                  .placement = (k + 1) / 2048.0,
                                  .total = 1.0 + k / 64.0 };
        snprintf(f->ranks[k].host, sizeof f->ranks[k].host, "%s", host);
    }
    f->mpi = (struct ts_mpi_rec){ .size = FX_THREADS,
                                  .n_hosts = 2,
                                  .shared_kernel = 1,
                                  .launcher = "OMPI_COMM_WORLD_SIZE=3",
                                  .library = "Open MPI v4.1.4, package: Debian OpenMPI",
                                  .thread_level = "MPI_THREAD_FUNNELED",
                                  .decomposition = "3x1",
                                  .ranks = f->ranks,
                                  .n_iterations = FX_ITER,
                                  .rank_iteration = f->rank_iteration,
                                  .rank_halo_iteration = f->rank_halo_iteration };
    f->rec.mpi = &f->mpi;
}

void io_dir_make(char *dir, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, size, "%s/ts-io-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
}

void io_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    closedir(d);
    rmdir(dir);
}

int io_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

long io_stderr_bytes(void (*fn)(void *), void *arg)
{
    fflush(stderr);
    FILE *scratch = tmpfile();
    int saved = dup(2);
    if (!scratch || saved < 0 || dup2(fileno(scratch), 2) < 0) {
        perror("redirecting stderr");
        exit(1);
    }
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long bytes = lseek(fileno(scratch), 0, SEEK_END);
    fclose(scratch);
    return bytes;
}

/* A text of the fixture's sections: plain, or with markup and quotes around it. */
static void hostile_text(char *buf, size_t size, int hostile, const char *plain)
{
    if (hostile)
        snprintf(buf, size, "<script>alert('%.60s')</script>\"&amp;<b>", plain);
    else
        snprintf(buf, size, "%.60s", plain);
}

static void section_texts(struct ts_survey_section *x, int hostile, const char *what)
{
    char t[96];
    snprintf(t, sizeof t, "%s title", what);
    hostile_text(x->title, sizeof x->title, hostile, t);
    snprintf(t, sizeof t, "touchstone survey --sections %s --quick -o 'd i r'", what);
    hostile_text(x->command, sizeof x->command, hostile, t);
    hostile_text(x->conditions, sizeof x->conditions, hostile, "thp=madvise; numa_balancing=0; others 0.8%");
    snprintf(t, sizeof t, "%s: peak 24.1 GB/s; 90%% at 1 core", what);
    hostile_text(x->summary, sizeof x->summary, hostile, t);
    hostile_text(x->note, sizeof x->note, hostile, "one point not measured (NaN): too short to time");
    x->seconds = 1.5;
}

static void sweep_section(struct ts_survey_section *x, int hostile)
{
    struct ts_error err = { 0 };
    ts_section_init(x, "sweep", "");
    section_texts(x, hostile, "sweep");
    const int bytes = ts_section_num(x, "bytes", "B", &err), kernel = ts_section_text(x, "kernel", &err);
    const int gbs = ts_section_num(x, "gbs", hostile ? "<GB/s>" : "GB/s", &err);
    REQUIRE(bytes >= 0 && kernel >= 0 && gbs >= 0 && ts_section_rows(x, 6, &err) == TS_OK, "sweep: %s", err.message);
    for (int r = 0; r < 6; r++) {
        ts_section_set(x, bytes, r, 16384.0 * (1 << (4 * (r % 3))));
        ts_section_set_text(x, kernel, r, r < 3 ? (hostile ? "<i>read</i>" : "read") : "copy");
        ts_section_set(x, gbs, r, r == 4 ? NAN : 40.0 - 5 * r);
    }
    ts_section_set_text(x, kernel, 5, "\xff\xfe"); /* invalid UTF-8: read back as "??" */
    struct ts_section_plot *p =
        ts_section_add_plot(x, TS_SECTION_LINES, hostile ? "<b>bandwidth</b>" : "bandwidth", "bytes", "gbs");
    REQUIRE(p, "sweep: no plot");
    snprintf(p->series, sizeof p->series, "kernel");
    p->log_x = 1;
    p = ts_section_add_plot(x, TS_SECTION_BARS, "by kernel", "kernel", "gbs");
    REQUIRE(p, "sweep: no second plot");
    ts_section_set_fact(x, "llc_bytes", 33554432, "B");
    ts_section_set_fact(x, "peak_gbs", NAN, hostile ? "<GB/s>" : "GB/s");
}

static void c2c_section(struct ts_survey_section *x, int hostile)
{
    struct ts_error err = { 0 };
    ts_section_init(x, "c2c", "");
    section_texts(x, hostile, "c2c");
    const int a = ts_section_num(x, "cpu_a", "", &err), b = ts_section_num(x, "cpu_b", "", &err);
    const int na = ts_section_num(x, "node_a", "", &err), ca = ts_section_num(x, "core_a", "", &err);
    const int nb = ts_section_num(x, "node_b", "", &err), ns = ts_section_num(x, "ns", "ns", &err);
    REQUIRE(a >= 0 && b >= 0 && na >= 0 && ca >= 0 && nb >= 0 && ns >= 0 && ts_section_rows(x, 16, &err) == TS_OK,
            "c2c: %s", err.message);
    for (int r = 0; r < 16; r++) {
        const int i = r / 4, j = r % 4;
        ts_section_set(x, a, r, i);
        ts_section_set(x, b, r, j);
        ts_section_set(x, na, r, i / 2);
        ts_section_set(x, ca, r, i);
        ts_section_set(x, nb, r, j / 2);
        ts_section_set(x, ns, r, i == j ? NAN : (i / 2 == j / 2 ? 40 : 120) + r);
    }
    struct ts_section_plot *p =
        ts_section_add_plot(x, TS_SECTION_HEAT, hostile ? "<b>core to core</b>" : "core to core", "cpu_b", "cpu_a");
    REQUIRE(p, "c2c: no plot");
    snprintf(p->value, sizeof p->value, "ns");
    snprintf(p->boundaries, sizeof p->boundaries, "node_a,core_a");
    ts_section_set_fact(x, "same_node_ns", 41, "ns");
    ts_section_set_fact(x, "cross_node_ns", 122, "ns");
    x->placed_fraction = 0.5;
    x->misplaced = 1;
    x->disturbed = 1;
}

static void stream_section(struct ts_survey_section *x, int hostile)
{
    struct ts_error err = { 0 };
    ts_section_init(x, "stream", "");
    section_texts(x, hostile, "stream");
    const int kernel = ts_section_text(x, "kernel", &err), place = ts_section_text(x, "placement", &err);
    const int gbs = ts_section_num(x, "gbs", "GB/s", &err);
    REQUIRE(kernel >= 0 && place >= 0 && gbs >= 0 && ts_section_rows(x, 4, &err) == TS_OK, "stream: %s", err.message);
    static const char *const kernels[] = { "copy", "scale" };
    for (int r = 0; r < 4; r++) {
        ts_section_set_text(x, kernel, r, kernels[r % 2]);
        ts_section_set_text(x, place, r, r < 2 ? "local" : (hostile ? "<remote>" : "remote"));
        ts_section_set(x, gbs, r, 20.0 - r);
    }
    struct ts_section_plot *p = ts_section_add_plot(x, TS_SECTION_BARS, "STREAM", "kernel", "gbs");
    REQUIRE(p, "stream: no plot");
    snprintf(p->series, sizeof p->series, "placement");
    ts_section_set_fact(x, "triad_gbs", 18.5, "GB/s");
    x->placed_fraction = 1;
    x->disturbed = 0;
}

void io_fixture_sections(struct ts_survey_rec *s, int hostile)
{
    s->n_sections = 3;
    s->sections = calloc(3, sizeof *s->sections);
    REQUIRE(s->sections, "no memory");
    sweep_section(&s->sections[0], hostile);
    c2c_section(&s->sections[1], hostile);
    stream_section(&s->sections[2], hostile);
}

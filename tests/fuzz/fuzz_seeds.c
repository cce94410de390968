/* Writes the seeds of the run_read and checkpoint harnesses with touchstone's own writers, from
 * fixed synthetic records, so that their bytes are the same on every run and every machine
 * (the writers leave out HDF5's object times; every value is plain arithmetic, no libm):
 *   fuzz_seeds DIR
 * DIR/checkpoint: one checkpoint per run of checkpoint_cases.h, one with no step done, and a
 * run file; DIR/run_read: a run file of each kernel (tests/io/io_fixture.c's records, varied
 * to hold what real runs write: a 2D and a 3D field, placement audits, a job, a restart, a run
 * stopped early, a run of 3 MPI ranks), and a checkpoint. `make fuzz` adds files of real runs (seeds.sh fresh).
 * Each file is written twice and must come out the same both times, and hold no object
 * modification time (HDF5 stores them to the second: a second write in the same second would
 * not see them). Exit status 1 otherwise, or when a write fails. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint_cases.h"
#include "io_fixture.h"
#include "ts_section.h"
#include "ts_survey_file.h"
#include "ts_checkpoint.h"
#include "ts_h5_write.h"

/* A smooth field of exactly representable values, the same on every libm. */
static double wave(size_t i)
{
    return (double)(i % 23) / 8.0 - 1.375;
}

/* The whole file at path, malloc'd, its size in *size; NULL when it cannot be read. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bytes = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (bytes = malloc((size_t)n + 1)) && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    if (f)
        fclose(f);
    *size = (size_t)n;
    return bytes;
}

static herr_t timed_object(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    (void)obj;
    if (info->atime || info->mtime || info->ctime || info->btime) {
        fprintf(stderr, "fuzz_seeds: %s: object %s holds a modification time\n", (const char *)data, name);
        return 1;
    }
    return 0;
}

/* Two writes of path (the second one's name is path with "~") hold the same bytes, and no
 * object of it a time. Removes the second one. */
static int reproducible(const char *path, const char *again)
{
    size_t n1 = 0, n2 = 0;
    unsigned char *one = slurp(path, &n1), *two = slurp(again, &n2);
    int status = 0;
    if (!one || !two || n1 != n2 || memcmp(one, two, n1) != 0) {
        fprintf(stderr, "fuzz_seeds: %s: two writes of the same record differ\n", path);
        status = 1;
    }
    free(one);
    free(two);
    unlink(again);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0 || H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, timed_object, (void *)path, H5O_INFO_TIME) != 0)
        status = 1;
    if (file >= 0)
        H5Fclose(file);
    return status;
}

static int write_case(const char *dir, const struct ckpt_case *c, int64_t steps_done)
{
    struct ts_attr config[6] = { { "", "" } };
    int32_t n = 0;
    for (; n < 4; n++) {
        snprintf(config[n].name, sizeof config[n].name, "%s", c->keys[n][0]);
        snprintf(config[n].value, sizeof config[n].value, "%s", c->keys[n][1]);
    }
    snprintf(config[n].name, sizeof config[n].name, "openmp.threads");
    snprintf(config[n++].value, sizeof config[0].value, "%d", c->n_threads);
    snprintf(config[n].name, sizeof config[n].name, "output.file");
    snprintf(config[n++].value, sizeof config[0].value, "run-%s.h5", c->kernel);

    size_t cells = (size_t)(c->field_dims[0] * c->field_dims[1] * c->field_dims[2]);
    size_t steps_max = (size_t)(c->n_warmup + c->n_iterations);
    size_t thread_values = (size_t)c->n_threads * (size_t)c->n_iterations;
    double *field = cells ? malloc(cells * sizeof *field) : NULL;
    double *steps = malloc(steps_max * sizeof *steps), *threads = malloc(thread_values * sizeof *threads);
    for (size_t i = 0; i < cells; i++)
        field[i] = wave(i);
    for (size_t i = 0; i < steps_max; i++)
        steps[i] = 1e-3 * (double)(i + 1);
    for (size_t i = 0; i < thread_values; i++)
        threads[i] = i % 3 ? 1e-3 * (double)i : NAN; /* NaN: an iteration not done yet */

    char text[256];
    snprintf(text, sizeof text, "[run]\nkernel = %s\n", c->kernel);
    struct ts_checkpoint ck = {
        .kernel = c->kernel,
        .steps_done = steps_done,
        .n_warmup = c->n_warmup,
        .n_iterations = c->n_iterations,
        .n_threads = c->n_threads,
        .config = config,
        .n_config = n,
        .config_text = text,
        .step_times = steps,
        .thread_times = threads,
        .field = field,
        .field_dims = { c->field_dims[0], c->field_dims[1], c->field_dims[2] },
    };
    char path[4096], again[4100];
    snprintf(path, sizeof path, "%s/ckpt-%s-%lld.h5", dir, c->kernel, (long long)steps_done);
    snprintf(again, sizeof again, "%s~", path);
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_checkpoint_write(&ck, path, &err) || ts_checkpoint_write(&ck, again, &err);
    if (status != TS_OK)
        fprintf(stderr, "fuzz_seeds: %s\n", err.message);
    else
        status = reproducible(path, again);
    free(field);
    free(steps);
    free(threads);
    return status;
}

/* A page-placement audit of the fixture's 3 threads on its 2 nodes, n_arrays arrays. */
struct audit {
    struct ts_placement_rec rec;
    int32_t node_ids[FX_NUMA], thread_node[FX_THREADS];
    int64_t pages[FX_THREADS], local[FX_THREADS], thread_node_pages[FX_THREADS * FX_NUMA];
    double fraction[FX_THREADS];
    int64_t array_node_pages[3 * FX_NUMA], absent[3], errors[3];
};

static void fill_audit(struct audit *a, const char *after, int32_t n_arrays, int64_t shift)
{
    for (int n = 0; n < FX_NUMA; n++)
        a->node_ids[n] = n;
    for (int t = 0; t < FX_THREADS; t++) {
        a->thread_node[t] = t == 0 ? 0 : 1;
        a->pages[t] = 16;
        a->local[t] = 16 - shift * t;
        a->fraction[t] = (double)a->local[t] / 16.0;
        a->thread_node_pages[t * FX_NUMA + a->thread_node[t]] = a->local[t];
        a->thread_node_pages[t * FX_NUMA + 1 - a->thread_node[t]] = 16 - a->local[t];
    }
    for (int k = 0; k < n_arrays; k++) {
        a->array_node_pages[k * FX_NUMA] = 16 - shift;
        a->array_node_pages[k * FX_NUMA + 1] = 32 + shift;
        a->absent[k] = k;
        a->errors[k] = 0;
    }
    a->rec = (struct ts_placement_rec){ .measured_after = after,
                                        .policy = "firsttouch",
                                        .sample_stride = 1,
                                        .page_size = 4096,
                                        .granule_bytes = 4096,
                                        .requested_page_size = 4096,
                                        .madvise = "none",
                                        .n_nodes = FX_NUMA,
                                        .node_ids = a->node_ids,
                                        .n_threads = FX_THREADS,
                                        .thread_node = a->thread_node,
                                        .thread_pages = a->pages,
                                        .thread_local_pages = a->local,
                                        .thread_local_fraction = a->fraction,
                                        .thread_node_pages = a->thread_node_pages,
                                        .n_arrays = n_arrays,
                                        .array_node_pages = a->array_node_pages,
                                        .array_absent_pages = a->absent,
                                        .array_error_pages = a->errors,
                                        .local_fraction = (48.0 - 3.0 * (double)shift) / 48.0,
                                        .time = 0.001 };
}

static struct ts_job_rec slurm_job(int32_t restarted, int64_t steps_before)
{
    return (struct ts_job_rec){ .under_slurm = 1,
                                .job_id = "4242",
                                .array_job_id = "4240",
                                .array_task_id = "2",
                                .node_list = "node-[7-8]",
                                .cpus_on_node = "4",
                                .cpus_per_task = "4",
                                .partition = "batch",
                                .restart_count = restarted ? "1" : "0",
                                .cpu_mask = "0-3",
                                .restarted = restarted,
                                .restarted_from = restarted ? "run.ckpt.h5" : "",
                                .steps_before_restart = steps_before };
}

/* The config keys a reader of run files needs, for kernel. */
static void configure(struct io_fixture *f, const char *kernel)
{
    static struct ts_attr config[4];
    const char *pairs[4][2] = { { "run.kernel", kernel },
                                { "init.policy", "firsttouch" },
                                { "init.huge_pages", "never" },
                                { "openmp.threads", "3" } };
    for (int i = 0; i < 4; i++) {
        snprintf(config[i].name, sizeof config[i].name, "%s", pairs[i][0]);
        snprintf(config[i].value, sizeof config[i].value, "%s", pairs[i][1]);
    }
    f->rec.config = config;
    f->rec.n_config = 4;
}

/* Times in 1/1024 s, exact in binary: /results' statistics are exactly those of the iterations. */
static void time_exactly(struct io_fixture *f)
{
    for (int i = 0; i < FX_WARMUP; i++)
        f->warmup[i] = (double)(8 - i) / 1024.0;
    for (int i = 0; i < FX_ITER; i++)
        f->iteration[i] = (double)(2 + i) / 1024.0;
    for (int t = 0; t < FX_THREADS; t++)
        for (int i = 0; i < FX_ITER; i++)
            f->thread_iteration[t * FX_ITER + i] = (double)(1 + i) / 1024.0 + (double)t / 4096.0;
    f->results.time_min = 2.0 / 1024.0;
    f->results.time_median = 4.0 / 1024.0;
    f->results.time_max = 6.0 / 1024.0;
}

/* A complete run of kernel unless the caller says otherwise after. */
static void whole_run(struct io_fixture *f, const char *kernel)
{
    configure(f, kernel);
    time_exactly(f);
    f->rec.complete = 1;
    f->rec.steps_done = f->rec.steps_planned = FX_WARMUP + FX_ITER;
}

static int write_run(const char *dir, const char *name, const struct ts_record *rec)
{
    char path[4096], again[4100];
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    snprintf(again, sizeof again, "%s~", path);
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_record_write(rec, path, &err) || ts_record_write(rec, again, &err);
    if (status != TS_OK)
        fprintf(stderr, "fuzz_seeds: %s\n", err.message);
    return status != TS_OK ? status : reproducible(path, again);
}

/* Points the fixture's results at a 1D kernel of n elements, without a field. */
static void one_dimensional(struct io_fixture *f, const char *kernel, int64_t n)
{
    f->results.kernel = kernel;
    f->results.unit = "element";
    f->results.n = n;
    f->results.nx = f->results.ny = f->results.nz = 0;
    f->results.units_per_iteration = n;
    f->results.glups_best = f->results.glups_median = NAN;
    f->rec.field = NULL;
}

/* all: every run; else the stencil2d run only. */
static int write_runs(const char *dir, int all)
{
    static struct io_fixture f;
    static struct audit init, end;
    int status = 0;

    /* stencil2d: everything the fixture has (a 4 x 5 field, counters with the machine's, warnings). */
    io_fixture_full(&f);
    whole_run(&f, "stencil2d");
    struct ts_job_rec job = slurm_job(0, 0);
    f.rec.job = &job;
    status |= write_run(dir, all ? "stencil2d" : "run-stencil2d", &f.rec);
    if (!all)
        return status;

    /* stencil2d by 3 ranks on 2 host names of one kernel (schema 3: /mpi, the rank columns). */
    io_fixture_mpi(&f);
    whole_run(&f, "stencil2d");
    fill_audit(&init, "init", 1, 0);
    static const int32_t thread_rank[FX_THREADS] = { 0, 1, 2 };
    init.rec.thread_rank = thread_rank;
    f.rec.placement = &init.rec;
    status |= write_run(dir, "stencil2d-mpi", &f.rec);

    /* stencil3d: a 2 x 3 x 4 field, blocked, audited after init and at the end, restarted: the
     * first two iterations have no per-thread times. */
    static double field[2 * 3 * 4];
    io_fixture_full(&f);
    whole_run(&f, "stencil3d");
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++)
        field[i] = wave(i);
    f.rec.field = field;
    f.rec.field_dims[0] = 2, f.rec.field_dims[1] = 3, f.rec.field_dims[2] = 4;
    f.results.kernel = "stencil3d";
    f.results.nx = 4, f.results.ny = 3, f.results.nz = 2;
    f.results.block_y = 2;
    f.results.variant = "blocked";
    for (int t = 0; t < FX_THREADS; t++)
        f.thread_iteration[t * FX_ITER] = f.thread_iteration[t * FX_ITER + 1] = NAN;
    job = slurm_job(1, FX_WARMUP + 2);
    f.rec.job = &job;
    fill_audit(&init, "init", 1, 0);
    fill_audit(&end, "kernel", 1, 2);
    f.rec.placement = &init.rec;
    f.rec.placement_end = &end.rec;
    snprintf(f.topo.thp_enabled, sizeof f.topo.thp_enabled, "madvise");
    status |= write_run(dir, "stencil3d", &f.rec);

    /* triad: three arrays audited, counters without the machine's, no warnings. */
    io_fixture_full(&f);
    whole_run(&f, "triad");
    one_dimensional(&f, "triad", 3000);
    f.results.variant = "nontemporal stores";
    f.results.working_set_bytes = 72000;
    f.results.llc_bytes = 33554432;
    f.counters.machine = NULL;
    f.rec.warnings = NULL;
    f.rec.n_warnings = 0;
    fill_audit(&init, "init", 3, 1);
    f.rec.placement = &init.rec;
    status |= write_run(dir, "triad", &f.rec);

    /* sum: no field, counters, warnings or summary, and stopped by a signal after 3 of its 7 steps. */
    io_fixture_minimal(&f);
    whole_run(&f, "sum");
    one_dimensional(&f, "sum", 1000);
    f.rec.config_text = io_config_text; /* the minimal record's 200 kB text is past the fuzzers' max_len */
    f.rec.complete = 0;
    f.rec.steps_done = 3;
    f.rec.steps_planned = FX_WARMUP + FX_ITER;
    status |= write_run(dir, "sum", &f.rec);
    return status;
}

/* The survey_read seeds: a complete survey of 3 runs (one failed) with a 2 x 2 matrix (one
 * cell misplaced, one without 2 MiB pages), a verdict and three sections (lines, bars, a heat
 * map; texts, NaN, facts: io_fixture_sections), and the same survey interrupted (one section). */
static int write_surveys(const char *dir)
{
    static struct ts_survey_run runs[3];
    static struct ts_survey_cell cells[4];
    static int32_t nodes[2] = { 0, 1 };
    static const char *const names[] = { "stencil2d-init-parallel-t2", "stencil2d-init-serial-t2", "triad-scaling-t1" };
    for (int i = 0; i < 3; i++) {
        struct ts_survey_run *r = &runs[i];
        snprintf(r->name, sizeof r->name, "%s", names[i]);
        snprintf(r->file, sizeof r->file, "runs/%s.h5", names[i]);
        r->group = i < 2 ? TS_SURVEY_INIT : TS_SURVEY_SCALING;
        snprintf(r->kernel, sizeof r->kernel, "%s", i < 2 ? "stencil2d" : "triad");
        snprintf(r->variant, sizeof r->variant, "%s", i == 0 ? "parallel" : i == 1 ? "serial" : "threads=1");
        r->threads = i < 2 ? 2 : 1;
        snprintf(r->command, sizeof r->command,
                 "OMP_NUM_THREADS=%d OMP_PLACES=cores OMP_PROC_BIND=close touchstone run s/survey.ini -o s/%s",
                 r->threads, r->file);
        r->state = i == 1 ? TS_SURVEY_FAILED : TS_SURVEY_DONE;
        r->exit_status = i == 1 ? 2 : 0;
        r->seconds = 1.25 + i;
        r->time_median = i == 1 ? NAN : 0.0625 * (i + 1);
        r->gbs_median = i == 1 ? NAN : 16.5;
        r->local_fraction = i == 1 ? NAN : 1.0;
        r->repeat = 1;
        r->disturbed = i == 2 ? 1 : i == 1 ? -1 : 0;
        r->others_share = i == 1 ? NAN : 0.25 * i;
        r->load_excess = i == 1 ? NAN : 1.5;
        snprintf(r->disturbed_why, sizeof r->disturbed_why, "%s",
                 i == 2 ? "other processes took 50.0% of the CPUs' time (above 5%)" : "");
    }
    for (int k = 0; k < 4; k++) {
        struct ts_survey_cell *c = &cells[k];
        c->cpu_node = k / 2;
        c->mem_node = k % 2;
        c->threads = 2;
        snprintf(c->cpus, sizeof c->cpus, "%s", k < 2 ? "0-1" : "2-3");
        c->latency_ns = c->cpu_node == c->mem_node ? 90.5 : 141.25;
        c->latency_huge_ns = k == 3 ? NAN : 80.5;
        c->latency_loaded_ns = 120.0;
        c->read_gbs = 20.0;
        c->triad_gbs = 15.0;
        c->fraction = k == 2 ? 0.5 : 1.0;
        c->misplaced = k == 2;
        c->huge_granted = k != 3;
        if (k == 3)
            snprintf(c->note, sizeof c->note, "2 MiB pages asked, not granted");
    }
    static struct ts_survey_rec s;
    s = (struct ts_survey_rec){ .format = TS_SURVEY_FORMAT,
                                .mode = "quick",
                                .command = "touchstone survey -o s",
                                .program_version = "0.1.0",
                                .host = "node1",
                                .start_time = "2026-12-04T09:00:00Z",
                                .complete = 1,
                                .emulated = 1,
                                .emulated_why = "qemu's TCG emulates the CPU",
                                .array_bytes = 335544320,
                                .size_reason = "10x an assumed 32 MiB last-level cache",
                                .n_runs = 3,
                                .repeats = 1,
                                .runs = runs,
                                .has_matrix = 1,
                                .n_sentences = 2 };
    s.matrix = (struct ts_survey_matrix){ .n_cpu_nodes = 2,
                                          .n_mem_nodes = 2,
                                          .cpu_nodes = nodes,
                                          .mem_nodes = nodes,
                                          .cell = cells,
                                          .chase_bytes = 64 << 20,
                                          .stream_bytes = 64 << 20,
                                          .byte_model_read = "8 B/element",
                                          .byte_model_triad = "24 B/element",
                                          .misplaced_cells = 1 };
    snprintf(s.sentences[0].text, sizeof s.sentences[0].text, "Serial init costs 1.5x on stencil2d with 2 threads.");
    snprintf(s.sentences[0].sources, sizeof s.sentences[0].sources, "%s,%s", names[1], names[0]);
    snprintf(s.sentences[1].text, sizeof s.sentences[1].text, "Remote memory is 1.56x slower than local.");
    snprintf(s.sentences[1].sources, sizeof s.sentences[1].sources, "matrix");
    io_fixture_sections(&s, 0);
    const int n_sections = s.n_sections;
    int status = 0;
    for (int partial = 0; partial < 2; partial++) {
        if (partial) {
            s.complete = s.has_matrix = 0;
            s.n_sentences = 1;
            s.n_sections = 1;
            runs[2].state = TS_SURVEY_PENDING;
            runs[2].seconds = runs[2].time_median = runs[2].gbs_median = runs[2].local_fraction = NAN;
        }
        char path[4200], again[4210];
        snprintf(path, sizeof path, "%s/%s.h5", dir, partial ? "partial" : "complete");
        snprintf(again, sizeof again, "%s~", path);
        struct ts_error err;
        ts_error_clear(&err);
        int st = ts_survey_write(path, &s, &err) || ts_survey_write(again, &s, &err);
        if (st != TS_OK)
            fprintf(stderr, "fuzz_seeds: %s\n", err.message);
        status |= st != TS_OK ? st : reproducible(path, again);
    }
    for (int i = 0; i < n_sections; i++)
        ts_section_free(&s.sections[i]);
    free(s.sections);
    return status;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fprintf(stderr, "usage: fuzz_seeds DIR\n"), 2;
    char ckpt[4096], run[4096];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint", argv[1]);
    snprintf(run, sizeof run, "%s/run_read", argv[1]);
    int status = 0;
    for (size_t i = 0; i < N_CKPT_CASES; i++)
        status |= write_case(ckpt, &ckpt_cases[i], ckpt_cases[i].steps_done);
    status |= write_case(ckpt, &ckpt_cases[0], 0);
    status |= write_case(run, &ckpt_cases[0], ckpt_cases[0].steps_done);
    status |= write_runs(run, 1);
    status |= write_runs(ckpt, 0);
    char survey[4096];
    snprintf(survey, sizeof survey, "%s/survey_read", argv[1]);
    status |= write_surveys(survey);
    return status ? 1 : 0;
}

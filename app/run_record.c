#include "run_record.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ts_summary.h"

extern char **environ;

/* Variables that decide where threads run: the OpenMP runtime's and the batch system's. */
static const char *const recorded_prefixes[] = { "OMP_", "GOMP_", "SLURM_", "SRUN_", "SBATCH_" };

void ts_run_record_start(struct ts_run_record *rr)
{
    memset(rr, 0, sizeof *rr);
    time_t now = time(NULL);
    struct tm tm;
    strftime(rr->start_time, sizeof rr->start_time, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
}

void ts_run_record_warn(struct ts_run_record *rr, const char *text)
{
    int n = rr->rec.n_warnings;
    if (n >= 64)
        return;
    snprintf(rr->warning_text[n], sizeof rr->warning_text[n], "%s", text);
    rr->warnings[n] = rr->warning_text[n];
    rr->rec.warnings = rr->warnings;
    rr->rec.n_warnings = n + 1;
}

/* argv as a shell would need it typed again. */
static char *join_command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3;
    char *out = malloc(len), *p = out;
    if (!out)
        return NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int plain =
            a[0] != '\0'
            && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,%+@") == strlen(a);
        if (i > 0)
            *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++)
            p += *a == '\'' ? sprintf(p, "'\\''") : sprintf(p, "%c", *a);
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

/* The share of the watched CPUs' time other processes used during the iterations. */
static void others_busy(const struct ts_run_exec *ex, char *buf, size_t size)
{
    const struct ts_machine_rec *m = &ex->out.machine;
    if (ex->out.have_machine && m->elapsed > 0 && m->n_cpus > 0)
        snprintf(buf, size, "%.0f", 100.0 * m->others_cpu / (m->elapsed * m->n_cpus));
    else
        snprintf(buf, size, "unknown");
}

/* NUMA balancing on: what the two audits saw move, and the fix. */
static void balancing_warning(struct ts_run_record *rr, const struct ts_run_exec *ex)
{
    const struct ts_conditions *c = &ex->out.conditions;
    char *text = rr->condition_warnings[rr->n_condition_warnings++];
    const size_t len = sizeof rr->condition_warnings[0];
    const char *fix = "echo 0 > /proc/sys/kernel/numa_balancing (root), or run under numactl --membind";
    const int64_t audited = ex->out.pages_compared;
    if (ex->out.pages_moved >= 0)
        snprintf(text, len,
                 "kernel.numa_balancing is %s: the kernel moved at least %lld of %lld sampled pages (%.1f%%) "
                 "between the placement audit after init and the one after the last iteration%s; %s",
                 c->numa_balancing, (long long)ex->out.pages_moved, (long long)audited,
                 audited ? 100.0 * (double)ex->out.pages_moved / (double)audited : 0.0,
                 ex->in.ranks_ctx ? " (rank 0's pages)" : "", fix);
    else if (!ex->out.have_placement)
        snprintf(text, len,
                 "kernel.numa_balancing is %s: the kernel may move pages during the run, and without "
                 "placement.audit nothing counted them; %s",
                 c->numa_balancing, fix);
    else
        snprintf(text, len,
                 "kernel.numa_balancing is %s: the kernel may move pages during the run (the two placement "
                 "audits counted different pages and cannot say how many moved); %s",
                 c->numa_balancing, fix);
}

static int fill_environment(struct ts_run_record *rr, const struct ts_run_exec *ex)
{
    int count = TS_N_CONDITIONS;
    for (char **e = environ; *e; e++)
        count++;
    rr->environment = calloc((size_t)count + 1, sizeof *rr->environment);
    if (!rr->environment)
        return -1;
    int n = 0;
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        int wanted = 0;
        for (size_t p = 0; p < sizeof recorded_prefixes / sizeof recorded_prefixes[0]; p++)
            wanted |= strncmp(*e, recorded_prefixes[p], strlen(recorded_prefixes[p])) == 0;
        if (!wanted)
            continue;
        snprintf(rr->environment[n].name, sizeof rr->environment[n].name, "%.*s", (int)(eq - *e), *e);
        snprintf(rr->environment[n].value, sizeof rr->environment[n].value, "%s", eq + 1);
        n++;
    }
    char busy[32];
    others_busy(ex, busy, sizeof busy);
    n += ts_conditions_attrs(&ex->out.conditions, busy, rr->environment + n);
    rr->n_condition_warnings = 0;
    if (ts_conditions_balancing(&ex->out.conditions))
        balancing_warning(rr, ex);
    rr->n_condition_warnings += ts_conditions_warnings(
        &ex->out.conditions, rr->condition_warnings + rr->n_condition_warnings, 4 - rr->n_condition_warnings);
    rr->rec.environment = rr->environment;
    rr->rec.n_environment = n;
    return 0;
}

struct ts_attr *ts_config_attrs(const struct ts_config *cfg)
{
    size_t n = ts_config_key_count();
    struct ts_attr *attrs = calloc(n, sizeof *attrs);
    for (size_t i = 0; attrs && i < n; i++) {
        snprintf(attrs[i].name, sizeof attrs[i].name, "%s", ts_config_key_name(i));
        ts_config_value_string(cfg, i, attrs[i].value, sizeof attrs[i].value);
    }
    return attrs;
}

static int fill_config(struct ts_run_record *rr, const struct ts_config *cfg)
{
    size_t n = ts_config_key_count();
    rr->config = ts_config_attrs(cfg);
    size_t overrides_len = 1;
    for (int i = 0; i < cfg->n_sets; i++)
        overrides_len += strlen(cfg->sets[i]) + 1;
    rr->overrides = malloc(overrides_len);
    if (!rr->config || !rr->overrides)
        return -1;
    rr->overrides[0] = '\0';
    for (int i = 0; i < cfg->n_sets; i++) {
        strcat(rr->overrides, cfg->sets[i]);
        if (i + 1 < cfg->n_sets)
            strcat(rr->overrides, "\n");
    }
    rr->rec.config = rr->config;
    rr->rec.n_config = (int32_t)n;
    rr->rec.config_path = cfg->path;
    rr->rec.config_text = cfg->text ? cfg->text : "";
    rr->rec.config_overrides = rr->overrides;
    return 0;
}

static void add_binding(struct ts_run_record *rr, const char *name, const char *value)
{
    int n = rr->rec.n_binding;
    if (n >= (int)(sizeof rr->binding / sizeof rr->binding[0]))
        return;
    snprintf(rr->binding[n].name, sizeof rr->binding[n].name, "%s", name);
    snprintf(rr->binding[n].value, sizeof rr->binding[n].value, "%s", value);
    rr->rec.binding = rr->binding;
    rr->rec.n_binding = n + 1;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Timed iterations completed: all of them, unless a signal stopped the run early. */
static int64_t timed_done(const struct ts_run_exec *ex)
{
    int64_t done = ex->out.steps_done - ex->in.warmup;
    return done < 0 ? 0 : done < ex->in.iterations ? done : ex->in.iterations;
}

/* [thread][iteration] of the completed iterations only: rows are ex->in.iterations long. */
static double *completed_thread_times(const struct ts_run_exec *ex)
{
    size_t done = (size_t)timed_done(ex), n = (size_t)ex->in.n_threads;
    double *out = malloc((n * done > 0 ? n * done : 1) * sizeof *out);
    for (size_t t = 0; out && t < n; t++)
        memcpy(out + t * done, ex->out.thread_times + t * (size_t)ex->in.iterations, done * sizeof *out);
    return out;
}

static void fill_results(struct ts_run_record *rr, const struct ts_config *cfg, const struct ts_run_exec *ex)
{
    const struct ts_kernel *k = ex->in.rp->kernel;
    const struct ts_problem *pb = &ex->in.rp->problem;
    struct ts_results_rec *r = &rr->results;
    int is_stencil = k->id == TS_KERNEL_STENCIL2D || k->id == TS_KERNEL_STENCIL3D;

    r->kernel = k->name;
    r->unit = k->unit;
    r->result_name = k->result_name;
    r->n = is_stencil ? 0 : pb->n;
    r->nx = is_stencil ? pb->nx : 0;
    r->ny = is_stencil ? pb->ny : 0;
    r->nz = k->id == TS_KERNEL_STENCIL3D ? pb->nz : (is_stencil ? 1 : 0);
    r->n_threads = ex->in.n_threads;
    r->init_mode = cfg->init_mode;
    r->global = ex->out.global;
    const struct ts_run_world_rows *w = ex->out.world; /* across ranks: each rank writes its rows */
    r->rows_later = w != NULL;
    r->thread_partials = w ? NULL : ex->out.thread_partials;
    r->n_nodes = w ? w->n_nodes : ex->out.n_nodes;
    r->node_ids = w ? NULL : ex->out.node_ids;
    r->node_partials = w ? NULL : ex->out.node_partials;
    r->units_per_iteration = ex->in.rp->plan.units_per_step;
    r->bytes_per_unit = ts_kernel_bytes_per_unit(k, pb, &r->byte_model);
    r->variant = ex->in.rp->plan.variant;
    r->block_y = ex->in.rp->plan.block_y;
    r->flops_per_unit = k->flops_per_unit;

    size_t n = (size_t)timed_done(ex);
    double *sorted = n ? malloc(n * sizeof *sorted) : NULL;
    if (sorted) {
        memcpy(sorted, ex->out.step_times + ex->in.warmup, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare_doubles);
        r->time_min = sorted[0];
        r->time_max = sorted[n - 1];
        r->time_median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        free(sorted);
    } else {
        r->time_min = r->time_median = r->time_max = NAN;
    }
    double units = (double)r->units_per_iteration;
    r->gbs_best = units * r->bytes_per_unit / r->time_min * 1e-9;
    r->gbs_median = units * r->bytes_per_unit / r->time_median * 1e-9;
    r->gflops_best = units * r->flops_per_unit / r->time_min * 1e-9;
    r->gflops_median = units * r->flops_per_unit / r->time_median * 1e-9;
    r->glups_best = is_stencil ? units / r->time_min * 1e-9 : NAN;
    r->glups_median = is_stencil ? units / r->time_median * 1e-9 : NAN;
    rr->rec.results = r;
}

/* Across ranks (w): an audit whose rows every rank writes (the ranks audited alike) holds none of
 * them, but what the summary takes of them; else it is rank 0's own, its threads alone. */
static void world_audit(struct ts_placement_rec *p, const struct ts_run_world_rows *w, int pass)
{
    if (!w)
        return;
    if (!w->placement_by_ranks) {
        p->thread_rank = NULL; /* rank 0's threads: rank 0 */
        return;
    }
    p->rows_later = 1;
    p->n_threads = w->n_threads;
    p->thread_rank = p->thread_node = NULL;
    p->thread_pages = p->thread_local_pages = p->thread_node_pages = NULL;
    p->thread_local_fraction = NULL;
    p->pages = w->audit[pass].pages;
    p->n_ranks_head = w->audit[pass].n_ranks_head;
    memcpy(p->rank_local_fraction, w->audit[pass].rank_local_fraction, sizeof p->rank_local_fraction);
}

int ts_run_record_fill(struct ts_run_record *rr, const struct ts_config *cfg, const struct ts_binding_choice *binding,
                       const struct ts_run_exec *ex, const struct ts_verification *ver, int write_field, int argc,
                       char **argv, struct ts_error *err)
{
    struct ts_record *rec = &rr->rec;
    rec->program_version = TS_VERSION;
    ts_build_info_get(&rr->build);
    rec->build = &rr->build.rec;
    rr->command_line = join_command_line(argc, argv);
    rec->command_line = rr->command_line;
    if (gethostname(rr->host, sizeof rr->host - 1) != 0)
        snprintf(rr->host, sizeof rr->host, "unknown");
    rec->host = rr->host;
    rec->start_time = rr->start_time;
    if (!rr->command_line || fill_config(rr, cfg) != 0 || fill_environment(rr, ex) != 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot build the output record");

    char buf[64];
    add_binding(rr, "OMP_PLACES", binding->places);
    add_binding(rr, "OMP_PLACES_source", binding->places_source);
    add_binding(rr, "OMP_PROC_BIND", binding->proc_bind);
    add_binding(rr, "OMP_PROC_BIND_source", binding->proc_bind_source);
    add_binding(rr, "OMP_PLACES_applied", binding->applied_places); /* asked of the runtime */
    add_binding(rr, "OMP_PROC_BIND_applied", binding->applied_proc_bind);
    add_binding(rr, "launch_cpus", binding->launch_cpus);
    snprintf(buf, sizeof buf, "%d", omp_get_num_places());
    add_binding(rr, "num_places", buf);
    snprintf(buf, sizeof buf, "%d", ex->in.n_threads);
    add_binding(rr, "num_threads", buf);
    add_binding(rr, "init_mode", cfg->init_mode);

    const struct ts_run_world_rows *w = ex->out.world; /* across ranks: each rank writes its rows */
    rec->threads = w ? w->threads : ex->out.threads;
    rec->n_threads = ex->in.n_threads;
    rec->threads_later = w != NULL;

    struct ts_timings_rec *t = &rr->timings;
    t->allocation = ex->out.t_allocation;
    t->init = ex->out.t_init;
    t->kernel = ex->out.t_kernel;
    t->combine = ex->out.t_combine;
    t->result = ex->out.t_result;
    t->verify = ex->out.t_verify;
    t->placement = ex->out.t_placement;
    t->timer_resolution = omp_get_wtick();
    t->n_warmup = ex->out.steps_done < ex->in.warmup ? ex->out.steps_done : ex->in.warmup;
    t->n_iterations = timed_done(ex);
    t->warmup = ex->out.step_times;
    t->iteration = ex->out.step_times + ex->in.warmup;
    /* Across ranks each rank writes its own threads' rows (app/rank_files.h): none here. */
    t->thread_iteration_later = ex->out.thread_times_by_ranks;
    rr->thread_times = t->thread_iteration_later ? NULL : completed_thread_times(ex);
    if (!t->thread_iteration_later && !rr->thread_times)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot build the output record");
    t->thread_iteration = rr->thread_times;
    rec->complete = !ex->out.stopped;
    rec->steps_done = ex->out.steps_done;
    rec->steps_planned = ex->in.warmup + ex->in.iterations;
    rec->timings = t;

    fill_results(rr, cfg, ex);

    struct ts_verification_rec *v = &rr->verification;
    v->expected = ver->expected;
    v->observed = ver->observed;
    v->error = ver->error;
    v->tolerance = ver->tolerance;
    v->passed = ver->passed;
    v->checked = ver->checked;
    v->failures = ver->failures;
    v->method = ver->method;
    rec->verification = v;

    if (ex->out.have_placement) {
        rr->placement = ex->out.placement.rec;
        rr->placement.measured_after = "init";
        rr->placement.policy = cfg->policy;
        world_audit(&rr->placement, w, 0);
        rec->placement = &rr->placement;
    }
    if (ex->out.have_placement_end) {
        rr->placement_end = ex->out.placement_end.rec;
        rr->placement_end.measured_after = "kernel";
        rr->placement_end.policy = cfg->policy;
        rr->placement_end.pages_moved = ex->out.pages_moved;
        world_audit(&rr->placement_end, w, 1);
        rec->placement_end = &rr->placement_end;
    }
    rr->counters = (struct ts_counters_rec){
        .n_threads = ex->in.n_threads,
        .init = w ? w->init : ex->out.init_counters,
        .kernel = w ? w->kernel : ex->out.kernel_counters,
        .rows_later = w != NULL,
        .sums = w ? w->counters : (struct ts_counter_sums){ 0 },
        .migrations_source = ex->out.counters_source,
        .machine = ex->out.have_machine ? &rr->machine : NULL,
        .init_machine = ex->out.have_init_machine ? &rr->init_machine : NULL,
        .init_memory = ex->out.have_init_memory ? &rr->init_memory : NULL,
    };
    rr->machine = ex->out.machine;
    rr->init_machine = ex->out.init_machine;
    rr->init_memory = ex->out.init_memory;
    rec->counters = &rr->counters;

    rec->topology = &rr->topology;
    if (write_field) {
        rec->field = ts_kernel_field(&ex->in.rp->problem, ex->own.arrays, ex->out.steps_done, rec->field_dims);
    }
    return TS_OK;
}

void ts_run_record_job(struct ts_run_record *rr, const struct ts_binding_choice *binding, const char *restarted_from,
                       int64_t steps_before_restart)
{
    struct ts_job_rec *j = &rr->job;
    const char *job_id = getenv("SLURM_JOB_ID");
    j->under_slurm = job_id != NULL;
    j->job_id = job_id ? job_id : "";
    j->array_job_id = getenv("SLURM_ARRAY_JOB_ID");
    j->array_task_id = getenv("SLURM_ARRAY_TASK_ID");
    j->node_list = getenv("SLURM_JOB_NODELIST");
    j->cpus_on_node = getenv("SLURM_CPUS_ON_NODE");
    j->cpus_per_task = getenv("SLURM_CPUS_PER_TASK");
    j->partition = getenv("SLURM_JOB_PARTITION");
    j->restart_count = getenv("SLURM_RESTART_COUNT");
    j->cpu_mask = binding->launch_cpus;
    j->restarted = restarted_from != NULL;
    j->restarted_from = restarted_from ? restarted_from : "";
    j->steps_before_restart = restarted_from ? steps_before_restart : 0;
    rr->rec.job = j;
}

int ts_run_record_summary(struct ts_run_record *rr, const char *output_path, struct ts_error *err)
{
    free(rr->summary_text);
    free(rr->summary_lines);
    rr->summary_lines = NULL;
    rr->rec.summary = NULL;
    rr->rec.n_summary = 0;
    rr->summary_text = ts_summary_text(&rr->rec, output_path);
    size_t n = 0;
    for (const char *p = rr->summary_text; p && *p; p++)
        n += *p == '\n';
    rr->summary_lines = rr->summary_text ? malloc((n ? n : 1) * sizeof *rr->summary_lines) : NULL;
    if (!rr->summary_lines)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot build the output record");
    /* Lines in place: each '\n' ends one. */
    int32_t lines = 0;
    for (char *p = rr->summary_text, *eol; (eol = strchr(p, '\n')); p = eol + 1) {
        *eol = '\0';
        rr->summary_lines[lines++] = p;
    }
    rr->rec.summary = rr->summary_lines;
    rr->rec.n_summary = lines;
    return TS_OK;
}

void ts_run_record_print_summary(const struct ts_run_record *rr, FILE *out)
{
    for (int32_t i = 0; i < rr->rec.n_summary; i++)
        fprintf(out, "%s\n", rr->rec.summary[i]);
}

void ts_run_record_release(struct ts_run_record *rr)
{
    free(rr->summary_text);
    free(rr->summary_lines);
    rr->summary_text = NULL;
    rr->summary_lines = NULL;
    free(rr->thread_times);
    rr->thread_times = NULL;
    free(rr->config);
    free(rr->environment);
    free(rr->command_line);
    free(rr->overrides);
    rr->config = NULL;
    rr->environment = NULL;
    rr->command_line = NULL;
    rr->overrides = NULL;
}

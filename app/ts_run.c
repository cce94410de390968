#include "ts_run.h"

#include <math.h>
#include <signal.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_checkpoint.h"
#include "run_exec.h"
#include "run_plan.h"
#include "run_record.h"
#include "ts_affinity.h"
#include "ts_h5_write.h"
#include "ts_run_read.h"
#include "ts_summary.h"
#include "ts_thp.h"
#include "ts_topology.h"
#include "config_values.h"

/* STREAM's checktick: the smallest step the wall clock actually takes. */
static double measured_timer_resolution(void)
{
    double best = 1.0;
    for (int i = 0; i < 20; i++) {
        double t0 = omp_get_wtime(), t1;
        while ((t1 = omp_get_wtime()) == t0)
            ;
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return best;
}

/* Seconds before a run on a terminal starts showing progress: TOUCHSTONE_PROGRESS_DELAY, else 2. */
static double progress_delay(void)
{
    const char *text = getenv("TOUCHSTONE_PROGRESS_DELAY");
    char *end;
    double delay = text ? strtod(text, &end) : 2.0;
    return text && (end == text || *end != '\0' || !(delay >= 0.0)) ? 2.0 : delay;
}

static void warn(struct ts_run_record *rr, const char *text)
{
    fprintf(stderr, "touchstone: warning: %s\n", text);
    ts_run_record_warn(rr, text);
}

/* Binding and timing problems a user must not miss: printed, and kept in the file. */
static void collect_warnings(struct ts_run_record *rr, const struct ts_run_exec *ex,
                             const struct ts_binding_choice *binding, double tick)
{
    char text[1024];
    if (strcmp(binding->places_source, "environment") == 0 && strcmp(binding->places, binding->config_places) != 0) {
        snprintf(text, sizeof text, "OMP_PLACES=%s from the environment overrides openmp.places = %s",
                 binding->places, binding->config_places);
        warn(rr, text);
    }
    if (strcmp(binding->proc_bind_source, "environment") == 0
        && strcmp(binding->proc_bind, binding->config_proc_bind) != 0) {
        snprintf(text, sizeof text, "OMP_PROC_BIND=%s from the environment overrides openmp.proc_bind = %s",
                 binding->proc_bind, binding->config_proc_bind);
        warn(rr, text);
    }

    struct ts_binding_facts facts = {
        .bound = omp_get_proc_bind() != omp_proc_bind_false,
        .n_threads = ex->n_threads,
        .init_node = ex->init_node,
    };
    ts_affinity_available(ex->topo, binding->launch_cpus, &facts);
    int named[1024];
    int n_named = ts_places_named_cpus(binding->places, named, 1024);
    if (n_named > 0)
        ts_affinity_outside(&facts, named, n_named);
    int64_t *migrations = malloc((size_t)ex->n_threads * sizeof *migrations);
    if (migrations) {
        for (int t = 0; t < ex->n_threads; t++)
            migrations[t] = ex->kernel_counters[t].migrations;
        facts.migrations = migrations;
    }
    char lines[16][512];
    int n = ts_affinity_warnings(&facts, ex->threads, ex->n_threads, lines, 16);
    for (int i = 0; i < n; i++)
        warn(rr, lines[i]);
    free(migrations);

    if (ex->huge_refused)
        warn(rr, "init.huge_pages = true, but the kernel refused MADV_HUGEPAGE (EINVAL: no transparent huge pages): "
                 "the arrays have base pages");

    double fastest = rr->results.time_min;
    if (fastest < 20.0 * tick) {
        snprintf(text, sizeof text,
                 "the fastest iteration took %.3g s, under 20 ticks of the %.3g s timer: its times are not to be "
                 "trusted; increase the problem size",
                 fastest, tick);
        warn(rr, text);
    }
}

/* SIGTERM (Slurm at the time limit), SIGUSR1 (sbatch --signal) and SIGINT ask the run to finish
 * its iteration and checkpoint; the handler only records which. SA_RESETHAND: a second one
 * kills at once, for a user who really means it. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int signo)
{
    stop_signal = signo;
}

static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* Libraries that give up end the process themselves: libgomp exits with status 1 when it cannot
 * create a thread or allocate ("libgomp: Thread creation failed: ..."), and 1 means a failed
 * verification here. Nothing of ours calls exit during a run, so an exit then is theirs. */
static volatile sig_atomic_t running;

static void library_ended_run(void)
{
    if (!running)
        return;
    fputs("touchstone: error: a library ended the run (its message is above), most likely for lack of memory "
          "or of threads; use fewer threads or a smaller problem, or raise the limits\n",
          stderr);
    _exit(TS_BAD_INPUT);
}

static enum ts_mem_policy policy_of(const struct ts_config *cfg, int *node)
{
    char kind[16], why[128];
    ts_policy_parse(cfg->policy, kind, sizeof kind, node, why, sizeof why);
    return strcmp(kind, "interleave") == 0 ? TS_POLICY_INTERLEAVE
         : strcmp(kind, "bind") == 0       ? TS_POLICY_BIND
         : strcmp(kind, "preferred") == 0  ? TS_POLICY_PREFERRED
                                           : TS_POLICY_FIRSTTOUCH;
}

static void exec_from_config(struct ts_run_exec *ex, const struct ts_config *cfg, const struct ts_cli *cli)
{
    char thp[32];
    omp_set_dynamic(0);
    if (cfg->threads > 0)
        omp_set_num_threads((int)cfg->threads);
    ex->n_threads = omp_get_max_threads();
    ex->serial_init = strcmp(cfg->init_mode, "serial") == 0;
    ex->warmup = cfg->warmup;
    ex->iterations = cfg->iterations;
    ex->show_progress = !cli->quiet && isatty(STDERR_FILENO);
    ex->progress_delay = progress_delay();
    ex->policy = policy_of(cfg, &ex->policy_node);
    ex->audit = cfg->placement_audit;
    ex->audit_at_end = cfg->placement_at_end;
    ex->sample_stride = cfg->sample_stride;
    ts_thp_mode(TS_THP_ENABLED, thp, sizeof thp);
    ex->thp_always = strcmp(thp, "always") == 0;
    ex->thp_madvise = strcmp(thp, "madvise") == 0;
    ex->huge_pages = cfg->huge_pages;
    ex->stop_signal = &stop_signal;
    ex->checkpoint_every = cfg->checkpoint_every;
}

/* A run whose file touchstone could not read back (io/ts_run_read.h) is refused before it starts. */
static int file_reads_back(const struct ts_run_exec *ex, struct ts_error *err)
{
    if ((int64_t)ex->n_threads * ex->iterations <= TS_READ_MAX_VALUES)
        return TS_OK;
    return ts_fail(err, TS_BAD_INPUT, "%d threads x %lld iterations: its file would hold more per-thread times than "
                   "the %lld touchstone reads back; use fewer iterations", ex->n_threads, (long long)ex->iterations,
                   (long long)TS_READ_MAX_VALUES);
}

/* The verification record of a run a signal stopped: not verified, and how to go on. */
static void not_verified(struct ts_verification *ver, const struct ts_run_exec *ex, const char *checkpoint)
{
    memset(ver, 0, sizeof *ver);
    ver->expected = ver->observed = ver->error = ver->tolerance = NAN;
    snprintf(ver->method, sizeof ver->method,
             "not verified: %s stopped the run after %lld of %lld iterations; touchstone run CONFIG --restart %.150s "
             "continues it",
             strsignal(stop_signal), (long long)ex->steps_done, (long long)(ex->warmup + ex->iterations), checkpoint);
}

int ts_run(const struct ts_config *cfg, const struct ts_binding_choice *binding, const struct ts_cli *cli,
           int argc, char **argv, struct ts_error *err)
{
    double started = omp_get_wtime();
    struct ts_run_record rr;
    ts_run_record_start(&rr);

    struct ts_run_plan rp;
    char output[4096];
    int status = ts_run_plan_make(cfg, &rp, err);
    if (status == TS_OK)
        status = ts_run_plan_check_memory(&rp, err);
    if (status == TS_OK)
        status = ts_output_path(cfg, output, sizeof output, err);
    if (status == TS_OK)
        status = ts_output_check(output, err);
    if (status != TS_OK)
        return status;

    ts_topology *topo = NULL;
    status = ts_topology_create(&topo, err);
    if (status != TS_OK)
        return status;

    struct ts_run_checkpoint checkpoint = {.cfg = cfg};
    ts_checkpoint_path_for(output, checkpoint.path, sizeof checkpoint.path);
    struct ts_run_exec ex = {.rp = &rp, .topo = topo, .checkpoint = ts_run_checkpoint_save,
                             .checkpoint_ctx = &checkpoint};
    exec_from_config(&ex, cfg, cli);
    install_stop_handlers();
    atexit(library_ended_run);
    running = 1;

    struct ts_verification ver = {0};
    status = file_reads_back(&ex, err);
    if (status == TS_OK)
        status = ts_run_exec_prepare(&ex, err);
    if (status == TS_OK)
        status = ts_run_exec_init(&ex, err);
    if (status == TS_OK && cli->restart_path)
        status = ts_run_checkpoint_restore(&ex, cfg, cli->restart_path, err);
    int64_t restored_steps = ex.first_step;
    if (status == TS_OK)
        status = ts_run_exec_compute(&ex, err);
    if (status == TS_OK && ex.stopped) {
        if (ts_run_checkpoint_save(&ex, &checkpoint) != TS_OK)
            status = ts_fail(err, TS_BAD_INPUT, "%s stopped the run, but its checkpoint could not be written: %s",
                             strsignal(stop_signal), checkpoint.err.message);
        else
            not_verified(&ver, &ex, checkpoint.path);
    } else if (status == TS_OK) {
        double t0 = omp_get_wtime();
        rp.kernel->verify(&rp.problem, ex.arrays, ex.steps_done, ex.global, &ver);
        rr.timings.verify = omp_get_wtime() - t0;
    }
    if (status == TS_OK)
        status = ts_run_record_fill(&rr, cfg, binding, &ex, &ver, cfg->write_field, argc, argv, err);
    if (status == TS_OK) {
        ts_run_record_job(&rr, binding, cli->restart_path, restored_steps);
        status = ts_topology_record(topo, &rr.topology, err);
    }
    if (status == TS_OK) {
        double tick = measured_timer_resolution();
        rr.timings.timer_resolution = tick;
        collect_warnings(&rr, &ex, binding, tick);
        if (ex.checkpoint_failures) {
            char text[4800];
            snprintf(text, sizeof text, "%d periodic checkpoint%s could not be written (last: %s)",
                     ex.checkpoint_failures, ex.checkpoint_failures == 1 ? "" : "s", checkpoint.err.message);
            warn(&rr, text);
        }
        rr.timings.total = omp_get_wtime() - started;
        status = ts_record_write(&rr.rec, output, err);
        if (status != TS_OK && ex.stopped) /* the checkpoint is what counts: say that it is there */
            ts_error_prefix(err, "%s: checkpoint %s written (continue with touchstone run %s --restart %s), but ",
                            strsignal(stop_signal), checkpoint.path, cfg->path, checkpoint.path);
    }
    if (status == TS_OK) {
        if (!cli->quiet)
            ts_summary_print(&rr.rec, output, stdout);
        if (ex.stopped) {
            fprintf(stderr, "touchstone: %s: stopped after %lld of %lld iterations; checkpoint %s; continue with "
                            "touchstone run %s --restart %s\n",
                    strsignal(stop_signal), (long long)ex.steps_done, (long long)(ex.warmup + ex.iterations),
                    checkpoint.path, cfg->path, checkpoint.path);
            status = TS_INTERRUPTED;
        } else if (!ver.passed) {
            fprintf(stderr, "touchstone: ERROR: verification failed: %s\n", ver.method);
            fprintf(stderr, "touchstone: ERROR: error %.6g > tolerance %.6g (%lld of %lld values outside)\n",
                    ver.error, ver.tolerance, (long long)ver.failures, (long long)ver.checked);
            status = TS_VERIFY_FAILED;
        }
        /* A finished run's checkpoint is stale: a requeued job must not continue it. */
        if (!ex.stopped)
            unlink(checkpoint.path);
    }

    ts_topology_record_free(&rr.topology);
    ts_run_record_release(&rr);
    ts_run_exec_release(&ex);
    ts_topology_destroy(topo);
    running = 0;
    return status;
}

int ts_check(const struct ts_config *cfg, struct ts_error *err)
{
    struct ts_run_plan rp;
    int status = ts_run_plan_make(cfg, &rp, err);
    if (status != TS_OK)
        return status;
    printf("# %s: valid\n", cfg->path);
    ts_config_print(cfg, stdout);
    printf("\n");
    ts_run_plan_print_memory(&rp, stdout);
    return ts_run_plan_check_memory(&rp, err);
}

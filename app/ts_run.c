#include "ts_run.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_exec.h"
#include "run_plan.h"
#include "run_record.h"
#include "ts_affinity.h"
#include "ts_h5_write.h"
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

    double fastest = rr->results.time_min;
    if (fastest < 20.0 * tick) {
        snprintf(text, sizeof text,
                 "the fastest iteration took %.3g s, under 20 ticks of the %.3g s timer: its times are not to be "
                 "trusted; increase the problem size",
                 fastest, tick);
        warn(rr, text);
    }
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

    char policy_kind[16], why[128], thp[32];
    int policy_node;
    ts_policy_parse(cfg->policy, policy_kind, sizeof policy_kind, &policy_node, why, sizeof why);
    enum ts_mem_policy policy = strcmp(policy_kind, "interleave") == 0 ? TS_POLICY_INTERLEAVE
                              : strcmp(policy_kind, "bind") == 0      ? TS_POLICY_BIND
                              : strcmp(policy_kind, "preferred") == 0 ? TS_POLICY_PREFERRED
                                                                      : TS_POLICY_FIRSTTOUCH;

    omp_set_dynamic(0);
    if (cfg->threads > 0)
        omp_set_num_threads((int)cfg->threads);
    struct ts_run_exec ex = {
        .rp = &rp,
        .topo = topo,
        .n_threads = omp_get_max_threads(),
        .serial_init = strcmp(cfg->init_mode, "serial") == 0,
        .warmup = cfg->warmup,
        .iterations = cfg->iterations,
        .show_progress = !cli->quiet && isatty(STDERR_FILENO),
        .progress_delay = progress_delay(),
        .policy = policy,
        .policy_node = policy_node,
        .audit = cfg->placement_audit,
        .audit_at_end = cfg->placement_at_end,
        .sample_stride = cfg->sample_stride,
        .thp_always = strcmp(ts_thp_mode(TS_THP_ENABLED, thp, sizeof thp), "always") == 0,
    };

    struct ts_verification ver = {0};
    status = ts_run_exec_prepare(&ex, err);
    if (status == TS_OK)
        status = ts_run_exec_run(&ex, err);
    if (status == TS_OK) {
        double t0 = omp_get_wtime();
        rp.kernel->verify(&rp.problem, ex.arrays, ex.warmup + ex.iterations, ex.global, &ver);
        double t_verify = omp_get_wtime() - t0;
        status = ts_run_record_fill(&rr, cfg, binding, &ex, &ver, cfg->write_field, argc, argv, err);
        rr.timings.verify = t_verify;
    }
    if (status == TS_OK)
        status = ts_topology_record(topo, &rr.topology, err);
    if (status == TS_OK) {
        double tick = measured_timer_resolution();
        rr.timings.timer_resolution = tick;
        collect_warnings(&rr, &ex, binding, tick);
        rr.timings.total = omp_get_wtime() - started;
        status = ts_record_write(&rr.rec, output, err);
    }
    if (status == TS_OK) {
        if (!cli->quiet)
            ts_summary_print(&rr.rec, output, stdout);
        if (!ver.passed) {
            fprintf(stderr, "touchstone: ERROR: verification failed: %s\n", ver.method);
            fprintf(stderr, "touchstone: ERROR: error %.6g > tolerance %.6g (%lld of %lld values outside)\n",
                    ver.error, ver.tolerance, (long long)ver.failures, (long long)ver.checked);
            status = TS_VERIFY_FAILED;
        }
    }

    ts_topology_record_free(&rr.topology);
    ts_run_record_release(&rr);
    ts_run_exec_release(&ex);
    ts_topology_destroy(topo);
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

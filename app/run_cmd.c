#include "commands.h"

#include <math.h>
#include <signal.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding_check.h"
#include "binding_warnings.h"
#include "rank_files.h"
#include "rank_warnings.h"
#include "run_checkpoint.h"
#include "run_continue.h"
#include "run_exec.h"
#include "run_plan.h"
#include "run_ranks.h"
#include "run_record.h"
#include "startup.h"
#include "ts_affinity.h"
#include "ts_config_values.h"
#include "start_clock.h"
#include "ts_h5_write.h"
#include "ts_run_read.h"
#include "ts_summary.h"
#include "ts_thp.h"
#include "ts_topology.h"
#include "ts_units.h"

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

/* Seconds before a run starts showing progress: TOUCHSTONE_PROGRESS_DELAY, else 2. */
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

/* The in-cache rule's numbers, kept for /results. */
struct cache_fit {
    int64_t working_set_bytes, llc_bytes;
};

/* A working set that fits in the last-level caches the threads' cores use measures those
 * caches, not memory: said in the summary's bandwidth line and warned about. Returns 1 with
 * the warning in text when it fits. */
static int cache_warning(const struct ts_run_exec *ex, struct cache_fit *fit, char *text, size_t len)
{
    int *cpus = malloc((size_t)ex->in.n_threads * sizeof *cpus);
    struct ts_llc llc = { 0 };
    if (cpus) {
        for (int t = 0; t < ex->in.n_threads; t++)
            cpus[t] = ex->out.threads[t].cpu_start;
        ts_affinity_llc(ex->in.topo, cpus, ex->in.n_threads, &llc);
    }
    free(cpus);
    fit->working_set_bytes = (int64_t)ex->in.rp->array_bytes * ex->in.rp->plan.n_arrays;
    fit->llc_bytes = llc.bytes;
    if (llc.bytes <= 0 || fit->working_set_bytes > llc.bytes)
        return 0;
    char arrays[32], cache[32], reported[32], per_core[32], note[128] = "";
    ts_bytes_text((uint64_t)fit->working_set_bytes, arrays, sizeof arrays);
    ts_bytes_text((uint64_t)llc.bytes, cache, sizeof cache);
    if (llc.reported_bytes > llc.bytes) {
        ts_bytes_text((uint64_t)llc.reported_bytes, reported, sizeof reported);
        ts_bytes_text((uint64_t)TS_LLC_MAX_BYTES_PER_CORE, per_core, sizeof per_core);
        snprintf(note, sizeof note, "; hwloc reports %s, at most %s a core is counted", reported, per_core);
    }
    snprintf(text, len,
             "the arrays (%s) fit in the %s of L%d cache above the threads' CPUs (%d cache%s over %d core%s%s): the "
             "bandwidth is the caches', not memory's; for memory bandwidth make the problem several times larger",
             arrays, cache, llc.level, llc.instances, llc.instances == 1 ? "" : "s", llc.cores,
             llc.cores == 1 ? "" : "s", note);
    return 1;
}

#define MAX_PROCESS_WARNINGS 18

/* What this process warns about its own threads and arrays: the binding warnings (the same as
 * topo's, binding_warnings.c), the in-cache rule, huge pages refused. Returns the lines. */
static int process_warnings(const struct ts_run_exec *ex, const struct ts_binding_choice *binding,
                            struct cache_fit *fit, char lines[][512])
{
    struct ts_binding_observed seen = { .threads = ex->out.threads,
                                        .n_threads = ex->in.n_threads,
                                        .init_node = ex->out.init_node };
    int64_t *migrations = malloc((size_t)ex->in.n_threads * sizeof *migrations);
    if (migrations) {
        for (int t = 0; t < ex->in.n_threads; t++)
            migrations[t] = ex->out.kernel_counters[t].migrations;
        seen.migrations = migrations;
    }
    int n = ts_binding_warnings(binding, ex->in.topo, &seen, lines, MAX_PROCESS_WARNINGS - 2);
    free(migrations);
    n += cache_warning(ex, fit, lines[n], sizeof lines[n]);
    if (ex->own.huge_refused)
        snprintf(lines[n++], sizeof lines[0], "%s",
                 "init.huge_pages = true, but the kernel refused MADV_HUGEPAGE (EINVAL: no transparent huge pages): "
                 "the arrays have base pages");
    return n;
}

/* Problems of the whole run a user must not miss: printed, and kept in the file. */
static void run_warnings(struct ts_run_record *rr, double tick)
{
    char text[1024];
    double fastest = rr->results.time_min;
    if (fastest < 20.0 * tick) {
        snprintf(text, sizeof text,
                 "the fastest iteration took %.3g s, under 20 ticks of the %.3g s timer: its times are not to be "
                 "trusted; increase the problem size",
                 fastest, tick);
        warn(rr, text);
    }
}

/* Config keys this run never read: the user meant something that did not happen. */
static void warn_unused_keys(struct ts_run_record *rr, const struct ts_config *cfg)
{
    char lines[TS_CONFIG_MAX_KEYS][TS_CONFIG_NOTE_LEN];
    size_t n = ts_config_unused_keys(cfg, lines, TS_CONFIG_MAX_KEYS);
    for (size_t i = 0; i < n && i < TS_CONFIG_MAX_KEYS; i++)
        warn(rr, lines[i]);
}

/* SIGTERM (Slurm at the time limit), SIGUSR1 (sbatch --signal) and SIGINT ask the run to finish
 * its iteration and checkpoint; the handler only records which. SA_RESETHAND: a second one
 * kills at once, for a user who really means it. They have been blocked since main began
 * (app/startup.c), across the binding's re-execution too: one that came meanwhile is pending,
 * and arrives as soon as the handlers are in place. */
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
    ts_startup_unblock_stop_signals();
}

static enum ts_mem_policy policy_of(const struct ts_config *cfg, int *node)
{
    char kind[16], why[128];
    ts_policy_parse(cfg->policy, kind, sizeof kind, node, why, sizeof why);
    return strcmp(kind, "interleave") == 0  ? TS_POLICY_INTERLEAVE
           : strcmp(kind, "bind") == 0      ? TS_POLICY_BIND
           : strcmp(kind, "preferred") == 0 ? TS_POLICY_PREFERRED
                                            : TS_POLICY_FIRSTTOUCH;
}

static void exec_from_config(struct ts_run_exec *ex, const struct ts_config *cfg, const struct ts_cli *cli)
{
    char thp[32];
    omp_set_dynamic(0);
    if (cfg->threads > 0)
        omp_set_num_threads((int)cfg->threads);
    ex->in.n_threads = omp_get_max_threads();
    ex->in.serial_init = strcmp(cfg->init_mode, "serial") == 0;
    ex->in.warmup = cfg->warmup;
    ex->in.iterations = cfg->iterations;
    ex->in.show_progress = !cli->quiet;
    ex->in.progress_delay = progress_delay();
    ex->in.policy = policy_of(cfg, &ex->in.policy_node);
    ex->in.audit = cfg->placement_audit;
    ex->in.audit_at_end = cfg->placement_at_end;
    ex->in.sample_stride = cfg->sample_stride;
    ts_thp_mode(TS_THP_ENABLED, thp, sizeof thp);
    ex->in.thp_always = strcmp(thp, "always") == 0;
    ex->in.thp_madvise = strcmp(thp, "madvise") == 0;
    ex->in.huge_pages = cfg->huge_pages;
    ex->in.stop_signal = &stop_signal;
    ex->in.checkpoint_every = cfg->checkpoint_every;
}

/* How to go on after a stop: the command that continues this run, ready to paste; across
 * ranks whose launcher cannot be seen from here, said to go under the same launcher. */
struct continuation {
    const struct ts_cli *cli;
    int argc;
    char **argv;
    const struct ts_dist *dist;
};

static void continue_text(const struct continuation *c, const char *output, const char *checkpoint, char *text,
                          size_t len)
{
    char cmd[8192];
    int unknown = 0;
    ts_run_continue_command(c->cli, c->argc, c->argv[0], output, checkpoint, c->dist, &unknown, cmd, sizeof cmd);
    if (unknown)
        snprintf(text, len, "continue with, under the same launcher and %d ranks: %s", c->dist->size, cmd);
    else
        snprintf(text, len, "continue with: %s", cmd);
}

/* The verification record of a run a signal stopped: not verified, and how to go on (the
 * whole command when it fits the record's text). */
static void not_verified(struct ts_verification *ver, const struct ts_run_exec *ex, const char *checkpoint,
                         const char *how)
{
    memset(ver, 0, sizeof *ver);
    ver->expected = ver->observed = ver->error = ver->tolerance = NAN;
    int n = snprintf(ver->method, sizeof ver->method,
                     "not verified: %s stopped the run after %lld of %lld iterations; %s", strsignal(stop_signal),
                     (long long)ex->out.steps_done, (long long)(ex->in.warmup + ex->in.iterations), how);
    if (n < 0 || (size_t)n >= sizeof ver->method)
        snprintf(ver->method, sizeof ver->method,
                 "not verified: %s stopped the run after %lld of %lld iterations; run --restart %.150s with the "
                 "run's options continues it",
                 strsignal(stop_signal), (long long)ex->out.steps_done, (long long)(ex->in.warmup + ex->in.iterations),
                 checkpoint);
}

/* Where the time before the work went: the process's start (app/start_clock.h), the run's start
 * (started) and the arrays' mapping. */
static void time_before_work(struct ts_timings_rec *t, double started, const struct ts_run_exec *ex)
{
    const struct ts_start_clock *c = ts_start_clock();
    t->startup = c->first_main - c->process;
    t->reexec = c->main - c->first_main;
    t->setup = started - c->main;
    t->plan = ex->out.mapping_started > started ? ex->out.mapping_started - started : 0.0;
}

/* Rank 0 alone: the record, the summary, the file. worked: when the work (or the stop) ended. */
static int write_results(struct ts_run_record *rr, const struct ts_config *cfg, const struct ts_run_exec *ex,
                         struct ts_run_checkpoint *checkpoint, struct ts_run_output *out, struct ts_run_ranks *ranks,
                         double worked, const struct ts_h5_fill *fill, const struct continuation *go_on,
                         struct ts_error *err)
{
    double tick = measured_timer_resolution();
    rr->timings.timer_resolution = tick;
    run_warnings(rr, tick);
    for (int i = 0; i < rr->n_condition_warnings; i++) /* what distorts results: run_record.c */
        warn(rr, rr->condition_warnings[i]);
    warn_unused_keys(rr, cfg);
    if (ex->out.checkpoint_failures) {
        char text[4800];
        snprintf(text, sizeof text, "%d periodic checkpoint%s could not be written (last: %s)",
                 ex->out.checkpoint_failures, ex->out.checkpoint_failures == 1 ? "" : "s", checkpoint->err.message);
        warn(rr, text);
    }
    char moved[8500] = "", late[8500];
    ts_output_recheck(out);
    if (ts_output_moved(out, moved, sizeof moved))
        warn(rr, moved);
    const double now = omp_get_wtime();
    /* Under ranks the job's: the rank that started first ran longest (ts_run_ranks_total). The
     * rest of the wall time's account is rank 0's, the rank that writes. */
    rr->timings.total = ts_run_ranks_total(ranks, now - ranks->started);
    rr->timings.finish = now - worked;
    rr->timings.wall = now - ts_start_clock()->process;
    /* The summary is rendered before the write: the file keeps what the screen shows. */
    char shown[8500];
    ts_output_shown(out, shown, sizeof shown);
    int status = ts_run_record_summary(rr, shown, err);
    if (status == TS_OK) {
        struct ts_place place = ts_output_results_place(out);
        status = ts_record_write_placed(&rr->rec, &place, fill, err);
    }
    /* Taken between the look and the write: too late for the file's /warnings and summary;
     * the screen shows the name the file got. */
    if (status == TS_OK && ts_output_moved(out, late, sizeof late) && strcmp(late, moved) != 0) {
        fprintf(stderr, "touchstone: warning: %s\n", late);
        ts_output_shown(out, shown, sizeof shown);
        status = ts_run_record_summary(rr, shown, err);
    }
    if (status != TS_OK && ex->out.stopped) { /* the checkpoint is what counts: say that it is there */
        char how[8400];
        continue_text(go_on, out->file, checkpoint->path, how, sizeof how);
        ts_error_prefix(err, "%s: checkpoint %s written (%s), but ", strsignal(stop_signal), checkpoint->path, how);
    }
    return status;
}

/* Every rank's own warnings, printed and kept by rank 0: spread over ranks, one line per
 * distinct warning naming the ranks that gave it, in the order they first appear
 * (ts_run_ranks_gather_lines); the screen and /warnings hold the same lines. */
static int gather_warnings(struct ts_run_record *rr, struct ts_run_ranks *rk, char lines[][512], int n,
                           struct ts_error *err)
{
    char **all = NULL;
    int status = ts_run_ranks_gather_lines(rk, lines, n, &all, err);
    for (char **line = all; status == TS_OK && line && *line; line++)
        warn(rr, *line);
    free(all);
    return status;
}

#define MAX_CROSS_WARNINGS 16

/* Collective across ranks: every rank's facts (host, kernel, mask, where its threads ran),
 * compared on rank 0 (app/rank_warnings.h, as topo does): lines on rank 0, none elsewhere. */
static int cross_rank_warnings(const struct ts_run_ranks *rk, const struct ts_topology_rec *machine,
                               const struct ts_binding_choice *binding, const struct ts_run_exec *ex,
                               struct ts_rank_line *lines, int *n, struct ts_error *err)
{
    *n = 0;
    if (!rk->spread)
        return TS_OK;
    char *line = NULL;
    struct ts_error mine;
    ts_error_clear(&mine);
    /* A rank that cannot describe itself still takes part: rank 0 then fails, none waits. */
    if (ts_rank_facts_line(rk->dist, machine, binding->launch_cpus, ex->out.threads, ex->in.n_threads, &line, &mine)
        != TS_OK)
        line = NULL;
    int status = ts_rank_warnings_gather(rk->dist, line ? line : "", lines, MAX_CROSS_WARNINGS, n, err);
    free(line);
    return status;
}

/* Before the topology and the arrays: the plan, this rank's part, the memory check and the
 * output names (rank 0's). Errors every rank reaches alike are marked agreed. */
static int start_run(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_launch *launch,
                     struct ts_run_plan *rp, struct ts_run_ranks *ranks, struct ts_run_output *out,
                     struct ts_error *err)
{
    const struct ts_dist *dist = &launch->dist;
    int status = ts_run_plan_make(cfg, rp, err);
    if (status != TS_OK) {
        launch->agreed = 1; /* the config is every rank's */
        return status;
    }
    status = ts_run_ranks_split(ranks, dist, cfg, rp, err);
    if (status == TS_OK) /* every rank is here: these are collective */
        status = ts_run_ranks_count_world(ranks, rp, err);
    double host_bytes = (double)rp->total_bytes;
    int host_ranks = 1;
    if (status == TS_OK)
        status = ts_dist_host_sum(dist, (double)rp->total_bytes, &host_bytes, &host_ranks, err);
    if (status == TS_OK)
        status = ts_run_plan_check_memory_host(rp, (size_t)host_bytes, host_ranks, err);
    if (status != TS_OK) {
        launch->agreed = ranks->agreed;
        return status;
    }
    if (dist->rank == 0)
        status = ts_output_prepare(cfg, cli->restart_path, out, err);
    status = ts_run_ranks_follow_root(ranks, status, err);
    launch->agreed = ranks->agreed;
    if (status == TS_OK && !cli->quiet && dist->rank == 0)
        ts_output_note(out, stderr);
    return status;
}

int ts_run_cmd(const struct ts_config *cfg, const struct ts_binding_choice *binding, const struct ts_cli *cli,
               struct ts_launch *launch, int argc, char **argv, struct ts_error *err)
{
    install_stop_handlers();
    double started = omp_get_wtime();
    struct ts_run_record rr;
    ts_run_record_start(&rr);
    const int root = launch->dist.rank == 0;
    const struct continuation go_on = { .cli = cli, .argc = argc, .argv = argv, .dist = &launch->dist };

    struct ts_run_plan rp;
    static struct ts_run_ranks ranks;
    static struct ts_run_output out; /* 20 KiB of names: off the stack */
    int status = start_run(cfg, cli, launch, &rp, &ranks, &out, err);
    if (status != TS_OK)
        return status;
    ranks.started = started;

    const ts_topology *topo = NULL;
    status = ts_topology_shared(&topo, err);
    if (status != TS_OK)
        return status;

    struct ts_run_checkpoint checkpoint = { .cfg = cfg, .out = &out, .ranks = &ranks };
    snprintf(checkpoint.path, sizeof checkpoint.path, "%s", out.checkpoint);
    struct ts_run_exec ex = {
        .in = { .rp = &rp, .topo = topo, .checkpoint = ts_run_checkpoint_save, .checkpoint_ctx = &checkpoint }
    };
    exec_from_config(&ex, cfg, cli);
    ex.in.show_progress = ex.in.show_progress && root;

    /* This rank's part: an error here is this rank's alone (the job aborts), but for a stop. */
    struct ts_verification ver = { 0 };
    status = ts_startup_stack_for_threads(ex.in.n_threads, err);
    if (status == TS_OK)
        status = ts_run_exec_prepare(&ex, err);
    if (status == TS_OK)
        status = ts_run_ranks_hook(&ranks, &ex, err);
    if (status == TS_OK)
        status = ts_run_exec_init(&ex, err);
    if (status == TS_OK && cli->restart_path) {
        status = ts_run_checkpoint_restore(&ex, cfg, cli->restart_path, &ranks, err);
        launch->agreed = ranks.agreed;
    }
    int64_t restored_steps = ex.in.first_step;
    if (status == TS_OK && strcmp(cfg->check_binding, "strict") == 0) {
        if (ranks.spread) { /* every rank reaches this alike */
            status = ts_fail(err, TS_BAD_INPUT,
                             "check.binding = strict judges the threads of one process; across ranks, run "
                             "jobs/check-binding.sh with the job's launcher as its first step");
            launch->agreed = 1;
        } else {
            status = ts_binding_check_strict(topo, ex.in.n_threads, err);
        }
        if (status != TS_OK) {
            ts_run_exec_release(&ex);
            return status;
        }
    }
    if (status == TS_OK)
        status = ts_run_exec_compute(&ex, err);
    if (status == TS_OK)
        status = ts_run_ranks_combine(&ranks, &ex, err);
    if (status == TS_OK && ex.out.stopped) {
        /* Every rank stopped after the same iteration (the stop is agreed); rank 0 writes. */
        int saved = ts_run_checkpoint_save(&ex, &checkpoint);
        if (saved != TS_OK)
            status = ts_fail(err, saved, "%s stopped the run, but its checkpoint could not be written: %s",
                             strsignal(stop_signal), checkpoint.err.message);
        if (ranks.spread) {
            status = ts_run_ranks_follow_root(&ranks, status, err);
            launch->agreed = ranks.agreed;
        }
        if (status == TS_OK) {
            char how[8400];
            continue_text(&go_on, out.file, checkpoint.path, how, sizeof how);
            not_verified(&ver, &ex, checkpoint.path, how);
        }
    } else if (status == TS_OK) {
        double t0 = omp_get_wtime();
        rp.kernel->verify(&rp.problem, ex.own.arrays, ex.out.steps_done, ex.out.global, &ver);
        ex.out.t_verify = omp_get_wtime() - t0;
        status = ts_run_ranks_verify(&ranks, &ver, err);
    }

    const double worked = omp_get_wtime();
    time_before_work(&rr.timings, started, &ex);
    rr.timings.checkpoint = checkpoint.seconds;

    /* Every rank's threads and warnings to rank 0 (collective). */
    char lines[MAX_PROCESS_WARNINGS][512];
    struct cache_fit fit = { 0 };
    int n_lines = status == TS_OK ? process_warnings(&ex, binding, &fit, lines) : 0;
    /* Across ranks every rank writes its block of the field into rank 0's file. */
    const int field_by_ranks = cfg->write_field && ranks.spread && ranks.stencil;
    struct ts_rank_fill fill = { 0 };
    struct ts_rank_line cross[MAX_CROSS_WARNINGS];
    int n_cross = 0;
    /* The machine's record, once: this rank's facts across ranks, and rank 0's file. */
    struct ts_error no_machine;
    ts_error_clear(&no_machine);
    const int have_machine =
        status == TS_OK && (root || ranks.spread) && ts_topology_record(topo, &rr.topology, &no_machine) == TS_OK;
    if (status == TS_OK)
        status = cross_rank_warnings(&ranks, have_machine ? &rr.topology : NULL, binding, &ex, cross, &n_cross, err);
    if (status == TS_OK && field_by_ranks) /* before ex becomes the world's on rank 0 */
        ts_rank_fill_init(&fill, &ranks, &ex, "/field/u", ranks.dec.ndims);
    if (status == TS_OK)
        status = ts_run_ranks_world(&ranks, &ex, &rp, err);
    /* From here on every rank is past the collectives above: rank 0 may fail alone and still
     * meet the others in the two that remain (the warnings, its status). */
    const int met = status == TS_OK;
    if (status == TS_OK && root)
        status = ts_run_record_fill(&rr, cfg, binding, &ex, &ver, cfg->write_field, argc, argv, err);
    if (status == TS_OK && root) {
        ts_run_record_job(&rr, binding, cli->restart_path, restored_steps);
        if (!have_machine) {
            *err = no_machine;
            status = err->status;
        }
        rr.results.working_set_bytes = ranks.spread ? (int64_t)rp.arrays_bytes : fit.working_set_bytes;
        rr.results.llc_bytes = fit.llc_bytes;
        if (ranks.spread) /* rank 0's arrays are its part: the ranks write the field */
            rr.rec.mpi = &ranks.mpi;
        if (field_by_ranks) {
            rr.rec.field = NULL;
            rr.rec.field_later = 1;
            for (int a = 0; a < 3; a++)
                rr.rec.field_dims[a] = ranks.dec.points[2 - a];
        }
    }
    if (status == TS_OK || (root && met && ranks.spread)) {
        /* Rank 0 takes part even after its own error: the others are in the gather. */
        int gathered = gather_warnings(&rr, &ranks, lines, n_lines, err);
        status = status == TS_OK ? gathered : status;
    }
    for (int i = 0; status == TS_OK && i < n_cross; i++) {
        char text[sizeof cross[i].text + 16];
        snprintf(text, sizeof text, "across ranks: %s", cross[i].text);
        if (cross[i].note)
            fprintf(stderr, "touchstone: note: %s\n", text);
        else
            warn(&rr, text);
    }
    if (status == TS_OK && root) {
        if (ranks.placement_mixed)
            warn(&rr, "the ranks' hosts have different NUMA nodes: /placement holds the threads of rank 0 alone");
        struct ts_h5_fill hook = ts_rank_fill_hook(&fill);
        status =
            write_results(&rr, cfg, &ex, &checkpoint, &out, &ranks, worked, field_by_ranks ? &hook : NULL, &go_on, err);
    }
    if (field_by_ranks && root && met) /* the others wait for the file's name, or to hear there is none */
        status = ts_rank_fill_end(&fill, status, err);
    else if (field_by_ranks && status == TS_OK)
        status = ts_rank_fill_join(&fill, err);
    if (ranks.spread && !launch->agreed && (status == TS_OK || (root && met))) {
        /* Rank 0 wrote the file or failed to: the others learn which and end with it. */
        status = ts_run_ranks_follow_root(&ranks, status, err);
        launch->agreed = ranks.agreed;
    }
    if (status == TS_OK) {
        if (!cli->quiet && root)
            ts_run_record_print_summary(&rr, stdout);
        if (ex.out.stopped) {
            if (root) {
                char how[8400];
                continue_text(&go_on, out.file, checkpoint.path, how, sizeof how);
                fprintf(stderr, "touchstone: %s: stopped after %lld of %lld iterations; checkpoint %s; %s\n",
                        strsignal(stop_signal), (long long)ex.out.steps_done,
                        (long long)(ex.in.warmup + ex.in.iterations), checkpoint.path, how);
            }
            status = TS_INTERRUPTED;
            launch->agreed = 1; /* every rank stopped together; rank 0 carries the status */
        } else if (!ver.passed && root) {
            fprintf(stderr, "touchstone: error: verification failed: %s\n", ver.method);
            fprintf(stderr, "touchstone: error: error %.6g > tolerance %.6g (%lld of %lld values outside)\n", ver.error,
                    ver.tolerance, (long long)ver.failures, (long long)ver.checked);
            status = TS_VERIFY_FAILED;
            launch->agreed = 1; /* the file is written: the other ranks end normally */
        }
        /* A finished run's checkpoint is stale: a requeued job must not continue it. */
        if (!ex.out.stopped && root) {
            ts_run_checkpoint_discard(&checkpoint);
            /* A checkpoint under another name is the user's file, not this run's: kept, and said. */
            if (cli->restart_path && !cli->quiet && access(cli->restart_path, F_OK) == 0)
                fprintf(stderr,
                        "touchstone: note: kept %s, the checkpoint this run continued: it is not this run's "
                        "checkpoint (%s); remove it when no run is to continue from it again\n",
                        cli->restart_path, out.checkpoint);
        }
    }

    ts_topology_record_free(&rr.topology);
    ts_run_record_release(&rr);
    ts_run_ranks_release(&ranks);
    ts_run_exec_release(&ex);
    return status;
}

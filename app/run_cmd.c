#include "commands.h"

#include <math.h>
#include <signal.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding_check.h"
#include "rank_files.h"
#include "run_checkpoint.h"
#include "run_continue.h"
#include "run_exec.h"
#include "run_plan.h"
#include "run_ranks.h"
#include "run_record.h"
#include "run_warnings.h"
#include "startup.h"
#include "ts_config_values.h"
#include "start_clock.h"
#include "ts_h5_write.h"
#include "ts_thp.h"
#include "ts_topology.h"

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
    ts_run_timer_warning(rr, tick);
    for (int i = 0; i < rr->n_condition_warnings; i++) /* what distorts results: run_record.c */
        ts_run_warn(rr, rr->condition_warnings[i]);
    ts_run_unused_key_warnings(rr, cfg);
    if (ex->out.checkpoint_failures) {
        char text[4800];
        snprintf(text, sizeof text, "%d periodic checkpoint%s could not be written (last: %s)",
                 ex->out.checkpoint_failures, ex->out.checkpoint_failures == 1 ? "" : "s", checkpoint->err.message);
        ts_run_warn(rr, text);
    }
    char moved[8500] = "", late[8500];
    ts_output_recheck(out);
    if (ts_output_moved(out, moved, sizeof moved))
        ts_run_warn(rr, moved);
    const double now = omp_get_wtime();
    /* Under ranks the job's: the rank that started first ran longest (ts_run_ranks_total). The
     * rest of the wall time's account is rank 0's, the rank that writes. */
    rr->timings.total = ts_run_ranks_total(ranks, now - ranks->started);
    rr->timings.finish = now - worked;
    rr->timings.wall = now - ts_start_clock()->process;
    rr->timings.write_from = now; /* the writer fills write from here (omp_get_wtime: CLOCK_MONOTONIC) */
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

/* One run, on every rank: what its stages share. Static (the_run): the record and the names
 * alone are tens of KiB. */
struct run {
    const struct ts_config *cfg;
    const struct ts_binding_choice *binding;
    const struct ts_cli *cli;
    struct ts_launch *launch;
    struct continuation go_on;
    int root;       /* rank 0: the rank that writes the file and prints */
    int broken;     /* a rank left a collective midway (the halo exchange failed): no agreement, the job aborts */
    double started; /* omp_get_wtime() when the run began */
    double worked;  /* when the work (or the stop) ended */
    int64_t restored_steps;
    struct ts_run_record rr;
    struct ts_run_plan rp;
    struct ts_run_ranks ranks;
    struct ts_run_output out;
    struct ts_run_checkpoint checkpoint;
    struct ts_run_exec ex;
    struct ts_verification ver;
    /* what the record stage gathers */
    char lines[TS_RUN_MAX_PROCESS_WARNINGS][512];
    int n_lines;
    struct ts_cache_fit fit;
    struct ts_rank_line cross[TS_RUN_MAX_CROSS_WARNINGS];
    int n_cross;
    int field_by_ranks;       /* every rank writes its block of the field into rank 0's file */
    struct ts_rank_fill fill; /* across ranks: what each rank writes into rank 0's file */
};

/* --- The stages. Each is this rank's part of one step of the run; after each, the ranks
 * agree on one status (agree below), so a stage starts only when every rank finished the
 * one before: a stage's collectives never wait for a rank that failed alone. ------------- */

/* The whole problem and this rank's part of it (the config is every rank's: app/same_job.h). */
static int stage_plan(struct run *r, struct ts_error *err)
{
    int status = ts_run_plan_make(r->cfg, &r->rp, err);
    r->ranks.agreed = status != TS_OK; /* the config's error: every rank's alike */
    if (status == TS_OK)
        status = ts_run_ranks_split(&r->ranks, &r->launch->dist, r->cfg, &r->rp, err);
    r->ranks.started = r->started; /* the rank's own total starts with the run */
    return status;
}

/* Collective: what rank 0 holds of the others, what the ranks of one machine need together,
 * against the limits. */
static int stage_memory(struct run *r, struct ts_error *err)
{
    int status = ts_run_ranks_count_world(&r->ranks, &r->rp, err);
    double host_bytes = (double)r->rp.total_bytes;
    int host_ranks = 1;
    if (status == TS_OK)
        status = ts_dist_host_sum(&r->launch->dist, (double)r->rp.total_bytes, &host_bytes, &host_ranks, err);
    return status == TS_OK ? ts_run_plan_check_memory_host(&r->rp, (size_t)host_bytes, host_ranks, err) : status;
}

/* Rank 0 names the files it will write. */
static int stage_output(struct run *r, struct ts_error *err)
{
    if (!r->root)
        return TS_OK;
    int status = ts_output_prepare(r->cfg, r->cli->restart_path, &r->out, err);
    snprintf(r->checkpoint.path, sizeof r->checkpoint.path, "%s", r->out.checkpoint);
    return status;
}

/* The machine, the threads' stacks, the arrays mapped (not touched). */
static int stage_allocate(struct run *r, struct ts_error *err)
{
    if (!r->cli->quiet && r->root)
        ts_output_note(&r->out, stderr);
    const ts_topology *topo = NULL;
    int status = ts_topology_shared(&topo, err);
    if (status != TS_OK)
        return status;
    r->ex.in = (struct ts_run_inputs){
        .rp = &r->rp, .topo = topo, .checkpoint = ts_run_checkpoint_save, .checkpoint_ctx = &r->checkpoint
    };
    exec_from_config(&r->ex, r->cfg, r->cli);
    r->ex.in.show_progress = r->ex.in.show_progress && r->root;
    status = ts_startup_stack_for_threads(r->ex.in.n_threads, err);
    return status == TS_OK ? ts_run_exec_prepare(&r->ex, err) : status;
}

/* Collective: the ranks' grid communicator and halo buffers, the agreed stop. */
static int stage_connect(struct run *r, struct ts_error *err)
{
    return ts_run_ranks_hook(&r->ranks, &r->ex, err);
}

/* The first touch of every page, by the threads that will compute on it. */
static int stage_init(struct run *r, struct ts_error *err)
{
    return ts_run_exec_init(&r->ex, err);
}

/* Collective with --restart: every rank reads its part of the checkpoint; then the strict
 * binding check of one process. */
static int stage_restore(struct run *r, struct ts_error *err)
{
    int status = TS_OK;
    if (r->cli->restart_path)
        status = ts_run_checkpoint_restore(&r->ex, r->cfg, r->cli->restart_path, &r->ranks, err);
    r->restored_steps = r->ex.in.first_step;
    if (status != TS_OK || strcmp(r->cfg->check_binding, "strict") != 0)
        return status;
    if (r->ranks.spread)
        return ts_fail(err, TS_BAD_INPUT,
                       "check.binding = strict judges the threads of one process; across ranks, run "
                       "jobs/check-binding.sh with the job's launcher as its first step");
    return ts_binding_check_strict(r->ex.in.topo, r->ex.in.n_threads, err);
}

/* Collective: the iterations (halo exchanges, the stop vote, periodic checkpoints). */
static int stage_iterate(struct run *r, struct ts_error *err)
{
    int status = ts_run_exec_compute(&r->ex, err);
    r->broken = status != TS_OK && r->ex.out.hook_failed; /* the others may wait in an exchange */
    return status;
}

/* Collective: the ranks' exact sums into one result. */
static int stage_combine(struct run *r, struct ts_error *err)
{
    return ts_run_ranks_combine(&r->ranks, &r->ex, err);
}

/* Collective: the result verified over every rank's part, or, stopped by a signal, the
 * checkpoint written (every rank stopped after the same iteration) and the run not verified. */
static int stage_conclude(struct run *r, struct ts_error *err)
{
    if (r->ex.out.stopped) {
        int saved = ts_run_checkpoint_save(&r->ex, &r->checkpoint);
        if (saved != TS_OK)
            return ts_fail(err, saved, "%s stopped the run, but its checkpoint could not be written: %s",
                           strsignal(stop_signal), r->checkpoint.err.message);
        char how[8400];
        continue_text(&r->go_on, r->out.file, r->checkpoint.path, how, sizeof how);
        not_verified(&r->ver, &r->ex, r->checkpoint.path, how);
        return TS_OK;
    }
    double t0 = omp_get_wtime();
    r->rp.kernel->verify(&r->rp.problem, r->ex.own.arrays, r->ex.out.steps_done, r->ex.out.global, &r->ver);
    r->ex.out.t_verify = omp_get_wtime() - t0;
    return ts_run_ranks_verify(&r->ranks, &r->ver, err);
}

/* Collective: every rank's warnings and rows to rank 0, which fills the record. */
static int stage_record(struct run *r, struct ts_error *err)
{
    r->worked = omp_get_wtime();
    time_before_work(&r->rr.timings, r->started, &r->ex);
    r->rr.timings.checkpoint = r->checkpoint.seconds;
    r->n_lines = ts_run_process_warnings(&r->ex, r->binding, &r->fit, r->lines);
    r->field_by_ranks = r->cfg->write_field && r->ranks.spread && r->ranks.stencil;
    /* The machine's record, once: this rank's facts across ranks, and rank 0's file. */
    struct ts_error no_machine;
    ts_error_clear(&no_machine);
    const int have_machine =
        (r->root || r->ranks.spread) && ts_topology_record(r->ex.in.topo, &r->rr.topology, &no_machine) == TS_OK;
    int status = ts_run_cross_rank_warnings(&r->ranks, have_machine ? &r->rr.topology : NULL, r->binding, &r->ex,
                                            r->cross, &r->n_cross, err);
    ts_rank_fill_start(&r->fill, &r->ranks);
    if (status == TS_OK && r->field_by_ranks) /* before ex becomes the world's on rank 0 */
        ts_rank_fill_field(&r->fill, &r->ex, "/field/u", r->ranks.dec.ndims);
    if (status == TS_OK)
        status = ts_run_ranks_world(&r->ranks, &r->ex, &r->rp, err);
    if (status == TS_OK && r->ranks.spread)
        ts_rank_fill_world_rows(&r->fill, &r->ex);
    /* Rank 0's record, then every rank's warnings, which rank 0 gathers even after its own
     * error there: the others are in the gather. */
    const int met = status == TS_OK;
    if (status == TS_OK && r->root) {
        status = ts_run_record_fill(&r->rr, r->cfg, r->binding, &r->ex, &r->ver, r->cfg->write_field, r->go_on.argc,
                                    r->go_on.argv, err);
        if (status == TS_OK && !have_machine)
            status = ts_fail(err, no_machine.status, "%s", no_machine.message);
    }
    if (met) {
        int gathered = ts_run_gather_warnings(&r->rr, &r->ranks, r->lines, r->n_lines, err);
        status = status == TS_OK ? gathered : status;
    }
    for (int i = 0; status == TS_OK && i < r->n_cross; i++) {
        char text[sizeof r->cross[i].text + 16];
        snprintf(text, sizeof text, "across ranks: %s", r->cross[i].text);
        if (r->cross[i].note)
            fprintf(stderr, "touchstone: note: %s\n", text);
        else
            ts_run_warn(&r->rr, text);
    }
    return status;
}

/* Rank 0 writes the file; across ranks each rank writes its block of the field and its rows
 * of the per-iteration tables into it. */
static int stage_write(struct run *r, struct ts_error *err)
{
    const int by_ranks = r->ranks.spread;
    if (!r->root)
        return by_ranks ? ts_rank_fill_join(&r->fill, err) : TS_OK;
    struct ts_run_record *rr = &r->rr;
    ts_run_record_job(rr, r->binding, r->cli->restart_path, r->restored_steps);
    rr->results.working_set_bytes = r->ranks.spread ? (int64_t)r->rp.arrays_bytes : r->fit.working_set_bytes;
    rr->results.llc_bytes = r->fit.llc_bytes;
    if (r->ranks.spread) /* rank 0's arrays are its part: the ranks write the field */
        rr->rec.mpi = &r->ranks.mpi;
    if (r->field_by_ranks) {
        rr->rec.field = NULL;
        rr->rec.field_later = 1;
        for (int a = 0; a < 3; a++)
            rr->rec.field_dims[a] = r->ranks.dec.points[2 - a];
    }
    if (r->ranks.placement_mixed)
        ts_run_warn(rr, "the ranks' hosts have different NUMA nodes: /placement holds the threads of rank 0 alone");
    struct ts_h5_fill hook = ts_rank_fill_hook(&r->fill);
    int status = write_results(rr, r->cfg, &r->ex, &r->checkpoint, &r->out, &r->ranks, r->worked,
                               by_ranks ? &hook : NULL, &r->go_on, err);
    /* The others wait for the file's name, or to hear there is none. */
    return by_ranks ? ts_rank_fill_end(&r->fill, status, err) : status;
}

static int (*const stages[])(struct run *r, struct ts_error *err) = {
    stage_plan,    stage_memory,  stage_output,  stage_allocate, stage_connect, stage_init,
    stage_restore, stage_iterate, stage_combine, stage_conclude, stage_record,  stage_write,
};

/* After every stage, one status on every rank: the first failing rank's, its reason printed
 * once by rank 0 (with its rank and host when not every rank failed), no MPI_Abort. Only a
 * rank that left a collective midway cannot meet the others: its error stays its own, and
 * main aborts the job (app/launch.h). */
static int agree(struct run *r, int status, struct ts_error *err)
{
    if (r->broken || !r->ranks.spread)
        return status;
    status = ts_run_ranks_agree_error(&r->ranks, status, err);
    r->launch->agreed = r->ranks.agreed;
    return status;
}

/* Every rank agreed the run succeeded: the summary, and the run's own end statuses. */
static int finish(struct run *r)
{
    if (!r->cli->quiet && r->root)
        ts_run_record_print_summary(&r->rr, stdout);
    r->launch->agreed = 1; /* every rank reaches what follows alike; rank 0 carries the status */
    if (r->ex.out.stopped) {
        if (r->root) {
            char how[8400];
            continue_text(&r->go_on, r->out.file, r->checkpoint.path, how, sizeof how);
            fprintf(stderr, "touchstone: %s: stopped after %lld of %lld iterations; checkpoint %s; %s\n",
                    strsignal(stop_signal), (long long)r->ex.out.steps_done,
                    (long long)(r->ex.in.warmup + r->ex.in.iterations), r->checkpoint.path, how);
        }
        return TS_INTERRUPTED;
    }
    int status = TS_OK;
    if (!r->ver.passed) { /* the verification is every rank's (ts_run_ranks_verify) */
        if (r->root) {
            fprintf(stderr, "touchstone: error: verification failed: %s\n", r->ver.method);
            fprintf(stderr, "touchstone: error: error %.6g > tolerance %.6g (%lld of %lld values outside)\n",
                    r->ver.error, r->ver.tolerance, (long long)r->ver.failures, (long long)r->ver.checked);
        }
        status = TS_VERIFY_FAILED;
    }
    if (r->root) {
        /* A finished run's checkpoint is stale: a requeued job must not continue it. */
        ts_run_checkpoint_discard(&r->checkpoint);
        /* A checkpoint under another name is the user's file, not this run's: kept, and said. */
        if (r->cli->restart_path && !r->cli->quiet && access(r->cli->restart_path, F_OK) == 0)
            fprintf(stderr,
                    "touchstone: note: kept %s, the checkpoint this run continued: it is not this run's "
                    "checkpoint (%s); remove it when no run is to continue from it again\n",
                    r->cli->restart_path, r->out.checkpoint);
    }
    return status;
}

static struct run the_run;

int ts_run_cmd(const struct ts_config *cfg, const struct ts_binding_choice *binding, const struct ts_cli *cli,
               struct ts_launch *launch, int argc, char **argv, struct ts_error *err)
{
    install_stop_handlers();
    struct run *r = &the_run;
    r->started = omp_get_wtime();
    r->cfg = cfg;
    r->binding = binding;
    r->cli = cli;
    r->launch = launch;
    r->go_on = (struct continuation){ .cli = cli, .argc = argc, .argv = argv, .dist = &launch->dist };
    r->root = launch->dist.rank == 0;
    ts_run_record_start(&r->rr);
    ts_run_ranks_attach(&r->ranks, &launch->dist);
    r->checkpoint = (struct ts_run_checkpoint){ .cfg = cfg, .out = &r->out, .ranks = &r->ranks };

    int status = TS_OK;
    for (size_t i = 0; i < sizeof stages / sizeof stages[0] && status == TS_OK; i++)
        status = agree(r, stages[i](r, err), err);
    if (status == TS_OK)
        status = finish(r);

    ts_topology_record_free(&r->rr.topology);
    ts_run_record_release(&r->rr);
    ts_run_ranks_release(&r->ranks);
    ts_run_exec_release(&r->ex);
    return status;
}

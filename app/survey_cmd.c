/* `touchstone survey`: the battery (app/survey_battery.h) run as child `touchstone run`s of this
 * binary, each file read back; the NUMA matrix (app/survey_matrix.h); the verdict
 * (app/survey_verdict.h); everything indexed in DIR/survey.h5 (io/ts_survey_file.h), rewritten
 * after every run so that an interrupted survey leaves a valid partial one to resume. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "readback_stats.h"
#include "startup.h"
#include "survey_battery.h"
#include "survey_estimate.h"
#include "survey_matrix.h"
#include "survey_sections.h"
#include "survey_verdict.h"
#include "ts_affinity.h"
#include "ts_file_place.h"
#include "ts_machine.h"
#include "ts_run_read.h"
#include "ts_html.h"
#include "ts_summary.h"
#include "ts_survey_file.h"
#include "ts_survey_text.h"
#include "ts_section.h"

extern char **environ;

static volatile sig_atomic_t stop_signal;

/* The CPUs the survey was started on: the OpenMP runtime narrowed this process's own mask to
 * its first place as it loaded when OMP_PROC_BIND was set, and a child inherits the mask. */
static cpu_set_t launch_set;
static int launch_known;

static void read_launch_set(const ts_topology *topo)
{
    char list[4096];
    if (ts_affinity_launch_cpus(list, sizeof list) <= 0) {
        struct ts_topology_allowed allowed;
        ts_topology_allowed(topo, &allowed);
        snprintf(list, sizeof list, "%s", allowed.cpus);
    }
    static int cpus[CPU_SETSIZE];
    int n = ts_machine_parse_cpus(list, cpus, CPU_SETSIZE);
    CPU_ZERO(&launch_set);
    for (int i = 0; i < n; i++)
        if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
            CPU_SET(cpus[i], &launch_set);
    launch_known = n > 0;
}

static void on_stop_signal(int signo)
{
    stop_signal = signo;
}

/* SIGINT, SIGTERM (Slurm's time limit) and SIGUSR1 stop the survey after the current run, which
 * gets the same signal (and checkpoints, as any run does); a second one kills (SA_RESETHAND).
 * They have been blocked since main began (app/startup.c). No SA_RESTART: the wait for the
 * child must return to pass the signal on. */
static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    ts_startup_unblock_stop_signals();
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int make_dir(const char *path, struct ts_error *err)
{
    if (mkdir(path, 0777) == 0)
        return TS_OK;
    int e = errno;
    struct stat st;
    if (e == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return TS_OK;
    return ts_fail_errno(err, ts_file_status(e == EEXIST ? ENOTDIR : e), e == EEXIST ? ENOTDIR : e,
                         "survey: cannot use folder %s", path);
}

/* --- The folder, untrusted ------------------------------------------------------------------------ */

/* Whoever can write into the survey's folder could plant a symbolic link where the survey writes
 * (survey.ini, a log, a run file) to make it overwrite the file the link names, or swap the run
 * files a resume keeps. So the folder given is opened once and everything in it is reached
 * through it: never a path through a link the survey did not make (O_NOFOLLOW), new files
 * created exclusively (O_EXCL) once whatever held the name is removed, a file replaced by a
 * rename within the folder, and a kept run checked against its plan (kept_run). */
static int dir_fd = -1, runs_fd = -1;
static struct stat runs_st;

static void close_folder(void)
{
    if (runs_fd >= 0)
        close(runs_fd);
    if (dir_fd >= 0)
        close(dir_fd);
    runs_fd = dir_fd = -1;
}

static const char *kind_of(mode_t mode)
{
    return S_ISLNK(mode) ? "a symbolic link" : S_ISDIR(mode) ? "a folder" : "not a regular file";
}

/* DIR (the user's choice, resolved) and DIR/runs, which must be a folder of its own. */
static int open_folder(const char *dir, struct ts_error *err)
{
    if ((dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "survey: cannot use folder %s", dir);
    if (mkdirat(dir_fd, "runs", 0777) != 0 && errno != EEXIST)
        return ts_fail_errno(err, ts_file_status(errno), errno, "survey: cannot make folder %s/runs", dir);
    struct stat st;
    if (fstatat(dir_fd, "runs", &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
        return ts_fail(err, TS_BAD_INPUT,
                       "survey: %s/runs is %s, not the survey's folder of runs: the survey follows no link in its "
                       "folder; remove it, or give another -o DIR",
                       dir, kind_of(st.st_mode));
    if ((runs_fd = openat(dir_fd, "runs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0
        || fstat(runs_fd, &runs_st) != 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "survey: cannot use folder %s/runs", dir);
    return TS_OK;
}

/* The children write DIR/runs/NAME.h5 by its path: DIR/runs must still be the folder opened. */
static int runs_unchanged(const char *dir, struct ts_error *err)
{
    struct stat st;
    if (fstatat(dir_fd, "runs", &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == runs_st.st_dev
        && st.st_ino == runs_st.st_ino)
        return TS_OK;
    return ts_fail(err, TS_BAD_INPUT,
                   "survey: %s/runs was replaced during the survey (removed, or now a link or another folder): "
                   "stopped rather than write runs through it",
                   dir);
}

/* Removes name in the folder fd when it is a symbolic link (or a FIFO, a socket, a device): a
 * file of the survey's own name that the survey did not make, which it replaces rather than
 * follows. 0, or the errno of the removal. */
static int remove_planted(int fd, const char *name)
{
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return 0;
    return unlinkat(fd, name, 0) == 0 || errno == ENOENT ? 0 : errno;
}

/* Creates name in the folder fd as a new file (whatever had the name removed first), not
 * following a link: the open descriptor, or -1 with errno. */
static int create_new(int fd, const char *name)
{
    if (unlinkat(fd, name, 0) != 0 && errno != ENOENT)
        return -1;
    return openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

/* DIR/survey.ini, written when it is missing or differs (or is not a regular file): to a new
 * file, synced, renamed over the name, which replaces a planted link instead of writing
 * through it. */
static int write_config(const char *dir, struct ts_error *err)
{
    const char *text = ts_battery_config_text();
    char have[2048] = "";
    int fd = openat(dir_fd, "survey.ini", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        ssize_t n = read(fd, have, sizeof have - 1);
        have[n > 0 ? n : 0] = '\0';
    }
    if (fd >= 0)
        close(fd);
    if (strcmp(have, text) == 0)
        return TS_OK;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "survey.ini.tmp.%ld", (long)getpid());
    int e = (fd = create_new(dir_fd, tmp)) < 0 ? errno : ts_file_write_all(fd, text, strlen(text));
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (fd >= 0 && close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && renameat(dir_fd, tmp, dir_fd, "survey.ini") != 0)
        e = errno;
    if (e == 0)
        return TS_OK;
    unlinkat(dir_fd, tmp, 0);
    return ts_fail_errno(err, ts_file_status(e), e, "survey: cannot write %s/survey.ini", dir);
}

static void iso_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The value of "--set KEY=VALUE" among the run's arguments, of "KEY=VALUE" in its environment:
 * what the plan asked for. NULL when it sets no such key. */
static const char *planned_set(const struct ts_battery_run *b, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i + 1 < b->n_args; i++)
        if (strcmp(b->args[i], "--set") == 0 && strncmp(b->args[i + 1], key, n) == 0 && b->args[i + 1][n] == '=')
            return b->args[i + 1] + n + 1;
    return NULL;
}

static const char *planned_env(const struct ts_battery_run *b, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof b->env / sizeof b->env[0]; i++)
        if (strncmp(b->env[i], name, n) == 0 && b->env[i][n] == '=')
            return b->env[i] + n + 1;
    return NULL;
}

/* Whether the file s is the run b planned, as the file records it: its config, kernel, size,
 * iterations, init mode and policy, threads and binding. 1, or 0 with what differs in why (the
 * close run's file holding the spread run, a run of another size). */
static int is_planned_run(const struct ts_run_summary *s, const struct ts_battery_run *b, char *why, size_t size)
{
    const struct {
        const char *what, *have, *want;
    } texts[] = {
        { "config", s->config_path, b->n_args > 1 ? b->args[1] : NULL },
        { "run.kernel", s->kernel, planned_set(b, "run.kernel") },
        { "init.mode", s->init_mode, planned_set(b, "init.mode") },
        { "init.policy", s->policy, planned_set(b, "init.policy") },
        { "OMP_PLACES", s->places, planned_env(b, "OMP_PLACES") },
        { "OMP_PROC_BIND", s->proc_bind, planned_env(b, "OMP_PROC_BIND") },
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].want && strcmp(texts[i].have, texts[i].want) != 0) {
            snprintf(why, size, "its %s is '%.150s', the plan's '%.150s'", texts[i].what, texts[i].have, texts[i].want);
            return 0;
        }
    const struct {
        const char *what;
        long long have;
        const char *want;
    } numbers[] = {
        { "OMP_NUM_THREADS", s->n_threads, planned_env(b, "OMP_NUM_THREADS") },
        { "run.iterations", (long long)s->n_iterations, planned_set(b, "run.iterations") },
        { "sum.n", (long long)s->n, planned_set(b, "sum.n") },
        { "triad.n", (long long)s->n, planned_set(b, "triad.n") },
        { "stencil.nx", (long long)s->nx, planned_set(b, "stencil.nx") },
        { "stencil.ny", (long long)s->ny, planned_set(b, "stencil.ny") },
        { "stencil.nz", (long long)s->nz, planned_set(b, "stencil.nz") },
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        if (numbers[i].want && strtoll(numbers[i].want, NULL, 10) != numbers[i].have) {
            snprintf(why, size, "its %s is %lld, the plan's %s", numbers[i].what, numbers[i].have, numbers[i].want);
            return 0;
        }
    return 1;
}

/* A run file that is a regular file in DIR/runs (not a link), reads back complete and verified,
 * and is the run b planned: kept. When it exists but is not kept, why says so ("" when it is
 * merely incomplete or unverified, which the progress line reports as a failure). */
static int read_done(const char *dir, const struct ts_battery_run *b, struct ts_survey_run *r,
                     const struct ts_survey_rec *old, char *why, size_t why_size)
{
    why[0] = '\0';
    const char *base = strrchr(r->file, '/') ? strrchr(r->file, '/') + 1 : r->file;
    struct stat st;
    if (fstatat(runs_fd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "it is %s, not a file the survey wrote", kind_of(st.st_mode));
        return 0;
    }
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", dir, r->file);
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    int ok = ts_run_read_file_isolated(path, &s, &err) == TS_OK;
    ok = ok && s.complete && s.verified && strcmp(s.kernel, r->kernel) == 0 && s.n_threads == r->threads
         && s.n_iterations > 0 && is_planned_run(&s, b, why, why_size);
    if (ok) {
        r->state = TS_SURVEY_DONE;
        r->exit_status = 0;
        r->time_median = s.time_median;
        r->gbs_median = s.gbs_median;
        r->local_fraction = s.has_placement ? s.local_fraction : NAN;
        r->seconds = s.init_time + s.kernel_time; /* the run's own part, when no survey timed it */
        /* Disturbed or not by compare's rule (app/readback_stats.h): the verdict leaves such
         * runs out. Out of memory for the statistics: left not known (-1). */
        struct ts_run_stats stats;
        if (ts_run_stats_of(&s, &stats) == 0) {
            r->disturbed = stats.disturbed;
            snprintf(r->disturbed_why, sizeof r->disturbed_why, "%s", stats.disturbed_why);
            r->others_share = stats.numbers.others_share;
            r->load_excess = stats.numbers.load_excess;
        }
        for (int i = 0; old && i < old->n_runs; i++)
            if (strcmp(old->runs[i].name, r->name) == 0 && old->runs[i].state == TS_SURVEY_DONE
                && !isnan(old->runs[i].seconds))
                r->seconds = old->runs[i].seconds;
    } else if (!why[0] && s.kind == TS_FILE_RUN && s.complete && s.verified)
        snprintf(why, why_size, "its kernel is %s with %d threads, the plan's %s with %d", s.kernel, s.n_threads,
                 r->kernel, r->threads);
    if (ok || s.kind != TS_FILE_UNREADABLE)
        ts_run_summary_free(&s);
    return ok;
}

/* The child's environment: this one without OMP_* and GOMP_* (the run's own come instead) and
 * without the survey's test hooks. */
static char **child_env(const struct ts_battery_run *b)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "OMP_", 4) != 0 && strncmp(environ[i], "GOMP_", 5) != 0
            && strncmp(environ[i], "TOUCHSTONE_SURVEY_", 18) != 0)
            env[k++] = environ[i];
    for (int i = 0; i < 3; i++)
        env[k++] = (char *)b->env[i];
    env[k] = NULL;
    return env;
}

/* What the survey saw of the node while a run's process lived, judged by the rule compare uses
 * (common/ts_disturbed.h): other processes' CPU time on the CPUs the runs may use (the busy
 * ticks less the survey's and the run's own time), the run's involuntary switches, the load. A
 * run of milliseconds is too short for its own counters (/proc/stat counts 10 ms ticks, less two
 * of them for rounding); its process, from fork to exit, is not. */
struct seen {
    int disturbed; /* 1, 0, -1 not known (the counters unreadable) */
    char why[600];
    struct ts_disturb_numbers numbers;
};

static void judge_seen(const struct ts_machine_watch *w, const struct rusage *ru, int threads, struct seen *out)
{
    struct ts_machine_rec m;
    out->disturbed = -1;
    out->why[0] = '\0';
    if (w->n_cpus <= 0 || ts_machine_watch_stop(w, &m) != 0)
        return;
    const double child = (double)ru->ru_utime.tv_sec + 1e-6 * (double)ru->ru_utime.tv_usec + (double)ru->ru_stime.tv_sec
                         + 1e-6 * (double)ru->ru_stime.tv_usec;
    m.others_cpu = fmax(0.0, m.others_cpu - child);
    /* Other processes' CPU time and steal only: the run's involuntary switches are judged from
     * its own file, over its kernel. Over the whole process they count start-up and the write
     * too, where libgomp's waiting threads are preempted by the run's own I/O: on a quiet node
     * 27 a thread-second, above the rule's 20, in 32 of 36 runs of a quick survey. */
    struct ts_disturb_facts f;
    ts_disturb_facts_of(threads, m.elapsed, 0.0, NAN, &m, &f);
    out->disturbed = ts_disturbed(&f, out->why, sizeof out->why);
    ts_disturb_numbers(&f, &out->numbers);
}

/* The survey's view joins the run's own: disturbed when either says so, with both reasons. */
static void merge_seen(struct ts_survey_run *r, const struct seen *seen)
{
    if (seen->disturbed < 0)
        return;
    if (seen->disturbed > 0) {
        /* Its own reasons first, then the survey's, as much as fits. */
        if (r->disturbed <= 0)
            r->disturbed_why[0] = '\0';
        const size_t used = strlen(r->disturbed_why);
        if (used + 2 < sizeof r->disturbed_why) /* cut at the end when both together do not fit */
            snprintf(r->disturbed_why + used, sizeof r->disturbed_why - used, "%swhile its process ran: %.500s",
                     used ? "; " : "", seen->why);
        r->disturbed = 1;
    } else if (r->disturbed < 0)
        r->disturbed = 0;
    if (isnan(r->others_share) || seen->numbers.others_share > r->others_share)
        r->others_share = seen->numbers.others_share;
    if (isnan(r->load_excess) || seen->numbers.load_excess > r->load_excess)
        r->load_excess = seen->numbers.load_excess;
}

/* Runs one battery run to its end; *exit_status is the child's (-signal when a signal ended it),
 * *seen what the survey saw of the node meanwhile. TS_RESOURCE_ERROR when it cannot be started. */
static int run_child(const char *exe, const char *dir, const struct ts_battery_run *b, int *exit_status,
                     struct seen *seen, struct ts_error *err)
{
    char log[PATH_MAX + 300], log_name[sizeof b->rec.name + 8], h5_name[sizeof b->rec.name + 8];
    snprintf(log, sizeof log, "%s/runs/%s.log", dir, b->rec.name);
    snprintf(log_name, sizeof log_name, "%s.log", b->rec.name);
    snprintf(h5_name, sizeof h5_name, "%s.h5", b->rec.name);
    if (runs_unchanged(dir, err) != TS_OK)
        return err->status;
    /* A link planted at the run file's name is removed: run would refuse to replace it. */
    int e = remove_planted(runs_fd, h5_name);
    if (e != 0)
        return ts_fail_errno(err, ts_file_status(e), e, "survey: cannot remove %s/runs/%s", dir, h5_name);
    char *argv[TS_BATTERY_MAX_ARGS + 2];
    argv[0] = (char *)exe;
    for (int i = 0; i < b->n_args; i++)
        argv[i + 1] = (char *)b->args[i];
    argv[b->n_args + 1] = NULL;
    char **env = child_env(b);
    if (!env)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "survey: the environment of run %s", b->rec.name);
    int fd = create_new(runs_fd, log_name);
    if (fd < 0) {
        free(env);
        return ts_fail_errno(err, ts_file_status(errno), errno, "survey: cannot write %s", log);
    }
    /* Started last, so that no refusal above leaves it open. */
    struct ts_machine_watch watch;
    if (ts_machine_watch_start(&watch) != 0)
        watch.n_cpus = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGUSR1, SIG_DFL);
        if (launch_known)
            sched_setaffinity(0, sizeof launch_set, &launch_set);
        ts_startup_unblock_stop_signals();
        execve(exe, argv, env);
        _exit(127);
    }
    e = errno;
    close(fd);
    free(env);
    if (pid < 0) {
        ts_machine_watch_free(&watch);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, e, "survey: cannot start run %s", b->rec.name);
    }
    int forwarded = 0, st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        if (stop_signal && !forwarded) {
            kill(pid, stop_signal);
            forwarded = 1;
        }
        pid_t got = wait4(pid, &st, 0, &ru);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR) {
            ts_machine_watch_free(&watch);
            return ts_fail_errno(err, TS_INTERNAL_ERROR, errno, "survey: waiting for run %s", b->rec.name);
        }
    }
    judge_seen(&watch, &ru, b->rec.threads, seen);
    ts_machine_watch_free(&watch);
    *exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1;
    return TS_OK;
}

/* The last non-empty line of a run's log, for a failed run's message. */
static void last_line(const char *dir, const char *name, char *buf, size_t size)
{
    (void)dir;
    char log[300];
    snprintf(log, sizeof log, "%s.log", name);
    buf[0] = '\0';
    int fd = openat(runs_fd, log, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char line[1024];
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n')
            snprintf(buf, size, "%.*s", (int)strcspn(line, "\n"), line);
    fclose(f);
}

static const char *group_name(int g)
{
    static const char *const names[] = TS_SURVEY_GROUP_NAMES;
    return g >= 0 && g < TS_SURVEY_N_GROUPS ? names[g] : "?";
}

static const char *state_name(int s)
{
    static const char *const names[] = TS_SURVEY_STATE_NAMES;
    return s >= 0 && s <= TS_SURVEY_FAILED ? names[s] : "?";
}

/* --- Printing ------------------------------------------------------------------------------------ */

static void matrix_table(FILE *out, const struct ts_survey_matrix *m, const char *title, size_t offset)
{
    fprintf(out, "  %s\n    cpu\\mem", title);
    for (int j = 0; j < m->n_mem_nodes; j++)
        fprintf(out, " %9d", m->mem_nodes[j]);
    fputc('\n', out);
    for (int i = 0; i < m->n_cpu_nodes; i++) {
        fprintf(out, "    %7d", m->cpu_nodes[i]);
        for (int j = 0; j < m->n_mem_nodes; j++) {
            const struct ts_survey_cell *c = &m->cell[i * m->n_mem_nodes + j];
            const double v = *(const double *)(const void *)((const char *)c + offset);
            if (isnan(v))
                fprintf(out, " %9s", "-");
            else
                fprintf(out, " %8.4g%c", v, c->misplaced ? '!' : ' ');
        }
        fputc('\n', out);
    }
}

static void print_summary(FILE *out, const struct ts_survey_rec *s, const char *path, int sections_only)
{
    int done = 0, failed = 0, pending = 0, disturbed = 0;
    for (int i = 0; i < s->n_runs; i++) {
        done += s->runs[i].state == TS_SURVEY_DONE;
        disturbed += s->runs[i].state == TS_SURVEY_DONE && s->runs[i].disturbed > 0;
        failed += s->runs[i].state == TS_SURVEY_FAILED;
        pending += s->runs[i].state == TS_SURVEY_PENDING;
    }
    if (sections_only) { /* --sections: what it measured, not the battery it did not run */
        fprintf(
            out,
            "touchstone survey --%s --sections on %s: %d section%s in the folder; its battery %d of %d runs done%s\n",
            s->mode, s->host, s->n_sections, s->n_sections == 1 ? "" : "s", done + failed, s->n_runs,
            s->complete ? "" : " (touchstone survey without --sections resumes the rest)");
        if (s->emulated)
            fprintf(out, "  EMULATED %s\n", s->emulated_why);
        ts_survey_print_sections(out, s);
        fprintf(out, "\nsurvey file: %s\n", path);
        return;
    }
    fprintf(out, "touchstone survey --%s on %s: %d runs done (%d of them disturbed), %d failed, %d pending%s\n",
            s->mode, s->host, done, disturbed, failed, pending,
            s->complete ? "" : " (incomplete: run the same command again to resume)");
    fprintf(out, "  repeats  %d runs of each point, interleaved\n", s->repeats);
    fprintf(out, "  arrays   %lld MiB each: %s\n", (long long)(s->array_bytes >> 20), s->size_reason);
    if (s->emulated)
        fprintf(out, "  EMULATED %s\n", s->emulated_why);
    fprintf(out, "\nverdict\n");
    if (s->n_sentences == 0)
        fprintf(out, "  (nothing yet: no group has a finished pair of runs)\n");
    for (int i = 0; i < s->n_sentences; i++)
        fprintf(out, "  %d. %s\n     [%s]\n", i + 1, s->sentences[i].text, s->sentences[i].sources);
    fprintf(out, "\nruns (time per iteration, median; pages local to their thread; disturbed: other work took their "
                 "CPUs, left out of the verdict)\n");
    fprintf(out, "  %-37s %-8s %-7s %11s %9s %6s  %s\n", "name", "group", "state", "s/iter", "GB/s", "local",
            "disturbed");
    for (int i = 0; i < s->n_runs; i++) {
        const struct ts_survey_run *r = &s->runs[i];
        char local[16] = "-", others[48] = "";
        if (!isnan(r->local_fraction))
            snprintf(local, sizeof local, "%.0f%%", 100.0 * r->local_fraction);
        if (r->disturbed > 0)
            snprintf(others, sizeof others, " (others %.0f%% of the CPUs, load +%.1f)", 100.0 * r->others_share,
                     r->load_excess);
        fprintf(out, "  %-37s %-8s %-7s %11.4g %9.4g %6s  %s%s\n", r->name, group_name(r->group), state_name(r->state),
                r->time_median, r->gbs_median, local,
                r->state != TS_SURVEY_DONE ? "-"
                : r->disturbed > 0         ? "DISTURBED"
                : r->disturbed == 0        ? "no"
                                           : "not known",
                others);
    }
    if (s->has_matrix) {
        const struct ts_survey_matrix *m = &s->matrix;
        fprintf(out,
                "\nNUMA matrix (rows: CPU node, columns: memory node; ! marks a cell whose pages were not all on "
                "its memory node; %d such)\n",
                m->misplaced_cells);
        matrix_table(out, m, "idle latency, ns (4 KiB pages)", offsetof(struct ts_survey_cell, latency_ns));
        matrix_table(out, m, "idle latency, ns (2 MiB pages)", offsetof(struct ts_survey_cell, latency_huge_ns));
        matrix_table(out, m, "loaded latency, ns (the other cores streaming)",
                     offsetof(struct ts_survey_cell, latency_loaded_ns));
        char title[200];
        snprintf(title, sizeof title, "read bandwidth, GB/s (sum: %s)", m->byte_model_read);
        matrix_table(out, m, title, offsetof(struct ts_survey_cell, read_gbs));
        snprintf(title, sizeof title, "triad bandwidth, GB/s (%s)", m->byte_model_triad);
        matrix_table(out, m, title, offsetof(struct ts_survey_cell, triad_gbs));
        matrix_table(out, m, "pages on the memory node (smallest fraction of a buffer)",
                     offsetof(struct ts_survey_cell, fraction));
        fprintf(out, "  chase %lld MiB, streams %lld MiB per array\n", (long long)(m->chase_bytes >> 20),
                (long long)(m->stream_bytes >> 20));
    } else
        fprintf(out, "\nNUMA matrix: not measured yet (measured after the battery)\n");
    ts_survey_print_sections(out, s);
    fprintf(out, "\nsurvey file: %s\n", path);
}

/* --dump: every field of the file read back, one per line. Lines that start with "measured"
 * hold what changes from one survey to the next (timings, times of day, placement fractions,
 * the verdict's text); the others describe the survey's structure. */
static void dump(FILE *out, const struct ts_survey_rec *s)
{
    fprintf(out, "format %d\nmode %s\ncomplete %d\nemulated %d\nemulated_why %s\narray_bytes %lld\nsize_reason %s\n",
            s->format, s->mode, s->complete, s->emulated, s->emulated_why, (long long)s->array_bytes, s->size_reason);
    fprintf(out, "command %s\nprogram_version %s\nhost %s\nmeasured start_time %s\nrepeats %d\nn_runs %d\n", s->command,
            s->program_version, s->host, s->start_time, s->repeats, s->n_runs);
    for (int i = 0; i < s->n_runs; i++) {
        const struct ts_survey_run *r = &s->runs[i];
        fprintf(out, "run %s group=%s kernel=%s variant=%s threads=%d repeat=%d state=%s exit_status=%d file=%s\n",
                r->name, group_name(r->group), r->kernel, r->variant, r->threads, r->repeat, state_name(r->state),
                r->exit_status, r->file);
        fprintf(out, "run-command %s %s\n", r->name, r->command);
        fprintf(out,
                "measured run %s seconds=%.6g time_median=%.6g gbs_median=%.6g local_fraction=%.6g disturbed=%d "
                "others_share=%.6g load_excess=%.6g why=%s\n",
                r->name, r->seconds, r->time_median, r->gbs_median, r->local_fraction, r->disturbed, r->others_share,
                r->load_excess, r->disturbed_why);
    }
    fprintf(out, "has_matrix %d\n", s->has_matrix);
    if (s->has_matrix) {
        const struct ts_survey_matrix *m = &s->matrix;
        fprintf(out, "matrix %dx%d chase_bytes=%lld stream_bytes=%lld llc_bytes=%lld\n", m->n_cpu_nodes, m->n_mem_nodes,
                (long long)m->chase_bytes, (long long)m->stream_bytes, (long long)m->llc_bytes);
        fprintf(out, "matrix byte_model_read=%s\nmatrix byte_model_triad=%s\n", m->byte_model_read,
                m->byte_model_triad);
        fprintf(out, "measured matrix misplaced_cells=%d\n", m->misplaced_cells);
        for (int k = 0; k < m->n_cpu_nodes * m->n_mem_nodes; k++) {
            const struct ts_survey_cell *c = &m->cell[k];
            fprintf(out, "cell %d %d threads=%d cpus=%s\n", c->cpu_node, c->mem_node, c->threads, c->cpus);
            fprintf(out,
                    "measured cell %d %d latency_ns=%.6g latency_huge_ns=%.6g latency_loaded_ns=%.6g read_gbs=%.6g "
                    "triad_gbs=%.6g fraction=%.6g misplaced=%d huge_granted=%d note=%s\n",
                    c->cpu_node, c->mem_node, c->latency_ns, c->latency_huge_ns, c->latency_loaded_ns, c->read_gbs,
                    c->triad_gbs, c->fraction, c->misplaced, c->huge_granted, c->note);
        }
    }
    fprintf(out, "n_sentences %d\n", s->n_sentences);
    for (int i = 0; i < s->n_sentences; i++)
        fprintf(out, "measured sentence %d %s [%s]\n", i + 1, s->sentences[i].text, s->sentences[i].sources);
    ts_survey_dump_sections(out, s);
}

/* --- The survey ---------------------------------------------------------------------------------- */

/* The survey already in dir must be the one planned: same mode, same sizes, same runs. */
static int check_same_plan(const struct ts_survey_rec *old, const struct ts_battery *b, const char *path,
                           struct ts_error *err)
{
    int same = strcmp(old->mode, b->mode) == 0 && old->array_bytes == b->array_bytes && old->n_runs == b->n_runs;
    for (int i = 0; same && i < b->n_runs; i++)
        same = strcmp(old->runs[i].name, b->runs[i].rec.name) == 0;
    if (same)
        return TS_OK;
    return ts_fail(
        err, TS_BAD_INPUT,
        "survey: %s holds a survey --%s of %d runs with arrays of %lld bytes; this survey --%s plans %d runs "
        "of %lld bytes (%s): resume it with the same mode on the same node, or give another -o DIR",
        path, old->mode, old->n_runs, (long long)old->array_bytes, b->mode, b->n_runs, (long long)b->array_bytes,
        b->size_reason);
}

static int save(const char *path, struct ts_survey_rec *s, struct ts_error *err)
{
    ts_survey_verdict(s);
    int st = ts_survey_write(path, s, err);
    if (st != TS_OK)
        ts_error_prefix(err, "survey: ");
    return st;
}

struct saving {
    const char *path;
};

static int save_sections(void *arg, struct ts_survey_rec *s, struct ts_error *err)
{
    return save(((const struct saving *)arg)->path, s, err);
}

static long stop_after(void)
{
    const char *v = getenv("TOUCHSTONE_SURVEY_STOP_AFTER");
    return v && *v ? strtol(v, NULL, 10) : -1;
}

/* The pace of work whose rates could not be measured: weights (bytes) at an assumed 10 GB/s. */
#define ASSUMED_GBS 10.0

/* The seconds a run's work costs in the pace: its estimate, or its weight at ASSUMED_GBS when its
 * rates are unknown; likewise the NUMA matrix's. */
static double run_cost(const struct ts_battery_run *r)
{
    return isfinite(r->estimate) ? r->estimate : r->weight / (ASSUMED_GBS * 1e9);
}

static double matrix_cost(const struct ts_battery *b, const struct ts_estimate_rates *rates)
{
    const double s = ts_estimate_matrix(b, rates);
    return isfinite(s) ? s : (b->matrix_weight + b->matrix_touch) / (ASSUMED_GBS * 1e9);
}

/* The seconds the rest takes at the pace of the runs so far: the runs left and the NUMA matrix
 * (measured after the battery, when not kept), by their estimated seconds (costs). */
struct pace {
    double cost_left, cost_done, seconds_done;
    double matrix;   /* the NUMA matrix's cost, s, when still to measure */
    double sections; /* the sections' estimates, s: measured after the matrix, at their own pace */
};

static double seconds_left(const struct pace *p)
{
    /* Never "-0 s": the costs left, subtracted back to zero, can end a hair below it. */
    return (p->cost_done > 0 && p->cost_left > 0 ? p->seconds_done / p->cost_done * p->cost_left : 0) + p->sections;
}

static int battery(const char *exe, const char *dir, const char *path, const struct ts_battery *b,
                   struct ts_survey_rec *s, struct pace *pace, struct ts_error *err)
{
    pace->cost_left = s->has_matrix ? 0 : pace->matrix;
    for (int i = 0; i < b->n_runs; i++)
        if (s->runs[i].state != TS_SURVEY_DONE)
            pace->cost_left += run_cost(&b->runs[i]);
    const long limit = stop_after();
    long ran = 0;
    for (int i = 0; i < b->n_runs && !stop_signal; i++) {
        struct ts_survey_run *r = &s->runs[i];
        fprintf(stderr, "[%d/%d] %s %s %s t%d #%d ... ", i + 1, b->n_runs, r->kernel, group_name(r->group),
                r->group == TS_SURVEY_SCALING ? "threads" : r->variant, r->threads, r->repeat);
        if (r->state == TS_SURVEY_DONE) {
            fprintf(stderr, "kept (%s)\n", r->file);
            continue;
        }
        fflush(stderr);
        const double t0 = now();
        int code = 0;
        struct seen seen;
        char why[400] = "";
        int st = run_child(exe, dir, &b->runs[i], &code, &seen, err);
        if (st != TS_OK)
            return st;
        const double took = now() - t0;
        r->exit_status = code;
        r->seconds = took;
        r->time_median = r->gbs_median = r->local_fraction = r->others_share = r->load_excess = NAN;
        r->disturbed = -1;
        r->disturbed_why[0] = '\0';
        if (stop_signal && code != 0) {
            /* Stopped with the survey: it runs again when the survey is resumed. */
            r->state = TS_SURVEY_PENDING;
            r->seconds = NAN;
            r->exit_status = 0;
            fprintf(stderr, "stopped\n");
        } else if (code == 0 && read_done(dir, &b->runs[i], r, NULL, why, sizeof why)) {
            r->seconds = took;
            merge_seen(r, &seen);
            fprintf(stderr, "%.1f s", took);
        } else {
            r->state = TS_SURVEY_FAILED;
            char line[300];
            last_line(dir, r->name, line, sizeof line);
            fprintf(stderr, "FAILED (exit status %d): %s%s; see %s/runs/%s.log", code,
                    code != 0 ? line
                    : why[0]  ? "its file is not the run planned: "
                              : "its file did not read back complete and verified",
                    code == 0 ? why : "", dir, r->name);
        }
        if (r->state != TS_SURVEY_PENDING) {
            pace->cost_left -= run_cost(&b->runs[i]);
            pace->cost_done += run_cost(&b->runs[i]);
            pace->seconds_done += took;
            fprintf(stderr, " (estimated %.1f s; estimate %.0f s left%s)%s\n", run_cost(&b->runs[i]),
                    seconds_left(pace),
                    s->has_matrix ? ", the sections included" : ", the NUMA matrix and the sections included",
                    r->disturbed > 0 ? " DISTURBED" : "");
        }
        st = save(path, s, err);
        if (st != TS_OK)
            return st;
        if (limit >= 0 && ++ran >= limit && !stop_signal) {
            stop_signal = SIGINT; /* TOUCHSTONE_SURVEY_STOP_AFTER: as if interrupted (tests) */
            fprintf(stderr, "survey: TOUCHSTONE_SURVEY_STOP_AFTER=%ld: stopping as if interrupted\n", limit);
        }
    }
    return TS_OK;
}

/* The timed iterations of a kernel's short run for the estimate: three, so that its time per
 * iteration is a median, not one sweep. */
#define PROBE_ITERATIONS 3

/* The battery's run of kernel at all cores, its arrays first-touched by all of them on the first
 * touch policy with close binding: the run its short run copies. NULL when b has none. */
static const struct ts_battery_run *probe_model(const struct ts_battery *b, const char *kernel)
{
    for (int i = 0; i < b->n_runs; i++) {
        const struct ts_battery_run *r = &b->runs[i];
        const char *policy = planned_set(r, "init.policy"), *bind = planned_env(r, "OMP_PROC_BIND");
        if (strcmp(r->rec.kernel, kernel) == 0 && r->team == b->cores && r->init_team == b->cores && policy
            && strcmp(policy, "firsttouch") == 0 && bind && strcmp(bind, "close") == 0)
            return r;
    }
    return NULL;
}

/* A short run of model's kernel (model's size, threads and binding, PROBE_ITERATIONS iterations),
 * its files removed after: its rates for the estimate (app/survey_estimate.h), step NaN when it
 * failed. */
static struct ts_estimate_kernel probe_kernel(const char *exe, const char *dir, const struct ts_battery_run *model)
{
    static struct ts_battery_run probe;
    probe = *model;
    struct ts_estimate_kernel k = { .fixed = NAN, .init = NAN, .step = NAN };
    snprintf(k.name, sizeof k.name, "%s", model->rec.kernel);
    snprintf(probe.rec.name, sizeof probe.rec.name, "estimate-probe");
    snprintf(probe.rec.file, sizeof probe.rec.file, "runs/estimate-probe.h5");
    char path[PATH_MAX + 300];
    if (snprintf(path, sizeof path, "%s/%s", dir, probe.rec.file) >= (int)sizeof path)
        return k;
    for (int i = 0; i < probe.n_args; i++)
        if (strncmp(probe.args[i], "run.iterations=", 15) == 0)
            snprintf(probe.args[i], sizeof probe.args[i], "run.iterations=%d", PROBE_ITERATIONS);
        else if (i > 0 && strcmp(probe.args[i - 1], "-o") == 0
                 && snprintf(probe.args[i], sizeof probe.args[i], "%s", path) >= (int)sizeof probe.args[i])
            return k;
    int code = -1;
    struct seen seen;
    struct ts_error ignored;
    ts_error_clear(&ignored);
    const double t0 = now();
    const int st = run_child(exe, dir, &probe, &code, &seen, &ignored);
    const double took = now() - t0;
    struct ts_run_summary sum;
    if (st == TS_OK && code == 0 && ts_run_read_file_isolated(path, &sum, &ignored) == TS_OK) {
        if (sum.complete && sum.verified && sum.n_iterations > 0 && sum.time_median > 0 && sum.init_time >= 0)
            k = ts_estimate_kernel_from(model->rec.kernel, took, sum.init_time, model->touch_bytes,
                                        (int)sum.n_iterations, sum.time_median);
        ts_run_summary_free(&sum);
    }
    unlinkat(runs_fd, "estimate-probe.h5", 0);
    unlinkat(runs_fd, "estimate-probe.log", 0);
    return k;
}

/* The rates the estimate reads, measured now for the work still to do: each kernel's short run
 * (probe_kernel), a step of the NUMA matrix's chase and, when a run has fewer cores than all,
 * triad on one core (at half the runs' size: past the caches, in half the time). ctx holds
 * triad's at all cores. */
static void measure_rates(const char *exe, const char *dir, const ts_topology *topo, const struct ts_battery *b,
                          const struct ts_survey_rec *s, const struct ts_section_ctx *ctx,
                          struct ts_estimate_rates *rates)
{
    memset(rates, 0, sizeof *rates);
    rates->cores = b->cores;
    rates->gbs_all = ctx->sweep_gbs;
    rates->touch_all = ctx->touch_gbs;
    rates->gbs_one = NAN;
    int fewer = 0;
    for (int i = 0; i < b->n_runs && !stop_signal; i++) {
        const struct ts_battery_run *r = &b->runs[i];
        if (s->runs[i].state == TS_SURVEY_DONE)
            continue;
        fewer |= r->team < b->cores || r->init_team < b->cores;
        const struct ts_battery_run *model = probe_model(b, r->rec.kernel);
        if (model && !ts_estimate_kernel_of(rates, r->rec.kernel) && rates->n_kernels < TS_ESTIMATE_MAX_KERNELS)
            rates->kernels[rates->n_kernels++] = probe_kernel(exe, dir, model);
    }
    struct ts_error ignored;
    ts_error_clear(&ignored);
    /* A chase over 64 MiB, past the caches of most nodes, in about 0.3 s here; scaled (tests) as
     * the matrix's chases are, lest it cost more than the survey it estimates. */
    const int64_t chase = b->scale < 1.0 ? (int64_t)fmax(1 << 20, b->scale * (64 << 20)) : (int64_t)64 << 20;
    if (!s->has_matrix && !stop_signal)
        rates->chase_ns = ts_survey_chase_ns(topo, chase, b->scale < 1.0 ? (int64_t)1 << 13 : (int64_t)1 << 18);
    double touch_one = NAN;
    if (fewer && b->cores > 1 && !stop_signal)
        ts_survey_triad_rate(topo, b->array_bytes / 2 / 4096 * 4096, 1, &rates->gbs_one, &touch_one, &ignored);
}

/* What the estimate up front is made of: the runs still to do, each at its kernel's rates
 * (their estimates set in b), the NUMA matrix when still to measure, the sections. */
struct upfront {
    double runs, matrix, sections, total;
};

static struct upfront upfront(struct ts_battery *b, const struct ts_survey_rec *s,
                              const struct ts_estimate_rates *rates, double sections_seconds)
{
    struct upfront u = { .sections = sections_seconds };
    for (int i = 0; i < b->n_runs; i++) {
        b->runs[i].estimate = ts_estimate_run(&b->runs[i], rates);
        if (s->runs[i].state != TS_SURVEY_DONE)
            u.runs += b->runs[i].estimate;
    }
    if (!s->has_matrix)
        u.matrix = ts_estimate_matrix(b, rates);
    u.total = u.runs + u.matrix + u.sections;
    return u;
}

/* 1 when a battery run of s ran (done or failed): its plan is then what a resume must keep. */
static int started(const struct ts_survey_rec *s)
{
    for (int i = 0; i < s->n_runs; i++)
        if (s->runs[i].state != TS_SURVEY_PENDING)
            return 1;
    return 0;
}

static int has_section(const char *name)
{
    for (int i = 0; ts_survey_section_defs[i]; i++)
        if (strcmp(ts_survey_section_defs[i]->name, name) == 0)
            return 1;
    return 0;
}

/* The battery's plan, its sizes from the last-level cache: hwloc's; when hwloc knows none, the
 * working-set sweep's, measured first into s unless s (an old survey's sections) holds it. A
 * survey being resumed (old, a run of it started) keeps the plan it had: sized by the sweep only
 * if it was then, and its array size where free memory changed since (when that still fits). */
static int plan_battery(const char *mode, const ts_topology *topo, const char *dir, const char *exe,
                        const struct ts_survey_rec *old, int sections_only, struct ts_survey_rec *s,
                        struct ts_battery *b, struct ts_error *err)
{
    const int resumed = old && started(old);
    int64_t inferred = resumed && !strstr(old->size_reason, TS_BATTERY_SWEEP_SIZED) ? 0 : ts_survey_inferred_llc(s);
    int st = ts_battery_plan(mode, topo, dir, exe, 0, inferred, b, err);
    if (st == TS_OK && b->llc_bytes == 0 && !resumed && !sections_only && has_section("sweep")) {
        struct ts_section_ctx ctx = {
            .topo = topo,
            .quick = strcmp(mode, "quick") == 0,
            .scale = b->scale,
            .exe = exe,
            .dir = dir,
            .survey = s,
        };
        const struct ts_sections_run run = { .only = "sweep", .mode = mode, .stop = &stop_signal };
        st = ts_survey_sections_run(&ctx, &run, s, err);
        inferred = ts_survey_inferred_llc(s);
        if (st == TS_OK && inferred > 0) {
            ts_battery_free(b);
            st = ts_battery_plan(mode, topo, dir, exe, 0, inferred, b, err);
        }
    }
    /* The size follows free memory where that caps it: a survey resumed after it changed keeps
     * its own size when that is still no more than this node would choose and still fits. */
    if (st == TS_OK && resumed && old->array_bytes != b->array_bytes && strcmp(old->mode, mode) == 0
        && old->array_bytes <= b->uncapped_bytes / 4096 * 4096
        && (b->cap_bytes == 0 || old->array_bytes <= b->cap_bytes)) {
        ts_battery_free(b);
        st = ts_battery_plan(mode, topo, dir, exe, old->array_bytes, inferred, b, err);
        if (st == TS_OK)
            snprintf(b->size_reason, sizeof b->size_reason, "%s", old->size_reason);
    }
    return st;
}

static int survey(const struct ts_survey_args *a, int argc, char **argv, const char *dir, struct ts_error *err)
{
    char path[PATH_MAX + 32], exe[PATH_MAX];
    snprintf(path, sizeof path, "%s/survey.h5", dir);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "survey: cannot find this program (/proc/self/exe)");
    exe[n] = '\0';

    static struct ts_survey_rec old;
    /* The survey file is what a resume trusts: one that is not a regular file of the folder (a
     * link to another survey's file) is refused, not followed. */
    struct stat survey_st;
    int has_old = fstatat(dir_fd, "survey.h5", &survey_st, AT_SYMLINK_NOFOLLOW) == 0;
    if (has_old && !S_ISREG(survey_st.st_mode))
        return ts_fail(err, TS_BAD_INPUT,
                       "survey: %s is %s, not a survey file: the survey follows no link in its folder; remove it, "
                       "or give another -o DIR",
                       path, kind_of(survey_st.st_mode));
    int st = TS_OK;
    if (has_old && (st = ts_survey_read(path, &old, err)) != TS_OK) {
        ts_error_prefix(err,
                        "survey: %s holds a survey file that cannot be resumed (remove it or give another -o "
                        "DIR): ",
                        dir);
        return st;
    }
    const char *mode = a->mode == TS_SURVEY_MODE_FULL    ? "full"
                       : a->mode == TS_SURVEY_MODE_QUICK ? "quick"
                       : has_old                         ? old.mode
                                                         : "quick";
    ts_topology *topo = NULL;
    static struct ts_battery b;
    static struct ts_survey_rec s;
    memset(&s, 0, sizeof s);
    s.n_sections = old.n_sections; /* kept; --sections measures its own again */
    s.sections = old.sections;
    old.n_sections = 0;
    old.sections = NULL;
    st = ts_topology_create(&topo, err);
    if (st == TS_OK)
        st = plan_battery(mode, topo, dir, exe, has_old ? &old : NULL, a->sections != NULL, &s, &b, err);
    if (st == TS_OK && has_old && started(&old))
        st = check_same_plan(&old, &b, path, err);
    if (st == TS_OK)
        st = write_config(dir, err);
    if (st == TS_OK && !(s.runs = calloc((size_t)b.n_runs, sizeof *s.runs)))
        st = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "survey: %d runs", b.n_runs);
    if (st != TS_OK) {
        ts_battery_free(&b);
        ts_topology_destroy(topo);
        ts_survey_free(&old);
        ts_survey_free(&s);
        return st;
    }
    s.format = TS_SURVEY_FORMAT;
    snprintf(s.mode, sizeof s.mode, "%s", mode);
    for (int i = 0; i < argc; i++)
        ts_battery_append_word(s.command, sizeof s.command, i == 0 ? "touchstone" : argv[i]);
    snprintf(s.program_version, sizeof s.program_version, "%s", TS_VERSION);
    if (gethostname(s.host, sizeof s.host - 1) != 0)
        snprintf(s.host, sizeof s.host, "unknown");
    if (has_old && old.start_time[0])
        snprintf(s.start_time, sizeof s.start_time, "%s", old.start_time);
    else
        iso_now(s.start_time, sizeof s.start_time);
    s.emulated = ts_survey_emulated(s.emulated_why, sizeof s.emulated_why);
    s.array_bytes = b.array_bytes;
    snprintf(s.size_reason, sizeof s.size_reason, "%s", b.size_reason);
    s.n_runs = b.n_runs;
    s.repeats = b.repeats;
    for (int i = 0; i < b.n_runs; i++) {
        s.runs[i] = b.runs[i].rec;
        char why[400];
        if (!read_done(dir, &b.runs[i], &s.runs[i], has_old ? &old : NULL, why, sizeof why) && why[0])
            fprintf(stderr, "survey: %s/%s is not kept: %s; it runs again\n", dir, s.runs[i].file, why);
    }
    if (has_old && old.has_matrix) { /* measured once the battery was done: kept */
        s.has_matrix = 1;
        s.matrix = old.matrix;
        memset(&old.matrix, 0, sizeof old.matrix);
    }
    ts_survey_free(&old);
    struct ts_section_ctx ctx = {
        .topo = topo,
        .quick = strcmp(mode, "quick") == 0,
        .scale = b.scale,
        .llc_bytes = b.llc_bytes,
        .exe = exe,
        .dir = dir,
        .survey = &s,
    };
    double gbs = NAN, touch_gbs = NAN;
    const double measuring_at = now();
    if (!a->sections) { /* the rates the estimate up front reads, at the runs' own size: a smaller
                           one sits partly in a cache hwloc may not see (a VM's) */
        struct ts_error ignored;
        ts_error_clear(&ignored);
        if (ts_survey_triad_rate(topo, b.array_bytes, 0, &gbs, &touch_gbs, &ignored) == TS_OK) {
            ctx.sweep_gbs = gbs > 0 ? gbs : 0.0;
            ctx.touch_gbs = touch_gbs > 0 ? touch_gbs : 0.0;
        }
    }
    static struct ts_estimate_rates rates;
    if (!a->sections)
        measure_rates(exe, dir, topo, &b, &s, &ctx, &rates);
    const double measuring = now() - measuring_at;
    const double sections_s = ts_survey_sections_estimate(&ctx, &s, a->sections);
    const struct upfront up = upfront(&b, &s, &rates, sections_s);
    const double estimate = a->sections ? sections_s : up.total;
    const double started_at = now();
    if (a->sections)
        fprintf(stderr, "touchstone survey --%s --sections %s into %s: estimate %.0f s\n", mode, a->sections, dir,
                estimate);
    else
        fprintf(stderr,
                "touchstone survey --%s: %d runs into %s, arrays of %lld MiB (%s); estimate %.0f s (the runs %.0f s "
                "at their kernels' rates measured now, the NUMA matrix %.0f s at the %.3g GB/s of triad, the "
                "sections %.0f s; measuring them took %.1f s)\n",
                mode, b.n_runs, dir, (long long)(b.array_bytes >> 20), b.size_reason, estimate, up.runs, up.matrix, gbs,
                sections_s, measuring);

    read_launch_set(topo);
    install_stop_handlers();
    st = save(path, &s, err);
    struct pace pace = { .matrix = matrix_cost(&b, &rates), .sections = sections_s };
    if (st == TS_OK && !a->sections)
        st = battery(exe, dir, path, &b, &s, &pace, err);
    if (st == TS_OK && !stop_signal && !s.has_matrix && !a->sections) {
        /* Its own estimate up front, as each run's and section's line says theirs. */
        if (isfinite(up.matrix))
            fprintf(stderr, "[matrix] NUMA matrix (estimate %.0f s) ... ", up.matrix);
        else
            fprintf(stderr, "[matrix] NUMA matrix ... ");
        fflush(stderr);
        const double t0 = now();
        st = ts_survey_matrix_measure(topo, strcmp(mode, "quick") == 0, b.scale, &s.matrix, err);
        if (st == TS_OK) {
            s.has_matrix = 1;
            fprintf(stderr, "%.1f s\n", now() - t0);
        } else
            fprintf(stderr, "failed\n");
    }
    if (st == TS_OK && !stop_signal) {
        struct saving saving = { .path = path };
        const struct ts_sections_run run = {
            .only = a->sections,
            .mode = mode,
            .save = save_sections,
            .save_arg = &saving,
            .stop = &stop_signal,
        };
        st = ts_survey_sections_run(&ctx, &run, &s, err);
    }
    if (st == TS_OK && !stop_signal && isfinite(estimate) && estimate > 0)
        fprintf(stderr, "survey: took %.0f s, %.0f%% of the estimate up front (%.0f s)\n", now() - started_at,
                100.0 * (now() - started_at) / estimate, estimate);
    int failed = 0, pending = 0;
    for (int i = 0; i < s.n_runs; i++) {
        failed += s.runs[i].state == TS_SURVEY_FAILED;
        pending += s.runs[i].state == TS_SURVEY_PENDING;
    }
    s.complete = !pending && s.has_matrix && ts_survey_sections_missing(&s) == 0;
    if (st == TS_OK)
        st = save(path, &s, err);
    else {
        struct ts_error ignored; /* the first error is the one to report */
        ts_error_clear(&ignored);
        save(path, &s, &ignored);
    }
    char html[PATH_MAX + 32] = "";
    if (st == TS_OK && a->html) {
        /* Also of a survey a signal stopped: the report shows what is pending. */
        snprintf(html, sizeof html, "%s/survey.html", dir);
        int e = remove_planted(dir_fd, "survey.html"); /* replaced, never written through */
        st = e ? ts_fail_errno(err, ts_file_status(e), e, "survey: cannot remove %s", html)
               : ts_html_write_survey(html, &s, dir, err);
    }
    if (st == TS_OK) {
        print_summary(stdout, &s, path, a->sections != NULL);
        if (html[0])
            printf("report: %s\n", html);
        /* A signal during the matrix, the battery done: the survey is complete all the same. */
        st = stop_signal && !s.complete ? TS_INTERRUPTED : failed ? TS_VERIFY_FAILED : TS_OK;
        if (st == TS_INTERRUPTED)
            fprintf(stderr,
                    "survey: stopped by a signal with %d runs pending: run the same command again to "
                    "resume (finished runs are kept)\n",
                    pending);
    }
    ts_survey_free(&s);
    ts_battery_free(&b);
    ts_topology_destroy(topo);
    return st;
}

int ts_survey_cmd(const struct ts_survey_args *a, int argc, char **argv, struct ts_error *err)
{
    const char *given = a->dir ? a->dir : "touchstone-survey";
    if (a->dump) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/survey.h5", given);
        struct stat st_link;
        if (lstat(path, &st_link) == 0 && !S_ISREG(st_link.st_mode))
            return ts_fail(err, TS_BAD_INPUT,
                           "survey: %s is %s, not a survey file: the survey follows no link in its folder; remove it",
                           path, kind_of(st_link.st_mode));
        static struct ts_survey_rec s;
        int st = ts_survey_read(path, &s, err);
        if (st != TS_OK)
            return st;
        dump(stdout, &s);
        ts_survey_free(&s);
        return TS_OK;
    }
    int st = a->sections ? ts_survey_sections_check(a->sections, err) : TS_OK;
    if (st == TS_OK)
        st = make_dir(given, err);
    char dir[PATH_MAX];
    if (st == TS_OK && !realpath(given, dir))
        st = ts_fail_errno(err, ts_file_status(errno), errno, "survey: cannot use folder %s", given);
    if (st == TS_OK)
        st = open_folder(dir, err);
    if (st == TS_OK)
        st = survey(a, argc, argv, dir, err);
    close_folder();
    return st;
}

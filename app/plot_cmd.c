/* touchstone plot: the files are read and validated here, with the same messages as compare,
 * then tools/plot.py (h5py and matplotlib) draws them. Python is run as a child so that its
 * failure comes back as an exit status and message like any other. */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "readback_set.h"
#include "ts_file_place.h"

/* The most run files one picture takes, and --kind init (a bar, its label and a legend entry
 * per run): tools/plot.py has the same numbers. */
#define TS_PLOT_MAX_FILES 1000
#define TS_PLOT_MAX_INIT 32

extern char **environ;

/* The copy the build puts next to the binary first, then the installed one at a path relative
 * to the binary (TS_PLOT_INSTALLED: ../share/touchstone/plot.py), then the source tree's: a
 * build tree or an installed tree works when moved, and TOUCHSTONE_PLOT_SCRIPT overrides all. */
static int find_script(char *buf, size_t size, struct ts_error *err)
{
    const char *env = getenv("TOUCHSTONE_PLOT_SCRIPT");
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return access(buf, R_OK) == 0
                   ? TS_OK
                   : ts_fail_errno(err, ts_file_status(errno), errno, "plot: TOUCHSTONE_PLOT_SCRIPT=%s", env);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
        *slash = '\0';
        const char *beside[] = { "plot.py", TS_PLOT_INSTALLED };
        char path[PATH_MAX], real[PATH_MAX];
        for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++)
            /* realpath: messages name .../share/touchstone/plot.py, not .../bin/../share/... */
            if (snprintf(path, sizeof path, "%s/%s", exe, beside[i]) < (int)sizeof path && access(path, R_OK) == 0
                && realpath(path, real) && snprintf(buf, size, "%s", real) < (int)size)
                return TS_OK;
    }
    snprintf(buf, size, "%s", TS_PLOT_SCRIPT);
    if (access(buf, R_OK) == 0)
        return TS_OK;
    return ts_fail(err, TS_BAD_INPUT,
                   "plot: cannot find plot.py next to the binary, at %s/%s nor at %s (set TOUCHSTONE_PLOT_SCRIPT)", exe,
                   TS_PLOT_INSTALLED, TS_PLOT_SCRIPT);
}

/* The picture formats by extension, as in tools/plot.py's FORMATS (jpg through Pillow, which
 * plot.py checks for): a name matplotlib would write as PNG whatever it says is refused. */
static int check_format(const char *out, struct ts_error *err)
{
    static const char *const formats[] = { "png", "svg", "pdf", "jpg", "jpeg" };
    const char *slash = strrchr(out, '/'), *name = slash ? slash + 1 : out;
    const char *dot = strrchr(name, '.');
    if (dot == name) /* ".png" is a hidden file without extension, as for Python's splitext */
        dot = NULL;
    for (size_t i = 0; dot && i < sizeof formats / sizeof formats[0]; i++)
        if (strcasecmp(dot + 1, formats[i]) == 0)
            return TS_OK;
    if (!dot)
        return ts_fail(err, TS_BAD_INPUT, "plot: -o %s: no extension (formats: png, svg, pdf, jpg)", out);
    return ts_fail(err, TS_BAD_INPUT, "plot: -o %s: unknown picture format '%s' (formats: png, svg, pdf, jpg)", out,
                   dot + 1);
}

/* Checked before the plotting rather than after it: Python takes seconds to get there. The
 * rules of run's output (docs/reliability.md): a name that is not a regular file (a symbolic
 * link, a device, a FIFO, a directory) is refused even with --overwrite, an existing picture
 * is replaced only with --overwrite. plot.py checks the same again when it puts the picture
 * in place (atomically, from a temporary file), for a name taken meanwhile and for itself. */
static int check_output(const struct ts_runs_args *a, struct ts_error *err)
{
    const char *out = a->output;
    if (check_format(out, err))
        return err->status;
    if (ts_file_refuse_special(out, "output", err) != TS_OK) {
        ts_error_prefix(err, "plot: ");
        return err->status;
    }
    if (!a->overwrite && ts_file_id_of(out).known)
        return ts_fail(err, TS_BAD_INPUT,
                       "plot: %s exists; remove it, choose another -o, or add --overwrite to replace it", out);
    char dir[PATH_MAX];
    const char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == out ? 1 : (int)(slash - out), out);
    if (access(dir, W_OK | X_OK) != 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "plot: cannot write %s", out);
    return TS_OK;
}

/* The run files the arguments name, counted before any is read (a directory by its *.h5 names):
 * a picture of more is unreadable, and reading them takes minutes (TS_PLOT_MAX_FILES, the same
 * limits in tools/plot.py). */
static int check_count(const struct ts_runs_args *a, struct ts_error *err)
{
    const int init = strcmp(a->kind, "init") == 0;
    const size_t most = init ? TS_PLOT_MAX_INIT : TS_PLOT_MAX_FILES;
    size_t n = 0;
    for (int i = 0; i < a->n_files; i++)
        n += ts_run_set_candidates(a->files[i]);
    if (n <= most)
        return TS_OK;
    return ts_fail(err, TS_BAD_INPUT,
                   "plot: %zu run files; %s draws at most %zu (a picture of more cannot be read): plot fewer at a "
                   "time",
                   n, init ? "--kind init" : "a plot", most);
}

static int run(char **argv, struct ts_error *err)
{
    pid_t pid;
    int e = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
    if (e != 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, e, "plot: cannot run %s", argv[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return ts_fail_errno(err, TS_INTERNAL_ERROR, errno, "plot: waiting for %s", argv[1]);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return TS_OK;
    if (WIFEXITED(status))
        return ts_fail(err, TS_BAD_INPUT, "plot: %s failed (exit status %d)", argv[1], WEXITSTATUS(status));
    return ts_fail(err, TS_BAD_INPUT, "plot: %s killed by signal %d", argv[1], WTERMSIG(status));
}

int ts_plot_cmd(const struct ts_runs_args *a, struct ts_error *err)
{
    const char *python = getenv("TOUCHSTONE_PYTHON");
    python = python && *python ? python : TS_PYTHON;
    if (access(python, X_OK) != 0)
        return ts_fail_errno(err, ts_file_status(errno), errno,
                             "plot: needs %s with h5py and matplotlib (Debian: apt-get "
                             "install python3-h5py python3-matplotlib; TOUCHSTONE_PYTHON names another)",
                             python);
    char script[PATH_MAX];
    struct ts_run_set set = { 0 };
    if (check_output(a, err) || check_count(a, err) || find_script(script, sizeof script, err)
        || ts_run_set_load(&set, a->files, a->n_files, 1, "plot", err)) {
        ts_run_set_free(&set);
        return err->status;
    }
    enum { FIXED = 12 };
    char **argv = calloc(set.n + FIXED, sizeof *argv);
    int st = TS_OK;
    if (!argv) {
        st = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "plot");
    } else {
        size_t k = 0;
        /* --prog: plot.py's messages, "wrote OUT (W x H px)" among them, name this command. */
        const char *fixed[] = { python, script, "--prog", "touchstone plot", "--kind", a->kind, "-o", a->output };
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            argv[k++] = (char *)fixed[i];
        if (a->size) {
            argv[k++] = "--size";
            argv[k++] = (char *)a->size;
        }
        if (a->overwrite)
            argv[k++] = "--overwrite";
        argv[k++] = "--";
        for (size_t i = 0; i < set.n; i++)
            argv[k++] = set.runs[i].file;
        fflush(NULL);
        st = run(argv, err);
    }
    free(argv);
    ts_run_set_free(&set);
    return st;
}

#include "binding.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "early.h"
#include "omp_env.h"
#include "start_clock.h"
#include "startup.h"
#include "ts_affinity.h"

/* Set on re-execution; its value carries the pid that set it (exec keeps the pid), where each
 * variable came from, the CPU list the process had before the runtime bound it and the exact
 * values applied: "pid=4321;places=config;proc_bind=environment;cpus=0-3;OMP_PROC_BIND=close;
 * OMP_PLACES=cores" (OMP_PLACES last: it is the only field that may hold any text). A marker
 * that does not match this process and its environment exactly is stale: inherited from
 * another touchstone, or set by hand (jobs/check-binding.sh reads TOUCHSTONE_BINDING=strict). */
#define MARKER "TOUCHSTONE_BINDING"

/* Set on re-execution next to MARKER: the memfd holding the config text the first pass read,
 * "fd=5;size=1234;pid=4321". exec keeps the pid, so a marker of another process is stale. */
#define CONFIG_MARKER "TOUCHSTONE_CONFIG_FD"
#define CONFIG_MEMFD_NAME "touchstone-config"
/* Sealed: neither this program nor anything else can change the text once handed over. */
#define CONFIG_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* A memfd (inherited across exec: no MFD_CLOEXEC) holding text, sealed; -1 with errno. */
static int config_memfd(const char *text)
{
    size_t len = strlen(text); /* the loader refuses NUL bytes */
    int fd = memfd_create(CONFIG_MEMFD_NAME, MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(fd);
            errno = saved;
            return -1;
        }
        done += (size_t)n;
    }
    if (fcntl(fd, F_ADD_SEALS, CONFIG_SEALS) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int ts_binding_take_config(char **text, size_t *len, struct ts_error *err)
{
    *text = NULL;
    *len = 0;
    const char *value = getenv(CONFIG_MARKER);
    if (!value)
        return TS_OK;
    char marker[128];
    snprintf(marker, sizeof marker, "%s", value);
    unsetenv(CONFIG_MARKER); /* nothing this process starts must see it */
    int fd = -1;
    long long size = -1, pid = -1;
    int fields = sscanf(marker, "fd=%d;size=%lld;pid=%lld", &fd, &size, &pid);
    char bad[64] = "";
    if (fields != 3 || pid != (long long)getpid())
        return TS_OK; /* not set by this process before its exec: nothing was handed over */

    /* The descriptor must be the sealed memfd of that size that the first pass made. */
    struct stat st;
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (long long)st.st_size != size)
        snprintf(bad, sizeof bad, "not a file of %lld bytes", size);
    else if (fcntl(fd, F_GET_SEALS) != CONFIG_SEALS)
        snprintf(bad, sizeof bad, "not sealed as handed over");
    else if (strncmp(target, "/memfd:" CONFIG_MEMFD_NAME, strlen("/memfd:" CONFIG_MEMFD_NAME)) != 0)
        snprintf(bad, sizeof bad, "not the memfd handed over");
    if (bad[0])
        return ts_fail(err, TS_BAD_INPUT,
                       "%s=%s: descriptor %d is %s; the re-executed touchstone cannot take the "
                       "config the first pass read",
                       CONFIG_MARKER, marker, fd, bad);
    char *buf = malloc((size_t)size + 1);
    size_t got = 0;
    while (buf && got < (size_t)size) {
        ssize_t r = pread(fd, buf + got, (size_t)size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf || got != (size_t)size) {
        free(buf);
        return ts_fail_errno(err, buf ? TS_IO_ERROR : TS_RESOURCE_ERROR, buf ? errno : ENOMEM,
                             "cannot read the config handed over to the re-executed touchstone (memfd %d)", fd);
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return TS_OK;
}

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* The OpenMP runtime asked for the default binding as it started and was given it (app/early.h). */
static int early_binding;

void ts_binding_take_early(void)
{
    early_binding = ts_early_binding_taken();
}

/* What the OpenMP runtime applied, asked of it rather than read from the variables: its policy
 * (omp_get_proc_bind) and its places, each as libgomp prints them under OMP_DISPLAY_ENV
 * ("{0:2},{2},{4:2}": runs of consecutive CPUs as start:length), "" when it has none. Only in
 * the process that runs: the runtime read the variables when it loaded. */
static void runtime_binding(struct ts_binding_choice *choice)
{
    static const char *const names[] = { "false", "true", "primary", "close", "spread" };
    int bind = (int)omp_get_proc_bind();
    copy(choice->applied_proc_bind, sizeof choice->applied_proc_bind,
         bind >= 0 && bind < (int)(sizeof names / sizeof names[0]) ? names[bind] : "unknown");
    size_t used = 0, len = sizeof choice->applied_places;
    choice->applied_places[0] = '\0';
    int n = omp_get_num_places();
    for (int p = 0; p < n && used < len; p++) {
        int count = omp_get_place_num_procs(p), ids[1024];
        if (count > (int)(sizeof ids / sizeof ids[0])) {
            used += (size_t)snprintf(choice->applied_places + used, len - used, "%s{%d CPUs}", p ? "," : "", count);
            continue;
        }
        omp_get_place_proc_ids(p, ids);
        used += (size_t)snprintf(choice->applied_places + used, len - used, "%s{", p ? "," : "");
        for (int i = 0; i < count && used < len;) {
            int run = 1;
            while (i + run < count && ids[i + run] == ids[i] + run)
                run++;
            used +=
                (size_t)(run > 1
                             ? snprintf(choice->applied_places + used, len - used, "%s%d:%d", i ? "," : "", ids[i], run)
                             : snprintf(choice->applied_places + used, len - used, "%s%d", i ? "," : "", ids[i]));
            i += run;
        }
        if (used < len)
            used += (size_t)snprintf(choice->applied_places + used, len - used, "}");
    }
    if (used >= len && len > 4) /* cut: say so rather than show a list that looks whole */
        memcpy(choice->applied_places + len - 4, "...", 4);
}

/* The config asks for exactly the binding the runtime was given as it started (app/early.c), and the
 * runtime applied it: the binding is in place, no
 * re-execution. Fills choice as the re-executed process would. */
static int early_binding_kept(const struct ts_config *cfg, struct ts_binding_choice *choice, int launch_known)
{
    if (!early_binding || strcmp(cfg->places, TS_EARLY_PLACES) != 0 || strcmp(cfg->proc_bind, TS_EARLY_PROC_BIND) != 0)
        return 0;
    runtime_binding(choice);
    if (strcmp(choice->applied_proc_bind, TS_EARLY_PROC_BIND) != 0 || choice->applied_places[0] == '\0')
        return 0;
    if (!launch_known) { /* the runtime has narrowed this thread: the places' union is the closest */
        const char *source;
        ts_affinity_available_cpus(choice->launch_cpus, sizeof choice->launch_cpus, &source);
    }
    return 1;
}

/* The marker this process sets before it re-executes itself to apply choice. Returns the length
 * it needed (snprintf's convention). */
static int format_marker(char *buf, size_t len, long long pid, const char *places_source, const char *proc_bind_source,
                         const char *cpus, const char *proc_bind, const char *places)
{
    return snprintf(buf, len, "pid=%lld;places=%s;proc_bind=%s;cpus=%s;OMP_PROC_BIND=%s;OMP_PLACES=%s", pid,
                    places_source, proc_bind_source, cpus, proc_bind ? proc_bind : "", places ? places : "");
}

/* Reads a marker this very process set before its exec into choice: 1 when it is one (the pid
 * is this process's, and it applies exactly the OMP_PLACES and OMP_PROC_BIND in the
 * environment now), 0 when it is stale. */
static int own_marker(const char *marker, struct ts_binding_choice *choice)
{
    long long pid = -1;
    char places_source[16] = "", bind_source[16] = "", cpus[256] = "";
    if (sscanf(marker, "pid=%lld;places=%15[a-z];proc_bind=%15[a-z];cpus=%255[^;]", &pid, places_source, bind_source,
               cpus)
            < 3
        || pid != (long long)getpid())
        return 0;
    int config_or_env = 1;
    for (const char *s = places_source; config_or_env && s; s = s == places_source ? bind_source : NULL)
        config_or_env = strcmp(s, "config") == 0 || strcmp(s, "environment") == 0;
    if (!config_or_env)
        return 0;
    const char *places = getenv("OMP_PLACES"), *bind = getenv("OMP_PROC_BIND");
    size_t need = strlen(marker) + 1;
    char *expected = malloc(need + 1);
    int same =
        expected
        && (size_t)format_marker(expected, need + 1, pid, places_source, bind_source, cpus, bind, places) + 1 == need
        && strcmp(expected, marker) == 0;
    free(expected);
    if (!same)
        return 0;
    copy(choice->places_source, sizeof choice->places_source, places_source);
    copy(choice->proc_bind_source, sizeof choice->proc_bind_source, bind_source);
    copy(choice->launch_cpus, sizeof choice->launch_cpus, cpus);
    return 1;
}

int ts_binding_apply(const struct ts_config *cfg, char **argv, struct ts_binding_choice *choice, struct ts_error *err)
{
    memset(choice, 0, sizeof *choice);
    copy(choice->config_places, sizeof choice->config_places, cfg->places);
    copy(choice->config_proc_bind, sizeof choice->config_proc_bind, cfg->proc_bind);

    const char *marker = getenv(MARKER);
    if (marker && own_marker(marker, choice)) {
        /* Second pass: the variables are in place; learn where they came from. Executed as
         * /proc/self/exe, the process is named "exe": ps, top and pkill know it by its name. */
        const char *name = strrchr(argv[0], '/');
        prctl(PR_SET_NAME, name ? name + 1 : argv[0], 0, 0, 0);
        copy(choice->places, sizeof choice->places, getenv("OMP_PLACES"));
        copy(choice->proc_bind, sizeof choice->proc_bind, getenv("OMP_PROC_BIND"));
        unsetenv(MARKER);
        runtime_binding(choice);
        return TS_OK;
    }
    char own_pid[32];
    snprintf(own_pid, sizeof own_pid, "pid=%lld;", (long long)getpid());
    if (marker && strncmp(marker, own_pid, strlen(own_pid)) == 0)
        /* This process set it before its exec, and the environment no longer holds what it
         * applied: re-executing again could go on forever. */
        return ts_fail(err, TS_INTERNAL_ERROR,
                       "the re-executed touchstone does not find the binding it applied (%s=%.300s, OMP_PLACES=%.100s, "
                       "OMP_PROC_BIND=%.32s)",
                       MARKER, marker, getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "(unset)",
                       getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "(unset)");
    if (marker) {
        /* Not this process's own re-execution: taking it would drop the config's binding. */
        char text[96];
        fprintf(stderr,
                "touchstone: warning: %s=%s in the environment is not the marker of this process's own "
                "re-execution (another touchstone's, or set by hand); ignored: the binding is applied as "
                "if it were unset\n",
                MARKER, ts_omp_env_shown(marker, text, sizeof text));
        unsetenv(MARKER);
    }

    const char *env_places = getenv("OMP_PLACES");
    const char *env_bind = getenv("OMP_PROC_BIND");
    int places_from_config = env_places == NULL || env_places[0] == '\0';
    int bind_from_config = env_bind == NULL || env_bind[0] == '\0';
    copy(choice->places, sizeof choice->places, places_from_config ? cfg->places : env_places);
    copy(choice->proc_bind, sizeof choice->proc_bind, bind_from_config ? cfg->proc_bind : env_bind);
    copy(choice->places_source, sizeof choice->places_source, places_from_config ? "config" : "environment");
    copy(choice->proc_bind_source, sizeof choice->proc_bind_source, bind_from_config ? "config" : "environment");

    /* The mask the process started with, read before the runtime could narrow it. */
    int launch_known = ts_affinity_launch_cpus(choice->launch_cpus, sizeof choice->launch_cpus) > 0;
    if (!places_from_config && !bind_from_config) {
        /* Without that record, the union of the places is the closest to what the process was
         * given: the runtime already read both and may have narrowed this thread to one place. */
        const char *source;
        if (!launch_known)
            ts_affinity_available_cpus(choice->launch_cpus, sizeof choice->launch_cpus, &source);
        runtime_binding(choice);
        return TS_OK;
    }
    if (places_from_config && bind_from_config && early_binding_kept(cfg, choice, launch_known))
        return TS_OK;

    /* Nothing bound this process yet when neither variable was set (nor given by app/early.c): its
     * mask is the launch mask. Otherwise the runtime has narrowed this thread to one place, and
     * the re-executed process would inherit that: widen it back first. */
    if (env_places == NULL && env_bind == NULL && !early_binding) {
        cpu_set_t mask;
        if (!launch_known && sched_getaffinity(0, sizeof mask, &mask) == 0)
            ts_cpulist_format(&mask, sizeof mask, choice->launch_cpus, sizeof choice->launch_cpus);
    } else if (launch_known ? ts_affinity_restore_launch_mask() != 0
                            : ts_affinity_widen_to_places(choice->launch_cpus, sizeof choice->launch_cpus) != 0) {
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno,
                             "cannot restore the CPU mask (%s) before applying the binding", choice->launch_cpus);
    }

    char config[128];
    int fd = -1; /* the config text, when one was loaded */
    if (cfg->text && (fd = config_memfd(cfg->text)) < 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno,
                             "cannot hand the config over to the re-executed touchstone (memfd_create) to apply "
                             "OMP_PLACES=%s OMP_PROC_BIND=%s (set them in the environment instead)",
                             choice->places, choice->proc_bind);
    snprintf(config, sizeof config, "fd=%d;size=%zu;pid=%lld", fd, cfg->text ? strlen(cfg->text) : 0,
             (long long)getpid());
    /* The marker holds the values exactly as the environment does (choice's copies may be cut). */
    char *value = NULL;
    int ok = (!places_from_config || setenv("OMP_PLACES", choice->places, 1) == 0)
             && (!bind_from_config || setenv("OMP_PROC_BIND", choice->proc_bind, 1) == 0);
    if (ok) {
        const char *places = getenv("OMP_PLACES"), *bind = getenv("OMP_PROC_BIND");
        long long pid = (long long)getpid();
        size_t need = (size_t)format_marker(NULL, 0, pid, choice->places_source, choice->proc_bind_source,
                                            choice->launch_cpus, bind, places)
                      + 1;
        ok = (value = malloc(need)) != NULL;
        if (ok)
            format_marker(value, need, pid, choice->places_source, choice->proc_bind_source, choice->launch_cpus, bind,
                          places);
    }
    if (!ok || setenv(MARKER, value, 1) != 0 || (fd >= 0 && setenv(CONFIG_MARKER, config, 1) != 0)
        || ts_start_clock_handover() != 0) {
        int e = errno;
        free(value);
        if (fd >= 0)
            close(fd);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, e, "cannot set OMP_PLACES/OMP_PROC_BIND");
    }
    free(value);
    fflush(NULL);
    execv("/proc/self/exe", argv);
    int exec_errno = errno;
    if (fd >= 0)
        close(fd);
    unsetenv(CONFIG_MARKER);
    return ts_fail_errno(err, TS_RESOURCE_ERROR, exec_errno,
                         "cannot re-execute /proc/self/exe to apply OMP_PLACES=%s OMP_PROC_BIND=%s "
                         "(set them in the environment instead)",
                         choice->places, choice->proc_bind);
}

/* "[openmp] places = {99} (run.ini:4)" for the key named name ("openmp.places"); 0 when the
 * key holds its default, also when a file writes it out (configs/default.ini writes every key):
 * judging asks for the machine's topology, which the first pass of a re-executed run would
 * discover only for this (bench/README.md "Where a default run's time goes"). */
static int config_value_what(const struct ts_config *cfg, const char *name, char *what, size_t len)
{
    for (size_t i = 0; ts_config_key_name(i); i++) {
        if (strcmp(ts_config_key_name(i), name) != 0)
            continue;
        if (cfg->origin[i].source == TS_CONFIG_DEFAULT)
            return 0;
        char value[256], origin[sizeof cfg->path + 16], shown[96];
        ts_config_value_string(cfg, i, value, sizeof value);
        if (strcmp(value, ts_config_key_default(i)) == 0)
            return 0;
        ts_config_origin_string(cfg, i, origin, sizeof origin);
        snprintf(what, len, "[openmp] %s = %s (%s)", strchr(name, '.') + 1,
                 ts_omp_env_shown(value, shown, sizeof shown), origin);
        return 1;
    }
    return 0;
}

int ts_binding_check_config(const struct ts_config *cfg, struct ts_error *err)
{
    char places_what[sizeof cfg->path + 160], bind_what[sizeof cfg->path + 160];
    int places_set = config_value_what(cfg, "openmp.places", places_what, sizeof places_what);
    int bind_set = config_value_what(cfg, "openmp.proc_bind", bind_what, sizeof bind_what);
    if (!places_set && !bind_set)
        return TS_OK; /* the defaults, which the runtime takes */
    const struct ts_omp_env_names names = { places_what, bind_what };
    return ts_omp_env_judge(cfg->places, cfg->proc_bind, &names, err);
}

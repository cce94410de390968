/* Preloaded by the faults.* tests: failures and kills at exact points of touchstone's output
 * path (io/ts_h5_write.c: open the temporary file, write, fsync, close, rename, fsync the
 * directory). Only temporary output files (".tmp." in the name) and their directories are
 * touched; everything else passes through. Environment:
 *
 *   FAULTFS_FULL_AFTER=N      writes to temporary files fail once N bytes in total went to them
 *                             (the write reaching N is cut short, the next one fails), as on a
 *                             disk that fills up
 *   FAULTFS_FULL_ONLY=TEXT    FAULTFS_FULL_AFTER counts and fails only temporary files whose
 *                             path contains TEXT (the disk fills after the checkpoint, before
 *                             the results file)
 *   FAULTFS_ERRNO=NAME        errno of the failures: ENOSPC (default), EDQUOT, EIO, EROFS
 *   FAULTFS_FAIL=OP[:K]       the K-th (default every) fsync, close or rename of a temporary
 *                             file fails (NFS reports delayed write errors at fsync and close);
 *                             "rename" is whatever gives it its final name: rename, renameat2
 *                             or link
 *   FAULTFS_NOREPLACE=NAME    renameat2(RENAME_NOREPLACE) and renameat2(RENAME_EXCHANGE) of a
 *                             temporary file fail with this errno (EINVAL: a file system
 *                             without renameat2's flags, such as NFS)
 *   FAULTFS_NOLINK=NAME       link() of a temporary file fails with this errno (EPERM: a file
 *                             system without hard links)
 *   FAULTFS_TAKE=TEXT:K       when the K-th temporary file whose path contains TEXT is created,
 *                             a file appears under its final name (the path before ".tmp."),
 *                             as if another run had finished first
 *   FAULTFS_SLOW=US[:CHUNK]   every write to a temporary file writes at most CHUNK bytes
 *                             (default 32768) after sleeping US microseconds: a slow disk, so a
 *                             kill from outside lands in the write, and short writes are tested
 *   FAULTFS_KILL=POINT:K      SIGKILL at the K-th event POINT (1-based): open (after the
 *                             temporary file is created), byte (K bytes written in total,
 *                             mid-write), fsync (before it), rename (before it), renamed (after
 *                             it, before the directory is synced)
 *   FAULTFS_STOP=POINT:K[,POINT:K...]  SIGSTOP at the K-th event POINT, as for FAULTFS_KILL, or
 *                             at the placement audit (audit:1): the process stops itself at that
 *                             exact point, for the test to change the world and send SIGCONT
 *                             (no race between the run and the test's reaction to its trace)
 *   FAULTFS_NOLOCK=NAME       every flock() fails with this errno (ENOLCK: NFS without a lock
 *                             daemon; ENOSYS: Lustre mounted without flock), whatever the file
 *   FAULTFS_TRACE=FILE        appends one line per event: "<seconds since start> <event> <path
 *                             or bytes>", so a test can tell which phase a kill interrupted
 *
 * numa_move_pages (touchstone's placement audit, right after init) and, after it, stat (the
 * writer's look at a file's final path, as it starts assembling the file in memory) are traced
 * too, as phase marks "audit" and "assemble". HDF5's own functions cannot be interposed:
 * touchstone links HDF5's static archive. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 4096

static unsigned char tracked[MAX_FD];  /* 1: temporary output file, 2: its directory */
static unsigned char fillable[MAX_FD]; /* a temporary file FAULTFS_FULL_AFTER applies to */
static const char *full_only;
static long long written, full_after = -1, kill_count, slow_us, slow_chunk = 32768;
static int fail_errno = ENOSPC, trace_fd = -1, lock_errno, noreplace_errno, nolink_errno;
static char fail_op[16], kill_point[16], take_text[256];
static long long take_count, take_seen;
static long fail_count;
static long counts[8]; /* per event: open, fsync, close, rename, renamed */
static struct {
    char point[16];
    long long count;
} stops[4]; /* FAULTFS_STOP */
static double started;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int errno_named(const char *name)
{
    static const struct {
        const char *name;
        int value;
    } known[] = {
        { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT }, { "EIO", EIO },       { "EROFS", EROFS }, { "EACCES", EACCES },
        { "ENOLCK", ENOLCK }, { "ENOSYS", ENOSYS }, { "EINVAL", EINVAL }, { "EPERM", EPERM },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i].name) == 0)
            return known[i].value;
    return ENOSPC;
}

static void split(const char *text, char *name, size_t size, long long *number)
{
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    if (n >= size)
        n = size - 1;
    memcpy(name, text, n);
    name[n] = '\0';
    if (colon)
        *number = atoll(colon + 1);
}

__attribute__((constructor)) static void setup(void)
{
    started = now();
    const char *v;
    if ((v = getenv("FAULTFS_FULL_AFTER")))
        full_after = atoll(v);
    full_only = getenv("FAULTFS_FULL_ONLY");
    if ((v = getenv("FAULTFS_ERRNO")))
        fail_errno = errno_named(v);
    if ((v = getenv("FAULTFS_FAIL"))) {
        long long k = 0;
        split(v, fail_op, sizeof fail_op, &k);
        fail_count = (long)k;
    }
    if ((v = getenv("FAULTFS_SLOW"))) {
        char us[32];
        split(v, us, sizeof us, &slow_chunk);
        slow_us = atoll(us);
        if (slow_chunk <= 0)
            slow_chunk = 32768;
    }
    if ((v = getenv("FAULTFS_KILL")))
        split(v, kill_point, sizeof kill_point, &kill_count);
    if ((v = getenv("FAULTFS_STOP")))
        for (size_t i = 0; v && i < sizeof stops / sizeof stops[0]; i++) {
            split(v, stops[i].point, sizeof stops[i].point, &stops[i].count);
            stops[i].point[strcspn(stops[i].point, ",")] = '\0';
            v = strchr(v, ',');
            v = v ? v + 1 : NULL;
        }
    if ((v = getenv("FAULTFS_NOLOCK")))
        lock_errno = errno_named(v);
    if ((v = getenv("FAULTFS_TAKE")))
        split(v, take_text, sizeof take_text, &take_count);
    if ((v = getenv("FAULTFS_NOREPLACE")))
        noreplace_errno = errno_named(v);
    if ((v = getenv("FAULTFS_NOLINK")))
        nolink_errno = errno_named(v);
    if ((v = getenv("FAULTFS_TRACE")))
        trace_fd = open(v, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static ssize_t (*real_write_fn(void))(int, const void *, size_t)
{
    static ssize_t (*fn)(int, const void *, size_t);
    if (!fn)
        *(void **)&fn = dlsym(RTLD_NEXT, "write");
    return fn;
}

static void trace(const char *event, const char *what)
{
    if (trace_fd < 0)
        return;
    char line[4400];
    int n = snprintf(line, sizeof line, "%.6f %d %s %s\n", now() - started, (int)getpid(), event, what);
    if (n > 0)
        (void)!real_write_fn()(trace_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

enum { EV_OPEN, EV_FSYNC, EV_CLOSE, EV_RENAME, EV_RENAMED };
static const char *const event_names[] = { "open", "fsync", "close", "rename", "renamed" };

/* FAULTFS_STOP: the process stops itself when this is the k-th event named point. */
static void maybe_stop(const char *point, long long k)
{
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        if (strcmp(stops[i].point, point) == 0 && stops[i].count == k) {
            trace("STOP", point);
            raise(SIGSTOP);
        }
}

/* Counts the event; kills or stops the process when it is the chosen one. */
static void event(int ev, const char *what)
{
    long k = ++counts[ev];
    trace(event_names[ev], what);
    if (strcmp(kill_point, event_names[ev]) == 0 && k == kill_count) {
        trace("KILL", event_names[ev]);
        raise(SIGKILL);
    }
    maybe_stop(event_names[ev], k);
}

static int should_fail(int ev)
{
    if (strcmp(fail_op, event_names[ev]) != 0)
        return 0;
    return fail_count == 0 || counts[ev] == fail_count;
}

static int is_temp(const char *path)
{
    return path && strstr(path, ".tmp.") != NULL;
}

/* FAULTFS_TAKE: another run's file under the final name of the temporary file just created. */
static void take_final_name(const char *tmp, int (*real_open)(const char *, int, ...))
{
    if (!take_text[0] || !strstr(tmp, take_text) || ++take_seen != take_count)
        return;
    char final[4096];
    const char *cut = strstr(tmp, ".tmp.");
    snprintf(final, sizeof final, "%.*s", (int)(cut - tmp), tmp);
    int fd = real_open(final, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
        (void)!real_write_fn()(fd, "another run's file\n", 19);
        if (fd < MAX_FD)
            tracked[fd] = 0;
        close(fd);
    }
    trace("took", final);
}

static int open_common(int fd, const char *path, int flags, int (*real_open)(const char *, int, ...))
{
    if (fd >= 0 && fd < MAX_FD) {
        if (is_temp(path) && (flags & O_CREAT)) {
            take_final_name(path, real_open);
            tracked[fd] = 1;
            fillable[fd] = !full_only || strstr(path, full_only) != NULL;
            event(EV_OPEN, path);
        } else if (flags & O_DIRECTORY) {
            tracked[fd] = 2;
        } else {
            tracked[fd] = 0;
        }
    }
    return fd;
}

int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "open");
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return open_common(real(path, flags, mode), path, flags, real);
}

int open64(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "open64");
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return open_common(real(path, flags, mode), path, flags, real);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (fd < 0 || fd >= MAX_FD || tracked[fd] != 1)
        return real_write_fn()(fd, buf, n);
    if (slow_us > 0) {
        usleep((useconds_t)slow_us);
        if ((long long)n > slow_chunk)
            n = (size_t)slow_chunk;
    }
    if (full_after >= 0 && fillable[fd]) {
        if (written >= full_after) {
            errno = fail_errno;
            trace("write-failed", strerror(fail_errno));
            return -1;
        }
        if (written + (long long)n > full_after)
            n = (size_t)(full_after - written);
    }
    if (strcmp(kill_point, "byte") == 0 && written < kill_count && written + (long long)n >= kill_count) {
        ssize_t done = real_write_fn()(fd, buf, (size_t)(kill_count - written));
        written += done > 0 ? done : 0;
        trace("KILL", "byte");
        raise(SIGKILL);
    }
    ssize_t done = real_write_fn()(fd, buf, n);
    if (done > 0)
        written += done;
    return done;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    if (fd >= 0 && fd < MAX_FD && tracked[fd] == 1) {
        char bytes[32];
        snprintf(bytes, sizeof bytes, "%lld", written);
        event(EV_FSYNC, bytes);
        if (should_fail(EV_FSYNC)) {
            errno = fail_errno;
            return -1;
        }
    }
    return real(fd);
}

int close(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "close");
    int was = fd >= 0 && fd < MAX_FD ? tracked[fd] : 0;
    if (fd >= 0 && fd < MAX_FD)
        tracked[fd] = 0;
    int rc = real(fd);
    if (was == 1) {
        event(EV_CLOSE, "");
        if (rc == 0 && should_fail(EV_CLOSE)) { /* closed all the same, as NFS does */
            errno = fail_errno;
            return -1;
        }
    }
    return rc;
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "rename");
    if (!is_temp(from))
        return real(from, to);
    event(EV_RENAME, to);
    if (should_fail(EV_RENAME)) {
        errno = fail_errno;
        return -1;
    }
    int rc = real(from, to);
    if (rc == 0)
        event(EV_RENAMED, to);
    return rc;
}

int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned int flags)
{
    static int (*real)(int, const char *, int, const char *, unsigned int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "renameat2");
    if (!is_temp(from))
        return real(from_dir, from, to_dir, to, flags);
    if (noreplace_errno && (flags & (RENAME_NOREPLACE | RENAME_EXCHANGE))) {
        trace("noreplace-refused", to);
        errno = noreplace_errno;
        return -1;
    }
    event(EV_RENAME, to);
    if (should_fail(EV_RENAME)) {
        errno = fail_errno;
        return -1;
    }
    int rc = real(from_dir, from, to_dir, to, flags);
    if (rc == 0)
        event(EV_RENAMED, to);
    return rc;
}

int link(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "link");
    if (!is_temp(from))
        return real(from, to);
    if (nolink_errno) {
        trace("link-refused", to);
        errno = nolink_errno;
        return -1;
    }
    event(EV_RENAME, to);
    if (should_fail(EV_RENAME)) {
        errno = fail_errno;
        return -1;
    }
    int rc = real(from, to);
    if (rc == 0)
        event(EV_RENAMED, to);
    return rc;
}

int unlink(const char *path)
{
    static int (*real)(const char *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "unlink");
    trace("unlink", path);
    return real(path);
}

/* Phase marks. */
static int audit_seen;

long numa_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status, int flags)
{
    static long (*real)(int, unsigned long, void **, const int *, int *, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "numa_move_pages");
    if (!audit_seen++) {
        trace("audit", "");
        maybe_stop("audit", 1);
    }
    return real(pid, count, pages, nodes, status, flags);
}

/* io/ts_h5_write.c stats a file's final path before it assembles the file (it refuses a
 * directory there); the same check at start-up, before the audit, is not an assembly. */
int stat(const char *path, struct stat *st)
{
    static int (*real)(const char *, struct stat *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "stat");
    if (audit_seen)
        trace("assemble", path);
    return real(path, st);
}

int flock(int fd, int operation)
{
    static int (*real)(int, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "flock");
    if (lock_errno) {
        trace("flock-failed", strerror(lock_errno));
        errno = lock_errno;
        return -1;
    }
    return real(fd, operation);
}

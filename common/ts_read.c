#include "ts_read.h"
#include "ts_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* How long a file that is not a regular file may take to arrive, in seconds. */
#define DEFAULT_TIMEOUT_S 10.0
#define MAX_TIMEOUT_S 86400.0

static int read_timeout(double *seconds, struct ts_error *err)
{
    const char *text = getenv("TOUCHSTONE_CONFIG_TIMEOUT");
    *seconds = DEFAULT_TIMEOUT_S;
    if (!text)
        return TS_OK;
    char *end;
    double s = strtod(text, &end);
    if (end == text || *end || !(s >= 0 && s <= MAX_TIMEOUT_S))
        return ts_fail(err, TS_BAD_INPUT, "TOUCHSTONE_CONFIG_TIMEOUT=%.64s: not a number of seconds in 0..%g", text,
                       MAX_TIMEOUT_S);
    *seconds = s;
    return TS_OK;
}

/* Waits until fd has data or its writer left, or the deadline passed: poll's revents, 0 at
 * the deadline, -1 on error. */
static int wait_readable(int fd, double deadline)
{
    for (;;) {
        double left = deadline - ts_seconds_now();
        int ms = left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)ceil(left * 1000);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 ? -1 : r == 0 ? 0 : p.revents;
    }
}

/* Reads a file that is not a regular file (opened O_NONBLOCK) to its end, within the time
 * limit. A named FIFO reads as empty until a writer writes (or opens and closes it), so
 * nothing from it is no end yet; an anonymous pipe (pipefs) has no writers left then. */
static int read_slowly(const char *path, const struct ts_read_limits *lim, int fd, const struct stat *st, char *buf,
                       size_t *n, struct ts_error *err)
{
    double timeout;
    int rc = read_timeout(&timeout, err);
    if (rc)
        return rc;
    struct statfs fs;
    bool anonymous = S_ISFIFO(st->st_mode) && fstatfs(fd, &fs) == 0 && fs.f_type == PIPEFS_MAGIC;
    bool fifo = S_ISFIFO(st->st_mode) && !anonymous;
    double deadline = ts_seconds_now() + timeout;
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fd, buf + got, lim->max_bytes + 1 - got);
        if (r > 0) {
            got += (size_t)r;
            if (got > lim->max_bytes)
                break;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno != EAGAIN) {
            rc = ts_fail_errno(err, ts_file_status(errno), errno, "%s: cannot read %s", path, lim->what);
            break;
        }
        if (r == 0 && !(fifo && got == 0))
            break;
        int ev = wait_readable(fd, deadline);
        if (ev < 0) {
            rc = ts_fail_errno(err, ts_file_status(errno), errno, "%s: cannot wait for the %s", path, lim->what);
            break;
        }
        if (ev == 0) {
            const char *kind = fifo                   ? "a FIFO"
                               : anonymous            ? "a pipe"
                               : isatty(fd)           ? "a terminal"
                               : S_ISCHR(st->st_mode) ? "a character device"
                                                      : "not a regular file";
            if (got == 0)
                rc = ts_fail(err, TS_BAD_INPUT,
                             "%s: %s, and nothing was written to it within %g s (no writer?); "
                             "TOUCHSTONE_CONFIG_TIMEOUT=seconds waits longer",
                             path, kind, timeout);
            else
                rc = ts_fail(err, TS_BAD_INPUT,
                             "%s: %s, and it did not end within %g s (%zu bytes arrived, then "
                             "no end of file); TOUCHSTONE_CONFIG_TIMEOUT=seconds waits longer",
                             path, kind, timeout, got);
            break;
        }
        if (r == 0 && !(ev & POLLIN)) /* a writer came and went without writing: empty */
            break;
    }
    *n = got;
    return rc;
}

/* Reads a regular file to its end, or to one byte past the limit. The buffer starts at the size
 * fstat gave, plus two (one to see the end, one to see a file that grew since), so a small file
 * costs a small allocation; a file that grew meanwhile grows it, up to the limit plus one. */
static int read_regular(const char *path, const struct ts_read_limits *lim, int fd, const struct stat *st, char **out,
                        size_t *n, struct ts_error *err)
{
    size_t cap = lim->max_bytes + 1;
    if (st->st_size >= 0 && (unsigned long long)st->st_size + 2 < cap)
        cap = (size_t)st->st_size + 2;
    char *buf = malloc(cap);
    if (!buf)
        return ts_fail(err, TS_RESOURCE_ERROR, "%s: out of memory reading the %s", path, lim->what);
    size_t got = 0;
    for (;;) {
        if (got == cap) {
            size_t more = cap * 2 < lim->max_bytes + 1 ? cap * 2 : lim->max_bytes + 1;
            char *grown = realloc(buf, more);
            if (!grown) {
                free(buf);
                return ts_fail(err, TS_RESOURCE_ERROR, "%s: out of memory reading the %s", path, lim->what);
            }
            buf = grown;
            cap = more;
        }
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return ts_fail_errno(err, ts_file_status(e), e, "%s: cannot read %s", path, lim->what);
        }
        got += (size_t)r;
        if (r == 0 || got > lim->max_bytes)
            break;
    }
    *out = buf;
    *n = got;
    return TS_OK;
}

int ts_read_file(const char *path, const struct ts_read_limits *lim, char **text, size_t *len, struct ts_error *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, unbounded. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        int open_errno = errno;
        if (open_errno == ENXIO && stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
            return ts_fail(err, TS_BAD_INPUT, "%s: cannot read %s: a socket, not a file", path, lim->what);
        return ts_fail_errno(err, ts_file_status(open_errno), open_errno, "%s: cannot read %s", path, lim->what);
    }
    char *buf = NULL;
    size_t n = 0;
    int rc = TS_OK;
    if (fstat(fd, &st) != 0)
        rc = ts_fail_errno(err, ts_file_status(errno), errno, "%s: cannot read %s", path, lim->what);
    else if (S_ISDIR(st.st_mode))
        rc = ts_fail_errno(err, TS_BAD_INPUT, EISDIR, "%s: cannot read %s", path, lim->what);
    else if (S_ISREG(st.st_mode))
        rc = read_regular(path, lim, fd, &st, &buf, &n, err);
    else if (!(buf = malloc(lim->max_bytes + 1)))
        rc = ts_fail(err, TS_RESOURCE_ERROR, "%s: out of memory reading the %s", path, lim->what);
    else
        rc = read_slowly(path, lim, fd, &st, buf, &n, err);
    close(fd);
    if (rc == TS_OK && n > lim->max_bytes)
        rc = ts_fail(err, TS_BAD_INPUT, "%s: not a %s file (larger than %zu bytes)", path, lim->what, lim->max_bytes);
    if (rc != TS_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    char *fit = realloc(buf, n + 1);
    *text = fit ? fit : buf;
    *len = n;
    return TS_OK;
}

#include "ts_file_place.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct ts_file_id id_from(int rc, const struct stat *st)
{
    struct ts_file_id id = { 0 };
    if (rc != 0)
        return id;
    id.known = 1;
    id.dev = (unsigned long long)st->st_dev;
    id.ino = (unsigned long long)st->st_ino;
    id.size = (long long)st->st_size;
    id.mtime_sec = (long long)st->st_mtim.tv_sec;
    id.mtime_nsec = (long long)st->st_mtim.tv_nsec;
    return id;
}

struct ts_file_id ts_file_id_of(const char *path)
{
    struct stat st;
    return id_from(lstat(path, &st), &st);
}

struct ts_file_id ts_file_id_follow(const char *path)
{
    struct stat st;
    return id_from(stat(path, &st), &st);
}

int ts_file_id_same_inode(const struct ts_file_id *a, const struct ts_file_id *b)
{
    return a->known && b->known && a->dev == b->dev && a->ino == b->ino;
}

int ts_file_id_same(const struct ts_file_id *a, const struct ts_file_id *b)
{
    return ts_file_id_same_inode(a, b) && a->size == b->size && a->mtime_sec == b->mtime_sec
           && a->mtime_nsec == b->mtime_nsec;
}

static const char *kind_of(mode_t mode)
{
    return S_ISCHR(mode)    ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISLNK(mode)  ? "a symbolic link (renaming over it would replace the link, not its target)"
                            : "not a regular file";
}

int ts_file_refuse_special(const char *path, const char *what, struct ts_error *err)
{
    struct stat st;
    /* No such name is what a new output wants; other failures (a missing or unreadable
     * directory) the probe of the directory reports with its own errno. */
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
        return TS_OK;
    if (S_ISDIR(st.st_mode))
        return ts_fail_errno(err, TS_BAD_INPUT, EISDIR, "cannot write %s %s", what, path);
    return ts_fail(err, TS_BAD_INPUT,
                   "cannot write %s %s: it is %s; touchstone writes a new file or replaces a regular one", what, path,
                   kind_of(st.st_mode));
}

void ts_file_host(char *buf, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    host[strcspn(host, ".")] = '\0';
    for (char *c = host; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
            *c = '_';
    snprintf(buf, len, "%s", host[0] ? host : "unknown");
}

static unsigned long long random_tag(void)
{
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 30);
    }
    return r;
}

int ts_file_create_temp(const char *final_path, char *tmp, size_t size, struct ts_error *err)
{
    char host[64];
    ts_file_host(host, sizeof host);
    int e = EEXIST;
    for (int attempt = 0; attempt < 8 && e == EEXIST; attempt++) {
        int n = snprintf(tmp, size, "%s.tmp.%s.%ld.%016llx", final_path, host, (long)getpid(), random_tag());
        if (n < 0 || (size_t)n >= size) {
            e = ENAMETOOLONG;
            break;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        e = errno;
    }
    ts_fail_errno(err, ts_file_status(e), e, "cannot write output %s", final_path);
    return -1;
}

/* A temporary name's host and process: "<final>.tmp.<host>.<pid>.<16 hex digits>". 1 when name
 * has that shape (host copied to host), else 0. */
static int temp_owner(const char *name, char *host, size_t host_len, long *pid)
{
    const char *tag = strrchr(name, '.');
    if (!tag || strlen(tag + 1) != 16 || strspn(tag + 1, "0123456789abcdef") != 16)
        return 0;
    const char *p = tag;
    while (p > name && p[-1] != '.')
        p--;
    size_t digits = (size_t)(tag - p);
    if (p == name || digits == 0 || digits > 9 || strspn(p, "0123456789") != digits)
        return 0;
    *pid = strtol(p, NULL, 10);
    const char *dot_pid = p - 1, *h = dot_pid;
    while (h > name && h[-1] != '.')
        h--;
    size_t host_chars = (size_t)(dot_pid - h);
    const char *tmp_word = h - 1 - strlen(".tmp");
    if (host_chars == 0 || host_chars >= host_len || h - name <= (long)strlen(".tmp.")
        || strncmp(tmp_word, ".tmp.", strlen(".tmp.")) != 0)
        return 0;
    memcpy(host, h, host_chars);
    host[host_chars] = '\0';
    return *pid > 0;
}

int ts_file_remove_stale_temps(const char *final_path)
{
    char dir[4096], host[64];
    const char *slash = strrchr(final_path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == final_path ? 1 : (int)(slash - final_path), final_path);
    ts_file_host(host, sizeof host);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char owner[64];
        long pid;
        struct stat st;
        if (!temp_owner(e->d_name, owner, sizeof owner, &pid) || strcmp(owner, host) != 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or someone else's process (EPERM): not ours to judge */
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)
            || st.st_uid != geteuid())
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

static int same_as_any(const struct ts_file_id *id, const struct ts_file_id *list, int n)
{
    for (int i = 0; i < n; i++)
        if (ts_file_id_same(id, &list[i]))
            return 1;
    return 0;
}

/* What a file system says when it cannot rename without replacing, or cannot link. */
static int cannot_noreplace(int e)
{
    return e == EINVAL || e == ENOSYS || e == ENOTSUP || e == EOPNOTSUPP;
}

static int cannot_link(int e)
{
    return cannot_noreplace(e) || e == EPERM;
}

/* Gives tmp the name path unless path exists: 0, or -1 with errno (EEXIST: taken). */
static int place_new(const char *tmp, const char *path)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (!cannot_noreplace(errno))
        return -1;
    /* The file system has no RENAME_NOREPLACE (NFS, some FUSE): a hard link is just as
     * exclusive. Should the unlink fail, the file keeps a second, temporary name that the next
     * run on this host removes once this process is gone. */
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (!cannot_link(errno))
        return -1;
    /* Nor hard links (FAT, some FUSE): look, then rename. A file that appears between the two
     * is replaced; nothing better is possible there. */
    struct stat st;
    if (lstat(path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(tmp, path);
}

/* Replaces this run's own file at path (one of p->may_replace when looked at) by tmp. The look
 * and the rename are two steps, and a file put there between them (by someone else, or while
 * this process was stopped) would be renamed over: so the two files are swapped in one step
 * (RENAME_EXCHANGE) and what came out is looked at. This run's own: removed. Another: swapped
 * back, and the name is taken (-1, EEXIST). Gone since the look: placed as new. Where the file
 * system cannot swap (NFS, some FUSE), a rename after the look, as nothing better is possible. */
static int replace_own(const char *tmp, const char *path, const struct ts_place *p)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0) {
        if (errno == ENOENT)
            return place_new(tmp, path);
        return cannot_noreplace(errno) ? rename(tmp, path) : -1;
    }
    struct ts_file_id out = ts_file_id_of(tmp);
    if (same_as_any(&out, p->may_replace, p->n_may_replace)) {
        /* Should the unlink fail, the old file keeps the temporary name, which the next run on
         * this host removes once this process is gone. */
        unlink(tmp);
        return 0;
    }
    /* Should the swap back fail (the two names just swapped, so only if one was removed since),
     * the new file keeps the name, as a rename would have left it, and the other one the
     * temporary name: never removed by this run, whose caller removes a temporary file only
     * when placing failed. */
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
        return 0;
    errno = EEXIST;
    return -1;
}

int ts_file_place(const char *tmp, struct ts_place *p, struct ts_error *err)
{
    const char *path = p->path;
    /* The file as placed, taken from its temporary name: renaming keeps its inode, size and
     * mtime, and the final name may hold another file by the time it could be looked at. */
    const struct ts_file_id ours = ts_file_id_of(tmp);
    for (int moves = 0;; moves++) {
        /* The run's own earlier file (a checkpoint) is replaced as such. */
        struct ts_file_id there = ts_file_id_of(path);
        int rc = p->replace                                              ? rename(tmp, path)
                 : same_as_any(&there, p->may_replace, p->n_may_replace) ? replace_own(tmp, path, p)
                                                                         : place_new(tmp, path);
        if (rc != 0 && errno == EEXIST) {
            /* Taken since the look: by this run's own file only if it is one of may_replace. */
            there = ts_file_id_of(path);
            if (same_as_any(&there, p->may_replace, p->n_may_replace))
                continue;
            const char *next = p->taken && moves < 1000 ? p->taken(p->ctx, path) : NULL;
            if (!next)
                return ts_fail_errno(err, TS_BAD_INPUT, EEXIST,
                                     "cannot write output %s: another file has that name and is not replaced", path);
            path = next;
            continue;
        }
        if (rc != 0)
            return ts_fail_errno(err, ts_file_status(errno), errno, "cannot write output %s: renaming %s", path, tmp);
        p->path = path;
        p->written = ours;
        return TS_OK;
    }
}

static void parent_dir(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

int ts_file_write_all(int fd, const void *bytes, size_t n)
{
    const unsigned char *buf = bytes;
    while (n > 0) {
        ssize_t done = write(fd, buf, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return done < 0 ? errno : EIO;
        buf += done;
        n -= (size_t)done;
    }
    return 0;
}

int ts_file_store(int fd, const void *image, size_t size, const char *tmp, const char *final_path, struct ts_error *err)
{
    int e = ts_file_write_all(fd, image, size);
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0) /* NFS reports delayed write errors here */
        e = errno;
    if (e != 0)
        return ts_fail_errno(err, ts_file_status(e), e, "cannot write output %s: writing %s", final_path, tmp);
    return TS_OK;
}

int ts_file_sync_dir(const char *final_path, struct ts_error *err)
{
    char dir[PATH_MAX];
    parent_dir(final_path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "cannot write output %s: opening %s", final_path, dir);
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && e != EINVAL)
        return ts_fail_errno(err, ts_file_status(e), e, "cannot write output %s: syncing %s", final_path, dir);
    return TS_OK;
}

void ts_file_remove_temp(const char *tmp, struct ts_error *err)
{
    if (unlink(tmp) == 0 || errno == ENOENT)
        return;
    int e = errno;
    size_t used = strlen(err->message);
    /* A long path cuts the tail off, as ts_error_prefix does; a failed format leaves the message. */
    if (snprintf(err->message + used, sizeof err->message - used, "; removing %s failed too: %s", tmp, strerror(e)) < 0)
        err->message[used] = '\0';
}

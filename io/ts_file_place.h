/* Where a finished file goes: its temporary name next to the final one, putting it in place
 * without replacing a file it may not replace, and removing what writers that died left behind. */
#ifndef TOUCHSTONE_IO_TS_FILE_PLACE_H
#define TOUCHSTONE_IO_TS_FILE_PLACE_H

#include <stddef.h>

#include "ts_error.h"

/* A file as found on disk. Device and inode say which file; size and modification time tell a
 * new file from an old one whose inode number was freed and handed out again. */
struct ts_file_id {
    int known; /* 0: there was no file (or it could not be looked at) */
    unsigned long long dev, ino;
    long long size, mtime_sec, mtime_nsec;
};

/* The file at path, not following a symbolic link (lstat). */
struct ts_file_id ts_file_id_of(const char *path);
/* The same, following a symbolic link to the file it names (stat). */
struct ts_file_id ts_file_id_follow(const char *path);
/* Both known and the same file, written at the same moment: 1, else 0. */
int ts_file_id_same(const struct ts_file_id *a, const struct ts_file_id *b);
/* Both known and the same inode (hard links, another spelling of the path): 1, else 0. */
int ts_file_id_same_inode(const struct ts_file_id *a, const struct ts_file_id *b);

/* Before anything is written to path: TS_OK when path names nothing or a regular file,
 * TS_BAD_INPUT naming what it is otherwise (a device, /dev/null included, a FIFO, a directory,
 * a socket, a symbolic link: renaming over those would replace them with a regular file). */
int ts_file_refuse_special(const char *path, const char *what, struct ts_error *err);

/* The host as it appears in file names (temporary files, the %h placeholder): the host name up
 * to its first '.', with anything but letters, digits, '-' and '_' as '_'; "unknown" when the
 * system has none. */
void ts_file_host(char *buf, size_t len);

/* Creates "<final_path>.tmp.<host>.<pid>.<16 hex digits>" exclusively (O_EXCL), so a name in
 * use by another writer is never reused and the reason a directory refuses files is an errno
 * of ours. Returns the open descriptor with the name in tmp, or -1 after filling err
 * ("cannot write output FINAL: ..."). */
int ts_file_create_temp(const char *final_path, char *tmp, size_t size, struct ts_error *err);

/* Removes, in final_path's directory, the temporary files (named as above) that writers on this
 * host left when they died: this host's name, a process that no longer exists
 * (kill(pid, 0) fails with ESRCH), a regular file of this user. Never touches another host's
 * temporaries (their process table is not ours) nor a live process's. Returns how many it
 * removed; a directory it cannot read counts as none. */
int ts_file_remove_stale_temps(const char *final_path);

/* How a finished temporary file takes its final name. */
struct ts_place {
    const char *path;                     /* in: the name wanted; out: the name the file got */
    int replace;                          /* rename over whatever is there (output.overwrite) */
    const struct ts_file_id *may_replace; /* files that may be replaced all the same (this run's own) */
    int n_may_replace;
    /* The name is taken by a file that may not be replaced: the next name to try, or NULL to
     * fail (EEXIST). NULL: fail at once. */
    const char *(*taken)(void *ctx, const char *path);
    void *ctx;
    struct ts_file_id written; /* out: the file as placed */
};

/* Gives the temporary file tmp its final name: rename when p->replace; otherwise without
 * replacing (renameat2 RENAME_NOREPLACE; where the file system cannot, link and unlink; where it
 * cannot link either, a look before the rename) unless the file there is one of
 * p->may_replace, which is swapped out in one step (RENAME_EXCHANGE) and looked at again, so
 * that a file put there since the look is put back, never replaced. TS_OK with p->path and
 * p->written (the file placed, known from its temporary name) set; otherwise the status of the errno
 * (ts_file_status: TS_BAD_INPUT for a name taken by a file not to be replaced) naming the name
 * and the errno text (the temporary file is then still there, for the caller to remove). */
int ts_file_place(const char *tmp, struct ts_place *p, struct ts_error *err);

/* Writes all n bytes to fd, again after EINTR or a short write: 0, or the errno (EIO for a
 * write that wrote nothing). */
int ts_file_write_all(int fd, const void *bytes, size_t n);

/* Writes n bytes through fd (the temporary file tmp of final_path), syncs and closes it, so
 * that every OS failure has its errno ("cannot write output FINAL: writing TMP: ..."). */
int ts_file_store(int fd, const void *bytes, size_t n, const char *tmp, const char *final_path, struct ts_error *err);

/* Syncs the directory of final_path after the rename, so the new entry survives a crash (a file
 * system that cannot sync a directory, EINVAL, is let be). */
int ts_file_sync_dir(const char *final_path, struct ts_error *err);

/* Removes tmp after a failed write; when that fails too (the directory turned read-only), err's
 * message says so, for the user to delete it. ENOENT is not worth a word. */
void ts_file_remove_temp(const char *tmp, struct ts_error *err);

#endif

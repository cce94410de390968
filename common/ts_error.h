/* Errors travel back as return codes with a message carrying their context
 * (config file:line, path and errno text, the numbers that did not fit);
 * only app/main.c prints them and chooses the exit status. */
#ifndef TOUCHSTONE_COMMON_TS_ERROR_H
#define TOUCHSTONE_COMMON_TS_ERROR_H

#include <stddef.h>

/* What went wrong, in words the caller can act on. app/main.c turns a status into the exit
 * status of the command (ts_exit_status): 0, 1 and 3 as they are, and every error, whatever
 * its kind, 2 (the exit statuses docs/usage.md documents). */
enum ts_status {
    TS_OK = 0,             /* verified run, or command succeeded */
    TS_VERIFY_FAILED = 1,  /* the run finished but its result is wrong */
    TS_BAD_INPUT = 2,      /* what the user gave cannot be used: usage, config, environment
                              variables, a path that names no usable file, a file that is not
                              what touchstone reads */
    TS_INTERRUPTED = 3,    /* a signal stopped the run; its checkpoint is written */
    TS_IO_ERROR = 4,       /* the system failed a read, write, sync or rename of a file or stream
                              that was usable (disk full, EIO, a closed standard output) */
    TS_RESOURCE_ERROR = 5, /* the machine did not give what the work needs: memory, address
                              space, stack, threads, processes, descriptors, or a limit on them */
    TS_INTERNAL_ERROR = 6  /* touchstone broke a rule of its own (a record that does not add up,
                              a library in a state it should never be in): a bug to report */
};

struct ts_error {
    int status; /* one of enum ts_status; TS_OK when no error */
    char message[2048];
};

/* Records the error and returns its status, so callers write `return ts_fail(err, ...)`. */
int ts_fail(struct ts_error *err, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Like ts_fail, appending ": <strerror(errnum)>". */
int ts_fail_errno(struct ts_error *err, int status, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prepends context ("while writing out.h5: ") to an error already recorded. */
void ts_error_prefix(struct ts_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void ts_error_clear(struct ts_error *err);

/* 1 for the error statuses (bad input, I/O, resource, internal), which main prints; 0 for
 * TS_OK, TS_VERIFY_FAILED and TS_INTERRUPTED. */
int ts_status_is_error(int status);

/* The exit status of the command for a status: 2 for every error, the status itself
 * otherwise. */
int ts_exit_status(int status);

/* The status of a failed operation on a file or directory the user named (open, create,
 * read, write, sync, rename), from its errno: TS_BAD_INPUT when the name itself is unusable
 * (missing, not a directory, not allowed, read-only file system, too long, a loop, a
 * directory where a file was wanted, taken), TS_RESOURCE_ERROR when memory or descriptors
 * ran out, TS_IO_ERROR for the rest (EIO, ENOSPC, EDQUOT, ...). */
int ts_file_status(int errnum);

#endif

/* Errors travel back as return codes with a message carrying their context
 * (config file:line, path and errno text, the numbers that did not fit);
 * only app/main.c prints them and chooses the exit status. */
#ifndef TOUCHSTONE_COMMON_TS_ERROR_H
#define TOUCHSTONE_COMMON_TS_ERROR_H

#include <stddef.h>

/* Exit statuses of the touchstone command (documented in the README). */
enum ts_status {
    TS_OK = 0,           /* verified run, or command succeeded */
    TS_VERIFY_FAILED = 1, /* the run finished but its result is wrong */
    TS_BAD_INPUT = 2,     /* bad usage, bad config, or a run that could not start */
    TS_INTERRUPTED = 3    /* a signal stopped the run; its checkpoint is written */
};

struct ts_error {
    int status;          /* one of enum ts_status; TS_OK when no error */
    char message[2048];
};

/* Records the error and returns its status, so callers write `return ts_fail(err, ...)`. */
int ts_fail(struct ts_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like ts_fail, appending ": <strerror(errnum)>". */
int ts_fail_errno(struct ts_error *err, int status, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prepends context ("while writing out.h5: ") to an error already recorded. */
void ts_error_prefix(struct ts_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void ts_error_clear(struct ts_error *err);

#endif

#include "ts_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ts_fail(struct ts_error *err, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->status = status;
    return status;
}

int ts_fail_errno(struct ts_error *err, int status, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int used = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (used >= 0 && (size_t)used < sizeof err->message)
        snprintf(err->message + used, sizeof err->message - (size_t)used, ": %s", strerror(errnum));
    err->status = status;
    return status;
}

void ts_error_prefix(struct ts_error *err, const char *fmt, ...)
{
    char prefix[512];
    char old[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    /* Truncating the tail of a long message is acceptable; losing the prefix is not. */
    size_t used = strlen(prefix);
    if (used >= sizeof err->message)
        used = sizeof err->message - 1;
    memcpy(err->message, prefix, used);
    size_t room = sizeof err->message - 1 - used;
    size_t tail = strnlen(old, room);
    memcpy(err->message + used, old, tail);
    err->message[used + tail] = '\0';
}

void ts_error_clear(struct ts_error *err)
{
    err->status = TS_OK;
    err->message[0] = '\0';
}

int ts_status_is_error(int status)
{
    return status != TS_OK && status != TS_VERIFY_FAILED && status != TS_INTERRUPTED;
}

int ts_exit_status(int status)
{
    return ts_status_is_error(status) ? 2 : status;
}

int ts_file_status(int errnum)
{
    switch (errnum) {
    case ENOENT:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case EROFS:
    case ENAMETOOLONG:
    case ELOOP:
    case EISDIR:
    case EEXIST:
    case ENXIO:
    case ENODEV:
    case ETXTBSY: return TS_BAD_INPUT;
    case ENOMEM:
    case EMFILE:
    case ENFILE: return TS_RESOURCE_ERROR;
    default: return TS_IO_ERROR;
    }
}

#include "ts_error.h"

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

/* The counter and the messages behind ts_test.h. */
#include "ts_test.h"

#include <stdarg.h>
#include <stdio.h>

int ts_test_failures;

void ts_test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: FAILED: ", file, line);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cond)
        fprintf(stderr, " [%s]", cond);
    fputc('\n', stderr);
    ts_test_failures++;
}

int ts_test_finish(void)
{
    if (ts_test_failures == 0)
        return 0;
    fprintf(stderr, "%d check(s) failed\n", ts_test_failures);
    return 1;
}

/* Preloaded by test_output.sh: time() returns FIXED_TIME (seconds since the epoch) when it is
 * set, so that runs started apart land in the same second of the default name's %t. */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

time_t time(time_t *t)
{
    static time_t (*real_time)(time_t *);
    const char *fixed = getenv("FIXED_TIME");
    time_t now;
    if (fixed) {
        now = (time_t)strtoll(fixed, NULL, 10);
    } else {
        if (!real_time)
            *(void **)&real_time = dlsym(RTLD_NEXT, "time");
        now = real_time(NULL);
    }
    if (t)
        *t = now;
    return now;
}

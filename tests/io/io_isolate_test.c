/* The memory limit of an isolated read (io/ts_run_isolate.c): a reader in the child that asks
 * for more than the limit allows gets NULL from malloc and says so, while the same reader
 * without a limit gets its memory; the parent hears both answers. Under a sanitizer the child
 * has no memory limit (the shadow's reservations would exceed any): skipped there. */
#include <stdlib.h>
#include <string.h>

#include "ts_error.h"
#include "ts_run_read.h"
#include "ts_test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif

#define ASKED ((size_t)256 << 20)

/* Asks for ASKED bytes and touches them: TS_OK, or TS_BAD_INPUT when malloc refused. */
static int reader(const void *ctx, struct ts_run_summary *out, struct ts_error *err)
{
    (void)ctx;
    (void)out;
    char *p = malloc(ASKED);
    if (!p)
        return ts_fail(err, TS_BAD_INPUT, "malloc refused %zu bytes", ASKED);
    memset(p, 1, ASKED);
    free(p);
    return TS_OK;
}

int main(void)
{
#ifdef SANITIZED
    return 77;
#endif
    struct ts_run_summary s;
    struct ts_error err = { 0 };
    int st = ts_run_read_isolated(reader, NULL, "limited", (struct ts_read_limits){ .seconds = 60, .bytes = 64 << 20 },
                                  &s, &err);
    CHECK(st == TS_BAD_INPUT && strstr(err.message, "malloc refused"),
          "a 256 MB malloc under a 64 MB limit: status %d, '%s'", st, err.message);
    ts_run_summary_free(&s);
    memset(&err, 0, sizeof err);
    st = ts_run_read_isolated(reader, NULL, "unlimited", (struct ts_read_limits){ .seconds = 60 }, &s, &err);
    CHECK(st == TS_OK, "a 256 MB malloc without a limit: status %d, '%s'", st, err.message);
    ts_run_summary_free(&s);
    return ts_test_finish();
}

/* The C tests' assertions, one style for every folder: a failed one prints where it is and
 * what broke ("FILE:LINE: FAILED: message [condition]") and is counted; main returns
 * ts_test_finish(), whose exit status CTest reads. */
#ifndef TOUCHSTONE_TESTS_SUPPORT_TS_TEST_H
#define TOUCHSTONE_TESTS_SUPPORT_TS_TEST_H

#include <stdlib.h>

/* Checks failed so far in this process, by every file of the test. */
extern int ts_test_failures;

/* Prints one failure (cond is the condition's text, or NULL) on stderr and counts it. */
void ts_test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Returns the test's exit status: 0 when no check failed, else 1 after printing the count. */
int ts_test_finish(void);

/* A failed CHECK is counted and the test goes on, to report every broken behaviour. */
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ts_test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                                      \
    } while (0)

/* A failed REQUIRE ends the test (exit status 1): what follows it depends on it. */
#define REQUIRE(cond, ...)                                                                                             \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            ts_test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                                      \
            exit(ts_test_finish());                                                                                    \
        }                                                                                                              \
    } while (0)

/* A failure found by the test's own logic (no single condition to print). */
#define FAIL(...) ts_test_fail(__FILE__, __LINE__, NULL, __VA_ARGS__)

#endif

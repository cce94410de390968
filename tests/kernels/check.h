/* Minimal assertion helpers: every failure says what was expected and where. */
#ifndef TOUCHSTONE_TESTS_KERNELS_CHECK_H
#define TOUCHSTONE_TESTS_KERNELS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

#define CHECK_DONE()                                                         \
    do {                                                                     \
        if (check_failures) {                                                \
            fprintf(stderr, "%d check(s) failed\n", check_failures);         \
            return 1;                                                        \
        }                                                                    \
        printf("all checks passed\n");                                       \
        return 0;                                                            \
    } while (0)

#endif

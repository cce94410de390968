/* Shared by the topo tests: one executable per area whose cases CTest runs one by one
 * (argv[1] names the case). Their checks are ts_test.h's REQUIRE: a case stops at the first
 * broken behaviour, as what follows a check in a case usually depends on it. */
#ifndef TOUCHSTONE_TESTS_TOPO_TOPO_TEST_H
#define TOUCHSTONE_TESTS_TOPO_TOPO_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_test.h"

struct ts_case {
    const char *name;
    void (*run)(void);
};

static inline int ts_run_case(int argc, char **argv, const struct ts_case *cases, size_t n)
{
    for (size_t i = 0; argc == 2 && i < n; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return ts_test_finish();
        }
    fprintf(stderr, "usage: %s CASE; cases:", argv[0]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %s", cases[i].name);
    fputc('\n', stderr);
    return 2;
}

#define TS_RUN_CASES(cases) ts_run_case(argc, argv, cases, sizeof cases / sizeof cases[0])

/* Whether v is in a CPU list such as "0-3,8"; the tests parse lists independently of the
 * formatter under test. */
static inline int ts_list_has(const char *list, int v)
{
    while (*list) {
        char *end;
        long lo = strtol(list, &end, 10), hi = lo;
        if (end == list)
            return 0;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        if (v >= lo && v <= hi)
            return 1;
        list = *end == ',' ? end + 1 : end;
    }
    return 0;
}

#endif

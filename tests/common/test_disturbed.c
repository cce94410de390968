/* The disturbance rule (common/ts_disturbed.h) on fixed facts: the wait for a CPU judges where it
 * is recorded, the switches' rate only where it is not. The case that made the wait necessary: 2
 * ranks of 1 thread on a 2-core node, switched out 25 times a second by mpirun for microseconds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ts_disturbed.h"
#include "ts_test.h"

/* A quiet second of 2 threads: nothing else on the CPUs, the load their own. */
static struct ts_disturb_facts quiet(double involuntary, double wait)
{
    return (struct ts_disturb_facts){ .n_threads = 2,
                                      .kernel_time = 1.0,
                                      .involuntary = involuntary,
                                      .wait = wait,
                                      .n_cpus = 2,
                                      .online_cpus = 2,
                                      .elapsed = 1.0,
                                      .others_cpu = 0.0,
                                      .steal = 0.0,
                                      .clock_tick = 0.01,
                                      .load_start = 0.0,
                                      .load_end = 2.0 };
}

static void wait_judges(void)
{
    char why[300];
    /* 50 switches a thread-second, 100 us of wait: the launcher's, not a disturbance. */
    struct ts_disturb_facts f = quiet(100, 1e-4);
    CHECK(ts_disturbed(&f, why, sizeof why) == 0, "switched out often for nothing: %s", why);
    struct ts_disturb_numbers n;
    ts_disturb_numbers(&f, &n);
    CHECK(fabs(n.wait_share - 5e-5) < 1e-12, "wait share %g, expected 100 us of 2 thread-seconds", n.wait_share);
    /* Few switches, long waits (a thread queued behind a busy one): 5% of the threads' time. */
    f = quiet(4, 0.1);
    CHECK(ts_disturbed(&f, why, sizeof why) == 1, "waited 5%% of their time, not called disturbed");
    CHECK(strstr(why, "threads waited for a CPU 5.0% of their time (above 3%)") != NULL, "why: %s", why);
    CHECK(strstr(why, "switches") == NULL, "the switches named beside the wait: %s", why);
    /* Just under the threshold, and the span is elapsed (the warm-up too), not the kernel time. */
    f = quiet(0, 0.059);
    f.kernel_time = 0.5;
    CHECK(ts_disturbed(&f, why, sizeof why) == 0, "2.95%% of the span called disturbed: %s", why);
}

static void switches_without_wait(void)
{
    char why[300];
    struct ts_disturb_facts f = quiet(100, NAN);
    CHECK(ts_disturbed(&f, why, sizeof why) == 1, "a file without the wait: 50 switches a thread-second not judged");
    CHECK(strstr(why, "50 involuntary switches per thread-second (above 20)") != NULL, "why: %s", why);
    f = quiet(8, NAN);
    CHECK(ts_disturbed(&f, why, sizeof why) == 0, "4 switches a thread called disturbed: %s", why);
    /* Nothing recorded at all: not known. */
    struct ts_disturb_facts none = { .n_threads = 2, .kernel_time = 1.0 };
    none.involuntary = none.wait = none.n_cpus = none.online_cpus = none.elapsed = none.others_cpu = none.steal =
        none.clock_tick = none.load_start = none.load_end = NAN;
    CHECK(ts_disturbed(&none, why, sizeof why) == -1, "no counters judged: %s", why);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: %s wait|switches", argv[0]);
    if (strcmp(argv[1], "wait") == 0)
        wait_judges();
    else if (strcmp(argv[1], "switches") == 0)
        switches_without_wait();
    else
        REQUIRE(0, "no case %s", argv[1]);
    return ts_test_finish();
}

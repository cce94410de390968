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

/* Threads stacked on fewer CPUs wait for each other: their own share, not others'. */
static void stacked(void)
{
    char why[300];
    /* 2 threads on 1 CPU of a quiet node: 49.8% of their time waiting, for each other. */
    struct ts_disturb_facts f = quiet(3, 0.996);
    f.n_cpus = 1;
    CHECK(ts_disturbed(&f, why, sizeof why) == 0, "2 threads stacked on a quiet CPU called disturbed: %s", why);
    /* The same with a busy process on that CPU: a third of the time each, two thirds waiting. */
    f.wait = 1.334;
    CHECK(ts_disturbed(&f, why, sizeof why) == 1, "stacked threads behind a busy process not called disturbed");
    CHECK(strstr(why, "threads waited for a CPU 66.7% of their time (above 53%: 50% for 2 threads on 1 CPU, and 3%)")
              != NULL,
          "why: %s", why);
    /* As many CPUs as threads: nothing expected. */
    f = quiet(3, 0.996);
    CHECK(ts_disturbed(&f, why, sizeof why) == 1 && strstr(why, "(above 3%)"), "spread threads waiting: %s", why);
}

/* The load average holds the last run's threads for a minute: judged only where other
 * processes' share cannot be seen. */
static void load_lags(void)
{
    char why[300];
    /* A second after a run that kept both CPUs busy: the load 2.01 at the start, no other work. */
    struct ts_disturb_facts f = quiet(3, 1e-4);
    f.load_start = 2.01;
    f.load_end = 4.0;
    CHECK(ts_disturbed(&f, why, sizeof why) == 0, "a predecessor's load called disturbed: %s", why);
    struct ts_disturb_numbers n;
    ts_disturb_numbers(&f, &n);
    CHECK(fabs(n.load_excess - 2.01) < 1e-12, "the load beyond its threads still reported: %g", n.load_excess);
    /* 40 ms: /proc/stat's ticks cannot show a CPU half taken; the load judges. */
    f.elapsed = f.kernel_time = 0.04;
    CHECK(ts_disturbed(&f, why, sizeof why) == 1 && strstr(why, "load average 2.01 beyond its own threads"),
          "a short run's load not judged: %s", why);
    /* Long enough, but the others' time not recorded: the load judges. */
    f = quiet(3, 1e-4);
    f.load_start = 2.01;
    f.others_cpu = NAN;
    CHECK(ts_disturbed(&f, why, sizeof why) == 1, "the load not judged without the others' time: %s", why);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: %s wait|switches|stacked|load", argv[0]);
    if (strcmp(argv[1], "wait") == 0)
        wait_judges();
    else if (strcmp(argv[1], "switches") == 0)
        switches_without_wait();
    else if (strcmp(argv[1], "stacked") == 0)
        stacked();
    else if (strcmp(argv[1], "load") == 0)
        load_lags();
    else
        REQUIRE(0, "no case %s", argv[1]);
    return ts_test_finish();
}

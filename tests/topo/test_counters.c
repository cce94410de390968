/* Each context-switch counter tied to its source: a thread that only sleeps switches out
 * voluntarily; a thread that never blocks, sharing its one CPU with a busy thread, is switched
 * out involuntarily every time the other runs. A swapped or misread field fails one of them. */
#include "topo_test.h"
#include "ts_counters.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

enum { SLEEPS = 20, TURNS = 5 };

static struct ts_counter_row measured;

static void *sleeper(void *arg)
{
    (void)arg;
    struct ts_counters c;
    struct ts_counter_row before, after;
    ts_counters_open(&c);
    ts_counters_read(&c, &before);
    for (int i = 0; i < SLEEPS; i++) {
        const struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL); /* blocks: the thread gives up its CPU itself */
    }
    ts_counters_read(&c, &after);
    ts_counters_delta(&before, &after, &measured);
    ts_counters_close(&c);
    return NULL;
}

static void voluntary(void)
{
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, sleeper, NULL) == 0, "cannot start the sleeping thread");
    pthread_join(t, NULL);
    printf("%d sleeps: %lld voluntary, %lld involuntary switches\n", SLEEPS, (long long)measured.voluntary_switches,
           (long long)measured.involuntary_switches);
    REQUIRE(measured.voluntary_switches >= SLEEPS,
            "a thread that slept %d times has %lld voluntary switches (involuntary: %lld): each sleep is one", SLEEPS,
            (long long)measured.voluntary_switches, (long long)measured.involuntary_switches);
}

/* The competitor counts while it runs; the spinner watches the count. Both are pinned to one
 * CPU, so each change the spinner sees means it was switched out in between, while runnable:
 * an involuntary switch. */
static atomic_long ticks;
static atomic_int stop, competitor_running;

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0, "cannot pin a thread to CPU %d", cpu);
}

static int the_cpu;

static void *competitor(void *arg)
{
    (void)arg;
    pin(the_cpu);
    atomic_store(&competitor_running, 1);
    while (!atomic_load(&stop))
        atomic_fetch_add(&ticks, 1);
    return NULL;
}

static void *spinner(void *arg)
{
    (void)arg;
    pin(the_cpu);
    while (!atomic_load(&competitor_running))
        ; /* the competitor must be on the CPU's run queue before measuring */
    struct ts_counters c;
    struct ts_counter_row before, after;
    ts_counters_open(&c);
    ts_counters_read(&c, &before);
    long seen = atomic_load(&ticks);
    for (int turns = 0; turns < TURNS;) {
        long now = atomic_load(&ticks);
        if (now != seen) {
            turns++;
            seen = now;
        }
    }
    ts_counters_read(&c, &after);
    ts_counters_delta(&before, &after, &measured);
    ts_counters_close(&c);
    return NULL;
}

static void involuntary(void)
{
    cpu_set_t set;
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0, "cannot read this process's CPUs");
    the_cpu = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE && the_cpu < 0; cpu++)
        if (CPU_ISSET(cpu, &set))
            the_cpu = cpu;
    REQUIRE(the_cpu >= 0, "this process may use no CPU");
    pthread_t busy, measured_thread;
    REQUIRE(pthread_create(&busy, NULL, competitor, NULL) == 0, "cannot start the competitor");
    REQUIRE(pthread_create(&measured_thread, NULL, spinner, NULL) == 0, "cannot start the spinner");
    pthread_join(measured_thread, NULL);
    atomic_store(&stop, 1);
    pthread_join(busy, NULL);
    printf("%d turns of a competitor on CPU %d: %lld involuntary, %lld voluntary switches\n", TURNS, the_cpu,
           (long long)measured.involuntary_switches, (long long)measured.voluntary_switches);
    REQUIRE(measured.involuntary_switches >= TURNS,
            "a never-blocking thread saw a competitor on its CPU run %d times, but has %lld involuntary switches "
            "(voluntary: %lld)",
            TURNS, (long long)measured.involuntary_switches, (long long)measured.voluntary_switches);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "voluntary", voluntary },
        { "involuntary", involuntary },
    };
    return TS_RUN_CASES(cases);
}

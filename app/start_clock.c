#include "start_clock.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define HANDOVER "TOUCHSTONE_STARTED"

static struct ts_start_clock clock_now;
/* omp_get_wtime less CLOCK_MONOTONIC: 0 with libgomp, whose wtime is that clock; the time of day
 * with LLVM's libomp. The run's phases are timed by omp_get_wtime, the handover is monotonic. */
static double wtime_shift;

static double seconds(clockid_t id)
{
    struct timespec ts;
    return clock_gettime(id, &ts) == 0 ? (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 : 0.0;
}

/* Seconds the kernel counted for this thread so far: on a CPU and waiting in a run queue. */
static double counted_so_far(void)
{
    unsigned long long on_cpu = 0, waiting = 0;
    FILE *f = fopen("/proc/self/schedstat", "r");
    int fields = f ? fscanf(f, "%llu %llu", &on_cpu, &waiting) : 0;
    if (f)
        fclose(f);
    if (fields == 2)
        return (double)(on_cpu + waiting) * 1e-9;
    return seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* The first process's times, when this one is its re-execution. */
static int take_handover(void)
{
    const char *value = getenv(HANDOVER);
    long long pid = -1;
    double process = 0.0, first_main = 0.0;
    int ours = value && sscanf(value, "pid=%lld;process=%lf;main=%lf", &pid, &process, &first_main) == 3
               && pid == (long long)getpid() && process > 0.0 && process <= first_main
               && first_main + wtime_shift <= clock_now.main;
    if (value) /* nothing this process starts must see it */
        unsetenv(HANDOVER);
    if (!ours)
        return 0;
    clock_now.process = process + wtime_shift;
    clock_now.first_main = first_main + wtime_shift;
    clock_now.reexecuted = 1;
    return 1;
}

void ts_start_clock_at_main(void)
{
    const double monotonic = seconds(CLOCK_MONOTONIC);
    clock_now.main = omp_get_wtime();
    wtime_shift = clock_now.main - monotonic;
    if (take_handover())
        return;
    clock_now.first_main = clock_now.main;
    clock_now.process = clock_now.main - counted_so_far();
}

const struct ts_start_clock *ts_start_clock(void)
{
    return &clock_now;
}

int ts_start_clock_handover(void)
{
    char value[128];
    snprintf(value, sizeof value, "pid=%lld;process=%.9f;main=%.9f", (long long)getpid(),
             clock_now.process - wtime_shift, clock_now.first_main - wtime_shift);
    return setenv(HANDOVER, value, 1);
}

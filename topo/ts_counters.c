#include "ts_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void ts_counters_open(struct ts_counters *c)
{
    /* A software event on the calling thread only: allowed at perf_event_paranoid <= 2 and in
     * VMs without hardware counters. */
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_SW_CPU_MIGRATIONS;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    c->migrations_fd = fd >= 0 ? (int)fd : -1;
    c->open_errno = fd >= 0 ? 0 : errno;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* The calling thread's run delay in seconds: the second of schedstat's three numbers (time on
 * a CPU, time waiting on a run queue, time slices; ns). NaN without schedstat. */
static double wait_seconds(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long on_cpu, waited;
    int got = f ? fscanf(f, "%llu %llu", &on_cpu, &waited) : 0;
    if (f)
        fclose(f);
    return got == 2 ? 1e-9 * (double)waited : NAN;
}

void ts_counters_read(const struct ts_counters *c, struct ts_counter_row *out)
{
    struct rusage ru;
    memset(out, 0, sizeof *out);
    out->user_time = out->system_time = NAN;
    out->wait_time = wait_seconds();
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        out->user_time = seconds(ru.ru_utime);
        out->system_time = seconds(ru.ru_stime);
        out->minor_faults = ru.ru_minflt;
        out->major_faults = ru.ru_majflt;
        out->voluntary_switches = ru.ru_nvcsw;
        out->involuntary_switches = ru.ru_nivcsw;
    }
    uint64_t count;
    out->migrations = -1;
    if (c->migrations_fd >= 0 && read(c->migrations_fd, &count, sizeof count) == (ssize_t)sizeof count)
        out->migrations = (int64_t)count;
}

void ts_counters_close(struct ts_counters *c)
{
    if (c->migrations_fd >= 0)
        close(c->migrations_fd);
    c->migrations_fd = -1;
}

void ts_counters_delta(const struct ts_counter_row *before, const struct ts_counter_row *after,
                       struct ts_counter_row *delta)
{
    delta->minor_faults = after->minor_faults - before->minor_faults;
    delta->major_faults = after->major_faults - before->major_faults;
    delta->voluntary_switches = after->voluntary_switches - before->voluntary_switches;
    delta->involuntary_switches = after->involuntary_switches - before->involuntary_switches;
    delta->user_time = after->user_time - before->user_time; /* NaN stays NaN */
    delta->system_time = after->system_time - before->system_time;
    delta->wait_time = after->wait_time - before->wait_time;
    delta->migrations = before->migrations < 0 || after->migrations < 0 ? -1 : after->migrations - before->migrations;
}

void ts_counters_source(const struct ts_counters *c, char *buf, size_t len)
{
    if (c->open_errno == 0)
        snprintf(buf, len, "perf_event_open (software event)");
    else
        snprintf(buf, len, "unavailable: perf_event_open: %s", strerror(c->open_errno));
}

/* What else the machine did while one command of bench/run.sh ran: the facts the run's own
 * /counters/machine records (topo/ts_machine.c), taken from outside, so that the measurements
 * that are not touchstone's (likwid-bench, the baseline, the chases, the matrix engine) are
 * judged by the rule touchstone's are (common/ts_disturbed.h, applied in bench/quiet.sh).
 *
 *     bench_watch OUT COMMAND [ARGS...]
 *         runs COMMAND (its standard streams are the caller's) and writes one line to OUT:
 *         elapsed n_cpus online_cpus busy own_cpu steal clock_tick load_start load_end involuntary
 *         and exits with COMMAND's status (127 when it could not be started or watched)
 *
 * busy and steal: the /proc/stat ticks (user nice system irq softirq, and steal) of the CPUs
 * this process may run on, over the command, in seconds; own_cpu: the CPU time of the command
 * and every descendant it waited for (wait4); involuntary: their involuntary context switches.
 * elapsed on CLOCK_MONOTONIC from just before the fork to just after the wait. */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The busy and steal ticks summed over the CPUs in set; -1 when /proc/stat cannot be read. */
static int ticks(const cpu_set_t *set, uint64_t *busy, uint64_t *steal)
{
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return -1;
    char line[512];
    *busy = *steal = 0;
    while (fgets(line, sizeof line, f)) {
        char *end;
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
            continue;
        long cpu = strtol(line + 3, &end, 10);
        /* user nice system idle iowait irq softirq steal (guest time is inside user) */
        uint64_t v[8] = { 0 };
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, set)
            || sscanf(end,
                      " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                      &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                   < 7)
            continue;
        *busy += v[0] + v[1] + v[2] + v[5] + v[6];
        *steal += v[7];
    }
    fclose(f);
    return 0;
}

static double load(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "re");
    if (f && fscanf(f, "%lf", &l) != 1)
        l = -1;
    if (f)
        fclose(f);
    return l;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_watch OUT COMMAND [ARGS...]\n");
        return 2;
    }
    cpu_set_t set;
    uint64_t busy0, steal0, busy1, steal1;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || ticks(&set, &busy0, &steal0) != 0)
        return 127;
    const double load0 = load(), t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return 127;
    const double t1 = now();
    if (ticks(&set, &busy1, &steal1) != 0)
        return 127;
    long hz = sysconf(_SC_CLK_TCK), online = sysconf(_SC_NPROCESSORS_ONLN);
    const double tick = 1.0 / (double)(hz > 0 ? hz : 100);
    const double own = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec
                       + 1e-6 * (double)ru.ru_stime.tv_usec;
    FILE *out = fopen(argv[1], "w");
    if (!out
        || fprintf(out, "%.6f %d %ld %.2f %.6f %.2f %.4f %.2f %.2f %ld\n", t1 - t0, CPU_COUNT(&set),
                   online > 0 ? online : (long)CPU_COUNT(&set), (double)(busy1 - busy0) * tick, own,
                   (double)(steal1 - steal0) * tick, tick, load0, load(), ru.ru_nivcsw)
               < 0
        || fclose(out) != 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What else the machine did while one command of bench/run.sh ran: the facts the run's own
 * /counters/machine and /counters/kernel record (topo/ts_machine.c, topo/ts_counters.c), taken
 * from outside, so that the measurements that are not touchstone's (likwid-bench, the baseline,
 * the chases, the matrix engine, the sections' peers) are judged by the rule touchstone's are
 * (common/ts_disturbed.h, applied in bench/quiet.sh).
 *
 *     bench_watch OUT COMMAND [ARGS...]
 *         runs COMMAND (its standard streams are the caller's) and writes one line to OUT:
 *         elapsed n_cpus online_cpus busy own_cpu steal clock_tick load_start load_end involuntary
 *         wait threads_seen
 *         and exits with COMMAND's status (127 when it could not be started or watched)
 *
 * busy and steal: the /proc/stat ticks (user nice system irq softirq, and steal) of the CPUs
 * this process may run on, over the command, in seconds; own_cpu: the CPU time of the command
 * and every descendant it waited for (wait4), and of this watcher itself (its sampling, below,
 * is not another process's work); involuntary: the command's and those descendants' involuntary
 * context switches. elapsed on CLOCK_MONOTONIC from just before the fork to just after the wait.
 *
 * wait: the seconds the command's threads, and those of its descendants, were ready to run but
 * waited for a CPU (the scheduler's run delay, the second number of /proc/PID/task/TID/schedstat:
 * what a touchstone run records per thread from /proc/thread-self/schedstat), summed over every
 * thread seen; -1 when no schedstat could be read (then the switches are judged instead, as for
 * a file without the wait). A thread's run delay lives as long as the thread, so the watcher
 * samples every thread every SAMPLE_NS and keeps the last value of each; once more when the
 * command has exited but is not yet reaped (waitid with WNOWAIT: the zombie's own numbers are
 * still there). What a thread waited after the last sample before it ended is lost: at most one
 * interval's worth per thread; a thread that lived less than an interval may go unseen. Each
 * thread's file stays open (a sample is a pread a thread); descendants are looked for every
 * tenth sample. threads_seen: how many threads were seen. (Taskstats' delay accounting keeps
 * dead threads' delays, but it is off unless kernel.task_delayacct is set and needs
 * CAP_NET_ADMIN; schedstat needs neither.) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 10 ms: short enough that a thread's lost tail is small beside a try's seconds, long enough
 * that the watcher's own wake-ups (tens of microseconds each) cost its CPUs well under 1%. */
#define SAMPLE_NS 10000000L
/* Descendants deeper than this are not looked for (a command's tree is a few levels). */
#define MAX_DEPTH 8

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

/* The last run delay (ns) seen of each thread, by TID, and its schedstat file kept open (fd, -1
 * once the thread is gone): a sample is one pread a thread, not an open and a close. A TID
 * reused within one command would be taken for the same thread; its delay restarts at 0, so
 * the larger value is kept. */
struct thread_delay {
    long tid;
    int fd;
    uint64_t ns;
};
struct delays {
    struct thread_delay *t;
    size_t n, cap;
    int readable; /* a schedstat was read at least once */
};

/* The second number of a schedstat line: run delay in ns; -1 when it cannot be read. */
static int run_delay(int fd, uint64_t *ns)
{
    char text[128];
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got <= 0)
        return -1;
    text[got] = '\0';
    uint64_t on_cpu;
    return sscanf(text, "%" SCNu64 " %" SCNu64, &on_cpu, ns) == 2 ? 0 : -1;
}

static void thread_read(struct delays *d, struct thread_delay *t)
{
    uint64_t ns;
    if (t->fd < 0)
        return;
    if (run_delay(t->fd, &ns) != 0) { /* the thread has ended: its last sample stays */
        close(t->fd);
        t->fd = -1;
        return;
    }
    d->readable = 1;
    if (ns > t->ns)
        t->ns = ns;
}

/* A thread of process pid seen in its task folder: opened and read when new. */
static void thread_seen(struct delays *d, long pid, long tid)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->t[i].tid == tid)
            return;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        struct thread_delay *t = realloc(d->t, cap * sizeof *t);
        if (!t)
            return; /* out of memory: this thread goes uncounted */
        d->t = t;
        d->cap = cap;
    }
    char path[96];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/schedstat", pid, tid);
    d->t[d->n] = (struct thread_delay){ tid, open(path, O_RDONLY | O_CLOEXEC), 0 };
    thread_read(d, &d->t[d->n++]);
}

/* Finds the threads of process pid and, with children, of its descendants (where the kernel
 * lists them). */
static void discover(struct delays *d, long pid, int children, int depth)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *dir = opendir(path);
    if (!dir)
        return; /* gone meanwhile */
    struct dirent *e;
    while ((e = readdir(dir))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (tid <= 0 || *end)
            continue;
        thread_seen(d, pid, tid);
        if (!children || depth >= MAX_DEPTH)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pid, tid);
        FILE *c = fopen(path, "re");
        long child;
        while (c && fscanf(c, "%ld", &child) == 1)
            discover(d, child, children, depth + 1);
        if (c)
            fclose(c);
    }
    closedir(dir);
}

/* One sample: every thread known read again, new ones found (descendants every tenth time:
 * their lists cost an open a thread). */
static void sample(struct delays *d, long pid, unsigned count)
{
    for (size_t i = 0; i < d->n; i++)
        thread_read(d, &d->t[i]);
    discover(d, pid, count % 10 == 0, 0);
}

/* Samples pid's threads until it has exited, then once more before it is reaped; 0 then, -1
 * when waitid fails. */
static int watch_until_exit(struct delays *d, pid_t pid)
{
    const struct timespec interval = { 0, SAMPLE_NS };
    for (unsigned count = 0;; count++) {
        sample(d, pid, count);
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (info.si_pid == pid) {
            sample(d, pid, 1); /* the zombie: its last numbers */
            return 0;
        }
        nanosleep(&interval, NULL);
    }
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
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
    struct delays d = { 0 };
    const double load0 = load(), t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status = 0;
    struct rusage ru, self;
    if (pid < 0 || watch_until_exit(&d, pid) != 0 || wait4(pid, &status, 0, &ru) != pid)
        return 127;
    const double t1 = now();
    if (ticks(&set, &busy1, &steal1) != 0 || getrusage(RUSAGE_SELF, &self) != 0)
        return 127;
    long hz = sysconf(_SC_CLK_TCK), online = sysconf(_SC_NPROCESSORS_ONLN);
    const double tick = 1.0 / (double)(hz > 0 ? hz : 100);
    const double own = seconds(ru.ru_utime) + seconds(ru.ru_stime) + seconds(self.ru_utime) + seconds(self.ru_stime);
    uint64_t wait_ns = 0;
    for (size_t i = 0; i < d.n; i++) {
        wait_ns += d.t[i].ns;
        if (d.t[i].fd >= 0)
            close(d.t[i].fd);
    }
    const double wait = d.readable ? 1e-9 * (double)wait_ns : -1;
    free(d.t);
    FILE *out = fopen(argv[1], "w");
    if (!out
        || fprintf(out, "%.6f %d %ld %.2f %.6f %.2f %.4f %.2f %.2f %ld %.6f %zu\n", t1 - t0, CPU_COUNT(&set),
                   online > 0 ? online : (long)CPU_COUNT(&set), (double)(busy1 - busy0) * tick, own,
                   (double)(steal1 - steal0) * tick, tick, load0, load(), ru.ru_nivcsw, wait, d.n)
               < 0
        || fclose(out) != 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

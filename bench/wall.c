/* The outside clock bench/run.sh holds a run's own account of its time against: the seconds
 * from just before the fork to just after the wait, on CLOCK_MONOTONIC (the clock of the run's
 * /timings), without the few milliseconds a shell's $(date) adds on each side.
 *
 *     bench_wall OUT COMMAND [ARGS...]
 *         runs COMMAND (its standard streams are the caller's), writes the seconds to the file
 *         OUT, and exits with COMMAND's status (127 when it could not be started) */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_wall OUT COMMAND [ARGS...]\n");
        return 2;
    }
    const double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 127;
    const double t1 = now();
    FILE *out = fopen(argv[1], "w");
    if (!out || fprintf(out, "%.9f\n", t1 - t0) < 0 || fclose(out) != 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

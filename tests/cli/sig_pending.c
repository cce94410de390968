/* Starts a program with a signal already pending, the way a signal that comes in the first
 * milliseconds of a run does, but deterministically: the signal is blocked and raised, and the
 * program inherits both the mask and the pending signal across exec.
 *
 *   sig_pending SIGNAL PROGRAM ARGS...        exec's the program so; its exit status is ours
 *   sig_pending --again SIGNAL PROGRAM ARGS...
 *       the same in a child whose stderr is a full pipe: once the child has taken the first
 *       signal (SIGNAL no longer caught nor blocked, SIGTERM caught) and blocks writing to
 *       stderr, SIGNAL is sent again. Exits 128 + the signal that ended the child, or its exit
 *       status; 125 when the child blocked with SIGNAL still caught or blocked, 124 after 60 s.
 *
 * SIGNAL is USR1, TERM or INT. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int signal_named(const char *name)
{
    return strcmp(name, "USR1") == 0   ? SIGUSR1
           : strcmp(name, "TERM") == 0 ? SIGTERM
           : strcmp(name, "INT") == 0  ? SIGINT
                                       : 0;
}

static void exec_with_pending(int sig, char **argv)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, NULL);
    raise(sig);
    execvp(argv[0], argv);
    fprintf(stderr, "sig_pending: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* The hexadecimal mask of a "Sig...:" line of /proc/PID/status; 0 when it cannot be read. */
static unsigned long long status_mask(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long long mask = 0;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0)
            mask = strtoull(line + n + 1, NULL, 16);
    if (f)
        fclose(f);
    return mask;
}

/* The child's main thread sits in write(2, ...). */
static int blocked_writing_stderr(pid_t pid)
{
    char path[64], line[256] = "";
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    FILE *f = fopen(path, "r");
    int blocked = f && fgets(line, sizeof line, f) && strncmp(line, "1 0x2 ", 6) == 0;
    if (f)
        fclose(f);
    return blocked;
}

static int again(int sig, char **argv)
{
    int fds[2];
    if (pipe(fds) != 0)
        return perror("sig_pending: pipe"), 2;
    fcntl(fds[1], F_SETPIPE_SZ, 4096);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    char fill[4096];
    memset(fill, 'x', sizeof fill);
    while (write(fds[1], fill, sizeof fill) > 0 || errno == EINTR)
        ;
    fcntl(fds[1], F_SETFL, 0); /* the child's writes block */

    pid_t pid = fork();
    if (pid < 0)
        return perror("sig_pending: fork"), 2;
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        exec_with_pending(sig, argv);
    }
    close(fds[1]);

    const unsigned long long bit = 1ull << (sig - 1), term = 1ull << (SIGTERM - 1);
    int status = 0;
    for (int ms = 0; waitpid(pid, &status, WNOHANG) == 0; ms++) {
        if (ms > 60000) {
            fprintf(stderr, "sig_pending: the child neither ended nor blocked in 60 s\n");
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return 124;
        }
        if (blocked_writing_stderr(pid)) {
            unsigned long long caught = status_mask(pid, "SigCgt"), blocked = status_mask(pid, "SigBlk");
            if ((caught & bit) || (blocked & bit) || !(caught & term)) {
                fprintf(stderr,
                        "sig_pending: the child blocked writing to stderr before it took the first signal "
                        "(SigCgt %llx, SigBlk %llx)\n",
                        caught, blocked);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                return 125;
            }
            kill(pid, sig);
            waitpid(pid, &status, 0);
            break;
        }
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    }
    close(fds[0]);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    int twice = argc > 1 && strcmp(argv[1], "--again") == 0;
    if (argc < 3 + twice || !signal_named(argv[1 + twice])) {
        fprintf(stderr, "usage: sig_pending [--again] USR1|TERM|INT PROGRAM ARGS...\n");
        return 2;
    }
    int sig = signal_named(argv[1 + twice]);
    if (twice)
        return again(sig, argv + 2 + twice);
    exec_with_pending(sig, argv + 2);
    return 127;
}

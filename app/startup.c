#include "startup.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <unistd.h>

#include "omp_env.h"

/* --- Signals ------------------------------------------------------------------------------ */

/* The mask touchstone was started with, before the stop signals were added to it. */
static sigset_t inherited_mask;

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGINT);
}

/* The stop signals are blocked before any library's start-up code runs (libgomp's, Open MPI's
 * and HDF5's constructors, then main): .preinit_array functions of the executable run first,
 * as soon as the dynamic loader has mapped and relocated the libraries. Before that nothing of
 * any program can catch a signal. */
static volatile sig_atomic_t blocked_early;

static void block_before_libraries(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
    sigset_t stop;
    stop_signals(&stop);
    if (sigprocmask(SIG_BLOCK, &stop, &inherited_mask) == 0)
        blocked_early = 1;
}

__attribute__((section(".preinit_array"), used)) static void (*const block_early)(int, char **,
                                                                                  char **) = block_before_libraries;

void ts_startup_unblock_stop_signals(void)
{
    sigset_t stop;
    stop_signals(&stop);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
}

/* --- Exits a library forces ---------------------------------------------------------------- */

/* libgomp exits with status 1 when it cannot create a thread or allocate ("libgomp: Thread
 * creation failed: ..."), and 1 means a failed verification here. Nothing of ours calls exit
 * before main returns, so an exit then is a library's. Forked children are not ours to judge. */
static pid_t main_pid;
static volatile sig_atomic_t finished;
static const char *ending = "command";

static void library_ended(void)
{
    if (finished || getpid() != main_pid)
        return;
    fprintf(stderr,
            "touchstone: error: a library ended the %s (its message is above), most likely for lack of memory "
            "or of threads; use fewer threads or a smaller problem, or raise the limits\n",
            ending);
    _exit(ts_exit_status(TS_RESOURCE_ERROR));
}

/* --- The stack ----------------------------------------------------------------------------- */

/* The top of the main thread's stack: the kernel puts the executable's name last, under a null
 * pointer; the environment and the arguments below it count against the limit too. */
static uintptr_t stack_top(void)
{
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    return execfn ? (uintptr_t)execfn + strlen(execfn) + 1 + sizeof(void *) : 0;
}

/* Bytes of stack in use, from the top down to this call. */
static __attribute__((noinline)) size_t stack_used(void)
{
    uintptr_t top = stack_top(), here = (uintptr_t)__builtin_frame_address(0);
    return top > here ? top - here : 0;
}

/* Makes room for `below` more bytes of stack under the caller's frame: raises the soft limit
 * when it is lower and the hard limit allows. `what` names who needs it, for the refusal. */
static __attribute__((noinline)) int ensure_stack(size_t below, const char *what, struct ts_error *err)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return TS_OK;
    size_t page = 4096, need = (stack_used() + below + 2 * page - 1) / page * page; /* whole pages, one spare */
    if (rl.rlim_cur >= need)
        return TS_OK;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
        return ts_fail(err, TS_RESOURCE_ERROR,
                       "%s %zu KiB of stack, but the stack limit is %llu KiB and its hard limit %llu KiB: raise it "
                       "(ulimit -s %zu)",
                       what, need >> 10, (unsigned long long)rl.rlim_cur >> 10, (unsigned long long)rl.rlim_max >> 10,
                       need >> 10);
    /* The main thread's stack grows up to the limit in force when it faults: raising the soft
     * limit is enough, no re-execution needed. */
    struct rlimit raised = { need, rl.rlim_max };
    if (setrlimit(RLIMIT_STACK, &raised) != 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno,
                             "%s %zu KiB of stack, and the stack limit of %llu KiB "
                             "cannot be raised",
                             what, need >> 10, (unsigned long long)rl.rlim_cur >> 10);
    /* Threads got their default stack size from the limit at start-up: give them the new one
     * (OMP_STACKSIZE, when set, still decides for OpenMP's threads). */
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
        size_t size = 0;
        if (pthread_attr_getstacksize(&attr, &size) == 0 && size < need)
            pthread_attr_setstacksize(&attr, need);
        pthread_setattr_default_np(&attr);
        pthread_attr_destroy(&attr);
    }
    return TS_OK;
}

size_t ts_startup_stack_room(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    size_t used = stack_used();
    return rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
}

int ts_startup_stack_for_threads(int n, struct ts_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "%d OpenMP %s", n, n == 1 ? "thread needs" : "threads need");
    return ensure_stack(TS_STACK_NEED + (size_t)(n > 0 ? n : 1) * TS_STACK_PER_THREAD, what, err);
}

int ts_startup(struct ts_error *err)
{
    sigset_t stop;
    stop_signals(&stop);
    if (!blocked_early) /* block_before_libraries did not run (not linked as the executable) */
        sigprocmask(SIG_BLOCK, &stop, &inherited_mask);
    /* Past RLIMIT_FSIZE a write then fails with EFBIG, reported like a full disk. */
    signal(SIGXFSZ, SIG_IGN);
    main_pid = getpid();
    atexit(library_ended);
    return ensure_stack(TS_STACK_NEED, "touchstone needs", err);
}

/* --- The OpenMP environment ------------------------------------------------------------------ */

/* A whole number as libgomp reads one: blanks around, an optional '+', decimal digits. Returns
 * the character after it (and its blanks), or NULL when there is none. */
static const char *whole_number(const char *p, unsigned long long *value)
{
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    char *end;
    errno = 0;
    *value = strtoull(p, &end, 10); /* ULLONG_MAX when it overflows: out of every range here */
    while (isspace((unsigned char)*end))
        end++;
    return end;
}

static int check_num_threads(const char *value, struct ts_error *err)
{
    char text[80];
    int list = strchr(value, ',') != NULL;
    for (const char *p = value;;) {
        unsigned long long n = 0;
        const char *next = whole_number(p, &n);
        if (!next || (*next != ',' && *next != '\0'))
            return ts_fail(err, TS_BAD_INPUT,
                           "OMP_NUM_THREADS=%s: not a number of threads or a list of them (such as 8, or 8,2 "
                           "for nested levels), each 1..%d",
                           ts_omp_env_shown(value, text, sizeof text), TS_MAX_THREADS);
        if (n < 1 || n > TS_MAX_THREADS)
            return ts_fail(err, TS_BAD_INPUT, "OMP_NUM_THREADS=%s: out of range, must be 1..%d threads%s",
                           ts_omp_env_shown(value, text, sizeof text), TS_MAX_THREADS, list ? " in each level" : "");
        if (*next == '\0')
            return TS_OK;
        p = next + 1;
    }
}

static int check_thread_limit(const char *value, struct ts_error *err)
{
    char text[80];
    unsigned long long n = 0;
    const char *end = whole_number(value, &n);
    if (!end || *end != '\0' || n < 1 || n > (unsigned long long)LONG_MAX)
        return ts_fail(err, TS_BAD_INPUT,
                       "OMP_THREAD_LIMIT=%s: not a whole number of threads, at least 1 (the OpenMP runtime would "
                       "ignore it)",
                       ts_omp_env_shown(value, text, sizeof text));
    return TS_OK;
}

/* OpenMP threads' stacks: touchstone's threads use a few KiB; below MIN_THREAD_STACK there
 * is no margin left, and above MAX_THREAD_STACK a thread only takes address space (libgomp
 * ends the process when it cannot create one). */
#define MIN_THREAD_STACK ((unsigned long long)64 << 10)
#define MAX_THREAD_STACK ((unsigned long long)1 << 30)

/* Size as libgomp reads it: a whole number and an optional unit B, K (the default), M or G. */
static int check_stacksize(const char *name, const char *value, struct ts_error *err)
{
    char text[80];
    unsigned long long n = 0;
    int shift = 10;
    const char *end = whole_number(value, &n);
    if (end && *end) {
        const char *units = "bkmg", *u = strchr(units, tolower((unsigned char)*end));
        shift = u ? (int)(u - units) * 10 : -1;
        for (end++; shift >= 0 && isspace((unsigned char)*end); end++)
            ;
    }
    if (!end || shift < 0 || *end != '\0')
        return ts_fail(err, TS_BAD_INPUT,
                       "%s=%s: not a size (such as 512K or 4M: a whole number and B, K, M or G; K without "
                       "one), must be 64K..1G",
                       name, ts_omp_env_shown(value, text, sizeof text));
    if (n > (MAX_THREAD_STACK >> shift) || (n << shift) < MIN_THREAD_STACK)
        return ts_fail(err, TS_BAD_INPUT, "%s=%s: the stack of each OpenMP thread out of range, must be 64K..1G", name,
                       ts_omp_env_shown(value, text, sizeof text));
    return TS_OK;
}

/* The runtime read these when it was loaded; an empty variable means the runtime's default to
 * it, as to us (see binding.c). */
static int check_openmp_environment(struct ts_error *err)
{
    const char *v;
    if ((v = getenv("OMP_NUM_THREADS")) && *v && check_num_threads(v, err))
        return err->status;
    if ((v = getenv("OMP_THREAD_LIMIT")) && *v && check_thread_limit(v, err))
        return err->status;
    if ((v = getenv("OMP_STACKSIZE")) && *v && check_stacksize("OMP_STACKSIZE", v, err))
        return err->status;
    if ((v = getenv("GOMP_STACKSIZE")) && *v && check_stacksize("GOMP_STACKSIZE", v, err))
        return err->status;
    return ts_omp_env_check(err);
}

int ts_startup_command(enum ts_command command, struct ts_error *err)
{
    if (command != TS_CMD_RUN && command != TS_CMD_SURVEY) /* both install their handlers */
        sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
    else
        ending = "run";
    if (command == TS_CMD_RUN || command == TS_CMD_CHECK || command == TS_CMD_TOPO || command == TS_CMD_ADVISE)
        return check_openmp_environment(err);
    return TS_OK;
}

/* --- Standard output -------------------------------------------------------------------------- */

int ts_startup_finish(int status, struct ts_error *err)
{
    /* glibc keeps what it could not write and tries again here, so errno is that write's. */
    errno = 0;
    int failed = fflush(stdout) != 0;
    int e = errno;
    if (ferror(stdout))
        failed = 1;
    finished = 1;
    if (!failed)
        return status;
    if (!ts_status_is_error(status)) {
        /* The other two keep their status (a job script requeues on 3); the message is added. */
        int st = ts_fail_errno(err, TS_IO_ERROR, e ? e : EIO, "cannot write to standard output");
        return status == TS_OK ? st : status;
    }
    return status;
}

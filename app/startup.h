/* What every command sets up before it does anything, and checks before it exits: the stop
 * signals held until `run` can act on them, writes past `ulimit -f` failing with EFBIG
 * instead of killing the process, a stack limit the program can work in, an OpenMP
 * environment the runtime cannot crash on, and standard output really written. */
#ifndef TOUCHSTONE_APP_STARTUP_H
#define TOUCHSTONE_APP_STARTUP_H

#include <stddef.h>

#include "ts_cli.h"
#include "ts_error.h"

/* The most threads touchstone runs: openmp.threads, topo --threads and OMP_NUM_THREADS. */
enum { TS_MAX_THREADS = 4096 };

/* Stack every command needs below main, measured (docs/reliability.md, "Limits"): the deepest path is a
 * run writing its file. The OpenMP runtime adds TS_STACK_PER_THREAD on the starting thread's
 * stack for each thread it creates. */
#define TS_STACK_NEED ((size_t)256 << 10)
#define TS_STACK_PER_THREAD ((size_t)160)

/* First thing in main. SIGTERM, SIGUSR1 and SIGINT are blocked (already before the libraries'
 * start-up code, by the executable's .preinit_array; here otherwise: a signal that comes now stays
 * pending until `run` catches it, or until ts_startup_command gives the others their default
 * action back), ignores SIGXFSZ, raises the soft stack limit to TS_STACK_NEED when it is lower
 * and the hard limit allows, and ends any exit a library forces on us with a message.
 * TS_RESOURCE_ERROR when even the hard stack limit is too small. */
int ts_startup(struct ts_error *err);

/* Once the command is known: every command but run gets the stop signals as it inherited
 * them; run, check and topo refuse (TS_BAD_INPUT, naming the variable, its value and the
 * limit) an OMP_NUM_THREADS, OMP_THREAD_LIMIT, OMP_STACKSIZE or GOMP_STACKSIZE that the
 * OpenMP runtime would crash on, ignore or fail with. */
int ts_startup_command(enum ts_command command, struct ts_error *err);

/* Before the first parallel region of n threads: room on this thread's stack for what the
 * OpenMP runtime puts there (raising the soft limit if it must). TS_RESOURCE_ERROR if it cannot. */
int ts_startup_stack_for_threads(int n, struct ts_error *err);

/* Bytes the stack may still grow below the caller under the soft limit; SIZE_MAX without one. */
size_t ts_startup_stack_room(void);

/* For run, once its handlers are installed: the stop signals are delivered again (one that
 * came while they were blocked, across the binding re-execution too, arrives now). */
void ts_startup_unblock_stop_signals(void);

/* The end of main: a command whose output did not reach stdout (a full disk, /dev/full, a
 * closed descriptor) fails. Returns status, or TS_IO_ERROR with the reason in err when status
 * was TS_OK; for another status the reason is recorded in err and status kept. */
int ts_startup_finish(int status, struct ts_error *err);

#endif

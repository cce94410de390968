/* When the run began as the user waits for it: the process's start, main, and across the
 * binding's re-execution (app/binding.h) the first process's. Seconds on the clock of
 * omp_get_wtime, which times the run's own phases, so that they subtract (libgomp's is
 * CLOCK_MONOTONIC, LLVM libomp's the time of day: the handover between processes is monotonic). */
#ifndef TOUCHSTONE_APP_START_CLOCK_H
#define TOUCHSTONE_APP_START_CLOCK_H

struct ts_start_clock {
    double process;    /* the (first) process started: the fork that made it, as the kernel counts */
    double first_main; /* the (first) process reached main */
    double main;       /* this process reached main */
    int reexecuted;    /* this process is the binding's re-execution of the first */
};

/* The first statement of main. The process's start is main's time less what the kernel counted
 * of the process until then (on a CPU or waiting for one: /proc/self/schedstat, else its CPU
 * time), so a start that waited for the disk counts short. After the re-execution it takes the
 * first process's times from the environment (TOUCHSTONE_STARTED) and removes them from it. */
void ts_start_clock_at_main(void);

const struct ts_start_clock *ts_start_clock(void);

/* Right before the re-execution: hands this process's times to the next (TOUCHSTONE_STARTED,
 * marked with the pid, which exec keeps). -1 with errno when the variable cannot be set. */
int ts_start_clock_handover(void);

#endif

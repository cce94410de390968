/* Whether a run was disturbed: other work took its CPUs while it computed, so its times
 * say more about the machine's state than about the configuration. One rule, used by the
 * run's summary, compare, report and show (docs/how-it-works.md, "Disturbed runs"). */
#ifndef TOUCHSTONE_COMMON_TS_DISTURBED_H
#define TOUCHSTONE_COMMON_TS_DISTURBED_H

#include <stddef.h>

/* The share of the threads' time they spent ready to run but waiting for a CPU (the
 * scheduler's run delay), above which other work took their CPUs: a thread alone on its CPU
 * waits microseconds now and then (kernel housekeeping, wake-ups after barriers, an MPI
 * library's progress thread, mpirun: 0.4-1% of a default run, 0.5% of 2 ranks bound a core
 * each under mpirun, on an idle 2-core VM), one sharing it with a busy process half its time.
 * Threads that outnumber their CPUs wait for each other, the configuration's own doing: 2 threads
 * stacked on one CPU wait about half their time (47.8-49.8% on a quiet 2-core VM). That share,
 * 1 - n_cpus / n_threads, is expected, and only the wait above it and this counts. */
#define TS_DISTURB_WAIT_SHARE 0.03
/* Where the wait is not recorded (files before it, no schedstat): involuntary context switches
 * of all threads, per thread-second of kernel time, above which threads were pushed off their
 * CPUs by other work: a thread alone on its CPU is switched out a few times a second by kernel
 * housekeeping, one sharing it with a busy process tens to hundreds of times. The count must
 * also exceed TS_DISTURB_SWITCH_MIN per thread, so that one or two switches in a short run do
 * not count as a rate. A count, not a cost: ranks under mpirun on a 2-core node are switched
 * out 20 to 30 times a second by their own launcher for microseconds each, which the wait
 * shows to be nothing. */
#define TS_DISTURB_SWITCH_RATE 20.0
#define TS_DISTURB_SWITCH_MIN 5.0
/* Shares of the watched CPUs' time (CPUs x elapsed): a hypervisor's steal, and other
 * processes' CPU time on them. */
#define TS_DISTURB_STEAL_SHARE 0.02
#define TS_DISTURB_OTHERS_SHARE 0.05
/* /proc/stat counts in clock ticks (10 ms) and both ends of the interval round: a share is
 * what remains after taking this many ticks per watched CPU off, so a short run is not
 * called disturbed by rounding. */
#define TS_DISTURB_ROUNDING_TICKS 2.0
/* The load average lags by a minute and so still holds a run's predecessors: a survey's or a
 * bench's previous run, every CPU busy, leaves it at the CPUs' count (2.01 on a quiet 2-core VM,
 * 3 of a full survey's 84 runs called disturbed by it). It is judged only where the CPUs' time
 * cannot speak: where the others' share is not known, or its window is shorter than the rounding
 * over this fraction of it (a CPU half taken by other work must show above the others' 5%, so
 * 0.5 - 0.05: 44 ms with 10 ms ticks). A number, as bench/quiet.sh reads it from here. */
#define TS_DISTURB_LOAD_ONLY_BELOW 0.45

/* What a run recorded (NaN: not recorded, as in schema 1 files or without /counters). */
struct ts_disturb_facts {
    double n_threads;
    double kernel_time; /* s, /timings/kernel */
    double involuntary; /* involuntary switches of all threads over the iterations */
    double wait;        /* s, all threads' wait for a CPU over the iterations (NaN: not recorded) */
    /* /counters/machine */
    double n_cpus, online_cpus;
    double elapsed, others_cpu, steal, clock_tick;
    double load_start, load_end;
};

/* The numbers the rule compares (NaN where a fact is missing): involuntary switches per
 * thread-second of kernel time; the wait for a CPU as a share of the threads' time over the
 * iterations (n_threads x elapsed, or x kernel_time without the machine's facts), and the part of it the
 * threads' own stacking explains (self_wait_share); steal and other processes' time, less the rounding, as
 * shares of the CPUs' time (n_cpus x elapsed), at least 0; and the load average beyond the
 * run's own threads: the larger of load_start and load_end - n_threads. */
struct ts_disturb_numbers {
    double switch_rate, wait_share, self_wait_share, steal_share, others_share, load_excess;
};
void ts_disturb_numbers(const struct ts_disturb_facts *f, struct ts_disturb_numbers *out);

/* The share of n_cpus CPUs' time over elapsed seconds that seconds (of /proc/stat, counted in
 * clock_tick ticks) are for certain: less TS_DISTURB_ROUNDING_TICKS per CPU, at least 0; NaN
 * when there is no CPU time to share (or a fact is NaN). */
double ts_disturb_share(double seconds, double n_cpus, double elapsed, double clock_tick);

/* 1 when the run was disturbed, why receiving each reason with its number and threshold
 * ("steal 4.1% of the CPUs' time (above 2%); ..."); 0 when not (why ""); -1 when nothing
 * could be judged (no counters at all; why says so). */
int ts_disturbed(const struct ts_disturb_facts *f, char *why, size_t size);

#endif

/* Whether a run's init time was the machine's rather than its configuration's: most of the
 * first touch went to the kernel's memory management (tasks waiting on reclaim and compaction),
 * to the hypervisor (steal) or to other processes, so an init time that differs between runs
 * says nothing about placement or the init mode. One rule, used by the run's summary, compare,
 * report and show (docs/how-it-works.md, "Init time: the machine's or the configuration's"). */
#ifndef TOUCHSTONE_COMMON_TS_INIT_BY_MACHINE_H
#define TOUCHSTONE_COMMON_TS_INIT_BY_MACHINE_H

#include <stddef.h>

/* "Most of it": more than this share of the first touch's wall time waiting on memory (PSI),
 * or of its CPUs' time stolen by the hypervisor or taken by other processes. */
#define TS_INIT_MACHINE_SHARE 0.5

/* The slowest a healthy machine's kernel clears first-touched pages, bytes per second of a
 * touching thread's system time: clearing runs at memory write speed (>= 5 GB/s a core), and
 * 4 KiB faults on bare metal (~1 us each plus the clearing) still give ~3 GB/s. Below it the
 * kernel (or a hypervisor backing the guest's memory again) handled the pages, not placement
 * (docs/how-it-works.md, "Init time: the machine's or the configuration's"). */
#define TS_INIT_CLEAR_FLOOR 1e9

/* What a run recorded of its first touch (NaN: not recorded, as in files written before it; a
 * count the kernel does not have, -1 in the file, is NaN here too). */
struct ts_init_facts {
    /* /counters/init_memory: its interval, the time some task waited on memory (NaN without
     * PSI), and the stalls and fallbacks of the kernel's memory management in it */
    double elapsed, memory_stall;
    double compact_stall, allocstall, thp_fault_fallback;
    /* /counters/init_machine */
    double n_cpus, machine_elapsed, steal, others_cpu, clock_tick;
    /* the threads that touched the pages: the run's (its rank's) in a parallel init, 1 in a
     * serial one */
    double touching; /* The kernel's page handling, over every rank's touching threads (/counters/init): their
     * system time summed, their own CPU time (user + system) summed, and the bytes they first
     * touched (/results@working_set_bytes). */
    double touch_system, touch_span, touch_bytes;
};

/* The numbers the rule compares (NaN where a fact is missing): memory_stall / elapsed; steal
 * as a share of the watched CPUs' time, less the ticks' rounding as the disturbance rule takes
 * it (ts_disturb_share); other processes' time that must have come out of the touching
 * threads' (what the watched CPUs the init did not need could not have held, less the same
 * rounding) as a share of theirs (touching x elapsed); and the stalls, compaction and reclaim
 * together. */
struct ts_init_numbers {
    double stall_share, steal_share, others_share, stalls;
    /* touch_system / touch_span: the share of the touching threads' own time spent in the kernel;
     * touch_bytes / touch_system: how fast it cleared their pages, bytes/s a thread */
    double kernel_share, clear_rate;
};
void ts_init_numbers(const struct ts_init_facts *f, struct ts_init_numbers *out);

/* 1 when the init was the machine's: more than TS_INIT_MACHINE_SHARE of it waiting on memory,
 * stolen or taken by other processes, or spent by the touching threads in the kernel while it
 * cleared their pages slower than TS_INIT_CLEAR_FLOOR; or, where the kernel cannot say how long tasks waited
 * (no PSI), when compaction or reclaim stalled an allocation during it at all. why then
 * receives what the user reads after the init time ("most of it the kernel's memory management
 * (tasks waited on memory for 81% of it, 12 compaction stalls), not placement"). 0 when not
 * (why ""); -1 when nothing could be judged (no init counters; why says so). */
int ts_init_by_machine(const struct ts_init_facts *f, char *why, size_t size);

#endif

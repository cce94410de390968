/* The short human summary printed at the end of a run. */
#ifndef TOUCHSTONE_IO_TS_SUMMARY_H
#define TOUCHSTONE_IO_TS_SUMMARY_H

#include <stdio.h>

#include "ts_record.h"

void ts_summary_print(const struct ts_record *rec, const char *output_path, FILE *out);

/* The same text in memory (malloc'd, each line ending in '\n'), for the file to keep what was
 * printed; NULL when memory ran out. */
char *ts_summary_text(const struct ts_record *rec, const char *output_path);

/* The facts the disturbance rule (ts_disturbed.h) judges, from a record. */
struct ts_disturb_facts;
void ts_summary_disturb_facts(const struct ts_record *rec, struct ts_disturb_facts *f);

/* The same facts from their parts, as a record or a file read back holds them: wait (s, all
 * threads' wait for a CPU) NaN when not recorded; m NULL (no /counters/machine) leaves the
 * machine's facts NaN. */
void ts_disturb_facts_of(double n_threads, double kernel_time, double involuntary, double wait,
                         const struct ts_machine_rec *m, struct ts_disturb_facts *f);

/* The n rows' wait for a CPU together (s); NaN when a row's is not known or n is 0. */
double ts_counters_wait(const struct ts_counter_row *rows, int n);

/* The facts the init rule (ts_init_by_machine.h) judges, from a record's or a file's
 * /counters/init_machine (m) and /counters/init_memory (v); NULL leaves theirs NaN, and so do
 * counts of -1 (not in this kernel) and a memory_stall of -1 (no PSI). init_mode and threads
 * (of the process that watched: rank 0's under ranks) say how many threads touched. */
struct ts_init_facts;
void ts_init_facts_of(const struct ts_machine_rec *m, const struct ts_init_memory_rec *v, const char *init_mode,
                      int threads, struct ts_init_facts *f);

/* What the summary takes of every thread's counters (n_threads rows of init and kernel) into s;
 * touch_system and touch_span are left 0 (ts_init_touch_of says them). Across ranks each rank
 * sums its own threads' and the sums are added up (app/run_world.c). */
void ts_counter_sums_of(const struct ts_counter_row *init, const struct ts_counter_row *kernel, int n_threads,
                        struct ts_counter_sums *s);

/* The kernel's page handling of the same first touch into f (touch_system, touch_span,
 * touch_bytes): the touching threads' rows of init (n_threads rows, NULL: not recorded) --
 * every thread of each rank in a parallel init, each rank's first in a serial one (ranks,
 * n_ranks 0 without ranks) -- and the bytes they first touched (the job's working set; NaN or
 * 0: not recorded). */
void ts_init_touch_of(const struct ts_counter_row *init, int n_threads, const struct ts_rank_rec *ranks, int n_ranks,
                      const char *init_mode, double bytes, struct ts_init_facts *f);

#endif

/* The columns compare and report share, and the one function that fills them from a run, so
 * a field is named, formatted and computed the same way in both. Each command lists the
 * columns it shows, in its own order, from these. */
#ifndef TOUCHSTONE_APP_READBACK_TABLE_H
#define TOUCHSTONE_APP_READBACK_TABLE_H

#include "readback_stats.h"
#include "ts_run_read.h"
#include "ts_table.h"

/* One line each: clang-format 14 spreads a braced initialiser in a macro over four. */
/* clang-format off */
#define RC_FILE { "file", "file", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_HOST { "host", "host", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_START { "start_time", "start (UTC)", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_KERNEL { "kernel", "kernel", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_SIZE { "size", "size", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_THREADS { "threads", "threads", TS_COL_INT, NULL, TS_SHOW_ALL }
/* Of runs with ranks only (ts_runs_columns): a set of single-node runs prints as it always did. */
#define RC_RANKS { "ranks", "ranks", TS_COL_INT, NULL, TS_SHOW_ALL }
#define RC_HOSTS { "hosts", "hosts", TS_COL_INT, NULL, TS_SHOW_ALL }
#define RC_DECOMP { "decomposition", "decomposition", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_HALO { "halo_share", "halo share", TS_COL_NUM, "%.3f", TS_SHOW_ALL }
#define RC_PLACES { "omp_places", "OMP_PLACES", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_BIND { "omp_proc_bind", "OMP_PROC_BIND", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_INIT { "init_mode", "init mode", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_POLICY { "policy", "init.policy", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_ITERS { "iterations", "iterations", TS_COL_INT, NULL, TS_SHOW_ALL }
#define RC_INIT_S { "init_s", "init (s)", TS_COL_NUM, "%.4g", TS_SHOW_ALL }
#define RC_MEDIAN { "time_median_s", "median/iteration (s)", TS_COL_NUM, "%.4g", TS_SHOW_ALL }
#define RC_MIN { "time_min_s", "min/iteration (s)", TS_COL_NUM, "%.4g", TS_SHOW_ALL }
#define RC_Q1 { "time_q1_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE }
#define RC_Q3 { "time_q3_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE }
#define RC_SPREAD { "spread", "middle half (s)", TS_COL_TEXT, NULL, TS_SHOW_PEOPLE }
#define RC_GBS { "gbs_median", "GB/s", TS_COL_NUM, "%.2f", TS_SHOW_ALL }
#define RC_GLUPS { "glups_median", "GLUP/s", TS_COL_NUM, "%.3f", TS_SHOW_ALL }
#define RC_LOCAL { "local_fraction", "local pages", TS_COL_NUM, "%.3f", TS_SHOW_ALL }
#define RC_IMBALANCE { "imbalance", "imbalance (max/median)", TS_COL_NUM, "%.3f", TS_SHOW_ALL }
#define RC_VERIFIED { "verified", "verified", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_WARNINGS { "warnings", "warnings", TS_COL_INT, NULL, TS_SHOW_ALL }
#define RC_RESULT { "result", "result", TS_COL_NUM, "%.17g", TS_SHOW_ALL }
#define RC_JOB { "job_id", "job", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_DISTURBED { "disturbed", "disturbed", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_DISTURBED_WHY { "disturbed_why", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE }
/* Whether the machine took most of the first touch (common/ts_init_by_machine.h): yes, no or
 * not known, why for programs, and the numbers the rule compared. */
#define RC_INIT_BY_MACHINE { "init_by_machine", "init the machine's", TS_COL_TEXT, NULL, TS_SHOW_ALL }
#define RC_INIT_BY_MACHINE_WHY { "init_by_machine_why", "", TS_COL_TEXT, NULL, TS_SHOW_MACHINE }
#define RC_INIT_NUMBERS                                                              \
    { "init_stall_share", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                   \
    { "init_steal_share", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                   \
    { "init_others_share", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                  \
    { "init_stalls", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE }
/* What the disturbance rule compared (common/ts_disturbed.h), for programs. */
#define RC_MACHINE                                                                   \
    { "switches_per_thread_s", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },              \
    { "wait_share", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                         \
    { "steal_share", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                        \
    { "others_share", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                       \
    { "load_start", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                         \
    { "load_end", "", TS_COL_NUM, NULL, TS_SHOW_MACHINE },                           \
    { "online_cpus", "", TS_COL_INT, NULL, TS_SHOW_MACHINE }
/* clang-format on */

/* Whether some run of n has more than one rank: then the tables show the ranks. */
int ts_runs_with_ranks(const struct ts_run_stats *stats, size_t n);

/* Copies the n columns cols to out (room for n), without RC_RANKS, RC_HOSTS, RC_DECOMP and
 * RC_HALO unless with_ranks; with_ranks, RC_THREADS is titled "threads per rank". Returns how
 * many it copied. */
size_t ts_runs_columns(const struct ts_column *cols, size_t n, int with_ranks, struct ts_column *out);

/* Fills every RC_ column t has for row from run s; -1 when memory ran out. "threads" is the
 * threads of each rank (the run's threads without ranks), "-" when the ranks differ in it. */
int ts_runs_fill(struct ts_table *t, size_t row, const struct ts_run_summary *s, const struct ts_run_stats *st);

/* Sets the cell of column key, when t has it. */
void ts_runs_num(struct ts_table *t, size_t row, const char *key, double v);
int ts_runs_text(struct ts_table *t, size_t row, const char *key, const char *text);

#endif

/* touchstone compare, report, plot and show: read run files, print what they say. */
#ifndef RUNS_CMD_H
#define RUNS_CMD_H

#include "ts_cli_readback.h"
#include "ts_error.h"

/* The runs side by side, grouped into sides (app/run_sides.h) judged against the first side
 * with the spread between runs; disturbed runs flagged. Runs of different kernels or sizes
 * are refused, naming the fields that differ, unless a->force. A lone `vs` argument ends a
 * side. */
int ts_compare_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* One row per run, grouped by configuration and sorted by threads: scaling tables. */
int ts_report_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* Validates the files as compare does, then runs tools/plot.py on them. */
int ts_plot_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* One file's warnings and summary as its run printed them (text), or the reader's fields,
 * summary lines and warnings (json). */
int ts_show_cmd(const struct ts_runs_args *a, struct ts_error *err);

#endif

/* touchstone compare, report and plot: read run files, print what they say side by side. */
#ifndef RUNS_CMD_H
#define RUNS_CMD_H

#include "runs_cli.h"
#include "ts_error.h"

/* The runs side by side, each against the first. Runs of different kernels or sizes are
 * refused, naming the fields that differ, unless a->force. */
int ts_compare_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* One row per run, grouped by configuration and sorted by threads: scaling tables. */
int ts_report_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* Validates the files as compare does, then runs tools/plot.py on them. */
int ts_plot_cmd(const struct ts_runs_args *a, struct ts_error *err);

#endif

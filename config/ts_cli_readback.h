/* Options of the commands that read run files: compare, report, plot and show. */
#ifndef TOUCHSTONE_CONFIG_TS_CLI_READBACK_H
#define TOUCHSTONE_CONFIG_TS_CLI_READBACK_H

#include "ts_error.h"
#include "ts_table.h"

struct ts_runs_args {
    char **files; /* the FILE and DIR arguments, in order (point into argv) */
    int n_files;
    enum ts_table_format format; /* compare, report, show: --format */
    int force;                   /* compare: --force */
    const char *output;          /* plot: -o FILE */
    const char *html;            /* report: --html FILE, the self-contained HTML report instead of the table */
    const char *kind;            /* plot: --kind scaling|init|timeline */
    const char *size;            /* plot: --size WIDTHxHEIGHT in pixels, NULL for the default */
    int overwrite;               /* plot: --overwrite, replace an existing picture (as run's) */
    int help;                    /* --help was given */
};

/* Parses argv[2..] of `touchstone cmd` (cmd is "compare", "report", "plot" or "show"). */
int ts_runs_parse(struct ts_runs_args *a, const char *cmd, int argc, char **argv, struct ts_error *err);

#endif

/* Command-line parsing: turns argv into a command and its options, or an error. */
#ifndef TOUCHSTONE_CONFIG_TS_CLI_H
#define TOUCHSTONE_CONFIG_TS_CLI_H

#include "ts_cli_advise.h"
#include "ts_cli_readback.h"
#include "ts_cli_survey.h"
#include "ts_config.h"
#include "ts_error.h"

enum ts_command {
    TS_CMD_HELP,
    TS_CMD_VERSION,
    TS_CMD_RUN,
    TS_CMD_CHECK,
    TS_CMD_TOPO,
    TS_CMD_COMPARE,
    TS_CMD_REPORT,
    TS_CMD_PLOT,
    TS_CMD_SHOW,
    TS_CMD_ADVISE,
    TS_CMD_SURVEY,
    TS_CMD_KEYS /* check --keys */
};

/* --topology FILE.xml or --synthetic DESC: the machine a command describes instead of this one
 * (topo; advise takes the same two options). app/ hands it to topo/ts_topology_load. */
enum ts_machine_kind { TS_MACHINE_THIS, TS_MACHINE_XML, TS_MACHINE_SYNTHETIC };
struct ts_cli_machine {
    enum ts_machine_kind kind;
    const char *text;   /* the file or the description; NULL for this machine */
    const char *option; /* "--topology" or "--synthetic", for messages; NULL for this machine */
};

/* --format of the commands that print reports. */
enum ts_format { TS_FORMAT_TEXT, TS_FORMAT_JSON };

struct ts_cli {
    enum ts_command command;
    const char *config_path; /* NULL for topo without a CONFIG */
    /* Options that override config keys, in the order given; each is "section.key=value"
     * (--serial-init, --threads and -o are shorthands for such overrides). */
    const char *overrides[TS_CONFIG_MAX_SETS];
    /* The option each override was typed as, for messages ("--threads", "-o"); NULL for --set. */
    const char *override_options[TS_CONFIG_MAX_SETS];
    char shorthand[TS_CONFIG_MAX_SETS][1100]; /* storage for overrides built from shorthands */
    int n_overrides;
    int quiet;
    const char *restart_path; /* run or check --restart CKPT, NULL otherwise */
    enum ts_format format;
    int threads;                   /* topo --threads N; 0: as openmp.threads, OMP_NUM_THREADS or the runtime decides */
    int all_ranks;                 /* topo --all-ranks: list every rank's threads, not the first ranks' */
    struct ts_cli_machine machine; /* topo --topology / --synthetic; TS_MACHINE_THIS without them */
    struct ts_runs_args runs;      /* compare, report, plot, show */
    struct ts_advise_args advise;
    struct ts_survey_args survey;
};

int ts_cli_parse(struct ts_cli *cli, int argc, char **argv, struct ts_error *err);

/* The --help text, part by part (0, 1, ...) until NULL. */
const char *ts_cli_usage(int part);

#endif

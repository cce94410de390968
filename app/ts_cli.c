#include "ts_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: touchstone run CONFIG [--serial-init] [--threads N] [--set section.key=value ...]\n"
    "                         [-o FILE] [--quiet]\n"
    "       touchstone check CONFIG [--set section.key=value ...]\n"
    "       touchstone --help | --version\n"
    "\n"
    "  run     run the configured kernel, verify it, write one HDF5 file\n"
    "  check   validate CONFIG, print the resolved configuration and the memory it needs\n"
    "\n"
    "  --serial-init      first-touch every array from one thread (same as --set init.mode=serial)\n"
    "  --threads N        OpenMP threads (same as --set openmp.threads=N)\n"
    "  --set S.K=V        override config key K of section S (repeatable)\n"
    "  -o, --output FILE  output file (same as --set output.file=FILE; %k %i %j %t expand)\n"
    "  -q, --quiet        print only warnings and errors\n"
    "\n"
    "exit status: 0 verified run, 1 run finished but verification failed,\n"
    "             2 bad usage, bad config, or a run that could not start\n";

const char *ts_cli_usage(void)
{
    return usage;
}

static int add_override(struct ts_cli *cli, const char *key, const char *value, struct ts_error *err)
{
    if (cli->n_overrides >= TS_CONFIG_MAX_SETS)
        return ts_fail(err, TS_BAD_INPUT, "too many overrides (at most %d --set, --threads, -o, --serial-init)",
                       TS_CONFIG_MAX_SETS);
    int i = cli->n_overrides++;
    if (key) {
        int n = snprintf(cli->shorthand[i], sizeof cli->shorthand[i], "%s=%s", key, value);
        if (n < 0 || (size_t)n >= sizeof cli->shorthand[i])
            return ts_fail(err, TS_BAD_INPUT, "value of %s is too long (%zu bytes)", key, strlen(value));
        cli->overrides[i] = cli->shorthand[i];
    } else {
        cli->overrides[i] = value;
    }
    return TS_OK;
}

int ts_cli_parse(struct ts_cli *cli, int argc, char **argv, struct ts_error *err)
{
    memset(cli, 0, sizeof *cli);
    if (argc < 2)
        return ts_fail(err, TS_BAD_INPUT, "no command given\n%s", usage);

    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli->command = TS_CMD_HELP;
        return TS_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        cli->command = TS_CMD_VERSION;
        return TS_OK;
    }
    if (strcmp(cmd, "run") == 0)
        cli->command = TS_CMD_RUN;
    else if (strcmp(cmd, "check") == 0)
        cli->command = TS_CMD_CHECK;
    else
        return ts_fail(err, TS_BAD_INPUT, "unknown command '%s' (commands: run, check; see touchstone --help)", cmd);

    enum { OPT_SERIAL_INIT = 256, OPT_THREADS, OPT_SET };
    static const struct option run_options[] = {
        {"serial-init", no_argument, NULL, OPT_SERIAL_INIT},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"set", required_argument, NULL, OPT_SET},
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const struct option check_options[] = {
        {"set", required_argument, NULL, OPT_SET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const struct option *options = cli->command == TS_CMD_RUN ? run_options : check_options;
    /* GNU getopt permutes argv, so options may come before or after CONFIG. */
    const char *short_options = cli->command == TS_CMD_RUN ? ":o:qh" : ":h";

    /* getopt would print its own messages; errors are reported through err instead. */
    opterr = 0;
    optind = 2;
    int c;
    while ((c = getopt_long(argc, argv, short_options, options, NULL)) != -1) {
        int status = TS_OK;
        switch (c) {
        case OPT_SERIAL_INIT:
            status = add_override(cli, "init.mode", "serial", err);
            break;
        case OPT_THREADS:
            status = add_override(cli, "openmp.threads", optarg, err);
            break;
        case OPT_SET:
            status = add_override(cli, NULL, optarg, err);
            break;
        case 'o':
            status = add_override(cli, "output.file", optarg, err);
            break;
        case 'q':
            cli->quiet = 1;
            break;
        case 'h':
            cli->command = TS_CMD_HELP;
            return TS_OK;
        case ':':
            return ts_fail(err, TS_BAD_INPUT, "%s: option '%s' needs a value", cmd, argv[optind - 1]);
        default:
            return ts_fail(err, TS_BAD_INPUT, "%s: unknown option '%s' (see touchstone --help)", cmd,
                           argv[optind - 1]);
        }
        if (status != TS_OK)
            return status;
    }

    if (optind >= argc)
        return ts_fail(err, TS_BAD_INPUT, "%s: missing CONFIG file argument (see touchstone --help)", cmd);
    cli->config_path = argv[optind++];
    if (optind < argc)
        return ts_fail(err, TS_BAD_INPUT, "%s: unexpected argument '%s' (one CONFIG file only)", cmd,
                       argv[optind]);
    return TS_OK;
}

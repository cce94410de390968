/* The one place that prints errors and chooses the exit status. */
#include <stdio.h>

#include "runs_cmd.h"
#include "topo_cmd.h"
#include "ts_binding.h"
#include "ts_cli.h"
#include "ts_config.h"
#include "ts_error.h"
#include "ts_run.h"

static int load_config(struct ts_config *cfg, const struct ts_cli *cli, struct ts_error *err)
{
    ts_config_defaults(cfg);
    int status = ts_config_load(cfg, cli->config_path, err);
    for (int i = 0; status == TS_OK && i < cli->n_overrides; i++)
        status = ts_config_set(cfg, cli->overrides[i], err);
    if (status == TS_OK)
        status = ts_config_validate(cfg, err);
    return status;
}

int main(int argc, char **argv)
{
    struct ts_error err;
    ts_error_clear(&err);
    struct ts_cli cli;
    struct ts_config cfg;
    ts_config_defaults(&cfg);

    int status = ts_cli_parse(&cli, argc, argv, &err);
    if (status == TS_OK) {
        switch (cli.command) {
        case TS_CMD_HELP:
            fputs(ts_cli_usage(), stdout);
            break;
        case TS_CMD_VERSION:
            printf("touchstone %s\n", TS_VERSION);
            break;
        case TS_CMD_CHECK:
            status = load_config(&cfg, &cli, &err);
            if (status == TS_OK)
                status = ts_check(&cfg, &err);
            break;
        case TS_CMD_TOPO:
            status = ts_topo_cmd(cli.format, cli.threads, &err);
            break;
        case TS_CMD_COMPARE:
            status = ts_compare_cmd(&cli.runs, &err);
            break;
        case TS_CMD_REPORT:
            status = ts_report_cmd(&cli.runs, &err);
            break;
        case TS_CMD_PLOT:
            status = ts_plot_cmd(&cli.runs, &err);
            break;
        case TS_CMD_SHOW:
            status = ts_show_cmd(&cli.runs, &err);
            break;
        case TS_CMD_RUN: {
            struct ts_binding_choice binding;
            status = load_config(&cfg, &cli, &err);
            if (status == TS_OK)
                status = ts_binding_apply(&cfg, argv, &binding, &err);
            if (status == TS_OK)
                status = ts_run(&cfg, &binding, &cli, argc, argv, &err);
            break;
        }
        }
    }

    if (status == TS_BAD_INPUT)
        fprintf(stderr, "touchstone: error: %s\n", err.message);
    ts_config_free(&cfg);
    return status;
}

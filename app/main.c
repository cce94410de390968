/* The one place that prints errors and chooses the exit status (ts_exit_status). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "build_info.h"
#include "commands.h"
#include "launch.h"
#include "same_job.h"
#include "start_clock.h"
#include "startup.h"
#include "ts_cli.h"
#include "ts_config.h"
#include "ts_error.h"

/* Adds the error in more to those in err (status: the first's), each on a line of its own. */
static int also(struct ts_error *err, int status, const struct ts_error *more)
{
    if (status == TS_OK) {
        *err = *more;
        return more->status;
    }
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, "\n  %s", more->message);
    return status;
}

static int load_config(struct ts_config *cfg, const struct ts_cli *cli, struct ts_error *err)
{
    ts_config_defaults(cfg);
    /* After the binding re-exec the text is the one the first pass read, not the file again. */
    char *text;
    size_t len;
    int status = ts_binding_take_config(&text, &len, err);
    if (status == TS_OK)
        status = text ? ts_config_load_text(cfg, cli->config_path, text, len, err)
                      : ts_config_load(cfg, cli->config_path, err);
    free(text);
    /* Every error at once: the file's (all of them), then each --set's. */
    for (int i = 0; i < cli->n_overrides; i++) {
        struct ts_error e;
        ts_error_clear(&e);
        if (ts_config_set_option(cfg, cli->overrides[i], cli->override_options[i], &e) != TS_OK)
            status = also(err, status, &e);
    }
    if (status == TS_OK)
        status = ts_config_validate(cfg, err);
    if (status == TS_OK) /* values the OpenMP runtime would refuse and ignore (app/omp_env.h) */
        status = ts_binding_check_config(cfg, err);
    return status;
}

int main(int argc, char **argv)
{
    ts_start_clock_at_main();
    ts_binding_take_early(); /* before anything reads OMP_PLACES or OMP_PROC_BIND */
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_startup(&err);
    static struct ts_cli cli; /* static: ~150 KB that a small ulimit -s cannot hold */
    static struct ts_config cfg;
    static struct ts_launch launch; /* MPI, started only under a launcher and only once bound */
    /* cfg gets its defaults in load_config, the only way in; zeroed it is ts_config_free's to
     * take (filling 80 KiB twice was a tenth of a millisecond of every start). */

    if (status == TS_OK)
        status = ts_cli_parse(&cli, argc, argv, &err);
    if (status == TS_OK)
        status = ts_startup_command(cli.command, &err);
    if (status == TS_OK) {
        switch (cli.command) {
        case TS_CMD_HELP:
            /* The failing write's errno, which a later flush no longer has (ulimit -f, a full disk). */
            for (int part = 0; ts_cli_usage(part) && status == TS_OK; part++)
                if (fputs(ts_cli_usage(part), stdout) == EOF)
                    status = ts_fail_errno(&err, TS_IO_ERROR, errno ? errno : EIO, "cannot write to standard output");
            break;
        case TS_CMD_VERSION:
            if (ts_build_info_print(stdout) == EOF)
                status = ts_fail_errno(&err, TS_IO_ERROR, errno ? errno : EIO, "cannot write to standard output");
            break;
        case TS_CMD_CHECK:
            status = load_config(&cfg, &cli, &err);
            if (status == TS_OK)
                status = ts_launch_start(&launch, &err);
            if (status == TS_OK) /* before any allocation: the ranks hold one job */
                status = ts_same_job_check(&cfg, &cli, &launch, &err);
            if (status == TS_OK)
                status = ts_check_cmd(&cfg, &cli, &launch, &err);
            break;
        case TS_CMD_KEYS: status = ts_check_keys_cmd(&err); break;
        case TS_CMD_TOPO: {
            /* With a CONFIG, bound exactly as run binds it (the same re-execution). */
            struct ts_binding_choice binding;
            if (cli.config_path) {
                status = load_config(&cfg, &cli, &err);
                if (status == TS_OK)
                    status = ts_binding_apply(&cfg, argv, &binding, &err);
            }
            if (status == TS_OK)
                status = ts_launch_start(&launch, &err);
            if (status == TS_OK)
                status = ts_topo_cmd(cli.format, cli.threads, cli.all_ranks, cli.config_path ? &cfg : NULL,
                                     cli.config_path ? &binding : NULL, &launch.dist, &cli.machine, &err);
            break;
        }
        case TS_CMD_ADVISE:
            status = ts_launch_start(&launch, &err);
            if (status == TS_OK)
                status = ts_advise_cmd(&cli.advise, &launch.dist, &err);
            break;
        case TS_CMD_SURVEY: status = ts_survey_cmd(&cli.survey, argc, argv, &err); break;
        case TS_CMD_COMPARE: status = ts_compare_cmd(&cli.runs, &err); break;
        case TS_CMD_REPORT: status = ts_report_cmd(&cli.runs, &err); break;
        case TS_CMD_PLOT: status = ts_plot_cmd(&cli.runs, &err); break;
        case TS_CMD_SHOW: status = ts_show_cmd(&cli.runs, &err); break;
        case TS_CMD_RUN: {
            struct ts_binding_choice binding;
            status = load_config(&cfg, &cli, &err);
            if (status == TS_OK)
                status = ts_binding_apply(&cfg, argv, &binding, &err);
            if (status == TS_OK)
                status = ts_launch_start(&launch, &err);
            if (status == TS_OK)
                status = ts_same_job_check(&cfg, &cli, &launch, &err);
            if (status == TS_OK)
                status = ts_run_cmd(&cfg, &binding, &cli, &launch, argc, argv, &err);
            break;
        }
        }
    }

    status = ts_startup_finish(status, &err);
    /* Under a launcher (app/launch.h): MPI finalised, unless this rank failed alone; then the
     * message comes first, and MPI_Abort ends the job rather than leave the others waiting. */
    status = ts_launch_finish(&launch, status, &err);
    char rank[320];
    const char *who = ts_launch_who(&launch, rank, sizeof rank);
    if ((ts_status_is_error(status) || err.status != TS_OK) && who)
        fprintf(stderr, "touchstone: error: %s%s\n", who, err.message);
    ts_config_free(&cfg);
    ts_launch_abort(&launch, ts_exit_status(status));
    return ts_launch_exit_status(&launch, status);
}

/* The command line: the input is argv after the program name, one argument per NUL-separated
 * piece ("run\0configs/x.ini\0--set\0stencil.nx=64"). Every parse must end in a command or an
 * error with a message, the same one for the same argv whatever was parsed before (the
 * parser's getopt state is process-wide), and the overrides it collects must apply to a
 * config without crashing. */
#include <string.h>

#include "fuzz_util.h"
#include "ts_cli.h"
#include "ts_config.h"

enum { MAX_ARGS = 160 };

/* argv with every argument in an allocation of its own, so that reading past one is caught. */
static int make_argv(const uint8_t *data, size_t size, char **argv)
{
    int argc = 0;
    argv[argc++] = strdup("touchstone");
    for (size_t at = 0; at < size && argc < MAX_ARGS;) {
        const uint8_t *end = memchr(data + at, '\0', size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        char *arg = malloc(len + 1);
        memcpy(arg, data + at, len);
        arg[len] = '\0';
        argv[argc++] = arg;
        at += len + 1;
    }
    argv[argc] = NULL;
    return argc;
}

static void free_argv(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
}

/* The parse as plain values: pointers into argv become the strings they point to. */
static void describe(const struct ts_cli *cli, int status, const struct ts_error *err, char *buf, size_t size)
{
    int used = snprintf(buf, size,
                        "status %d cmd %d quiet %d format %d threads %d config %s restart %s files %d "
                        "rformat %d force %d out %s kind %s size %s help %d err %s |",
                        status, (int)cli->command, cli->quiet, (int)cli->format, cli->threads,
                        cli->config_path ? cli->config_path : "-", cli->restart_path ? cli->restart_path : "-",
                        cli->runs.n_files, (int)cli->runs.format, cli->runs.force,
                        cli->runs.output ? cli->runs.output : "-", cli->runs.kind ? cli->runs.kind : "-",
                        cli->runs.size ? cli->runs.size : "-", cli->runs.help, status ? err->message : "");
    for (int i = 0; i < cli->n_overrides && used > 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - (size_t)used, " %s", cli->overrides[i]);
    for (int i = 0; i < cli->runs.n_files && used > 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - (size_t)used, " f:%s", cli->runs.files[i]);
}

static void check_parse(const struct ts_cli *cli, int status, const struct ts_error *err)
{
    if (status != TS_OK) {
        FUZZ_CHECK(status == TS_BAD_INPUT, "status %d", status);
        FUZZ_CHECK(err->message[0] != '\0', "an error without a message");
        return;
    }
    FUZZ_CHECK(cli->n_overrides >= 0 && cli->n_overrides <= TS_CONFIG_MAX_SETS, "%d overrides", cli->n_overrides);
    for (int i = 0; i < cli->n_overrides; i++) {
        FUZZ_CHECK(cli->overrides[i] != NULL, "override %d is NULL", i);
        /* An option that stands for an override is named in its errors; --set is not one. */
        FUZZ_CHECK(!cli->override_options[i] || cli->override_options[i][0] == '-', "override %d as '%s'", i,
                   cli->override_options[i]);
    }
    if (cli->command == TS_CMD_RUN || cli->command == TS_CMD_CHECK)
        FUZZ_CHECK(cli->config_path != NULL, "run or check without a CONFIG");
    if (cli->command == TS_CMD_TOPO) {
        FUZZ_CHECK(cli->threads >= 0 && cli->threads <= 4096, "topo --threads %d", cli->threads);
        FUZZ_CHECK(cli->n_overrides == 0 || cli->config_path != NULL, "topo --set without a CONFIG");
    }
    if (cli->command == TS_CMD_COMPARE)
        FUZZ_CHECK(cli->runs.n_files >= 2, "compare of %d files", cli->runs.n_files);
    if (cli->command == TS_CMD_PLOT)
        FUZZ_CHECK(cli->runs.output != NULL, "plot without -o");
}

/* What main.c does next with run, check and topo: the overrides onto the defaults. */
static void apply_overrides(const struct ts_cli *cli)
{
    static struct ts_config cfg; /* 80 KiB: static rather than on the stack */
    ts_config_defaults(&cfg);
    struct ts_error err;
    ts_error_clear(&err);
    int status = TS_OK;
    for (int i = 0; status == TS_OK && i < cli->n_overrides; i++)
        status = ts_config_set_option(&cfg, cli->overrides[i], cli->override_options[i], &err);
    if (status == TS_OK)
        status = ts_config_validate(&cfg, &err);
    FUZZ_CHECK(status == TS_OK || (status == TS_BAD_INPUT && err.message[0]), "override status %d", status);
    ts_config_free(&cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ts_cli cli; /* 70 KiB of shorthand storage */
    static char first[8192], second[8192];
    char *argv[MAX_ARGS + 1];
    struct ts_error err;

    /* Twice, each on a fresh argv (getopt permutes it): the same answer both times. */
    int argc = make_argv(data, size, argv);
    ts_error_clear(&err);
    int status = ts_cli_parse(&cli, argc, argv, &err);
    check_parse(&cli, status, &err);
    describe(&cli, status, &err, first, sizeof first);
    fuzz_note("cli: %s", first);
    if (status == TS_OK && (cli.command == TS_CMD_RUN || cli.command == TS_CMD_CHECK || cli.command == TS_CMD_TOPO))
        apply_overrides(&cli);
    free_argv(argc, argv);

    argc = make_argv(data, size, argv);
    ts_error_clear(&err);
    status = ts_cli_parse(&cli, argc, argv, &err);
    describe(&cli, status, &err, second, sizeof second);
    FUZZ_CHECK(strcmp(first, second) == 0, "the same argv parsed differently the second time:\n  %s\n  %s", first,
               second);
    free_argv(argc, argv);
    return 0;
}

#include "ts_cli_readback.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum { OPT_FORMAT = 256, OPT_FORCE, OPT_KIND, OPT_SIZE, OPT_HTML, OPT_OVERWRITE };

static const char *const plot_kinds[] = { "scaling", "init", "timeline" };

static int parse_kind(struct ts_runs_args *a, const char *value, struct ts_error *err)
{
    for (size_t i = 0; i < sizeof plot_kinds / sizeof plot_kinds[0]; i++)
        if (strcmp(value, plot_kinds[i]) == 0) {
            a->kind = plot_kinds[i];
            return TS_OK;
        }
    return ts_fail(err, TS_BAD_INPUT, "plot: unknown --kind '%s' (kinds: scaling, init, timeline)", value);
}

/* Pixels; matplotlib makes what is asked for, so only nonsense is refused. */
static int parse_size(struct ts_runs_args *a, const char *value, struct ts_error *err)
{
    unsigned w = 0, h = 0;
    char end = 0;
    if (sscanf(value, "%ux%u%c", &w, &h, &end) != 2 || w < 200 || h < 150 || w > 8000 || h > 8000)
        return ts_fail(err, TS_BAD_INPUT, "plot: --size %s: expected WIDTHxHEIGHT in pixels, 200x150 to 8000x8000",
                       value);
    a->size = value;
    return TS_OK;
}

static int check_counts(struct ts_runs_args *a, const char *cmd, struct ts_error *err)
{
    int is_compare = strcmp(cmd, "compare") == 0, is_plot = strcmp(cmd, "plot") == 0;
    if (strcmp(cmd, "show") == 0) {
        if (a->n_files != 1)
            return ts_fail(err, TS_BAD_INPUT, "show: needs one run file%s (see touchstone --help)",
                           a->n_files ? ", not several" : "");
        return TS_OK;
    }
    if (a->n_files < (is_compare ? 2 : 1))
        return ts_fail(err, TS_BAD_INPUT, "%s: needs %s (see touchstone --help)", cmd,
                       is_compare ? "at least two run files, the first is the reference" : "run files or a directory");
    if (is_plot && !a->output)
        return ts_fail(err, TS_BAD_INPUT, "plot: missing -o FILE.png (see touchstone --help)");
    return TS_OK;
}

int ts_runs_parse(struct ts_runs_args *a, const char *cmd, int argc, char **argv, struct ts_error *err)
{
    memset(a, 0, sizeof *a);
    a->kind = plot_kinds[0];
    static const struct option compare_options[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "force", no_argument, NULL, OPT_FORCE },
        { "html", required_argument, NULL, OPT_HTML },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const struct option plot_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "kind", required_argument, NULL, OPT_KIND },
        { "size", required_argument, NULL, OPT_SIZE },
        { "overwrite", no_argument, NULL, OPT_OVERWRITE },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int is_plot = strcmp(cmd, "plot") == 0;
    /* report shares compare's table; its --force is refused below, as --html is for compare and show. */
    const struct option *options = is_plot ? plot_options : compare_options;
    opterr = 0;
    /* getopt sees the arguments after the command, with the command as its argv[0]. optind = 0
     * starts glibc's getopt afresh: a parse that stopped inside "-qx" leaves state behind that
     * optind = 2 would not clear (tests/fuzz/regressions/cli). */
    argc--;
    argv++;
    optind = 0;
    int c, format_given = 0;
    while ((c = getopt_long(argc, argv, is_plot ? ":o:h" : ":h", options, NULL)) != -1) {
        int st = TS_OK;
        switch (c) {
        case OPT_FORMAT:
            format_given = 1;
            if (ts_table_format_parse(optarg, &a->format) != 0
                || (strcmp(cmd, "show") == 0 && a->format != TS_TABLE_TEXT && a->format != TS_TABLE_JSON))
                st = ts_fail(err, TS_BAD_INPUT, "%s: unknown --format '%s' (formats: %s)", cmd, optarg,
                             strcmp(cmd, "show") == 0 ? "text, json" : "text, csv, json, markdown");
            break;
        case OPT_FORCE:
            if (strcmp(cmd, "compare") == 0) {
                a->force = 1;
                break;
            }
            st = ts_fail(err, TS_BAD_INPUT, "%s: unknown option '--force' (only compare refuses runs)", cmd);
            break;
        case OPT_HTML:
            if (strcmp(cmd, "report") == 0) {
                a->html = optarg;
                break;
            }
            st = ts_fail(err, TS_BAD_INPUT, "%s: unknown option '--html' (touchstone report --html FILE writes one)",
                         cmd);
            break;
        case OPT_KIND: st = parse_kind(a, optarg, err); break;
        case OPT_SIZE: st = parse_size(a, optarg, err); break;
        case OPT_OVERWRITE: a->overwrite = 1; break;
        case 'o': a->output = optarg; break;
        case 'h': a->help = 1; return TS_OK;
        case ':': st = ts_fail(err, TS_BAD_INPUT, "%s: option '%s' needs a value", cmd, argv[optind - 1]); break;
        default:
            st = ts_fail(err, TS_BAD_INPUT, "%s: unknown option '%s' (see touchstone --help)", cmd, argv[optind - 1]);
            break;
        }
        if (st != TS_OK)
            return st;
    }
    if (a->html && format_given)
        return ts_fail(err, TS_BAD_INPUT,
                       "report: --html writes the HTML report, --format prints the table: one or the "
                       "other");
    a->files = argv + optind;
    a->n_files = argc - optind;
    return check_counts(a, cmd, err);
}

#include "ts_cli_survey.h"

#include <getopt.h>
#include <string.h>

enum { OPT_QUICK = 256, OPT_FULL, OPT_DUMP, OPT_HTML, OPT_SECTIONS };

int ts_survey_parse(struct ts_survey_args *a, int argc, char **argv, struct ts_error *err)
{
    memset(a, 0, sizeof *a);
    static const struct option options[] = {
        { "quick", no_argument, NULL, OPT_QUICK },  { "full", no_argument, NULL, OPT_FULL },
        { "output", required_argument, NULL, 'o' }, { "dump", no_argument, NULL, OPT_DUMP },
        { "html", no_argument, NULL, OPT_HTML },    { "sections", required_argument, NULL, OPT_SECTIONS },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    argc--;
    argv++;
    optind = 0; /* glibc's getopt afresh (see ts_cli.c) */
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", options, NULL)) != -1) {
        switch (c) {
        case OPT_QUICK:
        case OPT_FULL: {
            enum ts_survey_mode m = c == OPT_QUICK ? TS_SURVEY_MODE_QUICK : TS_SURVEY_MODE_FULL;
            if (a->mode != TS_SURVEY_MODE_UNSET && a->mode != m)
                return ts_fail(err, TS_BAD_INPUT, "survey: --quick and --full both given: give one");
            a->mode = m;
            break;
        }
        case 'o':
            if (optarg[0] == '\0')
                return ts_fail(err, TS_BAD_INPUT, "survey: -o needs a folder, got an empty name");
            a->dir = optarg;
            break;
        case OPT_DUMP: a->dump = 1; break;
        case OPT_HTML: a->html = 1; break;
        case OPT_SECTIONS: a->sections = optarg; break;
        case 'h': a->help = 1; return TS_OK;
        case ':': return ts_fail(err, TS_BAD_INPUT, "survey: option '%s' needs a value", argv[optind - 1]);
        default:
            return ts_fail(err, TS_BAD_INPUT, "survey: unknown option '%s' (see touchstone --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return ts_fail(err, TS_BAD_INPUT, "survey: unexpected argument '%s' (the folder goes after -o)", argv[optind]);
    if (a->dump && a->html)
        return ts_fail(err, TS_BAD_INPUT,
                       "survey: --dump prints the survey file, --html writes its report: one or the other "
                       "(touchstone report --html OUT.html DIR reports a survey without resuming it)");
    if (a->dump && a->sections)
        return ts_fail(err, TS_BAD_INPUT, "survey: --dump runs nothing: without --sections");
    if (a->dump && a->mode != TS_SURVEY_MODE_UNSET)
        return ts_fail(err, TS_BAD_INPUT,
                       "survey: --dump reads the survey in the folder and runs nothing: without "
                       "--quick or --full");
    return TS_OK;
}

#include "ts_cli_advise.h"

#include <getopt.h>
#include <string.h>

#include "ts_config_values.h"

enum { OPT_RANKS = 256, OPT_THREADS, OPT_SMT, OPT_SLURM, OPT_CHECK, OPT_FORMAT, OPT_TOPOLOGY, OPT_SYNTHETIC };

/* At most as many as hwloc could describe on one node; 0 is "as the job implies" only by
 * leaving the option out. */
static int count(const char *option, const char *value, int *out, struct ts_error *err)
{
    int64_t n = 0;
    const char *problem = ts_parse_int(value, &n);
    if (!problem && (n < 1 || n > 65536))
        problem = "out of range";
    if (problem)
        return ts_fail(err, TS_BAD_INPUT, "advise: %s %s: %s, must be 1..65536", option, value, problem);
    *out = (int)n;
    return TS_OK;
}

static int format(struct ts_advise_args *a, const char *value, struct ts_error *err)
{
    if (strcmp(value, "text") != 0 && strcmp(value, "json") != 0)
        return ts_fail(err, TS_BAD_INPUT, "advise: unknown --format '%s' (formats: text, json)", value);
    a->json = value[0] == 'j';
    return TS_OK;
}

int ts_advise_parse(struct ts_advise_args *a, int argc, char **argv, struct ts_error *err)
{
    memset(a, 0, sizeof *a);
    static const struct option options[] = {
        { "ranks", required_argument, NULL, OPT_RANKS },
        { "threads", required_argument, NULL, OPT_THREADS },
        { "smt", no_argument, NULL, OPT_SMT },
        { "slurm", no_argument, NULL, OPT_SLURM },
        { "check", no_argument, NULL, OPT_CHECK },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "topology", required_argument, NULL, OPT_TOPOLOGY },
        { "synthetic", required_argument, NULL, OPT_SYNTHETIC },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    argc--;
    argv++;
    optind = 0; /* glibc's getopt afresh (see ts_cli.c) */
    int c;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        int status = TS_OK;
        switch (c) {
        case OPT_RANKS: status = count("--ranks", optarg, &a->ranks, err); break;
        case OPT_THREADS: status = count("--threads", optarg, &a->threads, err); break;
        case OPT_SMT: a->smt = 1; break;
        case OPT_SLURM: a->slurm = 1; break;
        case OPT_CHECK: a->check = 1; break;
        case OPT_FORMAT: status = format(a, optarg, err); break;
        case OPT_TOPOLOGY: a->topology = optarg; break;
        case OPT_SYNTHETIC: a->synthetic = optarg; break;
        case 'h': a->help = 1; return TS_OK;
        case ':': return ts_fail(err, TS_BAD_INPUT, "advise: option '%s' needs a value", argv[optind - 1]);
        default:
            return ts_fail(err, TS_BAD_INPUT, "advise: unknown option '%s' (see touchstone --help)", argv[optind - 1]);
        }
        if (status != TS_OK)
            return status;
    }
    if (optind < argc)
        return ts_fail(err, TS_BAD_INPUT, "advise: unexpected argument '%s'", argv[optind]);
    if (a->topology && a->synthetic)
        return ts_fail(err, TS_BAD_INPUT, "advise: --topology and --synthetic both describe the node: give one");
    if (a->check && (a->topology || a->synthetic))
        return ts_fail(err, TS_BAD_INPUT,
                       "advise: --check judges the job running here, on this machine: without --topology or "
                       "--synthetic");
    return TS_OK;
}
